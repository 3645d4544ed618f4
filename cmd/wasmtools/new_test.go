package main

// These tests check plugins against the ABI from the outside: they load
// each module with the third-party Extism host (github.com/extism/go-sdk),
// not with our host package, so a plugin that passes works with any
// Extism host that adds wasmtools_emit, and a mistake shared by our host
// and our SDK cannot hide. TestTextstatsAS tests plugins/textstats-as
// here because a Go test needs a Go package and that folder is an npm
// project; the scaffold tests build what `wasmtools new plugin` writes.

import (
	"context"
	"encoding/json"
	"go/format"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/testplugins"
)

// extismPlugin is one instance of a plugin loaded with the Extism go-sdk,
// with wasmtools_emit collecting the chunks a call streams.
type extismPlugin struct {
	t      *testing.T
	p      *extism.Plugin
	chunks []abi.Chunk
}

// extismOptions tune loadExtism.
type extismOptions struct {
	// maxPages, when not 0, caps each memory at that many 64 KiB pages.
	maxPages uint32
	// interpret runs the module in wazero's interpreter instead of
	// compiling it: under -race, compiling a Go guest of a few MB takes
	// ~10 s and interpreting the few calls a test makes well under one.
	// AssemblyScript modules are small: compiling them is cheaper than
	// interpreting a loop of calls.
	interpret bool
}

// loadExtism loads the module at path with WASI (Go guests need it) and
// the wasmtools_emit host function.
func loadExtism(t *testing.T, path string, opts extismOptions) *extismPlugin {
	t.Helper()
	ep := &extismPlugin{t: t}
	emit := extism.NewHostFunctionWithStack(abi.ImportEmit,
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			b, err := p.ReadBytes(stack[0])
			if err != nil {
				t.Errorf("wasmtools_emit: read the chunk block: %v", err)
				return
			}
			var c abi.Chunk
			if err := json.Unmarshal(b, &c); err != nil {
				t.Errorf("wasmtools_emit: the chunk is not JSON: %v\n%s", err, b)
			}
			ep.chunks = append(ep.chunks, c)
			p.Free(stack[0]) // the ABI says the host frees the block
		},
		[]extism.ValueType{extism.ValueTypeI64}, nil)
	emit.SetNamespace(abi.ModuleUser)
	manifest := extism.Manifest{Wasm: []extism.Wasm{extism.WasmFile{Path: path}}}
	if opts.maxPages > 0 {
		manifest.Memory = &extism.ManifestMemory{MaxPages: opts.maxPages}
	}
	config := extism.PluginConfig{EnableWasi: true}
	if opts.interpret {
		config.RuntimeConfig = wazero.NewRuntimeConfigInterpreter()
	}
	p, err := extism.NewPlugin(t.Context(), manifest, config, []extism.HostFunction{emit})
	if err != nil {
		t.Fatalf("load %s with the Extism go-sdk: %v", path, err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	ep.p = p
	return ep
}

// call runs export with req encoded as JSON and decodes its output into
// resp. It fails the test unless the export returns 0.
func (ep *extismPlugin) call(export string, req, resp any) {
	ep.t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		ep.t.Fatal(err)
	}
	ep.chunks = nil
	rc, out, err := ep.p.Call(export, in)
	if err != nil || rc != 0 {
		ep.t.Fatalf("%s(%s): rc %d, error %v", export, in, rc, err)
	}
	if err := json.Unmarshal(out, resp); err != nil {
		ep.t.Fatalf("%s(%s): the output is not the expected JSON: %v\n%s", export, in, err, out)
	}
}

// callTool runs the call export for one tool and returns its result and
// the chunks it streamed.
func (ep *extismPlugin) callTool(tool string, input any) (abi.CallResult, []abi.Chunk) {
	ep.t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		ep.t.Fatal(err)
	}
	var res abi.CallResult
	ep.call(abi.ExportCall, abi.CallRequest{ABI: abi.Version, Tool: tool, Input: raw, CallID: "c1"}, &res)
	return res, ep.chunks
}

