package builtin

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/wasmtools/wasmtools/sandbox"
)

// process is how one command of a shell tool (Bash through LocalBackend,
// PowerShell) runs: both share the process-group kill, the timeout, the
// pipe handling and the reading of the exit status.
type process struct {
	name string // the program, for messages
	// command builds the command on the context that times it out.
	command func(ctx context.Context) *exec.Cmd
	timeout time.Duration // 0: none
	// confine, when set, confines the built command before it starts.
	confine func(*exec.Cmd) (*sandbox.Confinement, error)
	// output receives standard output and standard error as they come,
	// one piece at a time.
	output func(Stream, []byte)
}

// run runs the command in a process group of its own (a session, with no
// controlling terminal, when confined), which is killed as a whole on
// timeout or cancellation, so no background child outlives it. When a
// confined command reports a refused access, a note on standard error
// after its output says what the sandbox allowed and how to ask for an
// unconfined run. A timeout is a result (TimedOut), not an error;
// cancellation returns the context's error.
func (p process) run(ctx context.Context) (ExecResult, error) {
	start := time.Now()
	runCtx := ctx
	if p.timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, p.timeout)
		defer cancel()
	}
	cmd := p.command(runCtx)
	cmd.Stdin = nil // the null device: nothing to read
	var conf *sandbox.Confinement
	if p.confine != nil {
		var err error
		if conf, err = p.confine(cmd); err != nil {
			return ExecResult{}, err
		}
		defer conf.Close()
	}
	if conf != nil {
		setSession(cmd)
	} else {
		setProcessGroup(cmd)
	}
	// Output pipes stay open while background children hold them: wait
	// that long for them after the command exits, then close them.
	cmd.WaitDelay = 2 * time.Second

	var mu sync.Mutex
	var refused *refusalScanner
	if conf != nil {
		refused = &refusalScanner{}
	}
	cmd.Stdout = &streamWriter{stream: Stdout, mu: &mu, output: p.output, scan: refused}
	cmd.Stderr = &streamWriter{stream: Stderr, mu: &mu, output: p.output, scan: refused}
	if err := cmd.Start(); err != nil {
		return ExecResult{}, fmt.Errorf("start %s: %w", p.name, err)
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
	if line := refused.first(); line != "" {
		res.Refused = fmt.Sprintf("%q: the sandbox refuses %s; to allow it, run the command again with \"sandbox\": \"off\" (the user is asked)", line, conf.Refuses())
		if p.output != nil {
			p.output(Stderr, []byte(refusalNote(conf, line)))
		}
	}
	mu.Unlock()
	if p.timeout > 0 && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
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

// streamWriter hands a command's output to the callback, one call at a
// time.
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
