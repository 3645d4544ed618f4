package host

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// TestReadOnlyAllowedInExplore: a tool the plugin declares read-only is
// allowed in every mode, explore included, without its check being
// consulted; a deny rule still applies. One that is not read-only is
// denied in explore.
func TestReadOnlyAllowedInExplore(t *testing.T) {
	h := newTestHost(t)
	m := newBuilt()
	m.answer(abi.ExportSchema, `{"abi":1,"tools":[
		{"name":"look","description":"Reads.","input_schema":{"type":"object"},"read_only":true},
		{"name":"change","description":"Writes.","input_schema":{"type":"object"}}]}`)
	m.answer(abi.ExportCheckPermissions, `{"behavior":"ask","message":"sure?"}`)
	m.answer(abi.ExportCall, okResult)
	p := loadBuilt(t, h, m, Config{})
	check := func(tool string, pc permission.Context) permission.Behavior {
		d, err := kit(t, pc, p).Check(context.Background(), "s", toolkit.Call{Name: tool, Arguments: "{}"}, toolkit.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return d.Behavior
	}
	explore := permission.Context{Mode: permission.ModeExplore}
	if b := check("look", explore); b != permission.Allow {
		t.Errorf("read-only tool in explore: %s", b)
	}
	if b := check("change", explore); b != permission.Deny {
		t.Errorf("other tool in explore: %s", b)
	}
	if b := check("look", permission.Context{Mode: permission.ModeExplore, Deny: []permission.Rule{{Tool: "look"}}}); b != permission.Deny {
		t.Errorf("read-only tool under a deny rule: %s", b)
	}
}

// TestHTTPHostRules pins the http_hosts forms of the spec (section 6).
func TestHTTPHostRules(t *testing.T) {
	cases := []struct {
		grant string
		url   string
		ok    bool
	}{
		{"api.example.com", "https://api.example.com/x", true},
		{"api.example.com", "http://API.example.com:8080/x", true}, // any port, any case
		{"api.example.com", "https://api.example.com./x", true},    // trailing dot
		{"api.example.com", "https://evil.api.example.com/", false},
		{"api.example.com:8443", "https://api.example.com:8443/", true},
		{"api.example.com:8443", "https://api.example.com/", false},
		{"api.example.com:443", "https://api.example.com/", true}, // the scheme's port
		{"api.example.com:443", "http://api.example.com/", false},
		{"*.example.com", "https://a.example.com/", true},
		{"*.example.com", "https://a.b.example.com:9/", true},
		{"*.example.com", "https://example.com/", false},
		{"*.example.com", "https://badexample.com/", false},
		{"*.example.com:443", "https://a.example.com/", true},
		{"*.example.com:443", "https://a.example.com:8443/", false},
		{"10.0.0.7", "http://10.0.0.7:81/", true},
		{"[::1]", "http://[::1]:8080/", true},
		{"::1", "http://[::1]/", true},
		{"[::1]:8080", "http://[::1]:8080/", true},
		{"[::1]:8080", "http://[::1]:8081/", false},
		{"*", "https://example.com/", false},
	}
	for _, c := range cases {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := hostGranted(u, []string{c.grant}); got != c.ok {
			t.Errorf("grant %q, URL %s: %v, want %v", c.grant, c.url, got, c.ok)
		}
	}
	// Entries that are not hosts make the load fail, saying which.
	h := newTestHost(t)
	for _, g := range []string{"*", "https://api.example.com", "example.com/api", "a.*.example.com", "example.com:http", "[::1"} {
		_, err := h.Load(context.Background(), pluginModule(oneTool, nil).bytes(), Config{Name: "g", Grants: abi.Grants{HTTPHosts: []string{g}}})
		if err == nil || !strings.Contains(err.Error(), "http_hosts entry") {
			t.Errorf("grant %q: %v", g, err)
		}
	}
}

// TestGrantsAskedByGuestPath: a plugin asks for a folder by the path it
// uses; a grant mapping any host folder there (with write, if asked)
// satisfies it.
func TestGrantsAskedByGuestPath(t *testing.T) {
	asked := &abi.Grants{Dirs: []abi.DirGrant{{Guest: "/data", Write: true}, {Guest: "/ref"}}}
	given := abi.Grants{Dirs: []abi.DirGrant{{Host: "/srv/x", Guest: "/data"}, {Host: "/srv/ref", Guest: "/ref"}}}
	if got := strings.Join(missingGrants(asked, given), ","); got != "dirs: /data (read-write)" {
		t.Errorf("missing: %q", got)
	}
	given.Dirs[0].Write = true
	if got := missingGrants(asked, given); len(got) != 0 {
		t.Errorf("missing: %q", got)
	}
}

// TestMessagesSayWhatToDo: a module whose memory starts past its grant
// says which grant it needs (it was "not a valid WebAssembly module"); a
// sidecar of the wrong shape is told in JSON's words.
func TestMessagesSayWhatToDo(t *testing.T) {
	h := newTestHost(t)
	m := pluginModule(oneTool, nil)
	m.minPages = 4096 // 256 MiB
	wasm := m.bytes()
	_, err := h.Load(context.Background(), wasm, Config{Name: "big"})
	if err == nil || !strings.Contains(err.Error(), "its linear memory starts at 256 MiB") || !strings.Contains(err.Error(), "grant memory_mib ≥ 256") {
		t.Errorf("load: %v", err)
	}
	p, err := h.Load(context.Background(), wasm, Config{Name: "big", Grants: abi.Grants{MemoryMiB: 256}})
	if err != nil {
		t.Errorf("with memory_mib 256: %v", err)
	} else {
		p.Close(context.Background())
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "p.wasm")
	must(t, os.WriteFile(path, wasm, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "p.json"), []byte(`{"grants": {"memory_mib": "lots"}}`), 0o644))
	_, err = h.LoadFile(context.Background(), path, Config{})
	if err == nil || !strings.Contains(err.Error(), "field grants.memory_mib is a string where an integer is expected") || strings.Contains(err.Error(), "Go ") {
		t.Errorf("sidecar: %v", err)
	}
}

