package builtin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmtools/wasmtools/toolkit"
)

// Options configure Register: the options of each built-in tool, which
// tools to register, and the groups they go in.
type Options struct {
	Bash       BashOptions
	PowerShell PowerShellOptions
	// Files configures Read, Write and Edit.
	Files FileOptions
	Glob  GlobOptions
	Grep  GrepOptions

	// Enable names the tools to register (see Names); empty means the
	// default set: every built-in tool but the shell that does not suit
	// the host (PowerShell on Windows, Bash elsewhere, as
	// DefaultShellTool chooses). Naming both shells registers both.
	Enable []string
	// Disable names tools to leave out of those Enable chose.
	Disable []string
	// Group is the tool group the tools go in; empty means the basic
	// group. A named group must have been added to the toolkit first.
	Group string
	// Groups puts the tools it names in other groups than Group, e.g.
	// {"Bash": "shell", "PowerShell": "shell"}.
	Groups map[string]string
	// LookPath finds the programs the tools run themselves: rg for Grep,
	// pwsh for PowerShell, bash for a LocalBackend made by Register. It
	// is passed to each tool whose options leave theirs nil; nil means
	// exec.LookPath. A host gives a programs.Resolver's LookPath, which
	// never finds a program in a folder tool calls may write.
	LookPath func(name string) (string, error)
	// Env makes, from the host's environment, that of the programs the
	// tools run themselves (rg) and of PowerShell's commands, which run
	// unconfined; nil means the host's. A host gives a
	// programs.Resolver's Env (the filtered PATH, no variable that loads
	// code from a folder tool calls may write).
	Env func(environ []string) []string
}

// The names of the built-in tools.
const (
	BashName       = "Bash"
	PowerShellName = "PowerShell"
	ReadName       = "Read"
	WriteName      = "Write"
	EditName       = "Edit"
	GlobName       = "Glob"
	GrepName       = "Grep"
	TaskCreateName = "TaskCreate"
	TaskGetName    = "TaskGet"
	TaskListName   = "TaskList"
	TaskUpdateName = "TaskUpdate"
	TodoWriteName  = "TodoWrite"
)

// Names returns the names of the built-in tools, in the order Register
// registers them; both shells are among them.
func Names() []string {
	return []string{BashName, PowerShellName, ReadName, WriteName, EditName, GlobName, GrepName,
		TaskCreateName, TaskGetName, TaskListName, TaskUpdateName, TodoWriteName, AskUserName}
}

// Register registers the built-in tools in tk as one change (listeners
// see a single OnChange), configured and placed by opts. A name in
// Enable, Disable or Groups that is not a built-in tool is an error
// listing the valid ones; so is a group tk does not have. When Register
// fails, tk is unchanged.
func Register(tk *toolkit.Toolkit, opts Options) error {
	names, err := chosen(opts)
	if err != nil {
		return err
	}
	var b toolkit.Batch
	for _, name := range names {
		group := opts.Group
		if g, ok := opts.Groups[name]; ok {
			group = g
		}
		var ro []toolkit.RegisterOption
		if group != "" {
			ro = append(ro, toolkit.InGroup(group))
		}
		t := newTool(name, opts)
		if t == nil {
			return fmt.Errorf("register the built-in tools: no constructor for %s (a bug in package builtin)", name)
		}
		b.Register(t, ro...)
	}
	if err := tk.Apply(&b); err != nil {
		return fmt.Errorf("register the built-in tools: %w", err)
	}
	return nil
}

// Chooses reports whether Register, given opts, registers the tool
// called name (false, too, when opts names a tool that does not exist:
// Register would fail).
func Chooses(opts Options, name string) bool {
	names, err := chosen(opts)
	return err == nil && slices.Contains(names, name)
}

// chosen returns the names of the tools opts asks for, in Names' order.
func chosen(opts Options) ([]string, error) {
	all := Names()
	check := func(field string, names []string) error {
		for _, n := range names {
			if !slices.Contains(all, n) {
				return fmt.Errorf("builtin: %s names %q, which is not a built-in tool; the built-in tools are %s", field, n, strings.Join(all, ", "))
			}
		}
		return nil
	}
	if err := check("Enable", opts.Enable); err != nil {
		return nil, err
	}
	if err := check("Disable", opts.Disable); err != nil {
		return nil, err
	}
	for n := range opts.Groups {
		if err := check("Groups", []string{n}); err != nil {
			return nil, err
		}
	}
	// The shell that does not suit the host is left out unless asked for.
	other := PowerShellName
	if IsWindows() {
		other = BashName
	}
	var out []string
	for _, n := range all {
		wanted := slices.Contains(opts.Enable, n) || len(opts.Enable) == 0 && n != other
		if wanted && !slices.Contains(opts.Disable, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// newTool makes the built-in tool called name.
func newTool(name string, opts Options) toolkit.Tool {
	if opts.Grep.LookPath == nil {
		opts.Grep.LookPath = opts.LookPath
	}
	if opts.PowerShell.LookPath == nil {
		opts.PowerShell.LookPath = opts.LookPath
	}
	if opts.Grep.Env == nil {
		opts.Grep.Env = opts.Env
	}
	if opts.PowerShell.Env == nil {
		opts.PowerShell.Env = opts.Env
	}
	switch name {
	case BashName:
		return NewBash(opts.Bash)
	case PowerShellName:
		return NewPowerShell(opts.PowerShell)
	case ReadName:
		return NewRead(opts.Files)
	case WriteName:
		return NewWrite(opts.Files)
	case EditName:
		return NewEdit(opts.Files)
	case GlobName:
		return NewGlob(opts.Glob)
	case GrepName:
		return NewGrep(opts.Grep)
	case TaskCreateName:
		return NewTaskCreate()
	case TaskGetName:
		return NewTaskGet()
	case TaskListName:
		return NewTaskList()
	case TaskUpdateName:
		return NewTaskUpdate()
	case TodoWriteName:
		return NewTodoWrite()
	case AskUserName:
		return NewAskUser()
	}
	return nil // chosen lets through only Names, each of which has a case
}
