package host

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/wasmtools/wasmtools/abi"
)

// kernelFunction is one import of the "extism:host/env" module.
type kernelFunction struct {
	fn      api.GoModuleFunc
	params  []api.ValueType
	results []api.ValueType
}

// kernelFunctions returns the "extism:host/env" imports by name. Each is a
// method of the kernel of the running call, named after its import (as
// wazero names its WASI functions): importAlloc is "alloc", and so on.
func kernelFunctions() map[string]kernelFunction {
	fns := map[string]kernelFunction{}
	add := func(name string, params, results []api.ValueType, fn func(k *kernel, ctx context.Context, s []uint64)) {
		fns[name] = kernelFunction{
			fn:     func(ctx context.Context, _ api.Module, s []uint64) { fn(kernelFrom(ctx), ctx, s) },
			params: params, results: results,
		}
	}
	none := []api.ValueType{}
	one := func(t api.ValueType) []api.ValueType { return []api.ValueType{t} }
	two := func(a, b api.ValueType) []api.ValueType { return []api.ValueType{a, b} }

	add("alloc", one(i64), one(i64), (*kernel).importAlloc)
	add("free", one(i64), none, (*kernel).importFree)
	// length (and length_unsafe) also carry the bulk copies (see
	// importBulk), which need the guest's memory.
	for _, name := range []string{"length", "length_unsafe"} {
		fns[name] = kernelFunction{
			fn:     func(ctx context.Context, mod api.Module, s []uint64) { kernelFrom(ctx).importLength(mod, s) },
			params: one(i64), results: one(i64),
		}
	}
	add("load_u8", one(i64), one(i32), (*kernel).importLoadU8)
	add("load_u64", one(i64), one(i64), (*kernel).importLoadU64)
	add("store_u8", two(i64, i32), none, (*kernel).importStoreU8)
	add("store_u64", two(i64, i64), none, (*kernel).importStoreU64)
	add("input_length", none, one(i64), (*kernel).importInputLength)
	add("input_offset", none, one(i64), (*kernel).importInputOffset)
	add("input_load_u8", one(i64), one(i32), (*kernel).importInputLoadU8)
	add("input_load_u64", one(i64), one(i64), (*kernel).importInputLoadU64)
	add("input_set", two(i64, i64), none, (*kernel).importInputSet)
	add("output_set", two(i64, i64), none, (*kernel).importOutputSet)
	add("output_length", none, one(i64), (*kernel).importOutputLength)
	add("output_offset", none, one(i64), (*kernel).importOutputOffset)
	add("error_set", one(i64), none, (*kernel).importErrorSet)
	add("error_get", none, one(i64), (*kernel).importErrorGet)
	add("reset", none, none, (*kernel).importReset)
	add("memory_bytes", none, one(i64), (*kernel).importMemoryBytes)
	add("config_get", one(i64), one(i64), (*kernel).importConfigGet)
	add("var_get", one(i64), one(i64), (*kernel).importVarGet)
	add("var_set", two(i64, i64), none, (*kernel).importVarSet)
	add("http_request", two(i64, i64), one(i64), (*kernel).importHTTPRequest)
	add("http_status_code", none, one(i32), (*kernel).importHTTPStatusCode)
	add("http_headers", none, one(i64), (*kernel).importHTTPHeaders)
	for name, level := range map[string]slog.Level{
		"log_trace": slog.LevelDebug - 4, "log_debug": slog.LevelDebug, "log_info": slog.LevelInfo,
		"log_warn": slog.LevelWarn, "log_error": slog.LevelError,
	} {
		add(name, one(i64), none, func(k *kernel, ctx context.Context, s []uint64) { k.importLog(ctx, name, level, s) })
	}
	add("get_log_level", none, one(i32), (*kernel).importGetLogLevel)
	return fns
}

// must traps the guest with err, if any.
func (k *kernel) must(err error) {
	if err != nil {
		trap(k, err)
	}
}

// importAlloc is alloc(n) → offset of a new zeroed block.
func (k *kernel) importAlloc(_ context.Context, s []uint64) {
	off, err := k.alloc(s[0])
	k.must(err)
	s[0] = off
}

// importFree is free(offset). The space is not reused (blocks live until
// the call ends), but the block can no longer be read or written. Freeing
// 0, an unknown offset or a freed block does nothing, as in Extism.
func (k *kernel) importFree(_ context.Context, s []uint64) {
	if i := k.find(s[0]); i >= 0 {
		k.blocks[i].freed = true
	}
}

// importLength is length(offset) and length_unsafe(offset): the block's
// size, 0 for no live block. An argument with the bulk tag in its top
// 16 bits is a bulk copy (importBulk).
func (k *kernel) importLength(mod api.Module, s []uint64) {
	if s[0]>>48 == abi.BulkTag {
		s[0] = k.importBulk(mod, s[0])
		return
	}
	if i := k.find(s[0]); i >= 0 {
		s[0] = k.blocks[i].n
	} else {
		s[0] = 0
	}
}

