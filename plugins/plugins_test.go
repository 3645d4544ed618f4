//go:build !wasip1

// End-to-end tests of the first-party plugins and the hostile fixtures,
// run as real Wasm modules by a third-party Extism host
// (github.com/extism/go-sdk), independent of our own host package.
package plugins_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

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

func TestHash(t *testing.T) {
	p := load(t, "hash", options{})
	tests := []struct {
		tool  string
		input map[string]any
		want  string
		err   bool
	}{
		{"hash", map[string]any{"text": "abc"}, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", false},
		{"hash", map[string]any{"text": "abc", "algorithm": "sha1"}, "a9993e364706816aba3e25717850c26c9cd0d89d", false},
		{"hash", map[string]any{"text": "abc", "algorithm": "md5"}, "900150983cd24fb0d6963f7d28e17f72", false},
		{"hash", map[string]any{"text": "abc", "algorithm": "sha512"}, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f", false},
		{"hash", map[string]any{"text": "", "algorithm": "sha256"}, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", false},
		{"hash", map[string]any{"text": "YWJj", "input_encoding": "base64", "output": "base64"}, "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=", false},
		{"hash", map[string]any{"text": "616263", "input_encoding": "hex", "algorithm": "md5"}, "900150983cd24fb0d6963f7d28e17f72", false},
		{"hash", map[string]any{"text": "abc", "algorithm": "crc32"}, "unknown algorithm", true},
		{"hash", map[string]any{"text": "zz", "input_encoding": "hex"}, "not hex", true},
		{"encode", map[string]any{"text": "hello, world?", "operation": "encode", "format": "base64"}, "aGVsbG8sIHdvcmxkPw==", false},
		{"encode", map[string]any{"text": "hello, world?", "operation": "encode", "format": "base64url"}, "aGVsbG8sIHdvcmxkPw", false},
		{"encode", map[string]any{"text": "hi!", "operation": "encode", "format": "hex"}, "686921", false},
		{"encode", map[string]any{"text": "aGVsbG8sIHdvcmxkPw==", "operation": "decode", "format": "base64"}, "hello, world?", false},
		{"encode", map[string]any{"text": "aGVsbG8sIHdvcmxkPw", "operation": "decode", "format": "base64url"}, "hello, world?", false},
		{"encode", map[string]any{"text": "686921", "operation": "decode", "format": "hex"}, "hi!", false},
		{"encode", map[string]any{"text": "ff00fe", "operation": "decode", "format": "hex"}, "not UTF-8", false},
		{"encode", map[string]any{"text": "%%%", "operation": "decode", "format": "base64"}, "not valid base64", true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.tool, tt.input), func(t *testing.T) {
			res, _ := p.callTool(tt.tool, tt.input)
			got := text(res)
			if tt.err != (res.State == abi.StateError) {
				t.Fatalf("state %q, want error %v: %s", res.State, tt.err, got)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	res, _ := p.callTool("encode", map[string]any{"text": "ff00fe", "operation": "decode", "format": "hex"})
	if len(res.Content) != 2 || res.Content[1].Type != abi.BlockData || string(res.Content[1].Data) != "\xff\x00\xfe" {
		t.Errorf("binary decode: %+v", res.Content)
	}
	res, _ = p.callTool("hash", map[string]any{"text": "abc", "algorithm": "md5"})
	if res.Metadata["algorithm"] != "md5" || res.Metadata["bytes"] != 3.0 {
		t.Errorf("metadata = %v", res.Metadata)
	}
}

func TestJSONQuery(t *testing.T) {
	p := load(t, "jsonquery", options{})
	doc := `{"users":[{"name":"ann","age":31,"admin":true},{"name":"bob","age":17},{"name":"cy","age":45}]}`
	tests := []struct {
		query string
		raw   bool
		want  string
		err   string
	}{
		{query: `.users[0].name`, want: `"ann"`},
		{query: `.users[] | select(.age > 18) | .name`, raw: true, want: "ann\ncy"},
		{query: `.users | map(.age) | add`, want: `93`},
		{query: `.users | length`, want: `3`},
		{query: `.users[1] | keys`, want: "[\n  \"age\",\n  \"name\"\n]"},
		{query: `[.users[] | select(.admin != true) | .name]`, want: "[\n  \"bob\",\n  \"cy\"\n]"},
		{query: `.users[] | select(.name == "bob") | .age < 18`, want: `true`},
		{query: `.users[`, err: "not valid jq"},
		{query: `.users.name`, err: "expected an object"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, _ := p.callTool("jsonquery", map[string]any{"json": doc, "query": tt.query, "raw": tt.raw})
			got := text(res)
			if tt.err != "" {
				if res.State != abi.StateError || !strings.Contains(got, tt.err) {
					t.Fatalf("state %q, text %q, want an error with %q", res.State, got, tt.err)
				}
				return
			}
			if res.State != abi.StateSuccess || got != tt.want {
				t.Errorf("state %q, got %q, want %q", res.State, got, tt.want)
			}
		})
	}
	res, _ := p.callTool("jsonquery", map[string]any{"json": "{not json", "query": "."})
	if res.State != abi.StateError || !strings.Contains(text(res), "not valid JSON") {
		t.Errorf("bad document: %+v", res)
	}
}

func TestRegex(t *testing.T) {
	p := load(t, "regex", options{})
	tests := []struct {
		input map[string]any
		want  []string
		err   bool
	}{
		{map[string]any{"operation": "match", "pattern": `(\w+)@(?P<host>[\w.]+)`, "text": "mail ann@example.com now"},
			[]string{`"matched": true`, `"text": "ann@example.com"`, `"start": 5`, `"host": "example.com"`, `"ann"`}, false},
		{map[string]any{"operation": "match", "pattern": `\d+`, "text": "none"}, []string{`"matched": false`}, false},
		{map[string]any{"operation": "find_all", "pattern": `\d+`, "text": "a1 b22 c333"},
			[]string{`"count": 3`, `"text": "333"`, `"truncated": false`}, false},
		{map[string]any{"operation": "find_all", "pattern": `\d`, "text": "12345", "limit": 2},
			[]string{`"count": 2`, `"truncated": true`}, false},
		{map[string]any{"operation": "replace", "pattern": `(\w+)@(\w+)`, "text": "ann@x bob@y", "replacement": "$2:$1"}, []string{"x:ann y:bob"}, false},
		{map[string]any{"operation": "replace", "pattern": `a`, "text": "banana", "replacement": "$1", "literal": true}, []string{"b$1n$1n$1"}, false},
		{map[string]any{"operation": "replace", "pattern": `(?i)A`, "text": "aAa", "replacement": "-", "limit": 2}, []string{"--a"}, false},
		{map[string]any{"operation": "match", "pattern": `(unclosed`, "text": "x"}, []string{"invalid pattern"}, true},
		{map[string]any{"operation": "split", "pattern": `x`, "text": "x"}, []string{"unknown operation"}, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.input), func(t *testing.T) {
			res, _ := p.callTool("regex", tt.input)
			got := text(res)
			if tt.err != (res.State == abi.StateError) {
				t.Fatalf("state %q: %s", res.State, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestDeploy(t *testing.T) {
	p := load(t, "deploy", options{})
	checks := []struct {
		target   string
		behavior string
		immune   bool
	}{
		{"prod-eu", abi.Ask, true},
		{"prod-us-2", abi.Ask, true},
		{"dev-1", abi.Allow, false},
		{"staging-2", abi.Passthrough, false},
		{"production", abi.Passthrough, false},
	}
	for _, c := range checks {
		d := p.check("deploy", map[string]any{"target": c.target})
		if d.Behavior != c.behavior || d.BypassImmune != c.immune {
			t.Errorf("check %s = %+v, want %s immune=%v", c.target, d, c.behavior, c.immune)
		}
		if c.behavior == abi.Ask && !strings.Contains(d.Message, c.target) {
			t.Errorf("ask message %q does not name %s", d.Message, c.target)
		}
	}
	matches := []struct {
		content, target string
		want            bool
	}{
		{"staging-*", "staging-2", true},
		{"staging-*", "prod-eu", false},
		{"dev-?", "dev-1", true},
		{"dev-?", "dev-12", false},
		{"prod-eu", "prod-eu", true},
		{"", "anything", true}, // a tool-level rule
	}
	for _, m := range matches {
		if got := p.matchRule("deploy", m.content, map[string]any{"target": m.target}); got != m.want {
			t.Errorf("match_rule(%q, %s) = %v, want %v", m.content, m.target, got, m.want)
		}
	}
	if got := p.suggestions("deploy", map[string]any{"target": "staging-2"}); !slices.Equal(got, []string{"deploy(staging-*)"}) {
		t.Errorf("suggestions = %v", got)
	}
	if got := p.suggestions("deploy", map[string]any{"target": "qa"}); !slices.Equal(got, []string{"deploy(qa)"}) {
		t.Errorf("suggestions = %v", got)
	}
	if p.readOnly("deploy", map[string]any{"target": "prod-eu"}) || !p.readOnly("deploy", map[string]any{"target": "prod-eu", "dry_run": true}) {
		t.Error("check_read_only: want read-only only for a dry run")
	}

	res, chunks := p.callTool("deploy", map[string]any{"target": "staging-2", "version": "1.4.0"})
	if res.State != abi.StateSuccess || !strings.Contains(text(res), "Deployed 1.4.0 to staging-2") {
		t.Errorf("result = %+v", res)
	}
	if len(chunks) != 4 {
		t.Fatalf("got %d chunks, want 4: %+v", len(chunks), chunks)
	}
	for i, c := range chunks {
		if c.Metadata["progress"] != float64(i+1)/4 || len(c.Content) != 1 || !strings.HasPrefix(c.Content[0].Text, fmt.Sprintf("[%d/4]", i+1)) {
			t.Errorf("chunk %d = %+v", i, c)
		}
	}
	res, chunks = p.callTool("deploy", map[string]any{"target": "prod-eu", "dry_run": true})
	if len(chunks) != 0 || !strings.Contains(text(res), "Dry run") {
		t.Errorf("dry run: %+v, %d chunks", res, len(chunks))
	}
	res, _ = p.callTool("deploy", map[string]any{"target": ""})
	if res.State != abi.StateError {
		t.Errorf("empty target: %+v", res)
	}
}

func TestHTTPFetch(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("X-Test", "yes")
		switch r.URL.Path {
		case "/hello":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "hello from the server")
		case "/big":
			fmt.Fprint(w, strings.Repeat("é", 1000)) // 2000 bytes
		case "/echo":
			b := new(strings.Builder)
			fmt.Fprintf(b, "%s %s ", r.Method, r.Header.Get("X-Req"))
			buf := make([]byte, 100)
			n, _ := r.Body.Read(buf)
			b.Write(buf[:n])
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, b.String())
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("the test server is not on 127.0.0.1: %s", srv.URL)
	}
	p := load(t, "httpfetch", options{allowedHosts: []string{"127.0.0.1"}, timeout: 20 * time.Second})

	res, chunks := p.callTool("fetch", map[string]any{"url": srv.URL + "/hello"})
	got := text(res)
	for _, w := range []string{"HTTP 200", "x-test: yes", "content-type: text/plain", "hello from the server"} {
		if !strings.Contains(got, w) {
			t.Errorf("GET result lacks %q:\n%s", w, got)
		}
	}
	if res.Metadata["status"] != 200.0 || res.Metadata["truncated"] != false {
		t.Errorf("metadata = %v", res.Metadata)
	}
	if len(chunks) != 1 || !strings.Contains(chunks[0].Content[0].Text, "GET "+srv.URL+"/hello") {
		t.Errorf("progress chunks = %+v", chunks)
	}

	res, _ = p.callTool("fetch", map[string]any{"url": srv.URL + "/echo", "method": "post", "body": "payload", "headers": map[string]string{"X-Req": "r1"}})
	if got := text(res); !strings.Contains(got, "HTTP 201") || !strings.Contains(got, "POST r1 payload") {
		t.Errorf("POST result:\n%s", got)
	}

	res, _ = p.callTool("fetch", map[string]any{"url": srv.URL + "/big", "max_bytes": 101})
	if got := text(res); !strings.Contains(got, strings.Repeat("é", 50)+"\n\n[cut: showing 100 of 2000 bytes") {
		t.Errorf("cut result:\n%s", got)
	}
	res, _ = p.callTool("fetch", map[string]any{"url": srv.URL + "/missing"})
	if !strings.Contains(text(res), "HTTP 404") {
		t.Errorf("404 result:\n%s", text(res))
	}
	res, _ = p.callTool("fetch", map[string]any{"url": "ftp://127.0.0.1/x"})
	if res.State != abi.StateError || !strings.Contains(text(res), "not an http or https URL") {
		t.Errorf("ftp result: %+v", res)
	}

	// A host that was not granted: the Extism host refuses it with a
	// trap, which ends the call with an error naming the URL.
	before := hits.Load()
	r := p.call(abi.ExportCall, abi.CallRequest{ABI: 1, Tool: "fetch", Input: json.RawMessage(`{"url":"` + strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + `/hello"}`)})
	if r.err == nil || !strings.Contains(r.err.Error(), "not allowed") {
		t.Errorf("ungranted host: rc %d, err %v, out %s", r.rc, r.err, r.out)
	}
	if hits.Load() != before {
		t.Error("the ungranted request reached the server")
	}

	// Permissions.
	if d := p.check("fetch", map[string]any{"url": srv.URL}); d.Behavior != abi.Passthrough {
		t.Errorf("GET check = %+v", d)
	}
	d := p.check("fetch", map[string]any{"url": "https://api.example.com/v1/items", "method": "DELETE"})
	if d.Behavior != abi.Ask || d.BypassImmune || !slices.Equal(d.Suggestions, []string{"fetch(DELETE https://api.example.com/*)"}) {
		t.Errorf("DELETE check = %+v", d)
	}
	matches := []struct {
		content, url, method string
		want                 bool
	}{
		{"https://api.example.com/*", "https://api.example.com/v1/items", "", true},
		{"https://api.example.com/*", "https://api.example.com/v1/items", "HEAD", true},
		{"https://api.example.com/*", "https://api.example.com/v1/items", "POST", false},
		{"https://api.example.com/*", "https://api.example.com.evil.io/x", "", false},
		{"https://api.example.com/*", "http://api.example.com/x", "", false},
		{"https://api.example.com/v1/*/items", "https://api.example.com/v1/7/items", "", true},
		{"POST https://api.example.com/*", "https://api.example.com/v1", "post", true},
		{"POST https://api.example.com/*", "https://api.example.com/v1", "PUT", false},
		{"* https://api.example.com/*", "https://api.example.com/v1", "DELETE", true},
		{"api.example.com", "https://api.example.com/anything", "", true},
		{"api.example.com", "https://www.example.com/", "", false},
		{"*.example.com", "https://cdn.example.com/a.js", "", true},
		{"*.example.com", "https://example.com.evil.io/", "", false},
	}
	for _, m := range matches {
		if got := p.matchRule("fetch", m.content, map[string]any{"url": m.url, "method": m.method}); got != m.want {
			t.Errorf("match_rule(%q, %s %s) = %v, want %v", m.content, m.method, m.url, got, m.want)
		}
	}
	if got := p.suggestions("fetch", map[string]any{"url": "https://api.example.com/v1/items?q=1"}); !slices.Equal(got, []string{"fetch(https://api.example.com/*)"}) {
		t.Errorf("suggestions = %v", got)
	}
}

// TestSDKErrors checks the SDK's failure paths through Wasm: an unknown
// tool, input that does not fit the tool's type, a request that is not
// JSON, and a tool whose input is wrong at call time.
func TestSDKErrors(t *testing.T) {
	p := load(t, "deploy", options{})
	tests := []struct {
		export string
		req    string
		want   string
	}{
		{abi.ExportCall, `{"abi":1,"tool":"nosuch","input":{}}`, `unknown tool "nosuch": this plugin provides deploy`},
		{abi.ExportCheckPermissions, `{"abi":1,"tool":"deploy","input":{"target":7}}`, "does not fit the tool's input type"},
		{abi.ExportMatchRule, `{"abi":1,"tool":"deploy","content":"x","input":[1]}`, "does not fit"},
		{abi.ExportSchema, `not json`, ""}, // the schema ignores its input
		{abi.ExportCall, `{"abi":1,`, "not valid JSON"},
	}
	for _, tt := range tests {
		r := p.call(tt.export, []byte(tt.req))
		if tt.want == "" {
			if r.rc != 0 || r.err != nil {
				t.Errorf("%s %s: rc %d, err %v", tt.export, tt.req, r.rc, r.err)
			}
			continue
		}
		if r.rc == 0 || r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
			t.Errorf("%s %s: rc %d, err %v, want an error with %q", tt.export, tt.req, r.rc, r.err, tt.want)
		}
	}
	// A wrong input type at call time is a result the model reads.
	var res abi.CallResult
	p.ok(abi.ExportCall, []byte(`{"abi":1,"tool":"deploy","input":{"target":["x"]}}`), &res)
	if res.State != abi.StateError || !strings.Contains(text(res), "invalid input for deploy") {
		t.Errorf("bad call input: %+v", res)
	}
	// The instance still works after all that.
	if d := p.check("deploy", map[string]any{"target": "dev-2"}); d.Behavior != abi.Allow {
		t.Errorf("after errors: %+v", d)
	}
}

// ---- the guest's garbage collector ----

// trackingAllocator backs linear memories with plain slices and records
// how large each grows (a wazero experimental hook).
type trackingAllocator struct {
	mu   sync.Mutex
	mems []*trackedMemory
}

func (a *trackingAllocator) Allocate(capacity, max uint64) experimental.LinearMemory {
	m := &trackedMemory{buf: make([]byte, 0, capacity), max: max}
	a.mu.Lock()
	a.mems = append(a.mems, m)
	a.mu.Unlock()
	return m
}

// largest returns the size of the largest memory: the plugin's, not the
// Extism kernel's.
func (a *trackingAllocator) largest() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var n uint64
	for _, m := range a.mems {
		n = max(n, m.size.Load())
	}
	return n
}

type trackedMemory struct {
	buf  []byte
	max  uint64
	size atomic.Uint64
}

func (m *trackedMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
	} else {
		b := make([]byte, size, min(m.max, size+size/2))
		copy(b, m.buf)
		m.buf = b
	}
	m.size.Store(size)
	return m.buf
}

func (m *trackedMemory) Free() { m.buf = nil }

// TestGuestGCRuns calls a tool that allocates 1 MiB of garbage 2000
// times on one instance (2 GiB in all). The SDK yields to the Go
// scheduler before each export returns, so the guest's garbage collector
// runs and linear memory stays small; without that, the heap only grows
// (the module would need 2 GiB).
func TestGuestGCRuns(t *testing.T) {
	alloc := &trackingAllocator{}
	ctx := experimental.WithMemoryAllocator(context.Background(), alloc)
	p := instance(t, ctx, compile(t, testplugins.Source(t, "testdata/alloc"), options{}))
	const calls, bound = 2000, 64 << 20
	var first uint64
	for i := range calls {
		res, _ := p.callTool("alloc", map[string]any{"kib": 1024})
		if res.State != abi.StateSuccess {
			t.Fatalf("call %d: %+v", i, res)
		}
		if i == 0 {
			first = alloc.largest()
		}
	}
	peak := alloc.largest()
	t.Logf("linear memory after 1 call: %d MiB; after %d calls of 1 MiB of garbage: %d MiB", first>>20, calls, peak>>20)
	if peak > bound {
		t.Errorf("linear memory grew to %d MiB after %d calls; want at most %d MiB: the guest's GC does not run", peak>>20, calls, bound>>20)
	}
}

// ---- hostile fixtures, as seen by a third-party Extism host ----

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