// text joins the text blocks of the chunks and the result, as the host
// does for blocks that share an id.
func text(res abi.CallResult, chunks []abi.Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		for _, bl := range c.Content {
			b.WriteString(bl.Text)
		}
	}
	for _, bl := range res.Content {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// checkModule checks a module's shape against abi/README.md §1: the
// required exports, and imports only from the three allowed modules. It
// only reads the module, so wazero's interpreter, whose compilation is
// cheap, does.
func checkModule(t *testing.T, path string) (exports []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rt := wazero.NewRuntimeWithConfig(t.Context(), wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(context.Background())
	m, err := rt.CompileModule(t.Context(), b)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	for name := range m.ExportedFunctions() {
		exports = append(exports, name)
	}
	for _, want := range abi.RequiredExports {
		if !slices.Contains(exports, want) {
			t.Errorf("%s does not export %s (exports: %q)", path, want, exports)
		}
	}
	for _, f := range m.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != abi.ModuleEnv && mod != abi.ModuleUser && mod != abi.ModuleWASI {
			t.Errorf("%s imports %s.%s: only %s, %s and %s are allowed", path, mod, name, abi.ModuleEnv, abi.ModuleUser, abi.ModuleWASI)
		}
	}
	return exports
}

func TestTextstatsAS(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: plugins/textstats-as cannot be built")
	}
	path := testplugins.AssemblyScript(t, "textstats-as")
	if fi, err := os.Stat(path); err == nil {
		t.Logf("textstats-as.wasm: %d bytes", fi.Size())
	}
	exports := checkModule(t, path)
	if !slices.Contains(exports, abi.ExportCheckReadOnly) {
		t.Errorf("textstats-as does not export %s", abi.ExportCheckReadOnly)
	}
	ep := loadExtism(t, path, extismOptions{})

	var schema abi.SchemaResponse
	ep.call(abi.ExportSchema, abi.SchemaRequest{ABI: abi.Version, Host: "test"}, &schema)
	if schema.ABI != abi.Version || schema.Name != "textstats-as" {
		t.Errorf("schema: abi %d, name %q", schema.ABI, schema.Name)
	}
	var names []string
	for _, tool := range schema.Tools {
		names = append(names, tool.Name)
		if !tool.ReadOnly || !tool.ConcurrencySafe {
			t.Errorf("tool %s: read_only %v, concurrency_safe %v; want both", tool.Name, tool.ReadOnly, tool.ConcurrencySafe)
		}
		var s struct {
			Type     string   `json:"type"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil || s.Type != "object" || !slices.Equal(s.Required, []string{"text"}) {
			t.Errorf("tool %s: input_schema %s (%v)", tool.Name, tool.InputSchema, err)
		}
	}
	if !slices.Equal(names, []string{"word_count", "slugify"}) {
		t.Errorf("tools = %q", names)
	}

	check := abi.CheckRequest{ABI: abi.Version, Tool: "word_count", Input: json.RawMessage(`{"text":"x"}`),
		Context: abi.PermissionContext{Mode: "default"}}
	var d abi.Decision
	ep.call(abi.ExportCheckPermissions, check, &d)
	if d.Behavior != abi.Allow {
		t.Errorf("check_permissions(word_count) = %+v, want allow", d)
	}
	var ro abi.ReadOnlyResponse
	ep.call(abi.ExportCheckReadOnly, check, &ro)
	if !ro.ReadOnly {
		t.Error("check_read_only(word_count) = false")
	}
	check.Tool = "nope"
	ep.call(abi.ExportCheckPermissions, check, &d)
	if d.Behavior != abi.Deny || !strings.Contains(d.Message, `"nope"`) {
		t.Errorf("check_permissions(nope) = %+v, want a deny naming the tool", d)
	}

	t.Run("word_count", func(t *testing.T) {
		// Non-ASCII text on purpose: the PDK's Host.outputString sizes
		// its block in UTF-16 units and would cut this answer short.
		in := "The café — THE cat's café.\nThe end, «naïve» 𝄞 day\n"
		res, chunks := ep.callTool("word_count", map[string]any{"text": in, "top": 3})
		if res.State != "" && res.State != abi.StateSuccess {
			t.Fatalf("state %q: %+v", res.State, res)
		}
		if len(chunks) != 1 {
			t.Fatalf("%d chunks streamed, want 1", len(chunks))
		}
		for _, b := range append(chunks[0].Content, res.Content...) {
			if b.Type != abi.BlockText || b.ID != "word_count" {
				t.Errorf("block %+v: want a text block with id word_count", b)
			}
		}
		got := text(res, chunks)
		want := "words: 10\nlines: 2\ncharacters: 50\nbytes: 60\nunique words: 7\nmost frequent: the (3), café (2), cat's (1)\n"
		if got != want {
			t.Errorf("text:\n%s\nwant:\n%s", got, want)
		}
		meta, _ := json.Marshal(res.Metadata)
		wantMeta := `{"bytes":60,"characters":50,"lines":2,"top":[{"count":3,"word":"the"},{"count":2,"word":"café"},{"count":1,"word":"cat's"}],"unique_words":7,"words":10}`
		if string(meta) != wantMeta {
			t.Errorf("metadata %s\nwant     %s", meta, wantMeta)
		}
	})

	t.Run("word_count edge cases", func(t *testing.T) {
		for _, tt := range []struct{ in, want string }{
			{"", "words: 0\nlines: 0\ncharacters: 0\nbytes: 0\nunique words: 0\nmost frequent: (none)\n"},
			{"one", "words: 1\nlines: 1\ncharacters: 3\nbytes: 3\nunique words: 1\nmost frequent: one (1)\n"},
			{"a\n\n— …\n", "words: 1\nlines: 3\ncharacters: 7\nbytes: 11\nunique words: 1\nmost frequent: a (1)\n"},
			{"ÉCOLE école Ωmega ωMEGA Привет привет", "words: 6\nlines: 1\ncharacters: 37\nbytes: 53\nunique words: 3\nmost frequent: école (2), ωmega (2), привет (2)\n"},
			{"say \"hi\"\t\"HI!\"", "words: 3\nlines: 1\ncharacters: 14\nbytes: 14\nunique words: 2\nmost frequent: hi (2), say (1)\n"},
			// Words that must be escaped in the JSON answer.
			{"a\\b c\x01d c\x01d", "words: 3\nlines: 1\ncharacters: 11\nbytes: 11\nunique words: 2\nmost frequent: c\x01d (2), a\\b (1)\n"},
		} {
			res, chunks := ep.callTool("word_count", map[string]any{"text": tt.in})
			if got := text(res, chunks); got != tt.want {
				t.Errorf("word_count(%q):\n%s\nwant:\n%s", tt.in, got, tt.want)
			}
		}
	})

	t.Run("slugify", func(t *testing.T) {
		for _, tt := range []struct {
			input map[string]any
			want  string
		}{
			{map[string]any{"text": "Hello, World!"}, "hello-world"},
			{map[string]any{"text": "  Crème Brûlée à la Ærø — 2024 edition  "}, "creme-brulee-a-la-aero-2024-edition"},
			{map[string]any{"text": "Straße_Łódź", "separator": "_"}, "strasse_lodz"},
			{map[string]any{"text": "a quick brown fox", "max_length": 12}, "a-quick"},
			{map[string]any{"text": "supercalifragilistic", "max_length": 5}, "super"},
			{map[string]any{"text": "日本語"}, ""},
			{map[string]any{"text": `quote " and \ backslash`, "separator": ""}, "quoteandbackslash"},
		} {
			res, chunks := ep.callTool("slugify", tt.input)
			if len(chunks) != 0 {
				t.Errorf("slugify streamed %d chunks", len(chunks))
			}
			if got := text(res, chunks); got != tt.want {
				t.Errorf("slugify(%v) = %q, want %q", tt.input, got, tt.want)
			}
		}
	})

	t.Run("mistakes", func(t *testing.T) {
		res, _ := ep.callTool("nope", map[string]any{"text": "x"})
		if res.State != abi.StateError || !strings.Contains(text(res, nil), `no tool "nope"`) {
			t.Errorf("unknown tool: %+v", res)
		}
		res, _ = ep.callTool("word_count", map[string]any{"top": 2})
		if res.State != abi.StateError || !strings.Contains(text(res, nil), `"text" is required`) {
			t.Errorf("missing text: %+v", res)
		}
		// A request that is not JSON fails the export with a message.
		rc, _, err := ep.p.Call(abi.ExportCall, []byte(`{"tool": "word_count", "input": {"text": "x"`))
		if rc == 0 || err == nil || !strings.Contains(err.Error(), "not a valid JSON") {
			t.Errorf("broken request: rc %d, error %v", rc, err)
		}
	})

	// One instance serves many calls: with AssemblyScript's minimal
	// runtime the plugin collects its garbage at the end of each export.
	// Without that, 50 calls on 110 KB of text would outgrow 4 MiB.
	t.Run("memory stays bounded", func(t *testing.T) {
		small := loadExtism(t, path, extismOptions{maxPages: 64})
		big := strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit ", 2000)
		for range 50 {
			res, _ := small.callTool("word_count", map[string]any{"text": big})
			if res.Metadata["words"] != float64(16000) {
				t.Fatalf("words = %v", res.Metadata["words"])
			}
		}
	})
}

