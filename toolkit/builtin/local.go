package builtin

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"

	"github.com/wasmtools/wasmtools/sandbox"
)

// LocalBackend runs commands and touches files on this machine.
type LocalBackend struct {
	// Shell is the shell that runs commands; empty means bash, or sh
	// where bash is missing.
	Shell string
	// Sandbox confines every command Exec starts (see package sandbox):
	// writable only in the working directories of the call's permission
	// context (none in the explore mode) and a private TMPDIR, network
	// as configured (off in explore). A call without a toolkit Runtime in
	// its context gets only the sandbox's own writable paths. nil runs
	// commands unconfined. The program must call sandbox.Main first
	// thing in main, or set the sandbox's helper.
	Sandbox *sandbox.Sandbox
	// LookPath finds bash when Shell is empty; nil means exec.LookPath.
	LookPath func(name string) (string, error)
	// UnconfinedEnv, when set, makes the environment of a command that
	// runs unconfined (no Sandbox, a sandbox that does not confine here,
	// or a call approved to run outside it) from the host's: a host
	// passes a programs.Resolver's Env, so that such a command finds no
	// program, library or startup file a tool call wrote in the
	// workspace through PATH, LD_PRELOAD, PYTHONPATH, BASH_ENV and the
	// like. A confined command keeps the host's environment: the kernel
	// contains whatever it runs.
	UnconfinedEnv func(environ []string) []string
}

var _ Backend = (*LocalBackend)(nil)

func (b *LocalBackend) shell() string {
	if b.Shell != "" {
		return b.Shell
	}
	lookPath := b.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if p, err := lookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// Exec implements Backend. The command runs in a process group of its
// own, which is killed as a whole on timeout or cancellation, so no
// background child outlives it. With a Sandbox the command runs
// confined, in a session of its own (no controlling terminal); when it
// reports a refused access, a note on standard error after its output
// says what the sandbox allowed and how to ask for an unconfined run.
func (b *LocalBackend) Exec(ctx context.Context, req ExecRequest, output func(Stream, []byte)) (ExecResult, error) {
	env := os.Environ()
	confined := !req.Unsandboxed && b.Sandbox != nil && b.Sandbox.Status().Enforced
	if !confined && b.UnconfinedEnv != nil {
		env = b.UnconfinedEnv(env)
	}
	p := process{
		name: b.shell(),
		command: func(runCtx context.Context) *exec.Cmd {
			cmd := exec.CommandContext(runCtx, b.shell(), "-c", req.Command)
			cmd.Dir = req.Dir
			cmd.Env = append(slices.Clip(env), req.Env...)
			return cmd
		},
		timeout: req.Timeout,
		output:  output,
	}
	if !req.Unsandboxed && b.Sandbox != nil {
		p.confine = func(cmd *exec.Cmd) (*sandbox.Confinement, error) {
			return b.Sandbox.Confine(cmd, sandboxPolicy(ctx))
		}
	}
	return p.run(ctx)
}

// ReadFile implements Backend. Only regular files are read: a device
// never ends (/dev/zero would fill memory) and a FIFO may never open, so
// both are refused, checked on the opened file itself.
func (b *LocalBackend) ReadFile(_ context.Context, path string) ([]byte, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): only regular files are read", path, fileKind(fi.Mode()))
	}
	return io.ReadAll(f)
}