// importBulk copies bytes between kernel memory and the guest's linear
// memory in one call: length(BulkTag<<48 | op<<32 | desc), where desc is
// the guest address of three little-endian u64s: a kernel offset, a
// guest address and a byte count n. op BulkLoad copies n bytes from the
// kernel offset to the guest address, BulkStore the other way. The
// kernel range must lie inside one live block, as for load_u64 and
// store_u64, and the guest range inside the guest's memory; anything
// else traps. It returns n.
//
// This is an extension of the Extism kernel, carried by length so that a
// module using it still runs on any Extism host: there, length of an
// offset that no block can have returns 0, and the guest falls back to
// load_u64 and store_u64. Without it a copy costs one call into the host
// per 8 bytes, most of the time of a call with a large input.
func (k *kernel) importBulk(mod api.Module, arg uint64) uint64 {
	op, desc := arg>>32&0xffff, uint32(arg)
	// (Memory returns a non-nil interface holding a nil pointer when the
	// module has none.)
	if len(mod.ExportedMemoryDefinitions()) == 0 {
		trap(k, fmt.Errorf("length(bulk): the module exports no memory"))
	}
	mem := mod.Memory()
	d, ok := mem.Read(desc, 24)
	if !ok {
		trap(k, fmt.Errorf("length(bulk): the descriptor at address %d is outside the module's memory", desc))
	}
	off := binary.LittleEndian.Uint64(d)
	addr := binary.LittleEndian.Uint64(d[8:])
	n := binary.LittleEndian.Uint64(d[16:])
	if n == 0 {
		return 0
	}
	if addr > math.MaxUint32 || n > math.MaxUint32 {
		trap(k, fmt.Errorf("length(bulk): %d bytes at address %d: outside the module's memory", n, addr))
	}
	guest, ok := mem.Read(uint32(addr), uint32(n))
	if !ok {
		trap(k, fmt.Errorf("length(bulk): %d bytes at address %d: outside the module's memory", n, addr))
	}
	switch op {
	case abi.BulkLoad:
		b, err := k.span("length(bulk load)", off, n)
		k.must(err)
		copy(guest, b)
	case abi.BulkStore:
		b, err := k.span("length(bulk store)", off, n)
		k.must(err)
		copy(b, guest)
	default:
		trap(k, fmt.Errorf("length(bulk): unknown operation %d", op))
	}
	return n
}

func (k *kernel) importLoadU8(_ context.Context, s []uint64) {
	b, err := k.span("load_u8", s[0], 1)
	k.must(err)
	s[0] = uint64(b[0])
}

func (k *kernel) importLoadU64(_ context.Context, s []uint64) {
	b, err := k.span("load_u64", s[0], 8)
	k.must(err)
	s[0] = binary.LittleEndian.Uint64(b)
}

func (k *kernel) importStoreU8(_ context.Context, s []uint64) {
	b, err := k.span("store_u8", s[0], 1)
	k.must(err)
	b[0] = byte(s[1])
}

func (k *kernel) importStoreU64(_ context.Context, s []uint64) {
	b, err := k.span("store_u64", s[0], 8)
	k.must(err)
	binary.LittleEndian.PutUint64(b, s[1])
}

func (k *kernel) importInputLength(_ context.Context, s []uint64) { s[0] = k.inputLen }

func (k *kernel) importInputOffset(_ context.Context, s []uint64) { s[0] = k.inputOff }

// inputSpan returns n bytes of the input from index i, trapping past its
// end.
func (k *kernel) inputSpan(what string, i, n uint64) []byte {
	if i >= k.inputLen || n > k.inputLen-i {
		trap(k, fmt.Errorf("%s(%d): past the end of the input (%d bytes); read the last n mod 8 bytes with input_load_u8", what, i, k.inputLen))
	}
	return k.arena[k.inputOff+i : k.inputOff+i+n]
}

func (k *kernel) importInputLoadU8(_ context.Context, s []uint64) {
	s[0] = uint64(k.inputSpan("input_load_u8", s[0], 1)[0])
}

func (k *kernel) importInputLoadU64(_ context.Context, s []uint64) {
	s[0] = binary.LittleEndian.Uint64(k.inputSpan("input_load_u64", s[0], 8))
}

func (k *kernel) importInputSet(_ context.Context, s []uint64) {
	_, err := k.span("input_set", s[0], s[1])
	k.must(err)
	k.inputOff, k.inputLen = s[0], s[1]
}

