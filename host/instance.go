package host

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/wasmbin"
)

// An instance is one running copy of a plugin's module; a pool keeps
// the idle ones for the next call.

// instance is one instantiation of a plugin's module.
type instance struct {
	mod    api.Module
	kernel *kernel
	env    callEnv
	fns    map[string]api.Function
	stack  [1]uint64
	// grants are the instance's dirs grants, closed with it.
	grants []*grantFS
	// startMem is the size of its linear memory once started.
	startMem uint32
	// interrupt and budget are the module's interrupt flag and check
	// budget (see internal/wasmbin); nil when the plugin runs with
	// wazero's termination checks. running is set while a call runs.
	interrupt, budget api.MutableGlobal
	running           atomic.Bool
}

// run calls fn with stack, stopping the guest when ctx ends. interrupted
// reports that the interrupt flag was set (or is being set): the instance
// must not run again, and an error from the call means ctx ended, which
// err then says in wazero's terms (a sys.ExitError with the exit code of
// a deadline or a cancellation), as with wazero's own checks.
func (inst *instance) run(ctx context.Context, fn api.Function, stack []uint64) (interrupted bool, err error) {
	if inst.interrupt == nil {
		return false, fn.CallWithStack(ctx, stack)
	}
	if ctx.Err() != nil {
		return false, stopError(ctx)
	}
	inst.running.Store(true)
	stop := context.AfterFunc(ctx, inst.stop)
	err = fn.CallWithStack(ctx, stack)
	inst.running.Store(false)
	if !stop() {
		interrupted = true
		if err != nil {
			err = stopError(ctx)
		}
	}
	return interrupted, err
}

// stop interrupts the running call: it sets the flag, and spends the
// budget so that the guest reads the flag at its next check. The guest
// may overwrite that store with its own count (neither holds a lock), so
// it is repeated until the call ends; even if every store were lost, the
// guest reads the flag once it has spent its budget by itself.
func (inst *instance) stop() {
	inst.interrupt.Set(1)
	for inst.running.Load() {
		inst.budget.Set(0)
		time.Sleep(time.Millisecond)
	}
}

// stopError is the error of a call stopped because ctx ended.
func stopError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return sys.NewExitError(sys.ExitCodeDeadlineExceeded)
	}
	return sys.NewExitError(sys.ExitCodeContextCanceled)
}

func (p *Plugin) newInstance(ctx context.Context, c *compiledCode) (*instance, error) {
	grants, err := p.host.openGrants(p.grants.Dirs)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", p.Name, err)
	}
	inst := &instance{kernel: newKernel(), fns: map[string]api.Function{}, grants: grants}
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions().
		WithStdout(logWriter{inst.kernel, p.log, slog.LevelInfo, "stdout"}).
		WithStderr(logWriter{inst.kernel, p.log, slog.LevelWarn, "stderr"}).
		WithRandSource(rand.Reader).
		WithFSConfig(fsConfig(p.grants.Dirs, grants))
	for k, v := range p.grants.Env {
		cfg = cfg.WithEnv(k, v)
	}
	inst.env = callEnv{plugin: p, http: &httpState{}}
	inst.kernel.call = &inst.env
	// Starting an instance runs guest code (the start section, then
	// _initialize) that may never return: it gets the plugin's timeout
	// of its own (the runtime closes the module when the context ends),
	// separate from the call's that follows.
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	kctx := withKernel(ctx, inst.kernel)
	actx := kctx
	if alloc := memoryAllocator(); alloc != nil {
		actx = experimental.WithMemoryAllocator(kctx, alloc)
	}
	mod, err := c.rt.InstantiateModule(actx, c.compiled, cfg)
	defer inst.kernel.reportDropped(p.log, "start")
	if err != nil {
		closeGrants(grants)
		return nil, fmt.Errorf("plugin %s: instantiate: %w", p.Name, p.startError(ctx, "its start function", err))
	}
	inst.mod = mod
	if p.interruptible {
		flag, ok1 := mod.ExportedGlobal(wasmbin.InterruptExport).(api.MutableGlobal)
		budget, ok2 := mod.ExportedGlobal(wasmbin.BudgetExport).(api.MutableGlobal)
		if !ok1 || !ok2 {
			inst.close()
			return nil, fmt.Errorf("plugin %s: the instrumented module lacks its interrupt flag or budget", p.Name)
		}
		inst.interrupt, inst.budget = flag, budget
	}
	// The start function (moved out of instantiation by the
	// instrumentation, so that it can be stopped), then the reactor's
	// initialisation.
	for _, init := range []string{wasmbin.StartExport, "_initialize", "hs_init"} {
		fn := mod.ExportedFunction(init)
		if fn == nil {
			continue
		}
		phase := init
		if init == wasmbin.StartExport {
			phase = "its start function"
		}
		stack := make([]uint64, max(len(fn.Definition().ParamTypes()), len(fn.Definition().ResultTypes())))
		interrupted, err := inst.run(kctx, fn, stack)
		if err == nil && interrupted {
			// It returned as its timeout struck: its flag is set, or
			// about to be, and its next call would trap at random.
			err = stopError(kctx)
		}
		if err != nil {
			inst.close()
			return nil, fmt.Errorf("plugin %s: %s failed: %w", p.Name, phase, p.startError(ctx, phase, err))
		}
	}
	for name := range p.exports {
		if fn := mod.ExportedFunction(name); fn != nil {
			inst.fns[name] = fn
		}
	}
	if mem := mod.Memory(); mem != nil {
		inst.startMem = mem.Size()
	}
	inst.kernel.call = nil
	return inst, nil
}

