package host

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmtools/wasmtools/abi"
)

// Kernel limits.
const (
	// maxKernelMemory bounds the kernel memory one call may use.
	maxKernelMemory = 256 << 20
	// maxVarBytes bounds an instance's Extism variables.
	maxVarBytes = 1 << 20
	// kernelBase is the first offset handed out: 0 means "none".
	kernelBase = 8
)

// kernel is the Extism kernel state of one instance: a Go byte arena
// holding the blocks the guest allocates, the current input and output,
// and the instance's variables.
type kernel struct {
	arena  []byte
	blocks map[uint64]uint64 // offset -> length

	inputOff, inputLen uint64
	output             []byte
	outputSet          bool
	errMsg             string

	vars     map[string][]byte
	varBytes int

	// Set for the duration of one export call.
	call *callEnv
}

// callEnv is what the kernel functions of one call need from the host.
type callEnv struct {
	plugin *Plugin
	emit   func(abi.Chunk) error // nil outside call
	http   *httpState
	// fault keeps the first host-side error, so that the trap it causes
	// is reported with its own words.
	fault error
}

func newKernel() *kernel {
	return &kernel{arena: make([]byte, kernelBase, 4096), blocks: map[uint64]uint64{}, vars: map[string][]byte{}}
}

// reset frees every block (between calls).
func (k *kernel) reset() {
	k.arena = k.arena[:kernelBase]
	clear(k.blocks)
	k.inputOff, k.inputLen = 0, 0
	k.output, k.outputSet, k.errMsg = nil, false, ""
}

// alloc returns the offset of a new zeroed block of n bytes.
func (k *kernel) alloc(n uint64) (uint64, error) {
	if n > maxKernelMemory || uint64(len(k.arena))+n > maxKernelMemory {
		return 0, fmt.Errorf("kernel memory exhausted: %d bytes requested, %d in use (limit %d)", n, len(k.arena), maxKernelMemory)
	}
	off := uint64(len(k.arena))
	k.arena = append(k.arena, make([]byte, n)...)
	// Keep offsets 8-aligned, as the Extism kernel does.
	if pad := (8 - len(k.arena)%8) % 8; pad > 0 {
		k.arena = append(k.arena, make([]byte, pad)...)
	}
	k.blocks[off] = n
	return off, nil
}

// allocBytes copies b into a new block.
func (k *kernel) allocBytes(b []byte) (uint64, error) {
	off, err := k.alloc(uint64(len(b)))
	if err != nil {
		return 0, err
	}
	copy(k.arena[off:], b)
	return off, nil
}

// block returns the bytes of the block at off.
func (k *kernel) block(off uint64) ([]byte, error) {
	n, ok := k.blocks[off]
	if !ok {
		return nil, fmt.Errorf("no kernel memory block at offset %d", off)
	}
	return k.arena[off : off+n], nil
}

func (k *kernel) span(off, n uint64) ([]byte, error) {
	if off < kernelBase || off+n > uint64(len(k.arena)) || off+n < off {
		return nil, fmt.Errorf("kernel memory access out of bounds: offset %d, %d bytes", off, n)
	}
	return k.arena[off : off+n], nil
}

// setInput places the export's input in a block.
func (k *kernel) setInput(b []byte) error {
	off, err := k.allocBytes(b)
	if err != nil {
		return err
	}
	k.inputOff, k.inputLen = off, uint64(len(b))
	return nil
}

type kernelKey struct{}

// withKernel attaches an instance's kernel to the context of a call into
// it; the kernel functions find it there.
func withKernel(ctx context.Context, k *kernel) context.Context {
	return context.WithValue(ctx, kernelKey{}, k)
}

func kernelFrom(ctx context.Context) *kernel {
	k, _ := ctx.Value(kernelKey{}).(*kernel)
	if k == nil {
		panic(errors.New("wasmtools: kernel function called outside a plugin call"))
	}
	return k
}

// trap ends the guest's execution with err; wazero returns it from the
// export call.
func trap(k *kernel, err error) {
	if k.call != nil && k.call.fault == nil {
		k.call.fault = err
	}
	panic(err)
}

