package host

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/toolkit"
)

// hangingModule assembles a core module with the three required wasmtools
// exports and an exported memory, where the phase named by hang never
// returns: "start" (a start section), "_initialize" (a reactor's
// initializer) or "schema" (the schema export). Every other export
// returns 0 at once. Built by hand so that the fixture is exactly what a
// hostile author would write, with no toolchain in between.
func hangingModule(hang string) []byte {
	// Function 0 loops forever (type 1: () -> ()); function 1 returns 0
	// (type 0: () -> i32); function 2 loops forever with type 0.
	section := func(id byte, content ...byte) []byte {
		return append([]byte{id, byte(len(content))}, content...)
	}
	name := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	export := func(n string, kind, index byte) []byte { return append(name(n), kind, index) }

	var exports [][]byte
	schema := byte(1)
	if hang == "schema" {
		schema = 2
	}
	exports = append(exports, export(abi.ExportSchema, 0, schema), export(abi.ExportCheckPermissions, 0, 1), export(abi.ExportCall, 0, 1), export("memory", 2, 0))
	if hang == "_initialize" {
		exports = append(exports, export("_initialize", 0, 0))
	}
	exportSec := []byte{byte(len(exports))}
	for _, e := range exports {
		exportSec = append(exportSec, e...)
	}

	m := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	m = append(m, section(1, 2, 0x60, 0, 1, 0x7f, 0x60, 0, 0)...) // types
	m = append(m, section(3, 3, 1, 0, 0)...)                      // functions
	m = append(m, section(5, 1, 0, 1)...)                         // one page of memory
	m = append(m, section(7, exportSec...)...)
	if hang == "start" {
		m = append(m, section(8, 0)...)
	}
	loop := []byte{0x03, 0x40, 0x0c, 0x00, 0x0b}            // loop br 0 end
	f0 := append(append([]byte{0}, loop...), 0x0b)          // no locals, loop, end
	f1 := []byte{0, 0x41, 0, 0x0b}                          // i32.const 0
	f2 := append(append([]byte{0}, loop...), 0x41, 0, 0x0b) // loop, then i32.const 0 (never reached)
	code := []byte{3, byte(len(f0))}
	code = append(code, f0...)
	code = append(code, byte(len(f1)))
	code = append(code, f1...)
	code = append(code, byte(len(f2)))
	code = append(code, f2...)
	return append(m, section(10, code...)...)
}

// TestPhasesBounded: a start section, an _initialize or a schema export
// that never returns makes the load fail within about the plugin's
// timeout, with a message naming the phase and the timeout and saying
// what to do; Inspect says why the module is not loadable, as quickly. A
// plain module loaded with a manifest (which needs no schema call) is
// started once at load time for the same reason.
func TestPhasesBounded(t *testing.T) {
	h := newTestHost(t)
	const timeout = 300 * time.Millisecond
	for _, phase := range []string{"start", "_initialize", "schema", "manifest"} {
		t.Run(phase, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "hang.wasm")
			cfg := Config{Grants: abi.Grants{TimeoutMS: int(timeout / time.Millisecond)}}
			hang := phase
			if phase == "manifest" {
				hang = "start"
				cfg.Manifest = &Manifest{Tools: []ManifestTool{{Export: abi.ExportCall, Name: "t"}}}
			}
			if err := os.WriteFile(path, hangingModule(hang), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			p, err := h.LoadFile(context.Background(), path, cfg)
			took := time.Since(start)
			if err == nil {
				p.Close(context.Background())
				t.Fatal("a module that never finishes starting loaded")
			}
			want := map[string]string{"start": "start function", "_initialize": "_initialize", "schema": "schema", "manifest": "start function"}[phase]
			if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "300ms") || !strings.Contains(msg, "timeout_ms") {
				t.Errorf("load error %q: want the phase (%s), the timeout (300ms) and what to do (timeout_ms)", msg, want)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("load error %v does not wrap context.DeadlineExceeded", err)
			}
			if took > 10*timeout+2*time.Second {
				t.Errorf("the load took %s with a timeout of %s", took, timeout)
			}

			start = time.Now()
			r, err := h.Inspect(context.Background(), path, cfg)
			if err != nil || r.Loadable || !strings.Contains(r.Problem, want) {
				t.Errorf("inspect: %+v %v", r, err)
			}
			if took := time.Since(start); took > 10*timeout+2*time.Second {
				t.Errorf("inspect took %s with a timeout of %s", took, timeout)
			}
		})
	}
}

