//go:build !wasip1

// End-to-end tests of the first-party plugins and the hostile fixtures,
// run as real Wasm modules by a third-party Extism host
// (github.com/extism/go-sdk), independent of our own host package.
package plugins_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/testplugins"
)

// ---- harness ----

// chunkSink collects the chunks one call emits; it travels in the call's
// context to the wasmtools_emit host function.
type chunkSink struct {
	mu     sync.Mutex
	chunks []abi.Chunk
	bad    []string
}

type sinkKey struct{}

// emitFunc is wasmtools_emit for the Extism host: it reads the chunk,
// frees its block (the ABI says the host frees it) and records it.
var emitFunc = extism.NewHostFunctionWithStack(abi.ImportEmit,
	func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
		b, err := p.ReadBytes(stack[0])
		p.Free(stack[0])
		sink, _ := ctx.Value(sinkKey{}).(*chunkSink)
		if sink == nil {
			return
		}
		sink.mu.Lock()
		defer sink.mu.Unlock()
		var c abi.Chunk
		if err == nil {
			err = json.Unmarshal(b, &c)
		}
		if err != nil {
			sink.bad = append(sink.bad, fmt.Sprintf("%v: %q", err, b))
			return
		}
		sink.chunks = append(sink.chunks, c)
	},
	[]extism.ValueType{extism.ValueTypeI64}, nil)

// options configure how a module is compiled (what the manifest grants).
type options struct {
	allowedHosts []string
	maxPages     uint32
	timeout      time.Duration
}

var (
	compileMu sync.Mutex
	compiled  = map[string]*extism.CompiledPlugin{}
	cacheOnce sync.Once
	wzCache   wazero.CompilationCache
)

// cacheDir is the wazero compilation cache shared by the repository's
// tests.
func cacheDir(t testing.TB) string { return testplugins.CompileCache(t) }

// runtimeConfig is wazero's compiler with the compilation cache on disk.
func runtimeConfig(t testing.TB) wazero.RuntimeConfig {
	cacheOnce.Do(func() {
		wzCache = wazero.NewCompilationCache()
		if c, err := wazero.NewCompilationCacheWithDir(cacheDir(t)); err == nil {
			wzCache = c
		}
	})
	return wazero.NewRuntimeConfigCompiler().WithCompilationCache(wzCache)
}

// compile compiles a module once per test process and options.
func compile(t testing.TB, path string, o options) *extism.CompiledPlugin {
	t.Helper()
	key := fmt.Sprintf("%s|%v|%d|%v", path, o.allowedHosts, o.maxPages, o.timeout)
	compileMu.Lock()
	defer compileMu.Unlock()
	if c, ok := compiled[key]; ok {
		return c
	}
	timeout := o.timeout
	if raceEnabled {
		// testplugins compiled the module into the shared cache in an
		// uninstrumented process. Under -race every manifest has a timeout, so that every module is
		// compiled with close-on-context-done, as testdata/precompile
		// compiles it (wazero's cache key includes that flag).
		if timeout == 0 {
			timeout = 2 * time.Minute
		}
	}
	m := extism.Manifest{
		Wasm:         []extism.Wasm{extism.WasmFile{Path: path}},
		AllowedHosts: o.allowedHosts,
		Timeout:      uint64(timeout / time.Millisecond),
	}
	if o.maxPages > 0 {
		m.Memory = &extism.ManifestMemory{MaxPages: o.maxPages}
	}
	c, err := extism.NewCompiledPlugin(context.Background(), m, extism.PluginConfig{
		EnableWasi:                true,
		EnableHttpResponseHeaders: true,
		RuntimeConfig:             runtimeConfig(t),
	}, []extism.HostFunction{emitFunc})
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	compiled[key] = c
	return c
}

// plugin is one instance of a module.
type plugin struct {
	t testing.TB
	p *extism.Plugin
}

// instance makes a new instance of a compiled module; ctx may carry a
// wazero memory allocator.
func instance(t testing.TB, ctx context.Context, c *extism.CompiledPlugin) *plugin {
	t.Helper()
	p, err := c.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: wazero.NewModuleConfig()})
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return &plugin{t: t, p: p}
}

