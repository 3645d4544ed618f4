package host

import (
	"encoding/binary"

	"github.com/wasmtools/wasmtools/abi"
)

// This file assembles plugin modules byte by byte, so that a hostile
// fixture is exactly what its author would write (in WAT or by hand), with
// no toolchain or SDK in between to smooth it over. See phase_test.go for a
// smaller, fully spelled-out example.

// Value types.
const (
	tI32 = 0x7f
	tI64 = 0x7e
)

// Opcodes used by the fixtures.
const (
	opUnreachable = 0x00
	opBlock       = 0x02
	opLoop        = 0x03
	opIf          = 0x04
	opEnd         = 0x0b
	opBr          = 0x0c
	opBrIf        = 0x0d
	opReturn      = 0x0f
	opCall        = 0x10
	opDrop        = 0x1a
	opLocalGet    = 0x20
	opLocalSet    = 0x21
	opLocalTee    = 0x22
	opI64Load     = 0x29
	opI32Load8U   = 0x2d
	opI32Store8   = 0x3a
	opMemoryGrow  = 0x40
	opI32Const    = 0x41
	opI64Const    = 0x42
	opI32Eqz      = 0x45
	opI32LtU      = 0x49
	opI32GtU      = 0x4b
	opI32GeU      = 0x4f
	opI32Add      = 0x6a
	opI64Add      = 0x7c
	opI64ExtendU  = 0xad
	opI64Eqz      = 0x50
	opBlockVoid   = 0x40
)

func uleb(v uint64) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			out = append(out, b|0x80)
			continue
		}
		return append(out, b)
	}
}