// newPlugin runs `wasmtools new plugin NAME ARGS... --dir DIR` and returns
// DIR, failing the test unless it succeeds.
func newPlugin(t *testing.T, name string, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	r := runBinary(t, nil, "", append([]string{"new", "plugin", name, "--dir", dir}, args...)...)
	if r.code != exitOK {
		t.Fatalf("wasmtools new failed\n%s", r)
	}
	for _, s := range []string{"Created the", dir, "Next:", "wasmtools call " + name} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("the output lacks %q\n%s", s, r)
		}
	}
	return dir
}

// checkScaffold loads a scaffolded plugin NAME (its tool reverses text)
// with the Extism go-sdk and with our own host through `wasmtools call`.
func checkScaffold(t *testing.T, name, wasm string) {
	t.Helper()
	checkModule(t, wasm)
	ep := loadExtism(t, wasm, extismOptions{interpret: true})
	var schema abi.SchemaResponse
	ep.call(abi.ExportSchema, abi.SchemaRequest{ABI: abi.Version}, &schema)
	if schema.ABI != abi.Version || schema.Name != name || len(schema.Tools) != 1 {
		t.Fatalf("schema = %+v", schema)
	}
	tool := schema.Tools[0]
	if tool.Name != name || !tool.ReadOnly || !tool.ConcurrencySafe || !strings.Contains(string(tool.InputSchema), `"text"`) {
		t.Errorf("tool = %+v, input_schema %s", tool, tool.InputSchema)
	}
	var d abi.Decision
	ep.call(abi.ExportCheckPermissions, abi.CheckRequest{ABI: abi.Version, Tool: name,
		Input: json.RawMessage(`{"text":"x"}`), Context: abi.PermissionContext{Mode: "default"}}, &d)
	if d.Behavior != abi.Passthrough {
		t.Errorf("check_permissions = %+v, want passthrough", d)
	}
	res, chunks := ep.callTool(name, map[string]any{"text": "héllo 𝄞x"})
	if got := text(res, chunks); got != "x𝄞 olléh" || res.Metadata["characters"] != float64(8) {
		t.Errorf("call = %q, metadata %v; want %q and 8 characters", got, res.Metadata, "x𝄞 olléh")
	}
	if len(chunks) != 1 || chunks[0].Metadata["progress"] != 0.5 {
		t.Errorf("chunks = %+v, want one progress chunk", chunks)
	}

	// Our host, through the CLI, the way the README says to try it.
	dir := t.TempDir()
	b, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".wasm"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, nil, "", "call", name, `{"text":"abc"}`, "--plugins", dir)
	if r.code != exitOK || strings.TrimSpace(r.stdout) != "cba" {
		t.Errorf("wasmtools call %s: want cba\n%s", name, r)
	}
}