// importOutputSet is output_set(offset, n); a second call replaces the
// first.
func (k *kernel) importOutputSet(_ context.Context, s []uint64) {
	if s[1] > MaxOutputBytes {
		trap(k, fmt.Errorf("output_set: the output is %d bytes, more than the %d allowed", s[1], MaxOutputBytes))
	}
	b, err := k.span("output_set", s[0], s[1])
	k.must(err)
	k.output, k.outputSet = append(k.output[:0], b...), true
}

func (k *kernel) importOutputLength(_ context.Context, s []uint64) { s[0] = uint64(len(k.output)) }

func (k *kernel) importOutputOffset(_ context.Context, s []uint64) {
	off, err := k.allocBytes(k.output)
	k.must(err)
	s[0] = off
}

// importErrorSet is error_set(offset): the block's text fails the export;
// offset 0 clears it.
func (k *kernel) importErrorSet(_ context.Context, s []uint64) {
	if s[0] == 0 {
		k.errMsg = ""
		return
	}
	b, err := k.block(s[0])
	if err != nil {
		trap(k, fmt.Errorf("error_set: %w", err))
	}
	if len(b) > MaxOutputBytes {
		trap(k, fmt.Errorf("error_set: the message is %d bytes, more than the %d an error message may hold; it begins %s", len(b), MaxOutputBytes, quote(b)))
	}
	k.errMsg = strings.ToValidUTF8(string(b), "\uFFFD")
}

func (k *kernel) importErrorGet(_ context.Context, s []uint64) {
	if k.errMsg == "" {
		s[0] = 0
		return
	}
	off, err := k.allocBytes([]byte(k.errMsg))
	k.must(err)
	s[0] = off
}

// importReset is reset(): it frees every block but keeps the input
// readable, since reset is for the guest's own blocks.
func (k *kernel) importReset(_ context.Context, _ []uint64) {
	in := append([]byte(nil), k.arena[k.inputOff:k.inputOff+k.inputLen]...)
	k.arena = k.arena[:kernelBase]
	k.blocks, k.hot = k.blocks[:0], 0
	k.inputOff, k.inputLen = 0, 0
	k.must(k.setInput(in))
}

func (k *kernel) importMemoryBytes(_ context.Context, s []uint64) { s[0] = uint64(len(k.arena)) }

// importConfigGet is config_get(key): the plugin's configuration value,
// 0 when it has none.
func (k *kernel) importConfigGet(_ context.Context, s []uint64) {
	key, err := k.block(s[0])
	k.must(err)
	v, ok := k.call.plugin.grants.Config[string(key)]
	if !ok {
		s[0] = 0
		return
	}
	s[0], err = k.allocBytes([]byte(v))
	k.must(err)
}

// importVarGet is var_get(key): the instance's variable, 0 when unset.
func (k *kernel) importVarGet(_ context.Context, s []uint64) {
	key, err := k.block(s[0])
	k.must(err)
	v, ok := k.vars[string(key)]
	if !ok {
		s[0] = 0
		return
	}
	s[0], err = k.allocBytes(v)
	k.must(err)
}

// importVarSet is var_set(key, value); value 0 deletes the variable.
// The instance's variables together hold at most MaxVarBytes.
func (k *kernel) importVarSet(_ context.Context, s []uint64) {
	key, err := k.block(s[0])
	k.must(err)
	name := string(key)
	k.varBytes -= len(k.vars[name])
	if s[1] == 0 {
		delete(k.vars, name)
		return
	}
	v, err := k.block(s[1])
	k.must(err)
	if k.varBytes+len(v) > MaxVarBytes {
		trap(k, fmt.Errorf("var_set: the instance's variables would hold more than %d bytes; delete some (var_set with value 0)", MaxVarBytes))
	}
	k.vars[name] = append([]byte(nil), v...)
	k.varBytes += len(v)
}

func (k *kernel) importHTTPRequest(ctx context.Context, s []uint64) {
	off, err := k.httpRequest(ctx, s[0], s[1])
	k.must(err)
	s[0] = off
}

func (k *kernel) importHTTPStatusCode(_ context.Context, s []uint64) {
	s[0] = uint64(k.call.http.status)
}

func (k *kernel) importHTTPHeaders(_ context.Context, s []uint64) {
	if k.call.http.headers == nil {
		s[0] = 0
		return
	}
	b, _ := json.Marshal(k.call.http.headers)
	off, err := k.allocBytes(b)
	k.must(err)
	s[0] = off
}

// importLog is log_trace … log_error(offset), within the call's log
// limits.
func (k *kernel) importLog(ctx context.Context, name string, level slog.Level, s []uint64) {
	b, err := k.block(s[0])
	if err != nil {
		trap(k, fmt.Errorf("%s: %w", name, err))
	}
	k.log(ctx, k.call.plugin.log, level, b)
}

// importGetLogLevel is get_log_level(): 0 trace, 1 debug, 2 info, 3 warn,
// 4 error.
func (k *kernel) importGetLogLevel(ctx context.Context, s []uint64) {
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
}