// grown reports whether an instance's linear memory grew by more than
// MaxInstanceGrowth since it started (memory never shrinks).
func (inst *instance) grown() bool {
	mem := inst.mod.Memory()
	return mem != nil && uint64(mem.Size()) > uint64(inst.startMem)+MaxInstanceGrowth
}

func (inst *instance) close() {
	if inst.mod != nil {
		inst.mod.Close(context.Background())
	}
	closeGrants(inst.grants)
}

// fsConfig mounts the granted directories, each through its confined
// file system (see grantFS), never wazero's WithDirMount.
func fsConfig(dirs []abi.DirGrant, grants []*grantFS) wazero.FSConfig {
	fc := wazero.NewFSConfig().(sysfs.FSConfig)
	for i, d := range dirs {
		guest := d.Guest
		if guest == "" {
			guest = d.Host
		}
		fc = fc.WithSysFSMount(grants[i], guest).(sysfs.FSConfig)
	}
	return fc.(wazero.FSConfig)
}

// logWriter sends a guest's stdout or stderr to the log, within the
// log limits of the instance's current call (see kernel.log).
type logWriter struct {
	k      *kernel
	log    *slog.Logger
	level  slog.Level
	stream string
}

func (w logWriter) Write(b []byte) (int, error) {
	w.k.log(context.Background(), w.log, w.level, b, slog.String("stream", w.stream))
	return len(b), nil
}

// pool keeps warm instances; its semaphore bounds the live ones.
type pool struct {
	p    *Plugin
	mu   sync.Mutex
	idle []*instance
	sem  chan struct{}
}

func newPool(p *Plugin, size int) *pool {
	return &pool{p: p, sem: make(chan struct{}, size)}
}

// get returns an idle instance, or a new one of c (the plugin's code,
// which the caller holds).
func (pl *pool) get(ctx context.Context, c *compiledCode) (*instance, error) {
	select {
	case pl.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	pl.mu.Lock()
	if n := len(pl.idle); n > 0 {
		inst := pl.idle[n-1]
		// Clear the slot: a pointer left past the slice's end would keep
		// the instance (and its memory) alive after it is closed.
		pl.idle[n-1] = nil
		pl.idle = pl.idle[:n-1]
		pl.mu.Unlock()
		return inst, nil
	}
	pl.mu.Unlock()
	inst, err := pl.p.newInstance(ctx, c)
	if err != nil {
		<-pl.sem
		return nil, err
	}
	return inst, nil
}

func (pl *pool) put(inst *instance, healthy bool) {
	if healthy && !pl.p.closed.Load() {
		pl.mu.Lock()
		pl.idle = append(pl.idle, inst)
		pl.mu.Unlock()
	} else {
		inst.close()
	}
	<-pl.sem
}

func (pl *pool) close() {
	pl.mu.Lock()
	idle := pl.idle
	pl.idle = nil
	pl.mu.Unlock()
	for _, inst := range idle {
		inst.close()
	}
}

// Idle reports how many warm instances wait in the pool.
func (p *Plugin) Idle() int {
	p.pool.mu.Lock()
	defer p.pool.mu.Unlock()
	return len(p.pool.idle)
}
