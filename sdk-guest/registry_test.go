package guest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/abi"
)

type deployIn struct {
	Target string `json:"target"`
	DryRun bool   `json:"dry_run,omitempty"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

type sumIn struct {
	A, B int
}

// testRegistry is a plugin with tools covering every kind of result and
// every optional function.
func testRegistry() *registry {
	r := &registry{info: PluginInfo{Name: "test", Version: "1.2.3", Grants: &abi.Grants{HTTPHosts: []string{"api.example.com"}}}}
	r.add(newEntry(Tool[deployIn, Result]{
		Name:        "deploy",
		Description: "Deploys.",
		Call: func(c *Call, in deployIn) (Result, error) {
			for i := range 3 {
				if err := c.Progress(float64(i+1)/3, "step"); err != nil {
					return Result{}, err
				}
			}
			return Result{Content: []abi.Block{Text("deployed " + in.Target)}, Metadata: map[string]any{"target": in.Target}}, nil
		},
		Check: func(in deployIn, pctx abi.PermissionContext) abi.Decision {
			switch {
			case strings.HasPrefix(in.Target, "prod-"):
				return abi.Decision{Behavior: abi.Ask, BypassImmune: true, Message: "prod in " + pctx.Mode}
			case in.Target == "none":
				return abi.Decision{} // empty behaviour: passthrough
			}
			return abi.Decision{Behavior: abi.Allow}
		},
		IsReadOnly: func(in deployIn) bool { return in.DryRun },
		MatchRule: func(content string, in deployIn) bool {
			return strings.HasPrefix(in.Target, strings.TrimSuffix(content, "*"))
		},
		Suggest: func(in deployIn) []string { return []string{"deploy(" + in.Target + ")"} },
	}))
	r.add(newEntry(Tool[sumIn, sumOut]{
		Name:            "sum",
		Description:     "Adds.",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Call: func(_ *Call, in sumIn) (sumOut, error) {
			if in.A < 0 {
				return sumOut{}, errors.New("a is negative: pass a natural number")
			}
			if in.A == 13 {
				panic("unlucky")
			}
			return sumOut{in.A + in.B}, nil
		},
	}))
	r.add(newEntry(Tool[map[string]any, string]{
		Name:        "echo",
		Description: "Echoes.",
		Call:        func(_ *Call, in map[string]any) (string, error) { return in["text"].(string), nil },
	}))
	return r
}

func TestSchemaExport(t *testing.T) {
	r := testRegistry()
	out, err := r.handle(abi.ExportSchema, []byte(`{"abi":1,"host":"test"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"abi":1,"name":"test","version":"1.2.3","tools":[` +
		`{"name":"deploy","description":"Deploys.","input_schema":{"type":"object","properties":{"target":{"type":"string"},"dry_run":{"type":"boolean"}},"required":["target"],"additionalProperties":false},"hooks":["check_read_only","match_rule","generate_suggestions"]},` +
		`{"name":"sum","description":"Adds.","input_schema":{"type":"object","properties":{"A":{"type":"integer"},"B":{"type":"integer"}},"required":["A","B"],"additionalProperties":false},"concurrency_safe":true,"read_only":true,"hooks":[]},` +
		`{"name":"echo","description":"Echoes.","input_schema":{"type":"object"},"hooks":[]}],` +
		`"grants":{"http_hosts":["api.example.com"]}}`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// It decodes as the ABI's type, hooks included.
	var s abi.SchemaResponse
	if err := json.Unmarshal(out, &s); err != nil || s.Tools[1].Hooks == nil || len(s.Tools[1].Hooks) != 0 {
		t.Errorf("decoded %+v, err %v", s.Tools, err)
	}
	// An empty plugin has an empty list of tools, not null.
	out, _ = (&registry{}).handle(abi.ExportSchema, nil, nil)
	if string(out) != `{"abi":1,"tools":[]}` {
		t.Errorf("empty plugin: %s", out)
	}
}

func TestRegistrationProblems(t *testing.T) {
	tests := []struct {
		name string
		add  func(r *registry)
		want []string
	}{
		{"bad name", func(r *registry) {
			r.add(newEntry(Tool[sumIn, string]{Name: "bad name", Description: "x", Call: func(*Call, sumIn) (string, error) { return "", nil }}))
		}, []string{`tool name "bad name" must match`}},
		{"long name", func(r *registry) {
			r.add(newEntry(Tool[sumIn, string]{Name: strings.Repeat("a", 65), Description: "x", Call: func(*Call, sumIn) (string, error) { return "", nil }}))
		}, []string{"must match"}},
		{"no call, no description", func(r *registry) {
			r.add(newEntry(Tool[sumIn, string]{Name: "x"}))
		}, []string{`tool "x" has no description`, `tool "x" has no Call function`}},
		{"duplicate", func(r *registry) {
			for range 2 {
				r.add(newEntry(Tool[sumIn, string]{Name: "x", Description: "x", Call: func(*Call, sumIn) (string, error) { return "", nil }}))
			}
		}, []string{`tool "x" is registered twice`}},
		{"input not an object", func(r *registry) {
			r.add(newEntry(Tool[[]string, string]{Name: "x", Description: "x", Call: func(*Call, []string) (string, error) { return "", nil }}))
		}, []string{"is not a struct or a map"}},
		{"input without schema", func(r *registry) {
			r.add(newEntry(Tool[struct{ C chan int }, string]{Name: "x", Description: "x", Call: func(*Call, struct{ C chan int }) (string, error) { return "", nil }}))
		}, []string{"field C"}},
		{"bad InputSchema", func(r *registry) {
			r.add(newEntry(Tool[sumIn, string]{Name: "x", Description: "x", InputSchema: json.RawMessage(`{"type":"string"}`), Call: func(*Call, sumIn) (string, error) { return "", nil }}))
		}, []string{`InputSchema must have "type": "object"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &registry{}
			tt.add(r)
			_, err := r.handle(abi.ExportSchema, nil, nil)
			if err == nil {
				t.Fatal("schema succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// A given InputSchema replaces the inferred one.
	r := &registry{}
	r.add(newEntry(Tool[map[string]any, string]{Name: "x", Description: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		Call: func(*Call, map[string]any) (string, error) { return "", nil }}))
	out, err := r.handle(abi.ExportSchema, nil, nil)
	if err != nil || !strings.Contains(string(out), `"input_schema":{"type":"object","properties":{"q":{"type":"string"}}}`) {
		t.Errorf("custom schema: %s, %v", out, err)
	}
}

func TestPermissionExports(t *testing.T) {
	r := testRegistry()
	tests := []struct {
		export, req, want string
	}{
		{abi.ExportCheckPermissions, `{"abi":1,"tool":"deploy","input":{"target":"prod-eu"},"context":{"mode":"bypass"}}`, `{"behavior":"ask","message":"prod in bypass","bypass_immune":true}`},
		{abi.ExportCheckPermissions, `{"abi":1,"tool":"deploy","input":{"target":"dev-1"},"context":{"mode":"default"}}`, `{"behavior":"allow"}`},
		{abi.ExportCheckPermissions, `{"abi":1,"tool":"deploy","input":{"target":"none"}}`, `{"behavior":"passthrough"}`},
		{abi.ExportCheckPermissions, `{"abi":1,"tool":"sum","input":{"A":1,"B":2}}`, `{"behavior":"passthrough"}`},
		{abi.ExportCheckPermissions, `{"abi":1,"tool":"sum","input":{"A":"not checked without Check"}}`, `{"behavior":"passthrough"}`},
		{abi.ExportCheckReadOnly, `{"abi":1,"tool":"deploy","input":{"target":"x","dry_run":true}}`, `{"read_only":true}`},
		{abi.ExportCheckReadOnly, `{"abi":1,"tool":"deploy","input":{"target":"x"}}`, `{"read_only":false}`},
		{abi.ExportCheckReadOnly, `{"abi":1,"tool":"sum","input":{}}`, `{"read_only":true}`},
		{abi.ExportCheckReadOnly, `{"abi":1,"tool":"echo","input":{}}`, `{"read_only":false}`},
		{abi.ExportMatchRule, `{"abi":1,"tool":"deploy","content":"staging-*","input":{"target":"staging-2"}}`, `{"match":true}`},
		{abi.ExportMatchRule, `{"abi":1,"tool":"deploy","content":"staging-*","input":{"target":"prod"}}`, `{"match":false}`},
		{abi.ExportMatchRule, `{"abi":1,"tool":"sum","content":"x","input":{}}`, `{"match":false}`},
		{abi.ExportMatchRule, `{"abi":1,"tool":"sum","content":"","input":{}}`, `{"match":true}`},
		{abi.ExportGenerateSuggestions, `{"abi":1,"tool":"deploy","input":{"target":"qa"}}`, `{"suggestions":["deploy(qa)"]}`},
		{abi.ExportGenerateSuggestions, `{"abi":1,"tool":"sum","input":{}}`, `{"suggestions":["sum"]}`},
	}
	for _, tt := range tests {
		out, err := r.handle(tt.export, []byte(tt.req), nil)
		if err != nil || string(out) != tt.want {
			t.Errorf("%s %s:\ngot  %s (%v)\nwant %s", tt.export, tt.req, out, err, tt.want)
		}
	}
}

func TestCallExport(t *testing.T) {
	r := testRegistry()
	tests := []struct {
		name, req, want string
	}{
		{"struct result", `{"abi":1,"tool":"sum","input":{"A":2,"B":3}}`, `{"content":[{"type":"text","text":"{\"sum\":5}"}],"state":"success"}`},
		{"string result", `{"abi":1,"tool":"echo","input":{"text":"hi"}}`, `{"content":[{"type":"text","text":"hi"}],"state":"success"}`},
		{"error", `{"abi":1,"tool":"sum","input":{"A":-1,"B":3}}`, `{"content":[{"type":"text","text":"a is negative: pass a natural number"}],"state":"error"}`},
		{"bad input", `{"abi":1,"tool":"sum","input":{"A":"x"}}`, `{"content":[{"type":"text","text":"invalid input for sum: json: cannot unmarshal string into Go struct field sumIn.A of type int"}],"state":"error"}`},
		{"null input", `{"abi":1,"tool":"sum","input":null}`, `{"content":[{"type":"text","text":"{\"sum\":0}"}],"state":"success"}`},
		{"missing input", `{"abi":1,"tool":"sum"}`, `{"content":[{"type":"text","text":"{\"sum\":0}"}],"state":"success"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := r.handle(abi.ExportCall, []byte(tt.req), nil)
			if err != nil || string(out) != tt.want {
				t.Errorf("got  %s (%v)\nwant %s", out, err, tt.want)
			}
		})
	}

	// Streaming: chunks go to the emit function, the result comes last.
	var chunks []abi.Chunk
	out, err := r.handle(abi.ExportCall, []byte(`{"abi":1,"tool":"deploy","input":{"target":"dev-1"},"call_id":"c9"}`), func(c abi.Chunk) error {
		chunks = append(chunks, c)
		return nil
	})
	if err != nil || string(out) != `{"content":[{"type":"text","text":"deployed dev-1"}],"state":"success","metadata":{"target":"dev-1"}}` {
		t.Errorf("deploy: %s, %v", out, err)
	}
	if len(chunks) != 3 || chunks[2].Metadata["progress"] != 1.0 || chunks[0].Content[0].Text != "step" {
		t.Errorf("chunks = %+v", chunks)
	}
	// An emit failure is the tool's error.
	out, _ = r.handle(abi.ExportCall, []byte(`{"abi":1,"tool":"deploy","input":{"target":"dev-1"}}`), func(abi.Chunk) error { return errors.New("stream closed") })
	if !strings.Contains(string(out), `"text":"stream closed"}],"state":"error"`) {
		t.Errorf("emit failure: %s", out)
	}
}

func TestExportFailures(t *testing.T) {
	r := testRegistry()
	tests := []struct {
		export, req, want string
	}{
		{abi.ExportCall, `{"abi":1,"tool":"sum","input":{"A":13}}`, `call panicked: unlucky`},
		{abi.ExportCall, `{"abi":1,"tool":"nope","input":{}}`, `unknown tool "nope": this plugin provides deploy, echo, sum`},
		{abi.ExportCall, `{"abi":1,`, `the request is not valid JSON`},
		{abi.ExportCheckPermissions, `{"abi":1,"tool":"deploy","input":{"target":1}}`, `tool deploy: the input does not fit the tool's input type`},
		{abi.ExportCheckReadOnly, `{"abi":1,"tool":"deploy","input":[]}`, `does not fit`},
		{abi.ExportMatchRule, `{"abi":1,"tool":"deploy","content":"x","input":"s"}`, `does not fit`},
		{abi.ExportGenerateSuggestions, `{"abi":1,"tool":"deploy","input":7}`, `does not fit`},
		{"frobnicate", `{}`, `unknown export "frobnicate"`},
	}
	for _, tt := range tests {
		out, err := r.handle(tt.export, []byte(tt.req), nil)
		if err == nil || out != nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: out %s, err %v; want an error with %q", tt.export, tt.req, out, err, tt.want)
		}
	}
	// A tool whose registration failed fails every export that names it.
	r.add(newEntry(Tool[sumIn, string]{Name: "broken", Description: "x"}))
	if _, err := r.handle(abi.ExportCall, []byte(`{"abi":1,"tool":"broken"}`), nil); err == nil || !strings.Contains(err.Error(), "no Call function") {
		t.Errorf("broken tool: %v", err)
	}
}

func TestHandleRaw(t *testing.T) {
	r := testRegistry()
	r.raw = map[string]RawHandler{abi.ExportSchema: func(in []byte) ([]byte, error) { return append([]byte("raw:"), in...), nil }}
	out, err := r.handle(abi.ExportSchema, []byte("x"), nil)
	if err != nil || string(out) != "raw:x" {
		t.Errorf("got %s, %v", out, err)
	}
	// Other exports keep the SDK's implementation.
	if out, err := r.handle(abi.ExportCheckReadOnly, []byte(`{"tool":"sum"}`), nil); err != nil || string(out) != `{"read_only":true}` {
		t.Errorf("got %s, %v", out, err)
	}
}

func TestToResult(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, `{"state":"success"}`},
		{"", `{"content":[{"type":"text"}],"state":"success"}`},
		{Result{Error: true, Content: []abi.Block{Text("no")}}, `{"content":[{"type":"text","text":"no"}],"state":"error"}`},
		{&Result{Content: []abi.Block{Data("image/png", []byte{1, 2})}}, `{"content":[{"type":"data","data":"AQI=","media_type":"image/png"}],"state":"success"}`},
		{(*Result)(nil), `{"state":"success"}`},
		{abi.CallResult{Content: []abi.Block{Text("x")}}, `{"content":[{"type":"text","text":"x"}],"state":"success"}`},
		{&abi.CallResult{State: abi.StateError}, `{"state":"error"}`},
		{[]abi.Block{Text("a"), Text("b")}, `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"state":"success"}`},
		{Text("one"), `{"content":[{"type":"text","text":"one"}],"state":"success"}`},
		{[]int{1, 2}, `{"content":[{"type":"text","text":"[1,2]"}],"state":"success"}`},
	}
	for _, tt := range tests {
		r, err := toResult(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(r)
		if string(got) != tt.want {
			t.Errorf("%#v:\ngot  %s\nwant %s", tt.v, got, tt.want)
		}
	}
	if _, err := toResult(func() {}); err == nil {
		t.Error("a func result encoded")
	}
}

func TestNativeHost(t *testing.T) {
	if _, err := HTTP(HTTPRequest{URL: "https://example.com"}); !errors.Is(err, ErrNoHost) {
		t.Errorf("HTTP natively: %v", err)
	}
	if _, err := HTTP(HTTPRequest{URL: "file:///etc/passwd"}); err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
		t.Errorf("file URL: %v", err)
	}
	if _, ok := Config("key"); ok {
		t.Error("Config natively found a value")
	}
	if err := (&Call{}).EmitText("x"); err == nil {
		t.Error("Emit natively without a sink succeeded")
	}
}
