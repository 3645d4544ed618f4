package wasmtools

import (
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
)

// registerBuiltins registers the built-in tools on tk, their shell
// commands confined by sb.
//
// It stands in for builtin.Register, which is on its way: once that lands
// this helper goes and Open calls it instead.
func registerBuiltins(tk *toolkit.Toolkit, sb *sandbox.Sandbox) error {
	files := builtin.FileOptions{}
	tools := []toolkit.Tool{
		builtin.DefaultShellTool(builtin.BashOptions{Backend: &builtin.LocalBackend{Sandbox: sb}}, builtin.PowerShellOptions{}),
		builtin.NewRead(files), builtin.NewWrite(files), builtin.NewEdit(files),
		builtin.NewGlob(builtin.GlobOptions{}), builtin.NewGrep(builtin.GrepOptions{}),
	}
	tools = append(tools, builtin.TaskTools()...)
	tools = append(tools, builtin.NewAskUser())
	for _, t := range tools {
		if err := tk.Register(t); err != nil {
			return err
		}
	}
	return nil
}