// runIn runs a command in dir and fails the test if it fails.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func TestNewPluginGo(t *testing.T) {
	t.Parallel()
	dir := newPlugin(t, "demo")
	for _, f := range []string{"main.go", "go.mod", "Makefile", "README.md", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the scaffold lacks %s: %v", f, err)
		}
	}
	// The test binary was built from this checkout, which is not above
	// the temporary folder: go.mod must point at it (rule 4 of the help).
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	root := testplugins.Root(t)
	if !strings.Contains(string(gomod), "github.com/wasmtools/wasmtools/sdk-guest => "+root+"/sdk-guest\n") {
		t.Errorf("go.mod does not replace the SDK with %s:\n%s", root, gomod)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if formatted, err := format.Source(src); err != nil || string(formatted) != string(src) {
		t.Errorf("main.go is not gofmt-clean (%v)", err)
	}
	makefile, _ := os.ReadFile(filepath.Join(dir, "Makefile"))
	const buildCmd = "GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -o demo.wasm ."
	if !strings.Contains(string(makefile), buildCmd) {
		t.Errorf("the Makefile lacks %q:\n%s", buildCmd, makefile)
	}
	// The Makefile's command, run directly: make is not everywhere.
	// GOFLAGS=-mod=mod is not needed: the SDK has no dependencies, so
	// the scaffold builds without a go.sum and without network.
	runIn(t, dir, []string{"GOOS=wasip1", "GOARCH=wasm", "GOPROXY=off"}, "go", "build", "-buildmode=c-shared", "-o", "demo.wasm", ".")
	checkScaffold(t, "demo", filepath.Join(dir, "demo.wasm"))
}

