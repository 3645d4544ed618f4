package host

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/tetratelabs/wazero/api"
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
	add("length", one(i64), one(i64), (*kernel).importLength)
	add("length_unsafe", one(i64), one(i64), (*kernel).importLength)
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
// size, 0 for no live block.
func (k *kernel) importLength(_ context.Context, s []uint64) {
	if i := k.find(s[0]); i >= 0 {
		s[0] = k.blocks[i].n
	} else {
		s[0] = 0
	}
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