// load builds plugins/NAME, compiles it and returns a fresh instance.
func load(t testing.TB, name string, o options) *plugin {
	t.Helper()
	return instance(t, context.Background(), compile(t, testplugins.Go(t, name), o))
}

// loadFixture builds a fixture under plugins/testdata and returns a fresh instance.
func loadFixture(t testing.TB, dir string, o options) *plugin {
	t.Helper()
	return instance(t, context.Background(), compile(t, testplugins.Source(t, filepath.Join("testdata", dir)), o))
}

type result struct {
	rc     uint32
	out    []byte
	err    error
	chunks []abi.Chunk
}

// call runs one export with req (a value encoded to JSON, or []byte).
func (p *plugin) call(export string, req any) result {
	p.t.Helper()
	in, ok := req.([]byte)
	if !ok {
		var err error
		if in, err = json.Marshal(req); err != nil {
			p.t.Fatal(err)
		}
	}
	sink := &chunkSink{}
	ctx := context.WithValue(context.Background(), sinkKey{}, sink)
	rc, out, err := p.p.CallWithContext(ctx, export, in)
	if len(sink.bad) > 0 {
		p.t.Errorf("%s emitted invalid chunks: %v", export, sink.bad)
	}
	return result{rc: rc, out: out, err: err, chunks: sink.chunks}
}

// ok runs one export, requires success, and decodes its output into resp.
func (p *plugin) ok(export string, req, resp any) result {
	p.t.Helper()
	r := p.call(export, req)
	if r.rc != 0 || r.err != nil {
		p.t.Fatalf("%s: rc %d, err %v, out %s", export, r.rc, r.err, r.out)
	}
	if err := json.Unmarshal(r.out, resp); err != nil {
		p.t.Fatalf("%s: output is not the expected JSON: %v\n%s", export, err, r.out)
	}
	return r
}

func (p *plugin) callTool(tool string, input any) (abi.CallResult, []abi.Chunk) {
	p.t.Helper()
	in, err := json.Marshal(input)
	if err != nil {
		p.t.Fatal(err)
	}
	var res abi.CallResult
	r := p.ok(abi.ExportCall, abi.CallRequest{ABI: abi.Version, Tool: tool, Input: in, CallID: "c1", SessionID: "s1"}, &res)
	return res, r.chunks
}

func (p *plugin) check(tool string, input any) abi.Decision {
	p.t.Helper()
	in, _ := json.Marshal(input)
	var d abi.Decision
	p.ok(abi.ExportCheckPermissions, abi.CheckRequest{ABI: abi.Version, Tool: tool, Input: in, Context: abi.PermissionContext{Mode: "default", Cwd: "/w", WorkingDirs: []string{"/w"}}}, &d)
	return d
}

func (p *plugin) matchRule(tool, content string, input any) bool {
	p.t.Helper()
	in, _ := json.Marshal(input)
	var m abi.MatchRuleResponse
	p.ok(abi.ExportMatchRule, abi.MatchRuleRequest{ABI: abi.Version, Tool: tool, Content: content, Input: in}, &m)
	return m.Match
}

func (p *plugin) suggestions(tool string, input any) []string {
	p.t.Helper()
	in, _ := json.Marshal(input)
	var s abi.SuggestionsResponse
	p.ok(abi.ExportGenerateSuggestions, abi.SuggestionsRequest{ABI: abi.Version, Tool: tool, Input: in}, &s)
	return s.Suggestions
}

func (p *plugin) readOnly(tool string, input any) bool {
	p.t.Helper()
	in, _ := json.Marshal(input)
	var r abi.ReadOnlyResponse
	p.ok(abi.ExportCheckReadOnly, abi.CheckRequest{ABI: abi.Version, Tool: tool, Input: in, Context: abi.PermissionContext{Mode: "default"}}, &r)
	return r.ReadOnly
}