// TestFolderSkipsHangingModule: a module whose start never returns, dropped
// into a plugin folder, is reported failed after its timeout while the
// other plugins of the folder serve; later syncs do not try it again (and
// wait its timeout again) until the file changes.
func TestFolderSkipsHangingModule(t *testing.T) {
	// The folder's log says each time a module fails to load: the
	// second sync below must not say it again of the hanging ones.
	var logMu sync.Mutex
	var logged bytes.Buffer
	h, err := New(Options{CacheDir: testplugins.CompileCache(t), Logger: slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logged}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	dir := t.TempDir()
	copyFile(t, testplugins.Go(t, "hash"), filepath.Join(dir, "hash.wasm"))
	for _, phase := range []string{"start", "_initialize"} {
		if err := os.WriteFile(filepath.Join(dir, "hang"+phase+".wasm"), hangingModule(phase), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "hang"+phase+".json"), []byte(`{"grants": {"timeout_ms": 2000}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	start := time.Now()
	f, err := h.OpenFolder(context.Background(), tk, dir, FolderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	if took := time.Since(start); took > 12*time.Second {
		t.Errorf("the first sync took %s", took)
	}
	failed := f.Failed()
	for _, phase := range []string{"start", "_initialize"} {
		msg := failed[filepath.Join(dir, "hang"+phase+".wasm")]
		if !strings.Contains(msg, "timeout of 2s") {
			t.Errorf("hang%s.wasm: failed with %q, want a timeout", phase, msg)
		}
	}
	if _, ok := tk.Tool("hash"); !ok {
		t.Fatal("the good plugin does not serve beside the hanging ones")
	}
	if r, _ := call(t, tk, "hash", `{"text":"abc"}`); r.State != toolkit.StateSuccess {
		t.Errorf("hash: %s %q", r.State, r.Text())
	}

	// A later sync (another file changed) does not wait for them again
	// (which would take their 2 s timeout).
	copyFile(t, testplugins.Go(t, "regex"), filepath.Join(dir, "regex.wasm"))
	saysHanging := func() bool {
		logMu.Lock()
		defer logMu.Unlock()
		return strings.Contains(logged.String(), "hangstart.wasm") || strings.Contains(logged.String(), "hang_initialize.wasm")
	}
	if !saysHanging() {
		t.Fatalf("the first sync did not log the failed modules:\n%s", logged.String())
	}
	logMu.Lock()
	logged.Reset()
	logMu.Unlock()
	f.Sync(context.Background())
	again := saysHanging()
	if again {
		t.Errorf("a sync after the hanging modules failed tried them again:\n%s", logged.String())
	}
	if _, ok := tk.Tool("regex"); !ok {
		t.Error("a plugin added later does not serve")
	}
	if len(f.Failed()) != 2 {
		t.Errorf("failed: %v", f.Failed())
	}

	// Changed (here: without the start section), it is tried again (and
	// fails for another reason: its schema export answers nothing).
	if err := os.WriteFile(filepath.Join(dir, "hangstart.wasm"), hangingModule("none"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.Sync(context.Background())
	if msg := f.Failed()[filepath.Join(dir, "hangstart.wasm")]; msg == "" || strings.Contains(msg, "timeout of") {
		t.Errorf("the changed module was not tried again: %q", msg)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