// TestTimeoutExcludesWaiting: the plugin's timeout bounds a call's own
// run, not the time it waits behind a call of a tool that is not
// concurrency-safe. Two calls each take 0.7 s (an HTTP request the test
// server holds) under a 1 s timeout: the second waits 0.7 s for the
// first, then runs, and both succeed.
func TestTimeoutExcludesWaiting(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(700 * time.Millisecond)
	}))
	defer srv.Close()
	h := newTestHost(t)
	m := pluginModule(oneTool, func(m *built) []byte {
		// http_request(config_get("req"), 0), the request JSON being
		// the config value.
		return code(m.block("req"), callf(fConfigGet), i64c(0), callf(fHTTPRequest), []byte{opDrop}, m.output(okResult), i32c(0))
	})
	p := loadBuilt(t, h, m, Config{Grants: abi.Grants{
		TimeoutMS: 1000,
		HTTPHosts: []string{"127.0.0.1"},
		Config:    map[string]string{"req": `{"url":"` + srv.URL + `/"}`},
	}})
	tk := kit(t, bypass, p)
	start := time.Now()
	var wg sync.WaitGroup
	results := make([]*toolkit.Response, 2)
	for i := range results {
		wg.Go(func() { results[i], _ = call(t, tk, "t", `{}`) })
	}
	wg.Wait()
	t.Logf("two calls of a tool that is not concurrency-safe took %s together", time.Since(start))
	for i, r := range results {
		if r.State != toolkit.StateSuccess {
			t.Errorf("call %d: %s %q", i, r.State, r.Text())
		}
	}
	if took := time.Since(start); took < 1400*time.Millisecond {
		t.Errorf("the calls took %s: they did not run one after the other", took)
	}
}
