package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

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
}

var _ Backend = (*LocalBackend)(nil)

func (b *LocalBackend) shell() string {
	if b.Shell != "" {
		return b.Shell
	}
	if p, err := exec.LookPath("bash"); err == nil {
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
	start := time.Now()
	runCtx := ctx
	var cancel context.CancelFunc
	if req.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, b.shell(), "-c", req.Command)
	cmd.Dir = req.Dir
	cmd.Env = append(os.Environ(), req.Env...)
	cmd.Stdin = nil // /dev/null
	var conf *sandbox.Confinement
	if !req.Unsandboxed {
		var err error
		if conf, err = b.Sandbox.Confine(cmd, sandboxPolicy(ctx)); err != nil {
			return ExecResult{}, err
		}
		defer conf.Close()
	}
	// A confined command gets a session of its own: no controlling
	// terminal to read from or write to.
	if conf != nil {
		setSession(cmd)
	} else {
		setProcessGroup(cmd)
	}
	// Output pipes stay open while background children hold them: wait
	// that long for them after the shell exits, then close them.
	cmd.WaitDelay = 2 * time.Second

	var mu sync.Mutex
	var refused *refusalScanner
	if conf != nil {
		refused = &refusalScanner{}
	}
	cmd.Stdout = &streamWriter{stream: Stdout, mu: &mu, output: output, scan: refused}
	cmd.Stderr = &streamWriter{stream: Stderr, mu: &mu, output: output, scan: refused}
	if err := cmd.Start(); err != nil {
		return ExecResult{}, fmt.Errorf("start %s: %w", b.shell(), err)
	}
	if err := conf.Started(runCtx); err != nil {
		if cmd.Cancel != nil {
			_ = cmd.Cancel()
		}
		_ = cmd.Wait()
		if ctx.Err() != nil {
			return ExecResult{}, ctx.Err()
		}
		return ExecResult{}, err
	}
	waitErr := cmd.Wait()

	res := ExecResult{ExitCode: cmd.ProcessState.ExitCode(), Duration: time.Since(start)}
	mu.Lock()
	if line := refused.first(); line != "" && output != nil {
		output(Stderr, []byte(refusalNote(conf, line)))
	}
	mu.Unlock()
	if req.Timeout > 0 && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		res.TimedOut = true
		return res, nil
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return res, waitErr
	}
	return res, nil
}

// streamWriter hands a command's output to the Exec callback, one call
// at a time.
type streamWriter struct {
	stream Stream
	mu     *sync.Mutex
	output func(Stream, []byte)
	scan   *refusalScanner // watches the output of a confined command
}

func (w *streamWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.scan.write(w.stream, p)
	if w.output != nil {
		w.output(w.stream, append([]byte(nil), p...))
	}
	return len(p), nil
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
