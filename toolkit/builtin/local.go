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
)

// LocalBackend runs commands and touches files on this machine.
type LocalBackend struct {
	// Shell is the shell that runs commands; empty means bash, or sh
	// where bash is missing.
	Shell string
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
// background child outlives it.
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
	setProcessGroup(cmd)
	// Output pipes stay open while background children hold them: wait
	// that long for them after the shell exits, then close them.
	cmd.WaitDelay = 2 * time.Second

	var mu sync.Mutex
	cmd.Stdout = &streamWriter{stream: Stdout, mu: &mu, output: output}
	cmd.Stderr = &streamWriter{stream: Stderr, mu: &mu, output: output}
	if err := cmd.Start(); err != nil {
		return ExecResult{}, fmt.Errorf("start %s: %w", b.shell(), err)
	}
	waitErr := cmd.Wait()

	res := ExecResult{ExitCode: cmd.ProcessState.ExitCode(), Duration: time.Since(start)}
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
}

func (w *streamWriter) Write(p []byte) (int, error) {
	if w.output != nil {
		w.mu.Lock()
		w.output(w.stream, append([]byte(nil), p...))
		w.mu.Unlock()
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
