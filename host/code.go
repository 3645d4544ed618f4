package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmtools/wasmtools/internal/wasmbin"
)

// A plugin's compiled code and warm instances are what it holds in
// memory: for a module built with standard Go, about 8 MB of machine code
// and 6 MB per instance. A plugin nobody calls need not hold them. When
// the host has an on-disk compilation cache, a plugin releases both once
// loaded, and again after IdleTimeout without calls; the next call loads
// the machine code back from the cache (tens of milliseconds, no
// compiling) and starts an instance.

// DefaultIdleTimeout is how long a plugin keeps its compiled code and
// warm instances after its last call, when Options.IdleTimeout is 0.
const DefaultIdleTimeout = time.Minute

// compiledCode is a compiled module and the runtime holding it.
type compiledCode struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
}

// close releases the code. The compiled module is closed first: with a
// compilation cache, the runtime's Close leaves it in the cache's engine,
// which the host shares among plugins and keeps until it closes.
func (c *compiledCode) close() error {
	ctx := context.Background()
	c.compiled.Close(ctx)
	return c.rt.Close(ctx)
}

// codeSource says how to compile a plugin's module again.
type codeSource struct {
	// wasm is the module when it was not loaded from a file; file the
	// file it was, read again (and checked against the plugin's digest)
	// when the code is needed again.
	wasm []byte
	file string
	// size is the module's size: a file of another size is not read.
	size int64
	// memMiB is the memory limit; checks turns on wazero's termination
	// checks (a module that could not be instrumented).
	memMiB int
	checks bool
}

// compile makes a runtime, with the host modules a plugin may import,
// and compiles wasm in it, instrumenting it first when p is
// interruptible, else capping its tables. Both read the whole binary as
// wasmbin.Check does, so that a binary which would make the compiler
// allocate without bound never reaches it. On failure nothing is left
// open.
func (p *Plugin) compile(ctx context.Context, wasm []byte) (*compiledCode, error) {
	var bin []byte
	if p.interruptible {
		ins, err := wasmbin.Instrument(wasm)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", p.Name, err)
		}
		bin = ins.Wasm
	} else {
		// Run as it is, but with its tables capped (Instrument caps them
		// too): wazero grows a table outside the memory limit.
		var err error
		if bin, err = wasmbin.CapTables(wasm); err != nil {
			return nil, fmt.Errorf("plugin %s: not a valid WebAssembly module: %w", p.Name, err)
		}
	}
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCompilationCache(p.host.cache).
		WithMemoryLimitPages(uint32(p.src.memMiB)*16). // 64 KiB pages
		WithCloseOnContextDone(p.src.checks))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(context.Background())
		return nil, fmt.Errorf("plugin %s: %w", p.Name, err)
	}
	if err := instantiateHostModules(ctx, rt); err != nil {
		rt.Close(context.Background())
		return nil, fmt.Errorf("plugin %s: %w", p.Name, err)
	}
	compiled, err := rt.CompileModule(ctx, bin)
	if err != nil {
		rt.Close(context.Background())
		return nil, fmt.Errorf("plugin %s: not a valid WebAssembly module: %w", p.Name, err)
	}
	return &compiledCode{rt: rt, compiled: compiled}, nil
}

// acquireCode returns the plugin's compiled code, loading it again if it
// was released, and counts the caller as a user until releaseCode.
func (p *Plugin) acquireCode(ctx context.Context) (*compiledCode, error) {
	p.codeMu.Lock()
	defer p.codeMu.Unlock()
	if p.code == nil {
		// A call admitted before Close gave up waiting for it must not
		// bring the code back for good.
		if p.closed.Load() {
			return nil, fmt.Errorf("plugin %s was removed or closed", p.Name)
		}
		wasm := p.src.wasm
		if wasm == nil {
			// As a planted file would be read: never blocking on a FIFO,
			// never more than the module's own size.
			b, err := readPluginFileSized(p.src.file, p.src.size)
			if errors.Is(err, errSizeChanged) {
				return nil, fmt.Errorf("plugin %s: its file %s changed since it was loaded (%v); it is reloaded when its folder syncs, or load it again", p.Name, p.src.file, err)
			}
			if err != nil {
				return nil, fmt.Errorf("plugin %s: reading its module again: %w", p.Name, err)
			}
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != p.SHA256 {
				return nil, fmt.Errorf("plugin %s: its file %s changed since it was loaded (sha256 %s, now %s); it is reloaded when its folder syncs, or load it again", p.Name, p.src.file, p.SHA256, hex.EncodeToString(sum[:]))
			}
			wasm = b
		}
		c, err := p.compile(ctx, wasm)
		if err != nil {
			return nil, err
		}
		p.code = c
		p.log.Debug("compiled code loaded again")
	}
	if p.idleTimer != nil {
		p.idleTimer.Stop()
	}
	p.codeUsers++
	return p.code, nil
}

// releaseCode ends a use of the code; the last user arms the idle timer.
func (p *Plugin) releaseCode() {
	p.codeMu.Lock()
	defer p.codeMu.Unlock()
	p.codeUsers--
	if p.codeUsers > 0 || !p.releasable() {
		return
	}
	if p.idleTimer == nil {
		p.idleTimer = time.AfterFunc(p.host.idleTimeout(), p.releaseIdle)
	} else {
		p.idleTimer.Reset(p.host.idleTimeout())
	}
}

// releasable reports whether the plugin may release its code: only
// when the disk cache holds it (without one, it would be compiled again),
// and only when it can be read again.
func (p *Plugin) releasable() bool {
	return p.host.schemaDir != "" && p.host.idleTimeout() > 0 && (p.src.wasm != nil || p.src.file != "")
}

// releaseIdle releases the instances and the code if nobody uses them.
func (p *Plugin) releaseIdle() {
	p.codeMu.Lock()
	defer p.codeMu.Unlock()
	if p.codeUsers > 0 || p.code == nil {
		return
	}
	p.pool.close()
	p.code.close()
	p.code = nil
	p.log.Debug("compiled code and instances released: no calls for a while")
	p.host.trimSoon()
}

// closeCode releases everything for good (Close).
func (p *Plugin) closeCode() error {
	p.codeMu.Lock()
	defer p.codeMu.Unlock()
	if p.idleTimer != nil {
		p.idleTimer.Stop()
	}
	p.pool.close()
	if p.code == nil {
		return nil
	}
	err := p.code.close()
	p.code = nil
	return err
}

// Resident reports whether the plugin holds its compiled code now.
func (p *Plugin) Resident() bool {
	p.codeMu.Lock()
	defer p.codeMu.Unlock()
	return p.code != nil
}

func (h *Host) idleTimeout() time.Duration {
	if h.opts.IdleTimeout == 0 {
		return DefaultIdleTimeout
	}
	return h.opts.IdleTimeout
}

// trimDelay gathers the memory returns of plugins released or loaded
// together into one.
const trimDelay = time.Second

// trimSoon returns the process's free memory to the operating system a
// little later, once for everything released or loaded meanwhile.
// Loading a module from the cache decodes it and copies its machine code
// through the Go heap; releasing one frees its instances' structures.
// The Go runtime gives such memory back slowly (its background scavenger
// works at a small fraction of a core), so an idle server would keep
// reporting it as resident for minutes.
func (h *Host) trimSoon() {
	h.trimMu.Lock()
	defer h.trimMu.Unlock()
	if h.trimTimer == nil {
		h.trimTimer = time.AfterFunc(trimDelay, debug.FreeOSMemory)
		return
	}
	h.trimTimer.Reset(trimDelay)
}
