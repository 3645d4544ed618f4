package host

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// extismWasm returns a test module shipped inside the extism go-sdk Go
// module (third-party Extism modules, used from the module cache).
func extismWasm(t testing.TB, name string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/extism/go-sdk").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("the extism go-sdk module is not in the module cache (go mod download github.com/extism/go-sdk): %v", err)
	}
	return filepath.Join(dir, "wasm", name)
}

func newTestHost(t testing.TB) *Host {
	t.Helper()
	h, err := New(Options{CacheDir: testplugins.CompileCache(t), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// runTool registers a plugin's tools in a bypass-mode toolkit and calls one.
func runTool(t testing.TB, p *Plugin, name, args string) *toolkit.Response {
	t.Helper()
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass}})
	for _, tool := range p.Tools() {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	turn, err := tk.NewTurn(context.Background(), "s", []toolkit.Call{{Name: name, Arguments: args}}, toolkit.TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Run(context.Background()); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
		t.Fatal(err)
	}
	return turn.Responses()[0]
}

func TestCountVowelsWithManifest(t *testing.T) {
	h := newTestHost(t)
	ctx := context.Background()
	p, err := h.LoadFile(ctx, extismWasm(t, "count_vowels.wasm"), Config{Name: "vowels", Manifest: &Manifest{Tools: []ManifestTool{
		{Export: "count_vowels", Name: "count_vowels", Description: "Counts vowels", Input: "text", ReadOnly: true},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if p.Kind != KindManifest {
		t.Fatalf("kind %s", p.Kind)
	}
	r := runTool(t, p, "count_vowels", `{"text": "Hello World"}`)
	var out struct {
		Count int `json:"count"`
	}
	if err := json.Unmarshal([]byte(r.Text()), &out); r.State != toolkit.StateSuccess || err != nil || out.Count != 3 {
		t.Fatalf("%s %q %v", r.State, r.Text(), err)
	}
}

func TestThirdPartyModules(t *testing.T) {
	h := newTestHost(t)
	ctx := context.Background()
	tests := []struct {
		file string
		want string // substring of the load error; "" = loads with a manifest
	}{
		{"count_vowels.wasm", "neither the wasmtools ABI"},
		{"host.wasm", "extism:host/user.mult"},
		{"host_memory.wasm", "imports host.to_upper"},
		{"main.wasm", "imports lib.capitalize"},
		{"nested.c.instr.wasm", "dylibso_observe"},
		{"hello.wasm", "neither the wasmtools ABI"},
	}
	for _, tt := range tests {
		p, err := h.LoadFile(ctx, extismWasm(t, tt.file), Config{})
		if err == nil {
			p.Close(ctx)
			t.Errorf("%s loaded without a manifest", tt.file)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.file, err, tt.want)
		}
	}
	// Plain modules load with a manifest naming their exports.
	for file, export := range map[string]string{"hello.wasm": "run_test", "fail.wasm": "run_test", "alloc.wasm": "run_test"} {
		p, err := h.LoadFile(ctx, extismWasm(t, file), Config{Manifest: &Manifest{Tools: []ManifestTool{{Export: export, Name: "t"}}}})
		if err != nil {
			t.Errorf("%s with a manifest: %v", file, err)
			continue
		}
		r := runTool(t, p, "t", `{}`)
		switch file {
		case "fail.wasm":
			if r.State != toolkit.StateError {
				t.Errorf("fail.wasm: %s %q", r.State, r.Text())
			}
		case "hello.wasm":
			if r.State != toolkit.StateSuccess || !strings.Contains(strings.ToLower(r.Text()), "hello") {
				t.Errorf("hello.wasm: %s %q", r.State, r.Text())
			}
		default:
			if r.State != toolkit.StateSuccess {
				t.Errorf("%s: %s %q", file, r.State, r.Text())
			}
		}
		p.Close(ctx)
	}
	if _, err := h.Load(ctx, []byte("not wasm"), Config{Name: "junk"}); err == nil || !strings.Contains(err.Error(), "not a valid WebAssembly module") {
		t.Errorf("junk: %v", err)
	}
}

// TestLoadRefusesBoundlessCounts: a module whose section claims 2³²
// entries (wazero would size a table by the claim and exhaust the
// process's memory) is refused at load and by Inspect, saying why.
func TestLoadRefusesBoundlessCounts(t *testing.T) {
	wasm := []byte("\x00asm\x01\x00\x00\x00\x04\x07\xff\xff\xff\xff\x0f\x70\x00")
	h := newTestHost(t)
	_, err := h.Load(context.Background(), wasm, Config{Name: "huge"})
	if err == nil || !strings.Contains(err.Error(), "claims 4294967295 entries") {
		t.Errorf("Load: %v, want the count named", err)
	}
	path := filepath.Join(t.TempDir(), "huge.wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := h.Inspect(context.Background(), path, Config{})
	if err != nil || r.Loadable || !strings.Contains(r.Problem, "claims 4294967295 entries") {
		t.Errorf("Inspect: %+v, %v", r, err)
	}
}