func TestNewPluginAssemblyScript(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	dir := newPlugin(t, "demo-as", "--lang", "assemblyscript")
	for _, f := range []string{"package.json", "package-lock.json", "asconfig.json", "assembly/index.ts", "README.md", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the scaffold lacks %s: %v", f, err)
		}
	}
	// npm ci installs exactly the lock file's versions; --prefer-offline
	// takes them from npm's cache (~/.npm) when an earlier run put them
	// there, which keeps this test to seconds.
	runIn(t, dir, nil, "npm", "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error")
	runIn(t, dir, nil, "npm", "run", "--silent", "build")
	checkScaffold(t, "demo-as", filepath.Join(dir, "build", "demo-as.wasm"))
}

// TestNewTemplatesMatchTextstats keeps the AssemblyScript template in
// step with plugins/textstats-as, which its test builds and exercises:
// the helper files are copies, and the pinned versions are the same.
func TestNewTemplatesMatchTextstats(t *testing.T) {
	plugin := filepath.Join(testplugins.Root(t), "plugins", "textstats-as")
	for _, f := range []string{"json.ts", "host.ts", "abort.ts"} {
		want, err := os.ReadFile(filepath.Join(plugin, "assembly", f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := templates.ReadFile("templates/assemblyscript/assembly/" + f + ".tmpl")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("templates/assemblyscript/assembly/%s.tmpl differs from plugins/textstats-as/assembly/%s: copy it over", f, f)
		}
	}
	deps := func(b []byte) map[string]string {
		var p struct {
			DevDependencies map[string]string `json:"devDependencies"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		return p.DevDependencies
	}
	pj, err := os.ReadFile(filepath.Join(plugin, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	tj, _ := templates.ReadFile("templates/assemblyscript/package.json.tmpl")
	if a, b := deps(pj), deps(tj); !maps.Equal(a, b) {
		t.Errorf("the template pins %v, textstats-as %v", b, a)
	}
}

func TestNewUsage(t *testing.T) {
	t.Parallel()
	notEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(notEmpty, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(notEmpty, "keep.txt")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"help", []string{"new", "--help"}, exitOK, []string{"Usage: wasmtools new plugin NAME", "Examples:", "--lang", "--sdk-path", "assemblyscript"}, nil},
		{"help new", []string{"help", "new"}, exitOK, []string{"Usage: wasmtools new plugin NAME"}, nil},
		{"nothing", []string{"new"}, exitUsage, nil, []string{"wasmtools new plugin NAME", "wasmtools new --help"}},
		{"unknown kind", []string{"new", "skill", "x"}, exitUsage, nil, []string{`cannot create a "skill"`}},
		{"no name", []string{"new", "plugin"}, exitUsage, nil, []string{"name the plugin"}},
		{"too many", []string{"new", "plugin", "a", "b"}, exitUsage, nil, []string{"too many arguments"}},
		{"upper case", []string{"new", "plugin", "Demo"}, exitUsage, nil, []string{`invalid plugin name "Demo"`}},
		{"leading digit", []string{"new", "plugin", "1x"}, exitUsage, nil, []string{"invalid plugin name"}},
		{"underscore", []string{"new", "plugin", "a_b"}, exitUsage, nil, []string{"invalid plugin name"}},
		{"too long", []string{"new", "plugin", strings.Repeat("a", 65)}, exitUsage, nil, []string{"invalid plugin name"}},
		{"unknown language", []string{"new", "plugin", "x", "--lang", "rust"}, exitUsage, nil, []string{`unknown language "rust"`}},
		{"not empty", []string{"new", "plugin", "x", "--dir", notEmpty}, exitUsage, nil, []string{"already exists and is not empty", "never overwrites"}},
		{"a file", []string{"new", "plugin", "x", "--dir", aFile}, exitUsage, nil, []string{"is not a directory"}},
		{"sdk-path not a checkout", []string{"new", "plugin", "x", "--sdk-path", notEmpty}, exitUsage, nil, []string{"--sdk-path", "not a wasmtools checkout"}},
		{"sdk-path for as", []string{"new", "plugin", "x", "--lang", "as", "--sdk-path", notEmpty}, exitUsage, nil, []string{"--sdk-path is for Go plugins"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, nil, "", tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit code %d, want %d\n%s", r.code, tt.code, r)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout lacks %q\n%s", s, r)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q\n%s", s, r)
				}
			}
		})
	}
	if b, _ := os.ReadFile(aFile); string(b) != "mine" {
		t.Errorf("keep.txt was changed to %q", b)
	}
}

// TestNewSDKSource checks where go.mod takes the SDK from, on a stand-in
// checkout (a go.mod naming the module and an sdk-guest folder) whose
// path has a space, which go.mod must quote.
func TestNewSDKSource(t *testing.T) {
	t.Parallel()
	fake := filepath.Join(t.TempDir(), "my sdk")
	if err := os.Mkdir(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fake, "go.mod"), []byte("module github.com/wasmtools/wasmtools\n\ngo 1.25.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(fake, "sdk-guest"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The SDK's own go.mod says which Go a plugin needs.
	if err := os.WriteFile(filepath.Join(fake, "sdk-guest", "go.mod"), []byte("module github.com/wasmtools/wasmtools/sdk-guest\n\ngo 1.24.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "p")
	empty := filepath.Join(fake, "plugins", "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		dir  string
		want string // in go.mod
	}{
		{"inside a checkout: relative", nil, filepath.Join(fake, "plugins", "p"), "github.com/wasmtools/wasmtools/sdk-guest => ../../sdk-guest\n"},
		{"an empty folder is fine", nil, empty, "github.com/wasmtools/wasmtools/abi => ../../abi\n"},
		{"--sdk-path: absolute", []string{"--sdk-path", fake}, elsewhere, "github.com/wasmtools/wasmtools/sdk-guest => " + strconv.Quote(fake+"/sdk-guest") + "\n"},
		{"--sdk-path wins", []string{"--sdk-path", testplugins.Root(t)}, filepath.Join(fake, "p2"), "=> " + testplugins.Root(t) + "/sdk-guest\n"},
	}
	for _, tt := range tests {
		r := runBinary(t, nil, "", append([]string{"new", "plugin", "p", "--dir", tt.dir}, tt.args...)...)
		if r.code != exitOK {
			t.Errorf("%s: %s", tt.name, r)
			continue
		}
		gomod, _ := os.ReadFile(filepath.Join(tt.dir, "go.mod"))
		if !strings.Contains(string(gomod), tt.want) {
			t.Errorf("%s: go.mod lacks %q:\n%s", tt.name, tt.want, gomod)
		}
		if strings.Contains(tt.want, "../..") && !strings.Contains(string(gomod), "\ngo 1.24.3\n") {
			t.Errorf("%s: the go directive is not the SDK's:\n%s", tt.name, gomod)
		}
		// The go command parses it (offline: edit -json reads go.mod only).
		cmd := exec.Command("go", "mod", "edit", "-json")
		cmd.Dir = tt.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: go mod edit -json: %v\n%s\n%s", tt.name, err, out, gomod)
		}
	}
}

func TestNewReleaseVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"v1.2.3":                               true,
		"v1.2.3-rc.1":                          true,
		"(devel)":                              false,
		"":                                     false,
		"v0.0.0-20261130020000-0123456789ab":   false,
		"v1.2.4-0.20261130020000-0123456789ab": false,
		"v1.2.3+dirty":                         false,
		"v0.0.0-20261130020000-0123456789ab+dirty": false,
		"1.2.3": false,
	} {
		if got := isRelease(v); got != want {
			t.Errorf("isRelease(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestNewGoModRelease renders the go.mod a released wasmtools writes: a
// plain requirement, no replace.
func TestNewGoModRelease(t *testing.T) {
	files, err := render("go", templateData{Name: "demo", Module: "demo", GoVersion: "1.26", SDKVersion: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.path == "go.mod" {
			const want = "module demo\n\ngo 1.26\n\nrequire (\n\tgithub.com/wasmtools/wasmtools/abi v1.2.3\n\tgithub.com/wasmtools/wasmtools/sdk-guest v1.2.3\n)\n"
			if string(f.data) != want {
				t.Errorf("go.mod:\n%s\nwant:\n%s", f.data, want)
			}
			return
		}
	}
	t.Error("no go.mod rendered")
}