func sleb(v int64) []byte {
	var out []byte
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && b&0x40 == 0) || (v == -1 && b&0x40 != 0) {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

func wname(s string) []byte { return append(uleb(uint64(len(s))), s...) }

func i32c(v int32) []byte { return append([]byte{opI32Const}, sleb(int64(v))...) }
func i64c(v int64) []byte { return append([]byte{opI64Const}, sleb(v)...) }
func callf(idx uint32) []byte {
	return append([]byte{opCall}, uleb(uint64(idx))...)
}
func lget(i uint32) []byte { return append([]byte{opLocalGet}, uleb(uint64(i))...) }
func lset(i uint32) []byte { return append([]byte{opLocalSet}, uleb(uint64(i))...) }

func code(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// The kernel and wasmtools imports every built module declares, in this
// order (so that their function indices are the constants below). Unused
// imports cost nothing: the host provides them all.
var builtImports = []struct {
	module, name    string
	params, results []byte
}{
	{abi.ModuleEnv, "alloc", []byte{tI64}, []byte{tI64}},
	{abi.ModuleEnv, "free", []byte{tI64}, nil},
	{abi.ModuleEnv, "length", []byte{tI64}, []byte{tI64}},
	{abi.ModuleEnv, "load_u8", []byte{tI64}, []byte{tI32}},
	{abi.ModuleEnv, "load_u64", []byte{tI64}, []byte{tI64}},
	{abi.ModuleEnv, "store_u8", []byte{tI64, tI32}, nil},
	{abi.ModuleEnv, "store_u64", []byte{tI64, tI64}, nil},
	{abi.ModuleEnv, "input_length", nil, []byte{tI64}},
	{abi.ModuleEnv, "input_load_u8", []byte{tI64}, []byte{tI32}},
	{abi.ModuleEnv, "input_load_u64", []byte{tI64}, []byte{tI64}},
	{abi.ModuleEnv, "output_set", []byte{tI64, tI64}, nil},
	{abi.ModuleEnv, "error_set", []byte{tI64}, nil},
	{abi.ModuleEnv, "log_info", []byte{tI64}, nil},
	{abi.ModuleEnv, "var_set", []byte{tI64, tI64}, nil},
	{abi.ModuleUser, abi.ImportEmit, []byte{tI64}, nil},
	{abi.ModuleEnv, "reset", nil, nil},
	{abi.ModuleWASI, "fd_write", []byte{tI32, tI32, tI32, tI32}, []byte{tI32}},
	{abi.ModuleEnv, "config_get", []byte{tI64}, []byte{tI64}},
	{abi.ModuleEnv, "http_request", []byte{tI64, tI64}, []byte{tI64}},
}

// Function indices of the imports, then of the helper every built module
// defines first: copy(ptr i32, len i32) -> i64, which copies len bytes of
// linear memory at ptr into a new kernel block and returns its offset.
const (
	fAlloc uint32 = iota
	fFree
	fLength
	fLoadU8
	fLoadU64
	fStoreU8
	fStoreU64
	fInputLength
	fInputLoadU8
	fInputLoadU64
	fOutputSet
	fErrorSet
	fLogInfo
	fVarSet
	fEmit
	fReset
	fFdWrite
	fConfigGet
	fHTTPRequest
	fCopy
)

// copyBody is the helper copy(ptr, len): 8 bytes at a time with
// store_u64, then the rest with store_u8, as the spec advises.
var copyBody = code(
	lget(1), []byte{opI64ExtendU}, callf(fAlloc), lset(2),
	[]byte{opBlock, opBlockVoid, opLoop, opBlockVoid},
	lget(3), i32c(8), []byte{opI32Add}, lget(1), []byte{opI32GtU, opBrIf, 1},
	lget(2), lget(3), []byte{opI64ExtendU, opI64Add},
	lget(0), lget(3), []byte{opI32Add, opI64Load, 0, 0},
	callf(fStoreU64),
	lget(3), i32c(8), []byte{opI32Add}, lset(3),
	[]byte{opBr, 0, opEnd, opEnd},
	[]byte{opBlock, opBlockVoid, opLoop, opBlockVoid},
	lget(3), lget(1), []byte{opI32GeU, opBrIf, 1},
	lget(2), lget(3), []byte{opI64ExtendU, opI64Add},
	lget(0), lget(3), []byte{opI32Add, opI32Load8U, 0, 0},
	callf(fStoreU8),
	lget(3), i32c(1), []byte{opI32Add}, lset(3),
	[]byte{opBr, 0, opEnd, opEnd},
	lget(2),
)

// builtFunc is a function defined by a built module.
type builtFunc struct {
	params, results []byte
	locals          []byte // one value type per local
	body            []byte // without the final end
}

// built is a plugin module under construction.
type built struct {
	funcs   []builtFunc
	exports []struct {
		name string
		kind byte
		idx  uint32
	}
	data     []byte // linear memory from offset 0
	minPages uint32
	maxPages uint32 // 0: no maximum
	start    int    // index+1 of the start function; 0: none
}

// newBuilt returns a module with the imports, the copy helper and an
// exported memory.
func newBuilt() *built {
	m := &built{minPages: 1}
	m.funcs = append(m.funcs, builtFunc{params: []byte{tI32, tI32}, results: []byte{tI64}, locals: []byte{tI64, tI32}, body: copyBody})
	m.exports = append(m.exports, struct {
		name string
		kind byte
		idx  uint32
	}{"memory", 2, 0})
	// Offset 0 stays unused, so that no string lives at address 0.
	m.data = make([]byte, 8)
	return m
}

// str places s in linear memory and returns code pushing its address
// and length (i32, i32).
func (m *built) str(s string) []byte {
	ptr := len(m.data)
	m.data = append(m.data, s...)
	for len(m.data)%8 != 0 {
		m.data = append(m.data, 0)
	}
	return code(i32c(int32(ptr)), i32c(int32(len(s))))
}

// block returns code pushing the kernel offset of a new block holding s.
func (m *built) block(s string) []byte { return code(m.str(s), callf(fCopy)) }

// output returns code that sets the output to s.
func (m *built) output(s string) []byte {
	return code(m.block(s), i64c(int64(len(s))), callf(fOutputSet))
}

// fn adds a function and returns its index.
func (m *built) fn(params, results, locals, body []byte) uint32 {
	m.funcs = append(m.funcs, builtFunc{params: params, results: results, locals: locals, body: body})
	return uint32(len(builtImports) + len(m.funcs) - 1)
}

// export adds an export () -> i32 with the given locals and body (which
// must leave an i32 on the stack).
func (m *built) export(name string, locals []byte, body ...[]byte) {
	idx := m.fn(nil, []byte{tI32}, locals, code(body...))
	m.exportFunc(name, idx)
}

func (m *built) exportFunc(name string, idx uint32) {
	m.exports = append(m.exports, struct {
		name string
		kind byte
		idx  uint32
	}{name, 0, idx})
}

// answer adds an export that outputs s and returns 0.
func (m *built) answer(name, s string) { m.export(name, nil, m.output(s), i32c(0)) }

// plugin returns a module whose schema export answers schema and whose
// check_permissions allows; call is given by the caller (body leaving an
// i32), or answers an empty success when nil.
func pluginModule(schema string, call func(m *built) []byte) *built {
	m := newBuilt()
	m.answer(abi.ExportSchema, schema)
	m.answer(abi.ExportCheckPermissions, `{"behavior":"allow"}`)
	if call == nil {
		m.answer(abi.ExportCall, `{"content":[]}`)
	} else {
		m.export(abi.ExportCall, callLocals, call(m))
	}
	return m
}

// callLocals are the locals of the call export pluginModule builds: an
// i32 (0, loop counters) and three i64 (1 to 3, kernel offsets).
var callLocals = []byte{tI32, tI64, tI64, tI64}

// stderr returns code writing s to standard error with WASI's fd_write.
func (m *built) stderr(s string) []byte {
	ptr := len(m.data) + 16
	iov := len(m.data)
	m.data = binary.LittleEndian.AppendUint32(m.data, uint32(ptr))
	m.data = binary.LittleEndian.AppendUint32(m.data, uint32(len(s)))
	m.data = append(m.data, make([]byte, 8)...) // nwritten, padding
	m.data = append(m.data, s...)
	for len(m.data)%8 != 0 {
		m.data = append(m.data, 0)
	}
	return code(i32c(2), i32c(int32(iov)), i32c(1), i32c(int32(iov+8)), callf(fFdWrite), []byte{opDrop})
}

// grow returns code growing linear memory by pages (64 KiB each).
func grow(pages int32) []byte {
	return code(i32c(pages), []byte{opMemoryGrow, 0, opDrop})
}

// loop returns code running body n times, counting in local i (an i32).
func loop(i uint32, n int32, body ...[]byte) []byte {
	return code(
		i32c(0), lset(i),
		[]byte{opBlock, opBlockVoid, opLoop, opBlockVoid},
		lget(i), i32c(n), []byte{opI32GeU, opBrIf, 1},
		code(body...),
		lget(i), i32c(1), []byte{opI32Add}, lset(i),
		[]byte{opBr, 0, opEnd, opEnd},
	)
}

// bytes encodes the module.
func (m *built) bytes() []byte {
	section := func(id byte, content []byte) []byte {
		return append(append([]byte{id}, uleb(uint64(len(content)))...), content...)
	}
	vec := func(items [][]byte) []byte {
		out := uleb(uint64(len(items)))
		for _, it := range items {
			out = append(out, it...)
		}
		return out
	}
	// Types: one per distinct signature.
	var types [][]byte
	typeOf := func(params, results []byte) uint32 {
		t := append(append(append([]byte{0x60}, uleb(uint64(len(params)))...), params...), uleb(uint64(len(results)))...)
		t = append(t, results...)
		for i, x := range types {
			if string(x) == string(t) {
				return uint32(i)
			}
		}
		types = append(types, t)
		return uint32(len(types) - 1)
	}
	var imports, funcs, bodies, exports [][]byte
	for _, im := range builtImports {
		e := append(append(wname(im.module), wname(im.name)...), 0)
		imports = append(imports, append(e, uleb(uint64(typeOf(im.params, im.results)))...))
	}
	for _, f := range m.funcs {
		funcs = append(funcs, uleb(uint64(typeOf(f.params, f.results))))
		var locals [][]byte
		for _, l := range f.locals {
			locals = append(locals, []byte{1, l})
		}
		b := append(vec(locals), f.body...)
		b = append(b, opEnd)
		bodies = append(bodies, append(uleb(uint64(len(b))), b...))
	}
	for _, e := range m.exports {
		exports = append(exports, append(append(wname(e.name), e.kind), uleb(uint64(e.idx))...))
	}
	pages := m.minPages
	if need := uint32((len(m.data) + 65535) / 65536); need > pages {
		pages = need
	}
	mem := []byte{0}
	if m.maxPages > 0 {
		mem = []byte{1}
		mem = append(mem, uleb(uint64(pages))...)
		mem = append(mem, uleb(uint64(m.maxPages))...)
	} else {
		mem = append(mem, uleb(uint64(pages))...)
	}
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = append(out, section(1, vec(types))...)
	out = append(out, section(2, vec(imports))...)
	out = append(out, section(3, vec(funcs))...)
	out = append(out, section(5, append([]byte{1}, mem...))...)
	out = append(out, section(7, vec(exports))...)
	if m.start > 0 {
		out = append(out, section(8, uleb(uint64(len(builtImports)+m.start-1)))...)
	}
	out = append(out, section(10, vec(bodies))...)
	seg := append([]byte{0}, i32c(0)...)
	seg = append(seg, opEnd)
	seg = append(seg, uleb(uint64(len(m.data)))...)
	seg = append(seg, m.data...)
	out = append(out, section(11, vec([][]byte{seg}))...)
	return out
}