func text(r abi.CallResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == abi.BlockText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// ---- schema and module shape ----

var firstParty = []string{"hash", "jsonquery", "regex", "httpfetch", "deploy"}

func TestSchemas(t *testing.T) {
	type toolWant struct {
		name                string
		readOnly, concurent bool
		required            []string
	}
	tests := []struct {
		plugin string
		tools  []toolWant
		hosts  bool
	}{
		{"hash", []toolWant{{"hash", true, true, []string{"text"}}, {"encode", true, true, []string{"text", "operation", "format"}}}, false},
		{"jsonquery", []toolWant{{"jsonquery", true, true, []string{"json", "query"}}}, false},
		{"regex", []toolWant{{"regex", true, true, []string{"operation", "pattern", "text"}}}, false},
		{"httpfetch", []toolWant{{"fetch", false, true, []string{"url"}}}, true},
		{"deploy", []toolWant{{"deploy", false, false, []string{"target"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			p := load(t, tt.plugin, options{})
			var s abi.SchemaResponse
			p.ok(abi.ExportSchema, abi.SchemaRequest{ABI: abi.Version, Host: "extism-go-sdk/test"}, &s)
			if s.ABI != abi.Version || s.Name != tt.plugin || s.Version == "" {
				t.Errorf("abi %d, name %q, version %q", s.ABI, s.Name, s.Version)
			}
			if len(s.Tools) != len(tt.tools) {
				t.Fatalf("got %d tools, want %d", len(s.Tools), len(tt.tools))
			}
			for i, want := range tt.tools {
				got := s.Tools[i]
				if got.Name != want.name || got.ReadOnly != want.readOnly || got.ConcurrencySafe != want.concurent || got.Description == "" {
					t.Errorf("tool %d = %+v, want %+v", i, got, want)
				}
				var schema struct {
					Type       string                     `json:"type"`
					Properties map[string]json.RawMessage `json:"properties"`
					Required   []string                   `json:"required"`
				}
				if err := json.Unmarshal(got.InputSchema, &schema); err != nil {
					t.Fatal(err)
				}
				if schema.Type != "object" || !slices.Equal(schema.Required, want.required) {
					t.Errorf("%s input schema: type %q, required %v, want %v", got.Name, schema.Type, schema.Required, want.required)
				}
				for _, r := range schema.Required {
					if _, ok := schema.Properties[r]; !ok {
						t.Errorf("%s: required %q has no property", got.Name, r)
					}
				}
			}
			if hasHosts := s.Grants != nil && len(s.Grants.HTTPHosts) > 0; hasHosts != tt.hosts {
				t.Errorf("grants = %+v, want http hosts: %v", s.Grants, tt.hosts)
			}
		})
	}
}

// TestModuleShape checks every module against section 1 of the ABI: a
// reactor exporting the required and optional functions and memory,
// importing only from the allowed modules.
func TestModuleShape(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter()) // only to decode the module
	defer rt.Close(ctx)
	allowed := map[string]bool{abi.ModuleEnv: true, abi.ModuleUser: true, abi.ModuleWASI: true}
	for _, name := range firstParty {
		t.Run(name, func(t *testing.T) {
			path := testplugins.Go(t, name)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := rt.CompileModule(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			var imports []string
			for _, f := range m.ImportedFunctions() {
				mod, fn, _ := f.Import()
				if !allowed[mod] {
					t.Errorf("imports %s.%s", mod, fn)
				}
				if mod != abi.ModuleWASI {
					imports = append(imports, fn)
				}
			}
			exports := m.ExportedFunctions()
			for _, e := range []string{"_initialize", abi.ExportSchema, abi.ExportCheckPermissions, abi.ExportCall, abi.ExportCheckReadOnly, abi.ExportMatchRule, abi.ExportGenerateSuggestions} {
				f, ok := exports[e]
				if !ok {
					t.Errorf("does not export %s", e)
					continue
				}
				if e != "_initialize" && (len(f.ParamTypes()) != 0 || !slices.Equal(f.ResultTypes(), []api.ValueType{api.ValueTypeI32})) {
					t.Errorf("%s has type %v -> %v, want () -> i32", e, f.ParamTypes(), f.ResultTypes())
				}
			}
			if _, ok := exports["_start"]; ok {
				t.Error("exports _start: built as a command, not a reactor")
			}
			if _, ok := m.ExportedMemories()["memory"]; !ok {
				t.Error("does not export memory")
			}
			streams := slices.Contains(imports, abi.ImportEmit)
			if want := name == "deploy" || name == "httpfetch"; streams != want {
				t.Errorf("imports wasmtools_emit: %v, want %v", streams, want)
			}
			st, _ := os.Stat(path)
			t.Logf("%s: %d bytes; kernel imports %v", name, st.Size(), imports)
		})
	}
}

// ---- tools ----

// TestHostileFixtures checks that each hostile fixture misbehaves the way
// its doc says, so that the host's tests exercise what they mean to.
func TestHostileFixtures(t *testing.T) {
	schema := func(t *testing.T, p *plugin) []byte {
		r := p.call(abi.ExportSchema, abi.SchemaRequest{ABI: 1})
		if r.rc != 0 || r.err != nil {
			t.Fatalf("schema: rc %d, err %v", r.rc, r.err)
		}
		return r.out
	}
	callTool := func(p *plugin, tool, input string) result {
		return p.call(abi.ExportCall, []byte(`{"abi":1,"tool":"`+tool+`","input":`+input+`}`))
	}
	t.Run("loop", func(t *testing.T) {
		p := loadFixture(t, "hostile/loop", options{timeout: 500 * time.Millisecond})
		start := time.Now()
		r := callTool(p, "loop", `{}`)
		if r.err == nil || time.Since(start) > 10*time.Second {
			t.Errorf("rc %d, err %v after %v", r.rc, r.err, time.Since(start))
		}
	})
	t.Run("membomb", func(t *testing.T) {
		p := loadFixture(t, "hostile/membomb", options{maxPages: 1024}) // 64 MiB
		r := callTool(p, "membomb", `{}`)
		if r.err == nil || r.rc == 0 {
			t.Errorf("rc %d, err %v", r.rc, r.err)
		}
	})
	t.Run("trap", func(t *testing.T) {
		tests := []struct {
			kind, want string
			rc         uint32
		}{
			{"oob", "out of bounds memory access", 1},
			{"panic", "call panicked: trap: a deliberate panic", 1},
			{"goroutine", "wasm error: unreachable", 1},
		}
		for _, tt := range tests {
			p := loadFixture(t, "hostile/trap", options{})
			r := callTool(p, "trap", `{"kind":"`+tt.kind+`"}`)
			if r.rc != tt.rc || r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
				t.Errorf("%s: rc %d, err %v; want rc %d and %q", tt.kind, r.rc, r.err, tt.rc, tt.want)
			}
		}
	})
	t.Run("fsescape", func(t *testing.T) {
		p := loadFixture(t, "hostile/fsescape", options{})
		var res abi.CallResult
		p.ok(abi.ExportCall, []byte(`{"abi":1,"tool":"fsescape","input":{}}`), &res)
		if got := text(res); res.Metadata["escaped"] != 0.0 || strings.Contains(got, "root:") || !strings.Contains(got, "open /etc/passwd: error") {
			t.Errorf("escaped: %v\n%s", res.Metadata, got)
		}
	})
	t.Run("netescape", func(t *testing.T) {
		p := loadFixture(t, "hostile/netescape", options{allowedHosts: []string{"granted.invalid"}})
		r := callTool(p, "netescape", `{}`)
		if r.err == nil || !strings.Contains(r.err.Error(), "127.0.0.1") {
			t.Errorf("rc %d, err %v, out %.200s", r.rc, r.err, r.out)
		}
	})
	t.Run("huge", func(t *testing.T) {
		p := loadFixture(t, "hostile/huge", options{})
		input, size := `{}`, 50<<20
		if raceEnabled { // the race detector slows the 6.5 million kernel calls down
			input, size = `{"mib":8}`, 8<<20
		}
		r := callTool(p, "huge", input)
		if r.rc != 0 || len(r.out) < size {
			t.Errorf("rc %d, err %v, %d bytes", r.rc, r.err, len(r.out))
		}
	})
	t.Run("badjson", func(t *testing.T) {
		if out := schema(t, loadFixture(t, "hostile/badjson", options{})); json.Valid(out) {
			t.Errorf("schema is valid JSON: %s", out)
		}
	})
	t.Run("wrongabi", func(t *testing.T) {
		var s abi.SchemaResponse
		if err := json.Unmarshal(schema(t, loadFixture(t, "hostile/wrongabi", options{})), &s); err != nil || s.ABI != 99 {
			t.Errorf("abi %d, err %v", s.ABI, err)
		}
	})
	t.Run("emptyschema", func(t *testing.T) {
		out := schema(t, loadFixture(t, "hostile/emptyschema", options{}))
		var s abi.SchemaResponse
		if err := json.Unmarshal(out, &s); err != nil || s.ABI != 1 || s.Tools == nil || len(s.Tools) != 0 {
			t.Errorf("schema %s, err %v", out, err)
		}
	})
	t.Run("badtool", func(t *testing.T) {
		var s abi.SchemaResponse
		if err := json.Unmarshal(schema(t, loadFixture(t, "hostile/badtool", options{})), &s); err != nil || len(s.Tools) != 1 || s.Tools[0].Name != "bad tool" || string(s.Tools[0].InputSchema) != `{"type": "string"}` {
			t.Errorf("schema %+v, err %v", s, err)
		}
	})
	t.Run("exits", func(t *testing.T) {
		p := loadFixture(t, "hostile/exits", options{})
		r := callTool(p, "exits", `{}`)
		if r.rc != 3 || r.err == nil {
			t.Errorf("rc %d, err %v", r.rc, r.err)
		}
	})
}

// ---- benchmarks ----

// BenchmarkCall measures one export call through the Extism go-sdk on a
// warm instance (the go-sdk alone costs about 25-30 µs per call).
func BenchmarkCall(b *testing.B) {
	benches := []struct {
		name, plugin, export, req string
	}{
		{"hash/sha256", "hash", abi.ExportCall, `{"abi":1,"tool":"hash","input":{"text":"abc"},"call_id":"c1"}`},
		{"jsonquery/select", "jsonquery", abi.ExportCall, `{"abi":1,"tool":"jsonquery","input":{"json":"{\"a\":[1,2,3,4,5,6,7,8,9,10]}","query":"[.a[] | select(. > 5)] | length"}}`},
		{"regex/find_all", "regex", abi.ExportCall, `{"abi":1,"tool":"regex","input":{"operation":"find_all","pattern":"\\d+","text":"a1 b22 c333"}}`},
		{"deploy/check_permissions", "deploy", abi.ExportCheckPermissions, `{"abi":1,"tool":"deploy","input":{"target":"prod-eu"},"context":{"mode":"default"}}`},
		{"deploy/call-4-chunks", "deploy", abi.ExportCall, `{"abi":1,"tool":"deploy","input":{"target":"dev-1"}}`},
		{"deploy/schema", "deploy", abi.ExportSchema, `{"abi":1}`},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			p := load(b, bb.plugin, options{})
			req := []byte(bb.req)
			ctx := context.WithValue(context.Background(), sinkKey{}, &chunkSink{})
			if rc, out, err := p.p.CallWithContext(ctx, bb.export, req); rc != 0 || err != nil || strings.Contains(string(out), `"state":"error"`) {
				b.Fatalf("rc %d, err %v, out %s", rc, err, out)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				sink := &chunkSink{}
				if rc, _, err := p.p.CallWithContext(context.WithValue(context.Background(), sinkKey{}, sink), bb.export, req); rc != 0 || err != nil {
					b.Fatal(rc, err)
				}
			}
		})
	}
}
