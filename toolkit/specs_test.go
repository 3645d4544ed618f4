package toolkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// schemaTool is a read-only tool with given schemas.
type schemaTool struct{ spec toolkit.Spec }

func (t schemaTool) Spec() toolkit.Spec { return t.spec }

func (schemaTool) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	return permission.AllowDecision("a test tool"), nil
}

func (schemaTool) Call(context.Context, toolkit.Input) toolkit.Stream {
	return toolkit.Single(&toolkit.Chunk{Content: []toolkit.Block{toolkit.TextBlock("ok")}, Structured: map[string]any{"n": 1}})
}

// TestToolsSchemasAreCopies: changing or appending to the schemas Tools
// returned changes neither the registry's copies nor the validation of
// calls, nor the other schemas of the same listing.
func TestToolsSchemasAreCopies(t *testing.T) {
	tk := toolkit.New(toolkit.Options{})
	for i := range 3 {
		sp := toolkit.Spec{
			Name:         fmt.Sprintf("t%d", i),
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
			OutputSchema: json.RawMessage(`{"type":"object"}`),
			ReadOnly:     true,
		}
		if i == 1 {
			sp.OutputSchema = nil
		}
		if err := tk.Register(schemaTool{sp}); err != nil {
			t.Fatal(err)
		}
	}
	listing := func() string {
		var b strings.Builder
		for _, ti := range tk.Tools() {
			fmt.Fprintf(&b, "%s %s %s\n", ti.Spec.Name, ti.Spec.InputSchema, ti.Spec.OutputSchema)
		}
		return b.String()
	}
	before := listing()

	infos := tk.Tools()
	if infos[1].Spec.OutputSchema != nil {
		t.Errorf("a nil output schema became %q", infos[1].Spec.OutputSchema)
	}
	for _, ti := range infos {
		clear(ti.Spec.InputSchema)
		_ = append(ti.Spec.InputSchema, `garbage`...) // must not run into the next schema
		if ti.Spec.OutputSchema != nil {
			ti.Spec.OutputSchema[0] = 'X'
		}
	}
	if s := string(infos[0].Spec.OutputSchema); s != `X"type":"object"}` {
		t.Errorf("an append to an input schema ran into the output schema after it: %q", s)
	}
	if after := listing(); after != before {
		t.Errorf("the registry changed:\n%s\nwas\n%s", after, before)
	}
	if r := toolkittest.Call(t, tk, "s", "t0", `{"n":"x"}`); r.State != toolkit.StateError {
		t.Errorf("validation changed: %s %q", r.State, r.Text())
	}
	if r := toolkittest.Call(t, tk, "s", "t0", `{"n":1}`); r.State != toolkit.StateSuccess {
		t.Errorf("validation changed: %s %q", r.State, r.Text())
	}
}

// BenchmarkTools measures listing 50 tools, their schemas copied.
func BenchmarkTools(b *testing.B) {
	tk := toolkit.New(toolkit.Options{})
	var batch toolkit.Batch
	for i := range 50 {
		batch.Register(schemaTool{toolkit.Spec{
			Name:        fmt.Sprintf("t%d", i),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file to read"},"limit":{"type":"integer"}},"required":["path"]}`),
		}})
	}
	if err := tk.Apply(&batch); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(tk.Tools()) != 50 {
			b.Fatal("tools missing")
		}
	}
}

// TestDefinitionsAreCopies: changing what Definitions returned changes
// neither the next Definitions nor the OpenAI export of the tools.
func TestDefinitionsAreCopies(t *testing.T) {
	tk := toolkit.New(toolkit.Options{})
	schema := `{"type":"object","title":"T","properties":{"a":{"type":"string","title":"A"}}}`
	tool, err := toolkit.NewFunc("f", "d", func(context.Context, map[string]any) (string, error) { return "", nil },
		toolkit.FuncOptions{InputSchema: json.RawMessage(schema)})
	if err != nil {
		t.Fatal(err)
	}
	if err := tk.Register(tool); err != nil {
		t.Fatal(err)
	}
	defs, err := tk.Definitions(context.Background(), "s", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := string(toolkit.OpenAI(defs)[0].Function.Parameters)
	for i := range defs[0].InputSchema {
		defs[0].InputSchema[i] = ' '
	}
	again, err := tk.Definitions(context.Background(), "s", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(again[0].InputSchema) != schema {
		t.Errorf("Definitions after a caller changed its copy: %s", again[0].InputSchema)
	}
	if got := string(toolkit.OpenAI(again)[0].Function.Parameters); got != before || strings.Contains(got, "title") {
		t.Errorf("OpenAI export after a caller changed its copy: %s, want %s", got, before)
	}
}
