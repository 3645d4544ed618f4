package host

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// oneTool is the schema of a built module with one tool, t.
const oneTool = `{"abi":1,"name":"built","version":"1.0.0","tools":[{"name":"t","description":"A hand-built tool.","input_schema":{"type":"object"}}]}`

// loadBuilt loads a hand-built module.
func loadBuilt(t testing.TB, h *Host, m *built, cfg Config) *Plugin {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "built"
	}
	p, err := h.Load(context.Background(), m.bytes(), cfg)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// callBuilt builds a module whose call export runs body and calls its
// tool t.
func callBuilt(t *testing.T, h *Host, body func(m *built) []byte) *toolkit.Response {
	t.Helper()
	p := loadBuilt(t, h, pluginModule(oneTool, body), Config{})
	r, _ := call(t, kit(t, bypass, p), "t", `{}`)
	return r
}

const okResult = `{"content":[{"type":"text","text":"ok"}]}`

// TestKernelBounds: every load and store must lie inside one live block.
// Reading or writing past a block's end, outside every block, or in a
// freed block traps, for the one-byte and the eight-byte functions
// alike, instead of reading padding or writing into the next block.
func TestKernelBounds(t *testing.T) {
	h := newTestHost(t)
	alloc := func(n int64, local uint32) []byte { return code(i64c(n), callf(fAlloc), lset(local)) }
	at := func(local uint32, delta int64) []byte { return code(lget(local), i64c(delta), []byte{opI64Add}) }
	cases := []struct {
		name string
		body func(m *built) []byte
		want string
	}{
		{"store_u64 past the end into the next block", func(m *built) []byte {
			return code(alloc(8, 1), alloc(8, 2), at(1, 4), i64c(-1), callf(fStoreU64), m.output(okResult), i32c(0))
		}, "store_u64 at offset"},
		{"store_u8 in the padding after a block", func(m *built) []byte {
			return code(alloc(3, 1), at(1, 3), i32c(7), callf(fStoreU8), m.output(okResult), i32c(0))
		}, "outside every kernel memory block"},
		{"load_u64 across the end", func(m *built) []byte {
			return code(alloc(12, 1), at(1, 8), callf(fLoadU64), []byte{opDrop}, m.output(okResult), i32c(0))
		}, "run past the end of the block"},
		{"load_u8 past the end", func(m *built) []byte {
			return code(alloc(3, 1), at(1, 3), callf(fLoadU8), []byte{opDrop}, m.output(okResult), i32c(0))
		}, "outside every kernel memory block"},
		{"load_u8 before the first block", func(m *built) []byte {
			return code(i64c(3), callf(fLoadU8), []byte{opDrop}, m.output(okResult), i32c(0))
		}, "outside every kernel memory block"},
		{"store_u8 in a freed block", func(m *built) []byte {
			return code(alloc(8, 1), lget(1), callf(fFree), lget(1), i32c(1), callf(fStoreU8), m.output(okResult), i32c(0))
		}, "was freed"},
		{"input_load_u64 past the input", func(m *built) []byte {
			return code(callf(fInputLength), i64c(-4), []byte{opI64Add}, callf(fInputLoadU64), []byte{opDrop}, m.output(okResult), i32c(0))
		}, "past the end of the input"},
		{"input_load_u8 past the input", func(m *built) []byte {
			return code(callf(fInputLength), callf(fInputLoadU8), []byte{opDrop}, m.output(okResult), i32c(0))
		}, "past the end of the input"},
		{"output_set of a range no block holds", func(m *built) []byte {
			return code(alloc(8, 1), lget(1), i64c(16), callf(fOutputSet), i32c(0))
		}, "output_set at offset"},
		{"error_set of an offset that starts no block", func(m *built) []byte {
			return code(alloc(16, 1), at(1, 8), callf(fErrorSet), i32c(1))
		}, "no kernel memory block starts at offset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := callBuilt(t, h, c.body)
			if r.State != toolkit.StateError || !strings.Contains(r.Text(), "trapped") && !strings.Contains(r.Text(), c.want) || !strings.Contains(r.Text(), c.want) {
				t.Errorf("%s %q, want an error with %q", r.State, r.Text(), c.want)
			}
		})
	}

	// Within bounds, the same functions work: the eight-byte ones up to
	// the last whole word, the one-byte ones to the last byte; alloc(0)
	// is offset 0 and an empty output_set of it is an empty output.
	r := callBuilt(t, h, func(m *built) []byte {
		return code(
			alloc(11, 1),
			at(1, 2), i64c(0x0102030405060708), callf(fStoreU64),
			at(1, 10), i32c(9), callf(fStoreU8),
			at(1, 2), callf(fLoadU64), i64c(0x0102030405060708), []byte{0x51 /* i64.eq */, opI32Eqz, opIf, opBlockVoid, opUnreachable, opEnd},
			at(1, 10), callf(fLoadU8), i32c(9), []byte{0x47 /* i32.ne */, opIf, opBlockVoid, opUnreachable, opEnd},
			i64c(0), callf(fAlloc), []byte{opI64Eqz, opI32Eqz, opIf, opBlockVoid, opUnreachable, opEnd},
			m.output(okResult), i32c(0))
	})
	if r.State != toolkit.StateSuccess || r.Text() != "ok" {
		t.Errorf("in bounds: %s %q", r.State, r.Text())
	}
}

