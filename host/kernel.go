package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmtools/wasmtools/abi"
)

// kernelBase is the first offset handed out: 0 means "none".
const kernelBase = 8

// kernel is the Extism kernel state of one instance: a Go byte arena
// holding the blocks the guest allocates, the current input and output,
// and the instance's variables.
type kernel struct {
	arena []byte
	// blocks are the blocks of this call, in offset order (allocation
	// only moves forward); a freed block stays, marked, so that an access
	// to it is refused rather than landing in a neighbour.
	blocks []kblock
	// hot is the index of the block the last load or store hit: copying
	// a block walks it, so the next access is nearly always in it.
	hot int

	inputOff, inputLen uint64
	output             []byte
	outputSet          bool
	errMsg             string

	vars     map[string][]byte
	varBytes int

	// What this call logged, and what it tried to log past the limits.
	logMsgs, logBytes         int
	droppedMsgs, droppedBytes int

	// What this call streamed.
	chunks, chunkBytes int

	// Set for the duration of one export call.
	call *callEnv
}

// kblock is one block of kernel memory.
type kblock struct {
	off, n uint64
	freed  bool
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
	return &kernel{arena: make([]byte, kernelBase, 4096), vars: map[string][]byte{}}
}

// reset frees every block and forgets the call's input, output, error
// and counters (between calls). Buffers that grew large are released,
// so that an idle instance does not hold what one call needed.
func (k *kernel) reset() {
	if cap(k.arena) > keepBuffer {
		k.arena = make([]byte, kernelBase, 4096)
	}
	k.arena = k.arena[:kernelBase]
	if cap(k.blocks) > 4096 {
		k.blocks = nil
	}
	k.blocks, k.hot = k.blocks[:0], 0
	k.inputOff, k.inputLen = 0, 0
	if cap(k.output) > keepBuffer {
		k.output = nil
	}
	k.output, k.outputSet, k.errMsg = k.output[:0], false, ""
	k.logMsgs, k.logBytes, k.droppedMsgs, k.droppedBytes = 0, 0, 0, 0
	k.chunks, k.chunkBytes = 0, 0
}

