package wasmtools

import (
	"errors"

	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
	"github.com/wasmtools/wasmtools/toolkit/programs"
)

// registerBuiltins registers the built-in tools the configuration chooses
// on tk, their shell commands confined by sb.
func registerBuiltins(tk *toolkit.Toolkit, sb *sandbox.Sandbox, progs *programs.Resolver, tools ToolsConfig) error {
	// PowerShell does not run through the sandbox's helper: where the
	// sandbox is required, a PowerShell tool would be the unconfined way
	// around it. Checked on the tools chosen (PowerShell is the default
	// shell on Windows), before any is registered.
	opts := builtin.Options{
		Bash:     builtin.BashOptions{Backend: &builtin.LocalBackend{Sandbox: sb, LookPath: progs.LookPath, UnconfinedEnv: progs.Env}},
		Enable:   tools.Enable,
		Disable:  tools.Disable,
		Groups:   tools.Groups,
		LookPath: progs.LookPath,
		Env:      progs.Env,
	}
	if sb.Status().Mode == sandbox.ModeRequired && builtin.Chooses(opts, builtin.PowerShellName) {
		return errors.New("PowerShell commands cannot run in the OS sandbox, which sandbox.mode required demands of every command: disable PowerShell (tools.disable), or set the sandbox mode to auto")
	}
	return builtin.Register(tk, opts)
}
