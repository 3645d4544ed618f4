package builtin_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

func TestRegister(t *testing.T) {
	shell, otherShell := builtin.BashName, builtin.PowerShellName
	if builtin.IsWindows() {
		shell, otherShell = otherShell, shell
	}
	defaults := slices.DeleteFunc(builtin.Names(), func(n string) bool { return n == otherShell })
	tests := []struct {
		name   string
		groups []string // added to the toolkit first
		opts   builtin.Options
		want   map[string]string // tool -> group; nil when Register fails
		err    string
	}{
		{name: "all by default, in the basic group", want: groupOf(defaults, toolkit.BasicGroup, nil)},
		{name: "enable", opts: builtin.Options{Enable: []string{"Read", "Glob", "Grep"}},
			want: map[string]string{"Read": toolkit.BasicGroup, "Glob": toolkit.BasicGroup, "Grep": toolkit.BasicGroup}},
		{name: "both shells", opts: builtin.Options{Enable: []string{"Bash", "PowerShell"}},
			want: map[string]string{"Bash": toolkit.BasicGroup, "PowerShell": toolkit.BasicGroup}},
		{name: "disable", opts: builtin.Options{Disable: []string{shell, "Write", "Edit", "AskUser"}},
			want: groupOf(defaults, toolkit.BasicGroup, []string{shell, "Write", "Edit", "AskUser"})},
		{name: "enable and disable", opts: builtin.Options{Enable: []string{"Read", "Write"}, Disable: []string{"Write"}},
			want: map[string]string{"Read": toolkit.BasicGroup}},
		{name: "one group", groups: []string{"files"}, opts: builtin.Options{Group: "files", Enable: []string{"Read", "Edit"}},
			want: map[string]string{"Read": "files", "Edit": "files"}},
		{name: "groups per tool", groups: []string{"shell", "tasks"},
			opts: builtin.Options{Enable: []string{"Bash", "PowerShell", "Read", "TaskList"}, Group: "tasks",
				Groups: map[string]string{"Bash": "shell", "PowerShell": "shell", "Read": toolkit.BasicGroup}},
			want: map[string]string{"Bash": "shell", "PowerShell": "shell", "Read": toolkit.BasicGroup, "TaskList": "tasks"}},
		{name: "unknown name in Enable", opts: builtin.Options{Enable: []string{"Read", "Cat"}},
			err: `Enable names "Cat", which is not a built-in tool; the built-in tools are Bash, PowerShell, Read, Write, Edit, Glob, Grep, TaskCreate, TaskGet, TaskList, TaskUpdate, TodoWrite, AskUser`},
		{name: "unknown name in Disable", opts: builtin.Options{Disable: []string{"bash"}}, err: `Disable names "bash"`},
		{name: "unknown name in Groups", opts: builtin.Options{Groups: map[string]string{"Shell": "x"}}, err: `Groups names "Shell"`},
		{name: "missing group", opts: builtin.Options{Group: "files"}, err: `group "files" does not exist: add it with AddGroup first`},
		{name: "missing group of one tool", groups: []string{"files"},
			opts: builtin.Options{Group: "files", Groups: map[string]string{"Grep": "search"}}, err: `group "search" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var changes []toolkit.Change
			tk := toolkit.New(toolkit.Options{OnChange: func(c toolkit.Change) { changes = append(changes, c) }})
			for _, g := range tt.groups {
				if err := tk.AddGroup(toolkit.Group{Name: g, Description: g}); err != nil {
					t.Fatal(err)
				}
			}
			changes = nil
			err := builtin.Register(tk, tt.opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one saying %q", err, tt.err)
				}
				if n := len(tk.Tools()); n > 1 { // reset_tools at most
					t.Errorf("a failed Register left %d tools", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			var order []string
			for _, ti := range tk.Tools() {
				if ti.Spec.Name != "reset_tools" {
					got[ti.Spec.Name] = ti.Group
					order = append(order, ti.Spec.Name)
				}
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("registered %v, want %v", got, tt.want)
			}
			if !slices.IsSortedFunc(order, func(a, b string) int {
				return slices.Index(builtin.Names(), a) - slices.Index(builtin.Names(), b)
			}) {
				t.Errorf("order %v is not Names' order", order)
			}
			if len(changes) != 1 || len(changes[0].Added) != len(tt.want) {
				t.Errorf("listeners saw %+v, want one change adding %d tools", changes, len(tt.want))
			}
		})
	}
}

// TestRegisterOptions: each tool gets its own options: Bash runs in its
// Cwd, Glob searches its own.
func TestRegisterOptions(t *testing.T) {
	if builtin.IsWindows() {
		t.Skip("Bash is not registered by default on Windows")
	}
	shellDir, globDir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(globDir, "found.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass}})
	err := builtin.Register(tk, builtin.Options{
		Bash: builtin.BashOptions{Cwd: shellDir},
		Glob: builtin.GlobOptions{Cwd: globDir},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := toolkittest.Call(t, tk, "s", "Bash", map[string]any{"command": "pwd"}); !strings.Contains(r.Text(), shellDir) {
		t.Errorf("Bash ran in %q, want %s", r.Text(), shellDir)
	}
	if r := toolkittest.Call(t, tk, "s", "Glob", map[string]any{"pattern": "*.txt"}); !strings.Contains(r.Text(), "found.txt") {
		t.Errorf("Glob found %q, want found.txt in %s", r.Text(), globDir)
	}
}

func groupOf(names []string, group string, except []string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		if !slices.Contains(except, n) {
			m[n] = group
		}
	}
	return m
}

func TestChooses(t *testing.T) {
	tests := []struct {
		opts builtin.Options
		name string
		want bool
	}{
		{builtin.Options{}, builtin.BashName, !builtin.IsWindows()},
		{builtin.Options{}, builtin.PowerShellName, builtin.IsWindows()},
		{builtin.Options{}, builtin.TodoWriteName, true},
		{builtin.Options{Enable: []string{builtin.PowerShellName}}, builtin.PowerShellName, true},
		{builtin.Options{Enable: []string{builtin.PowerShellName}, Disable: []string{builtin.PowerShellName}}, builtin.PowerShellName, false},
		{builtin.Options{Disable: []string{builtin.ReadName}}, builtin.ReadName, false},
		{builtin.Options{Enable: []string{"Nope"}}, builtin.ReadName, false},
	}
	for _, tt := range tests {
		if got := builtin.Chooses(tt.opts, tt.name); got != tt.want {
			t.Errorf("Chooses(%+v, %s) = %v, want %v", tt.opts, tt.name, got, tt.want)
		}
	}
}
