package host

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmtools/wasmtools/abi"
)

// Calling an export: one instance, the kernel reset around the call,
// the answer decoded, and failures turned into PluginErrors that say
// what went wrong and what to do.

// errStopped ends a call whose consumer stopped reading its stream.
var errStopped = errors.New("the caller stopped reading the result")

// callExport runs one export with input and returns its output. The
// instance comes from the pool and goes back unless the call trapped,
// timed out or exited.
func (p *Plugin) callExport(ctx context.Context, name string, input []byte, emit func(abi.Chunk) error, exclusive bool) ([]byte, error) {
	p.life.Lock()
	if p.closed.Load() {
		next := p.successor
		p.life.Unlock()
		if next == nil {
			return nil, fmt.Errorf("plugin %s was removed or closed", p.Name)
		}
		return next.callExport(ctx, name, input, emit, exclusive)
	}
	p.inflight.Add(1)
	p.life.Unlock()
	defer p.inflight.Done()
	if exclusive {
		p.exclusive.Lock()
		defer p.exclusive.Unlock()
	} else {
		p.exclusive.RLock()
		defer p.exclusive.RUnlock()
	}
	c, err := p.acquireCode(ctx)
	if err != nil {
		return nil, err
	}
	defer p.releaseCode()
	inst, err := p.pool.get(ctx, c)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()

	k := inst.kernel
	k.reset()
	if err := k.setInput(input); err != nil {
		p.pool.put(inst, true)
		return nil, err
	}
	inst.env.emit, inst.env.fault = emit, nil
	inst.env.http.status, inst.env.http.headers = 0, nil
	k.call = &inst.env
	fn := inst.fns[name]
	if fn == nil {
		k.call = nil
		p.pool.put(inst, true)
		return nil, fmt.Errorf("plugin %s has no export %s", p.Name, name)
	}
	inst.stack[0] = 0
	interrupted, callErr := inst.run(withKernel(ctx, k), fn, inst.stack[:])
	k.call = nil
	fault := inst.env.fault
	inst.env.emit = nil
	k.reportDropped(p.log, name)

	if callErr != nil {
		// A trap, an exit or a timeout: this instance is not trusted again.
		k.reset()
		p.pool.put(inst, false)
		return nil, p.callError(ctx, name, callErr, fault, inst)
	}
	rc := int32(inst.stack[0])
	// nil output: the export never called output_set.
	var output []byte
	if k.outputSet {
		output = append(make([]byte, 0, len(k.output)), k.output...)
	}
	msg := k.errMsg
	// Release what the call allocated now, not at the next call: an idle
	// instance keeps no large buffers.
	k.reset()
	// An instance whose memory grew much is closed rather than kept:
	// linear memory never shrinks, and the pool would hold it.
	// An instance whose interrupt flag was set as the call ended would
	// trap at its next call: it is closed.
	keep := !inst.grown() && !interrupted
	if inst.grown() {
		p.log.Debug("instance closed after its call: its memory grew too much", "export", name, "grew_mib", (uint64(inst.mod.Memory().Size())-uint64(inst.startMem))>>20)
	}
	p.pool.put(inst, keep)
	if rc != 0 || msg != "" {
		// A set error fails the export whatever it returns, as in Extism.
		if msg == "" {
			msg = fmt.Sprintf("the plugin failed with code %d and set no error message (error_set)", rc)
		}
		return nil, &PluginError{Plugin: p.Name, Export: name, Message: msg}
	}
	return output, nil
}

// decode parses an export's output (nil when the export never called
// output_set) into v.
func (p *Plugin) decode(export string, out []byte, v any) error {
	if out == nil {
		return &PluginError{Plugin: p.Name, Export: export, Message: "returned 0 without an output: no output_set (an export sets its answer, a JSON document, with output_set before it returns 0)"}
	}
	if err := decodeMessage(out, v); err != nil {
		return &PluginError{Plugin: p.Name, Export: export, Message: fmt.Sprintf("invalid output (%v): %s", err, quote(out))}
	}
	return nil
}

// PluginError is a failure reported by or about a plugin.
type PluginError struct {
	Plugin, Export, Message string
	// Retired is set when the instance was thrown away (trap, timeout,
	// exit).
	Retired bool
	cause   error
}

func (e *PluginError) Error() string {
	return fmt.Sprintf("plugin %s (%s): %s", e.Plugin, e.Export, e.Message)
}

func (e *PluginError) Unwrap() error { return e.cause }

// callError describes why an export call ended abnormally.
func (p *Plugin) callError(ctx context.Context, export string, err, fault error, inst *instance) error {
	pe := &PluginError{Plugin: p.Name, Export: export, Retired: true, cause: err}
	var exit *sys.ExitError
	switch {
	case errors.Is(fault, errStopped):
		pe.Message, pe.cause = "stopped: the caller stopped reading", errStopped
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
		pe.Message, pe.cause = fmt.Sprintf("timed out after %s; the instance was discarded", p.timeout), context.DeadlineExceeded
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeContextCanceled:
		pe.Message, pe.cause = "cancelled", context.Canceled
	case errors.As(err, &exit):
		pe.Message = fmt.Sprintf("the module exited with code %d during the call; plugins must not exit", exit.ExitCode())
	case fault != nil:
		pe.Message, pe.cause = fault.Error(), fault
	default:
		msg := firstLine(err.Error())
		if mem := inst.mod.Memory(); mem != nil {
			limit := uint64(p.grants.MemoryMiB)
			if limit == 0 {
				limit = DefaultMemoryMiB
			}
			if uint64(mem.Size()) >= (limit<<20)-(1<<20) {
				msg += fmt.Sprintf(" (its memory reached the %d MiB limit)", limit)
			}
		}
		pe.Message = "trapped: " + msg
	}
	if ctx.Err() != nil && pe.cause == nil {
		pe.cause = ctx.Err()
	}
	return pe
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// startError turns a failure while an instance starts (phase: its start
// function, _initialize) into words that say what to do.
func (p *Plugin) startError(ctx context.Context, phase string, err error) error {
	var exit *sys.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded,
		errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s did not return within the plugin's timeout of %s: the module loops or works too long while starting; fix its start-up code, or raise timeout_ms in its grants if it needs longer: %w", phase, p.timeout, context.DeadlineExceeded)
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeContextCanceled,
		errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("cancelled while %s ran: %w", phase, context.Canceled)
	case errors.As(err, &exit):
		return fmt.Errorf("the module exited with code %d while starting: a WASI command runs once and exits; build a reactor (Go: -buildmode=c-shared)", exit.ExitCode())
	}
	return err
}