const (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

// kernelFunctions are the "extism:host/env" imports.
func kernelFunctions() map[string]struct {
	fn      api.GoModuleFunc
	params  []api.ValueType
	results []api.ValueType
} {
	type def = struct {
		fn      api.GoModuleFunc
		params  []api.ValueType
		results []api.ValueType
	}
	fns := map[string]def{}
	add := func(name string, params, results []api.ValueType, fn func(ctx context.Context, k *kernel, stack []uint64)) {
		fns[name] = def{fn: func(ctx context.Context, _ api.Module, stack []uint64) { fn(ctx, kernelFrom(ctx), stack) }, params: params, results: results}
	}
	none := []api.ValueType{}

	add("alloc", []api.ValueType{i64}, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) {
		off, err := k.alloc(s[0])
		if err != nil {
			trap(k, err)
		}
		s[0] = off
	})
	add("free", []api.ValueType{i64}, none, func(_ context.Context, k *kernel, s []uint64) {
		// Blocks live until the call ends; freeing only forgets the
		// length, as the kernel's allocator would reuse the space.
		delete(k.blocks, s[0])
	})
	length := func(_ context.Context, k *kernel, s []uint64) { s[0] = k.blocks[s[0]] }
	add("length", []api.ValueType{i64}, []api.ValueType{i64}, length)
	add("length_unsafe", []api.ValueType{i64}, []api.ValueType{i64}, length)
	add("load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(_ context.Context, k *kernel, s []uint64) {
		b, err := k.span(s[0], 1)
		if err != nil {
			trap(k, err)
		}
		s[0] = uint64(b[0])
	})
	add("load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) {
		b, err := k.span(s[0], 8)
		if err != nil {
			trap(k, err)
		}
		s[0] = binary.LittleEndian.Uint64(b)
	})
	add("store_u8", []api.ValueType{i64, i32}, none, func(_ context.Context, k *kernel, s []uint64) {
		b, err := k.span(s[0], 1)
		if err != nil {
			trap(k, err)
		}
		b[0] = byte(s[1])
	})
	add("store_u64", []api.ValueType{i64, i64}, none, func(_ context.Context, k *kernel, s []uint64) {
		b, err := k.span(s[0], 8)
		if err != nil {
			trap(k, err)
		}
		binary.LittleEndian.PutUint64(b, s[1])
	})
	add("input_length", none, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) { s[0] = k.inputLen })
	add("input_offset", none, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) { s[0] = k.inputOff })
	add("input_load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(_ context.Context, k *kernel, s []uint64) {
		if s[0] >= k.inputLen {
			trap(k, fmt.Errorf("input read out of bounds: byte %d of %d", s[0], k.inputLen))
		}
		s[0] = uint64(k.arena[k.inputOff+s[0]])
	})
	add("input_load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) {
		if s[0]+8 > k.inputLen || s[0]+8 < s[0] {
			// Extism reads past the end of the input as zero bytes.
			var buf [8]byte
			if s[0] < k.inputLen {
				copy(buf[:], k.arena[k.inputOff+s[0]:k.inputOff+k.inputLen])
			}
			s[0] = binary.LittleEndian.Uint64(buf[:])
			return
		}
		s[0] = binary.LittleEndian.Uint64(k.arena[k.inputOff+s[0]:])
	})
	add("input_set", []api.ValueType{i64, i64}, none, func(_ context.Context, k *kernel, s []uint64) {
		if _, err := k.span(s[0], s[1]); err != nil {
			trap(k, err)
		}
		k.inputOff, k.inputLen = s[0], s[1]
	})
	add("output_set", []api.ValueType{i64, i64}, none, func(_ context.Context, k *kernel, s []uint64) {
		b, err := k.span(s[0], s[1])
		if err != nil {
			trap(k, err)
		}
		k.output, k.outputSet = append(k.output[:0], b...), true
	})
	add("output_length", none, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) { s[0] = uint64(len(k.output)) })
	add("output_offset", none, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) {
		off, err := k.allocBytes(k.output)
		if err != nil {
			trap(k, err)
		}
		s[0] = off
	})
	add("error_set", []api.ValueType{i64}, none, func(_ context.Context, k *kernel, s []uint64) {
		if s[0] == 0 {
			k.errMsg = ""
			return
		}
		b, err := k.block(s[0])
		if err != nil {
			trap(k, err)
		}
		k.errMsg = string(b)
	})
	add("error_get", none, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) {
		if k.errMsg == "" {
			s[0] = 0
			return
		}
		off, err := k.allocBytes([]byte(k.errMsg))
		if err != nil {
			trap(k, err)
		}
		s[0] = off
	})
	add("reset", none, none, func(_ context.Context, k *kernel, _ []uint64) {
		// Keep the input readable: reset is for the guest's own blocks.
		in := append([]byte(nil), k.arena[k.inputOff:k.inputOff+k.inputLen]...)
		k.arena = k.arena[:kernelBase]
		clear(k.blocks)
		k.inputOff, k.inputLen = 0, 0
		if err := k.setInput(in); err != nil {
			trap(k, err)
		}
	})
	add("memory_bytes", none, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) { s[0] = uint64(len(k.arena)) })
	add("config_get", []api.ValueType{i64}, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) {
		key, err := k.block(s[0])
		if err != nil {
			trap(k, err)
		}
		v, ok := k.call.plugin.grants.Config[string(key)]
		if !ok {
			s[0] = 0
			return
		}
		if s[0], err = k.allocBytes([]byte(v)); err != nil {
			trap(k, err)
		}
	})
	add("var_get", []api.ValueType{i64}, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) {
		key, err := k.block(s[0])
		if err != nil {
			trap(k, err)
		}
		v, ok := k.vars[string(key)]
		if !ok {
			s[0] = 0
			return
		}
		if s[0], err = k.allocBytes(v); err != nil {
			trap(k, err)
		}
	})
	add("var_set", []api.ValueType{i64, i64}, none, func(_ context.Context, k *kernel, s []uint64) {
		key, err := k.block(s[0])
		if err != nil {
			trap(k, err)
		}
		name := string(key)
		k.varBytes -= len(k.vars[name])
		if s[1] == 0 {
			delete(k.vars, name)
			return
		}
		v, err := k.block(s[1])
		if err != nil {
			trap(k, err)
		}
		if k.varBytes+len(v) > maxVarBytes {
			trap(k, fmt.Errorf("plugin variables exceed %d bytes", maxVarBytes))
		}
		k.vars[name] = append([]byte(nil), v...)
		k.varBytes += len(v)
	})
	add("http_request", []api.ValueType{i64, i64}, []api.ValueType{i64}, func(ctx context.Context, k *kernel, s []uint64) {
		off, err := k.httpRequest(ctx, s[0], s[1])
		if err != nil {
			trap(k, err)
		}
		s[0] = off
	})
	add("http_status_code", none, []api.ValueType{i32}, func(_ context.Context, k *kernel, s []uint64) {
		s[0] = uint64(k.call.http.status)
	})
	add("http_headers", none, []api.ValueType{i64}, func(_ context.Context, k *kernel, s []uint64) {
		if k.call.http.headers == nil {
			s[0] = 0
			return
		}
		b, _ := json.Marshal(k.call.http.headers)
		off, err := k.allocBytes(b)
		if err != nil {
			trap(k, err)
		}
		s[0] = off
	})
	for name, level := range map[string]slog.Level{
		"log_trace": slog.LevelDebug - 4, "log_debug": slog.LevelDebug, "log_info": slog.LevelInfo,
		"log_warn": slog.LevelWarn, "log_error": slog.LevelError,
	} {
		add(name, []api.ValueType{i64}, none, func(ctx context.Context, k *kernel, s []uint64) {
			b, err := k.block(s[0])
			if err != nil {
				trap(k, err)
			}
			msg := string(b)
			if len(msg) > 4096 {
				msg = msg[:4096] + "…"
			}
			k.call.plugin.log.Log(ctx, level, strings.TrimRight(msg, "\n"))
		})
	}
	add("get_log_level", none, []api.ValueType{i32}, func(ctx context.Context, k *kernel, s []uint64) {
		// 0 trace, 1 debug, 2 info, 3 warn, 4 error.
		log := k.call.plugin.log
		switch {
		case log.Enabled(ctx, slog.LevelDebug-4):
			s[0] = 0
		case log.Enabled(ctx, slog.LevelDebug):
			s[0] = 1
		case log.Enabled(ctx, slog.LevelInfo):
			s[0] = 2
		case log.Enabled(ctx, slog.LevelWarn):
			s[0] = 3
		default:
			s[0] = 4
		}
	})
	return fns
}

