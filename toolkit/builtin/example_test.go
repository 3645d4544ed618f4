package builtin_test

import (
	"fmt"

	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
)

// The built-in file tools, in the basic group, and the task tools in a
// group of their own that the model activates when it needs them.
func ExampleRegister() {
	tk := toolkit.New(toolkit.Options{})
	if err := tk.AddGroup(toolkit.Group{Name: "tasks", Description: "Keep a task list"}); err != nil {
		panic(err)
	}
	err := builtin.Register(tk, builtin.Options{
		Enable: []string{"Read", "Write", "Edit", "TaskCreate", "TaskList"},
		Groups: map[string]string{"TaskCreate": "tasks", "TaskList": "tasks"},
	})
	if err != nil {
		panic(err)
	}
	for _, ti := range tk.Tools() {
		fmt.Println(ti.Group, ti.Spec.Name)
	}

	err = builtin.Register(toolkit.New(toolkit.Options{}), builtin.Options{Disable: []string{"Cat"}})
	fmt.Println(err)
	// Output:
	// basic Read
	// basic Write
	// basic Edit
	// tasks TaskCreate
	// tasks TaskList
	// basic reset_tools
	// builtin: Disable names "Cat", which is not a built-in tool; the built-in tools are Bash, PowerShell, Read, Write, Edit, Glob, Grep, TaskCreate, TaskGet, TaskList, TaskUpdate, TodoWrite, AskUser
}
