package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
)

// demoToolsEnv names the environment variable that, set to 1, registers
// the demo tools: a way to try the CLI (and to test it) before the
// built-in tools exist.
const demoToolsEnv = "WASMTOOLS_DEMO_TOOLS"

// newToolkit builds the toolkit every command works on. It is the one
// place where tools are registered: the built-in tools now, plugins and
// MCP servers as they arrive.
func newToolkit(opts toolkit.Options) (*toolkit.Toolkit, error) {
	tk := toolkit.New(opts)
	files := builtin.FileOptions{}
	tools := []toolkit.Tool{
		builtin.DefaultShellTool(builtin.BashOptions{}, builtin.PowerShellOptions{}),
		builtin.NewRead(files), builtin.NewWrite(files), builtin.NewEdit(files),
		builtin.NewGlob(builtin.GlobOptions{}), builtin.NewGrep(builtin.GrepOptions{}),
	}
	tools = append(tools, builtin.TaskTools()...)
	tools = append(tools, builtin.NewAskUser())
	for _, t := range tools {
		if err := tk.Register(t); err != nil {
			return nil, fmt.Errorf("register the built-in tools: %w", err)
		}
	}
	if os.Getenv(demoToolsEnv) == "1" {
		if err := registerDemoTools(tk); err != nil {
			return nil, fmt.Errorf("register the demo tools: %w", err)
		}
	}
	return tk, nil
}

// textInput is the input of the demo tools.
type textInput struct {
	Text string `json:"text" jsonschema:"the text to work on"`
}

// registerDemoTools registers echo, a read-only tool of the basic group,
// and upper, which asks before it runs, in the group "text".
func registerDemoTools(tk *toolkit.Toolkit) error {
	echo, err := toolkit.NewFunc("echo", "Return the text unchanged.",
		func(_ context.Context, in textInput) (string, error) { return in.Text, nil },
		toolkit.FuncOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	upper, err := toolkit.NewFunc("upper", "Return the text in upper case.",
		func(_ context.Context, in textInput) (string, error) { return strings.ToUpper(in.Text), nil },
		toolkit.FuncOptions{})
	if err != nil {
		return err
	}
	if err := tk.AddGroup(toolkit.Group{Name: "text", Description: "Text transformations", Active: true}); err != nil {
		return err
	}
	if err := tk.Register(echo); err != nil {
		return err
	}
	return tk.Register(upper, toolkit.InGroup("text"))
}
