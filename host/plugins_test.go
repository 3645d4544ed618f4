package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

func loadPlugin(t testing.TB, h *Host, path string, cfg Config) *Plugin {
	t.Helper()
	p, err := h.LoadFile(context.Background(), path, cfg)
	if err != nil {
		t.Fatalf("load %s: %v", filepath.Base(path), err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// kit registers plugins' tools in a toolkit with the given permissions.
func kit(t testing.TB, pc permission.Context, plugins ...*Plugin) *toolkit.Toolkit {
	t.Helper()
	tk := toolkit.New(toolkit.Options{Permission: pc})
	for _, p := range plugins {
		for _, tool := range p.Tools() {
			if err := tk.Register(tool); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tk
}

func call(t testing.TB, tk *toolkit.Toolkit, name, args string) (*toolkit.Response, []*toolkit.Chunk) {
	t.Helper()
	var chunks []*toolkit.Chunk
	var mu sync.Mutex
	turn, err := tk.NewTurn(context.Background(), "s", []toolkit.Call{{Name: name, Arguments: args}}, toolkit.TurnOptions{
		OnEvent: func(ev toolkit.Event) {
			if ev.Kind == toolkit.EventChunk {
				mu.Lock()
				chunks = append(chunks, ev.Chunk)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Run(context.Background()); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
		t.Fatal(err)
	}
	out := turn.Outcomes()[0]
	if out.Status != toolkit.StatusDone {
		t.Fatalf("%s: %s (%+v)", name, out.Status, out.Confirmation)
	}
	return out.Response, chunks
}

var bypass = permission.Context{Mode: permission.ModeBypass}

func TestFirstPartyPlugins(t *testing.T) {
	h := newTestHost(t)
	hash := loadPlugin(t, h, testplugins.Go(t, "hash"), Config{})
	jq := loadPlugin(t, h, testplugins.Go(t, "jsonquery"), Config{})
	re := loadPlugin(t, h, testplugins.Go(t, "regex"), Config{})
	if hash.Kind != KindWasmtools || hash.Schema.Name != "hash" || len(hash.Tools()) < 2 {
		t.Fatalf("hash plugin: kind %s schema %+v", hash.Kind, hash.Schema)
	}
	tk := kit(t, bypass, hash, jq, re)
	r, _ := call(t, tk, "hash", `{"text":"abc"}`)
	if r.State != toolkit.StateSuccess || !strings.Contains(r.Text(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") {
		t.Errorf("hash: %s %q", r.State, r.Text())
	}
	r, _ = call(t, tk, "hash", `{"text":"abc","algorithm":"crc"}`)
	if r.State != toolkit.StateError || !strings.Contains(r.Text(), "algorithm") {
		t.Errorf("hash with a bad enum: %s %q", r.State, r.Text())
	}
	for _, tool := range tk.Tools() {
		if tool.Spec.Source.Kind != toolkit.SourceWasm {
			t.Errorf("%s: source %v", tool.Spec.Name, tool.Spec.Source)
		}
	}
	_ = jq
	_ = re
}

func TestDeployPluginPermissions(t *testing.T) {
	h := newTestHost(t)
	p := loadPlugin(t, h, testplugins.Go(t, "deploy"), Config{})
	ctx := context.Background()
	check := func(target string, pc permission.Context) permission.Decision {
		tk := kit(t, pc, p)
		d, err := tk.Check(ctx, "s", toolkit.Call{Name: "deploy", Arguments: fmt.Sprintf(`{"target":%q}`, target)}, toolkit.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	allowAll := permission.Context{Allow: []permission.Rule{{Tool: "deploy"}}}
	if d := check("prod-eu", allowAll); d.Behavior != permission.Ask || !d.BypassImmune {
		t.Errorf("prod under an allow rule: %+v, want a safety ask", d)
	}
	if d := check("dev-1", permission.Context{}); d.Behavior != permission.Allow {
		t.Errorf("dev: %+v", d)
	}
	d := check("staging-2", permission.Context{})
	if d.Behavior != permission.Ask || d.BypassImmune || len(d.Suggestions) == 0 {
		t.Fatalf("staging: %+v", d)
	}
	// The plugin's suggestion, once granted, covers the call through its
	// own match_rule.
	if d := check("staging-3", permission.Context{Allow: d.Suggestions}); d.Behavior != permission.Allow {
		t.Errorf("staging with the suggested rule %v: %+v", d.Suggestions, d)
	}
	if d := check("staging-3", permission.Context{Deny: []permission.Rule{permission.MustParseRule("deploy(staging-*)")}}); d.Behavior != permission.Deny {
		t.Errorf("staging with a deny rule: %+v", d)
	}
	// Streaming: progress chunks arrive before the final result.
	tk := kit(t, bypass, p)
	r, chunks := call(t, tk, "deploy", `{"target":"dev-1"}`)
	if r.State != toolkit.StateSuccess || len(chunks) < 2 {
		t.Errorf("deploy stream: %s, %d chunks, %q", r.State, len(chunks), r.Text())
	}
}

func TestHTTPGrants(t *testing.T) {
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "other host") }))
	defer srv2.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			// localhost is the same machine under another name: not granted.
			http.Redirect(w, r, strings.Replace(srv2.URL, "127.0.0.1", "localhost", 1)+"/x", http.StatusFound)
			return
		}
		w.Header().Set("X-Test", "yes")
		fmt.Fprint(w, "hello from the server")
	}))
	defer srv.Close()
	h := newTestHost(t)
	path := testplugins.Go(t, "httpfetch")
	denied := loadPlugin(t, h, path, Config{Name: "fetch-denied"})
	granted := loadPlugin(t, h, path, Config{Name: "fetch-granted", Grants: abi.Grants{HTTPHosts: []string{"127.0.0.1"}}})

	r, _ := call(t, kit(t, bypass, denied), "fetch", fmt.Sprintf(`{"url":%q}`, srv.URL))
	if r.State != toolkit.StateError || !strings.Contains(r.Text(), "not granted") {
		t.Errorf("ungranted host: %s %q", r.State, r.Text())
	}
	r, _ = call(t, kit(t, bypass, granted), "fetch", fmt.Sprintf(`{"url":%q}`, srv.URL))
	if r.State != toolkit.StateSuccess || !strings.Contains(r.Text(), "hello from the server") {
		t.Errorf("granted host: %s %q", r.State, r.Text())
	}
	r, _ = call(t, kit(t, bypass, granted), "fetch", fmt.Sprintf(`{"url":%q}`, srv.URL+"/redirect"))
	if r.State != toolkit.StateError || !strings.Contains(r.Text(), "localhost") || strings.Contains(r.Text(), "other host") {
		t.Errorf("redirect to an ungranted host: %s %q", r.State, r.Text())
	}
}

func TestHostileModules(t *testing.T) {
	h := newTestHost(t)
	ctx := context.Background()
	hostile := func(name string) string {
		return testplugins.Source(t, filepath.Join(testplugins.Root(t), "plugins", "testdata", "hostile", name))
	}

	// Modules refused at load time, each with a clear reason.
	for name, want := range map[string]string{
		"badjson":     "not valid JSON",
		"wrongabi":    "ABI version 99",
		"emptyschema": "no tools",
		"badtool":     "letters, digits",
	} {
		_, err := h.LoadFile(ctx, hostile(name), Config{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	good := loadPlugin(t, h, testplugins.Go(t, "hash"), Config{})

	// Modules that misbehave during a call: each call ends in an error,
	// the host and the other tools keep working.
	cases := []struct {
		name, tool string
		grants     abi.Grants
		want       string
	}{
		{"loop", "loop", abi.Grants{TimeoutMS: 300}, "timed out"},
		{"membomb", "membomb", abi.Grants{MemoryMiB: 32}, "trapped"},
		{"trap", "trap", abi.Grants{}, "trapped"},
		{"exits", "exits", abi.Grants{}, "exited"},
		{"netescape", "netescape", abi.Grants{}, "not granted"},
	}
	for _, c := range cases {
		p, err := h.LoadFile(ctx, hostile(c.name), Config{Grants: c.grants})
		if err != nil {
			t.Errorf("%s: load: %v", c.name, err)
			continue
		}
		tk := kit(t, bypass, p, good)
		start := time.Now()
		r, _ := call(t, tk, p.Tools()[0].Spec().Name, `{}`)
		if r.State != toolkit.StateError || !strings.Contains(r.Text(), c.want) {
			t.Errorf("%s: %s %q, want an error with %q", c.name, r.State, r.Text(), c.want)
		}
		if time.Since(start) > 20*time.Second {
			t.Errorf("%s took %s", c.name, time.Since(start))
		}
		if r, _ := call(t, tk, "hash", `{"text":"x"}`); r.State != toolkit.StateSuccess {
			t.Errorf("after %s, another plugin fails: %q", c.name, r.Text())
		}
		p.Close(ctx)
	}

	// No file system without a grant; a read-only grant reads but does
	// not write.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("granted contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := loadPlugin(t, h, hostile("fsescape"), Config{})
	r, _ := call(t, kit(t, bypass, fs), fs.Tools()[0].Spec().Name, `{}`)
	if strings.Contains(r.Text(), "root:") {
		t.Errorf("fsescape read /etc/passwd: %q", r.Text())
	}

	// Huge output is refused or cut, never the host's memory.
	huge := loadPlugin(t, h, hostile("huge"), Config{})
	r, _ = call(t, kit(t, bypass, huge), huge.Tools()[0].Spec().Name, `{}`)
	if len(r.Text()) > 1<<20 {
		t.Errorf("huge output reached the caller: %d bytes", len(r.Text()))
	}
}

func TestConcurrentCalls(t *testing.T) {
	h := newTestHost(t)
	p := loadPlugin(t, h, testplugins.Go(t, "hash"), Config{})
	tk := kit(t, bypass, p)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				text := fmt.Sprintf("g%d-%d", g, i)
				turn, _ := tk.NewTurn(context.Background(), text, []toolkit.Call{{Name: "hash", Arguments: fmt.Sprintf(`{"text":%q}`, text)}}, toolkit.TurnOptions{})
				_ = turn.Run(context.Background())
				if r := turn.Responses()[0]; r.State != toolkit.StateSuccess {
					errs <- r.Text()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if idle := p.Idle(); idle < 1 || idle > runtime.GOMAXPROCS(0)*2 {
		t.Errorf("%d idle instances after the run", idle)
	}
}

func TestInspect(t *testing.T) {
	h := newTestHost(t)
	r, err := h.Inspect(context.Background(), testplugins.Go(t, "httpfetch"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Loadable || r.Kind != KindWasmtools || r.ABI != abi.Version || len(r.Tools) == 0 || len(r.Missing) == 0 {
		b, _ := json.MarshalIndent(r, "", " ")
		t.Fatalf("report: %s", b)
	}
	r, err = h.Inspect(context.Background(), extismWasm(t, "host.wasm"), Config{})
	if err != nil || r.Loadable || !strings.Contains(r.Problem, "mult") {
		t.Fatalf("host.wasm: %+v %v", r, err)
	}
}

func TestCommandModuleRefused(t *testing.T) {
	h := newTestHost(t)
	_, err := h.LoadFile(context.Background(), testplugins.GoCommand(t, "hash"), Config{})
	if err == nil || !strings.Contains(err.Error(), "WASI command") || !strings.Contains(err.Error(), "-buildmode=c-shared") {
		t.Fatalf("a plain go build: %v", err)
	}
}

func TestServletModule(t *testing.T) {
	h := newTestHost(t)
	path := testplugins.AssemblyScript(t, "testdata/servlet-as")
	ctx := context.Background()
	// The module's readOnlyHint is its own claim: untrusted, shout asks.
	untrusted := loadPlugin(t, h, path, Config{})
	if d, err := kit(t, permission.Context{}, untrusted).Check(ctx, "s", toolkit.Call{Name: "shout", Arguments: `{"text":"hi"}`}, toolkit.CheckOptions{}); err != nil || d.Behavior != permission.Ask {
		t.Errorf("shout with the hint untrusted: %+v %v", d, err)
	}
	untrusted.Close(ctx)

	p := loadPlugin(t, h, path, Config{TrustReadOnlyHint: true})
	if p.Kind != KindServlet || len(p.Tools()) != 2 {
		t.Fatalf("kind %s, %d tools", p.Kind, len(p.Tools()))
	}
	tk := kit(t, permission.Context{}, p)
	// Trusted, readOnlyHint makes shout read-only (allowed); touch asks.
	if d, err := tk.Check(ctx, "s", toolkit.Call{Name: "shout", Arguments: `{"text":"hi"}`}, toolkit.CheckOptions{}); err != nil || d.Behavior != permission.Allow {
		t.Errorf("shout: %+v %v", d, err)
	}
	if d, err := tk.Check(ctx, "s", toolkit.Call{Name: "touch", Arguments: `{}`}, toolkit.CheckOptions{}); err != nil || d.Behavior != permission.Ask {
		t.Errorf("touch: %+v %v", d, err)
	}
	if r, _ := call(t, tk, "shout", `{"text":"hello"}`); r.State != toolkit.StateSuccess || r.Text() != "HELLO" {
		t.Errorf("shout: %s %q", r.State, r.Text())
	}
	r, _ := call(t, kit(t, bypass, p), "touch", `{}`)
	if r.State != toolkit.StateError || !strings.Contains(r.Text(), "on purpose") {
		t.Errorf("touch: %s %q", r.State, r.Text())
	}
}

// TestSchemaCache: a second load of the same module takes its tools from
// the schema cache, without an instance, and behaves the same; neither
// load keeps the code or an instance.
func TestSchemaCache(t *testing.T) {
	dir := testplugins.FreshCache(t) // no schemas yet; compiled code shared
	path := testplugins.Go(t, "hash")
	for i := range 2 {
		h, err := New(Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		p, err := h.LoadFile(context.Background(), path, Config{})
		if err != nil {
			t.Fatal(err)
		}
		// Loaded, with a disk cache to take the code from again, a
		// plugin holds neither code nor instances until its first call.
		if idle := p.Idle(); idle != 0 || p.Resident() {
			t.Errorf("load %d: %d warm instances, code resident %v", i, idle, p.Resident())
		}
		if r, _ := call(t, kit(t, bypass, p), "hash", `{"text":"abc"}`); r.State != toolkit.StateSuccess {
			t.Errorf("load %d: %q", i, r.Text())
		}
		p.Close(context.Background())
		h.Close(context.Background())
	}
}