// TestExportSemantics pins what the spec says about an export's answer:
// a set error fails the export even when it returns 0; a second
// output_set replaces the first; an export that returns 0 without
// output_set fails saying so; output that is not UTF-8, blocks of unknown
// types and unknown states are errors; text blocks without an id are
// concatenated like those with one; wasmtools_emit outside call is
// ignored.
func TestExportSemantics(t *testing.T) {
	h := newTestHost(t)
	cases := []struct {
		name string
		body func(m *built) []byte
		want string // "" = success with wantText
		text string
	}{
		{"error_set then return 0", func(m *built) []byte {
			return code(m.block("the disk is full"), callf(fErrorSet), m.output(okResult), i32c(0))
		}, "the disk is full", ""},
		{"error_set then cleared", func(m *built) []byte {
			return code(m.block("transient"), callf(fErrorSet), i64c(0), callf(fErrorSet), m.output(okResult), i32c(0))
		}, "", "ok"},
		{"non-zero without a message", func(m *built) []byte { return i32c(7) }, "failed with code 7 and set no error message", ""},
		{"output_set twice", func(m *built) []byte {
			return code(m.output(`{"content":[{"type":"text","text":"first"}]}`), m.output(`{"content":[{"type":"text","text":"second"}]}`), i32c(0))
		}, "", "second"},
		{"no output_set", func(m *built) []byte { return i32c(0) }, "no output_set", ""},
		{"output not UTF-8", func(m *built) []byte {
			return code(m.output("{\"content\":[{\"type\":\"text\",\"text\":\"\xff\xfe\"}]}"), i32c(0))
		}, "not valid UTF-8 (byte 35)", ""},
		{"unknown block type", func(m *built) []byte {
			return code(m.output(`{"content":[{"type":"image","text":"x"}]}`), i32c(0))
		}, `content block 0 has the unknown type "image"`, ""},
		{"block without a type", func(m *built) []byte {
			return code(m.output(`{"content":[{"text":"x"}]}`), i32c(0))
		}, "content block 0 has no type", ""},
		{"unknown state", func(m *built) []byte {
			return code(m.output(`{"content":[],"state":"done"}`), i32c(0))
		}, `unknown state "done"`, ""},
		{"chunk with an unknown block type", func(m *built) []byte {
			return code(m.block(`{"content":[{"type":"text","text":"a"},{"type":"video"}]}`), callf(fEmit), m.output(okResult), i32c(0))
		}, `wasmtools_emit: chunk 1: content block 1 has the unknown type "video"`, ""},
		{"chunk not UTF-8", func(m *built) []byte {
			return code(m.block("{\"content\":[{\"type\":\"text\",\"text\":\"\xc3\"}]}"), callf(fEmit), m.output(okResult), i32c(0))
		}, "wasmtools_emit: chunk 1: not valid UTF-8", ""},
		{"wrong JSON types, told in JSON's words", func(m *built) []byte {
			return code(m.output(`{"content":"text"}`), i32c(0))
		}, "field content is a string where an array is expected", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := callBuilt(t, h, c.body)
			if c.want == "" {
				if r.State != toolkit.StateSuccess || r.Text() != c.text {
					t.Errorf("%s %q, want success %q", r.State, r.Text(), c.text)
				}
				return
			}
			if r.State != toolkit.StateError || !strings.Contains(r.Text(), c.want) {
				t.Errorf("%s %q, want an error with %q", r.State, r.Text(), c.want)
			}
			for _, goName := range []string{"abi.", "[]", "Go struct", "Go value", "json:"} {
				if strings.Contains(r.Text(), goName) {
					t.Errorf("the message %q names Go types (%q)", r.Text(), goName)
				}
			}
		})
	}

	// Text blocks without an id share the empty id: all of them, across
	// chunks and the result, are concatenated into the first; other
	// blocks are appended.
	m := pluginModule(oneTool, func(m *built) []byte {
		return code(
			m.block(`{"content":[{"type":"text","text":"a"},{"type":"text","id":"n","text":"1"}]}`), callf(fEmit),
			m.output(`{"content":[{"type":"data","media_type":"application/x-test","data":"AQ=="},{"type":"text","text":"b"},{"type":"text","id":"n","text":"2"}]}`),
			i32c(0))
	})
	p := loadBuilt(t, h, m, Config{})
	r, _ := call(t, kit(t, bypass, p), "t", `{}`)
	got := []string{}
	for _, b := range r.Content {
		got = append(got, string(b.Type)+":"+b.ID+":"+b.Text)
	}
	if strings.Join(got, " ") != "text::ab text:n:12 data::" {
		t.Errorf("folded content %q", got)
	}

	// wasmtools_emit outside call is ignored: the check still answers.
	m = newBuilt()
	m.answer(abi.ExportSchema, oneTool)
	m.export(abi.ExportCheckPermissions, nil, m.block(`{"content":[{"type":"nonsense"}]}`), callf(fEmit), m.output(`{"behavior":"deny","message":"no"}`), i32c(0))
	m.answer(abi.ExportCall, okResult)
	p = loadBuilt(t, h, m, Config{})
	d, err := kit(t, permissionDefault, p).Check(context.Background(), "s", toolkit.Call{Name: "t", Arguments: "{}"}, toolkit.CheckOptions{})
	if err != nil || d.Behavior != "deny" {
		t.Errorf("check with an emit: %+v %v", d, err)
	}
}

// permissionDefault is the default mode with no rules.
var permissionDefault = permission.Context{}