// alloc returns the offset of a new zeroed block of n bytes; a block of
// no bytes is offset 0, as in the Extism kernel.
func (k *kernel) alloc(n uint64) (uint64, error) {
	if n == 0 {
		return 0, nil
	}
	if n > MaxKernelMemory || uint64(len(k.arena))+n > MaxKernelMemory {
		return 0, fmt.Errorf("kernel memory exhausted: %d bytes requested, %d in use, %d allowed per call (freed blocks count until the export returns; reset frees them all); reuse blocks, or move less data per call", n, len(k.arena), MaxKernelMemory)
	}
	if len(k.blocks) >= MaxBlocks {
		return 0, fmt.Errorf("kernel memory: more than %d blocks allocated in one call; allocate fewer, larger blocks", MaxBlocks)
	}
	off := uint64(len(k.arena))
	// Keep offsets 8-aligned, as the Extism kernel does.
	end := int(off + (n+7)&^7)
	k.arena = slices.Grow(k.arena, end-len(k.arena))[:end]
	clear(k.arena[off:end])
	k.blocks = append(k.blocks, kblock{off: off, n: n})
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

// find returns the index of the live block starting at off, or -1.
func (k *kernel) find(off uint64) int {
	i, ok := slices.BinarySearchFunc(k.blocks, off, func(b kblock, off uint64) int { return cmp.Compare(b.off, off) })
	if !ok || k.blocks[i].freed {
		return -1
	}
	return i
}

// block returns the bytes of the live block starting at off.
func (k *kernel) block(off uint64) ([]byte, error) {
	i := k.find(off)
	if i < 0 {
		return nil, fmt.Errorf("no kernel memory block starts at offset %d (pass the offset alloc returned, of a block not yet freed)", off)
	}
	b := k.blocks[i]
	return k.arena[b.off : b.off+b.n], nil
}

// span returns n bytes at off, which must lie inside one live block: an
// access that starts outside every block, runs past its block's end or
// touches a freed block is refused (the guest traps), never served from
// a neighbouring block or padding. n == 0 is an empty span anywhere.
func (k *kernel) span(what string, off, n uint64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if h := k.hot; h < len(k.blocks) {
		if b := k.blocks[h]; !b.freed && off >= b.off && off-b.off < b.n && n <= b.n-(off-b.off) {
			return k.arena[off : off+n], nil
		}
	}
	// The last block starting at or before off.
	i, found := slices.BinarySearchFunc(k.blocks, off, func(b kblock, off uint64) int { return cmp.Compare(b.off, off) })
	if !found {
		i--
	}
	if i < 0 || off-k.blocks[i].off >= k.blocks[i].n {
		return nil, fmt.Errorf("%s at offset %d: outside every kernel memory block", what, off)
	}
	b := k.blocks[i]
	if b.freed {
		return nil, fmt.Errorf("%s at offset %d: the block at offset %d was freed", what, off, b.off)
	}
	if n > b.n-(off-b.off) {
		return nil, fmt.Errorf("%s at offset %d: %d bytes run past the end of the block at offset %d (%d bytes long)", what, off, n, b.off, b.n)
	}
	k.hot = i
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

// log writes one plugin message at level, within the call's log limits.
func (k *kernel) log(ctx context.Context, log *slog.Logger, level slog.Level, b []byte, attrs ...slog.Attr) {
	if !log.Enabled(ctx, level) {
		return
	}
	if k.logMsgs >= MaxLogMessages || k.logBytes+len(b) > MaxLogBytes {
		k.droppedMsgs++
		k.droppedBytes += len(b)
		return
	}
	k.logMsgs++
	k.logBytes += len(b)
	cut := len(b) > MaxLogMessage
	if cut {
		b = b[:MaxLogMessage]
	}
	msg := strings.ToValidUTF8(strings.TrimRight(string(b), "\n"), "\uFFFD")
	if cut {
		msg += "…"
	}
	if msg != "" {
		log.LogAttrs(ctx, level, msg, attrs...)
	}
}

// reportDropped says, once per call, how much log output went over the
// limits.
func (k *kernel) reportDropped(log *slog.Logger, phase string) {
	if k.droppedMsgs == 0 {
		return
	}
	log.Warn(fmt.Sprintf("plugin log output over the limit (%d messages, %d bytes per call): %d more messages (%d bytes) were dropped", MaxLogMessages, MaxLogBytes, k.droppedMsgs, k.droppedBytes), "export", phase)
	k.droppedMsgs, k.droppedBytes = 0, 0
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

// userEmit is wasmtools_emit: it streams one chunk of the running call.
// The chunk's block stays the plugin's, like every block it passes.
func userEmit(ctx context.Context, _ api.Module, s []uint64) {
	k := kernelFrom(ctx)
	if k.call == nil || k.call.emit == nil {
		return // a chunk outside call is ignored
	}
	b, err := k.block(s[0])
	if err != nil {
		trap(k, fmt.Errorf("wasmtools_emit: %w", err))
	}
	k.chunks++
	k.chunkBytes += len(b)
	if k.chunks > MaxChunks {
		trap(k, fmt.Errorf("wasmtools_emit: more than %d chunks in one call; stream fewer, larger chunks", MaxChunks))
	}
	if k.chunkBytes > MaxOutputBytes {
		trap(k, fmt.Errorf("wasmtools_emit: the call's chunks are more than %d bytes together; return large results in pieces the caller asks for", MaxOutputBytes))
	}
	var c abi.Chunk
	if err := decodeMessage(b, &c); err != nil {
		trap(k, fmt.Errorf("wasmtools_emit: chunk %d: %w", k.chunks, err))
	}
	if err := checkContent(c.Content); err != nil {
		trap(k, fmt.Errorf("wasmtools_emit: chunk %d: %w", k.chunks, err))
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
