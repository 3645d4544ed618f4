package main

import (
	"context"
	"strings"

	"github.com/wasmtools/wasmtools/toolkit"
)

// demoToolsEnv names the environment variable that, set to 1, registers
// the demo tools: a way to try the CLI (and to test it) before the
// built-in tools exist.
const demoToolsEnv = "WASMTOOLS_DEMO_TOOLS"

// textInput is the input of the demo tools.
type textInput struct {
	Text string `json:"text" jsonschema:"the text to work on"`
}

// registerDemoTools registers echo, a read-only tool of the basic group,
// and upper, which asks before it runs, in the group "text". It is the
// Config.Register of every command run with WASMTOOLS_DEMO_TOOLS=1.
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