// userFunctions are the "extism:host/user" imports wasmtools provides.
func userEmit(ctx context.Context, _ api.Module, s []uint64) {
	k := kernelFrom(ctx)
	b, err := k.block(s[0])
	if err != nil {
		trap(k, err)
	}
	var c abi.Chunk
	if err := json.Unmarshal(b, &c); err != nil {
		trap(k, fmt.Errorf("wasmtools_emit: the chunk is not valid JSON: %v", err))
	}
	delete(k.blocks, s[0])
	if k.call == nil || k.call.emit == nil {
		return // a chunk outside call is dropped
	}
	if err := k.call.emit(c); err != nil {
		trap(k, err)
	}
}

// instantiateHostModules adds the kernel and the wasmtools functions to a
// runtime.
func instantiateHostModules(ctx context.Context, rt wazero.Runtime) error {
	env := rt.NewHostModuleBuilder(abi.ModuleEnv)
	for name, d := range kernelFunctions() {
		env.NewFunctionBuilder().WithGoModuleFunction(d.fn, d.params, d.results).Export(name)
	}
	if _, err := env.Instantiate(ctx); err != nil {
		return fmt.Errorf("instantiate %s: %w", abi.ModuleEnv, err)
	}
	user := rt.NewHostModuleBuilder(abi.ModuleUser)
	user.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(userEmit), []api.ValueType{i64}, []api.ValueType{}).Export(abi.ImportEmit)
	if _, err := user.Instantiate(ctx); err != nil {
		return fmt.Errorf("instantiate %s: %w", abi.ModuleUser, err)
	}
	return nil
}
