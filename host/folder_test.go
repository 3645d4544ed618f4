package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/toolkit"
)

// versionedWasm returns the bytes of the versioned test plugin.
func versionedWasm(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(testplugins.Source(t, "../plugins/testdata/versioned"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// install writes a module and its sidecar (granting VERSION=version) into
// dir as name.wasm, each through a temporary file and a rename, the way a
// deployment tool drops files.
func install(t testing.TB, dir, name string, wasm []byte, version string) {
	t.Helper()
	side, _ := json.Marshal(Sidecar{Grants: abi.Grants{Env: map[string]string{"VERSION": version}}})
	writeAtomic(t, filepath.Join(dir, name+".json"), side)
	writeAtomic(t, filepath.Join(dir, name+".wasm"), wasm)
}

func writeAtomic(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// callVersion calls the version tool and returns its text, or the error
// text prefixed with "ERROR: ".
func callVersion(tk *toolkit.Toolkit, session string) string {
	ctx := context.Background()
	turn, err := tk.NewTurn(ctx, session, []toolkit.Call{{Name: "version", Arguments: "{}"}}, toolkit.TurnOptions{})
	if err != nil {
		return "ERROR: " + err.Error()
	}
	if err := turn.Run(ctx); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
		return "ERROR: " + err.Error()
	}
	r := turn.Responses()[0]
	if r.IsError() {
		return "ERROR: " + r.Text()
	}
	return r.Text()
}

// syncStep syncs f after step i of a scenario and checks the events it
// reported and what the version tool answers then.
func syncStep(t *testing.T, f *Folder, tk *toolkit.Toolkit, rec *recorder, i int, name string, wantEvents []string, wantCall string) {
	t.Helper()
	f.Sync(context.Background())
	if got := rec.take(); !slices.Equal(got, wantEvents) {
		t.Errorf("step %d %s: events %q, want %q", i, name, got, wantEvents)
	}
	if got := callVersion(tk, fmt.Sprint("s", i)); !strings.HasPrefix(got, wantCall) {
		t.Errorf("step %d %s: call = %q, want %q…", i, name, got, wantCall)
	}
}

// recorder collects folder events.
type recorder struct {
	mu     sync.Mutex
	events []FolderEvent
}

func (r *recorder) add(ev FolderEvent) { r.mu.Lock(); r.events = append(r.events, ev); r.mu.Unlock() }

// take returns the events since the last take, as "kind base(path)".
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		out = append(out, string(ev.Kind)+" "+filepath.Base(ev.Path))
	}
	r.events = nil
	return out
}

func TestFolderSync(t *testing.T) {
	wasm := versionedWasm(t)
	h := newTestHost(t)
	dir := t.TempDir()
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	var rec recorder
	ctx := context.Background()
	f, err := h.OpenFolder(ctx, tk, dir, FolderOptions{OnEvent: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(ctx) })

	steps := []struct {
		name       string
		change     func()
		wantEvents []string
		wantCall   string // result of calling version
		wantGroups string // tool groups of the toolkit
	}{
		{"empty", func() {}, nil, "ERROR: ", ""},
		{"add", func() { install(t, dir, "v", wasm, "1") }, []string{"loaded v.wasm"}, "version 1", ""},
		{"unchanged", func() {}, nil, "version 1", ""},
		{"replace", func() { install(t, dir, "v", wasm, "2") }, []string{"replaced v.wasm"}, "version 2", ""},
		{"broken", func() { writeAtomic(t, filepath.Join(dir, "v.wasm"), []byte("\x00asm garbage")) }, []string{"failed v.wasm"}, "version 2", ""},
		{"still broken, reported once", func() {}, nil, "version 2", ""},
		{"fixed", func() { install(t, dir, "v", wasm, "3") }, []string{"replaced v.wasm"}, "version 3", ""},
		{"rename", func() {
			must(t, os.Rename(filepath.Join(dir, "v.json"), filepath.Join(dir, "w.json")))
			must(t, os.Rename(filepath.Join(dir, "v.wasm"), filepath.Join(dir, "w.wasm")))
		}, []string{"loaded w.wasm", "removed v.wasm"}, "version 3", ""},
		{"group folder with a clashing tool", func() {
			writeAtomic(t, filepath.Join(dir, "ops", GroupFileName), []byte("description: Operations tools.\ninstructions: Be careful.\n"))
			install(t, filepath.Join(dir, "ops"), "v", wasm, "4")
		}, []string{"failed v.wasm"}, "version 3", "ops"},
		{"clash resolved", func() {
			must(t, os.Remove(filepath.Join(dir, "w.wasm")))
		}, []string{"loaded v.wasm", "removed w.wasm"}, "ERROR: ", "ops"}, // ops is not active
		{"broken group file keeps the group", func() {
			writeAtomic(t, filepath.Join(dir, "ops", GroupFileName), []byte("descripshun: typo\n"))
		}, []string{"failed group.yaml"}, "ERROR: ", "ops"},
		{"group file fixed, now active by default", func() {
			writeAtomic(t, filepath.Join(dir, "ops", GroupFileName), []byte("description: Ops.\nactive: true\n"))
		}, nil, "version 4", "ops"},
		{"group folder removed", func() { must(t, os.RemoveAll(filepath.Join(dir, "ops"))) }, []string{"removed v.wasm"}, "ERROR: ", ""},
		{"folder removed", func() { install(t, dir, "x", wasm, "5"); f.Sync(ctx); rec.take(); must(t, os.RemoveAll(dir)) },
			[]string{"removed x.wasm"}, "ERROR: ", ""},
		{"folder recreated", func() { install(t, dir, "x", wasm, "6") }, []string{"loaded x.wasm"}, "version 6", ""},
	}
	for i, st := range steps {
		st.change()
		syncStep(t, f, tk, &rec, i, st.name, st.wantEvents, st.wantCall)
		var groups []string
		for _, g := range tk.Groups() {
			groups = append(groups, g.Name)
		}
		if got := strings.Join(groups, ","); got != st.wantGroups {
			t.Errorf("step %d %s: groups %q, want %q", i, st.name, got, st.wantGroups)
		}
	}
	if g := tk.Groups(); len(g) != 0 {
		t.Errorf("groups left: %+v", g)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// watchFolder opens dir on a new toolkit and watches it until stop is
// called or the test ends; stop returns once the watch has ended and the
// folder is closed.
func watchFolder(t testing.TB, h *Host, dir string, opts FolderOptions) (tk *toolkit.Toolkit, f *Folder, stop func()) {
	t.Helper()
	tk = toolkit.New(toolkit.Options{Permission: bypass})
	ctx, cancel := context.WithCancel(context.Background())
	f, err := h.OpenFolder(ctx, tk, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- f.Watch(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		if err := f.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	t.Cleanup(stop)
	return tk, f, stop
}

func TestFolderWatch(t *testing.T) {
	wasm := versionedWasm(t)
	h := newTestHost(t)
	dir := filepath.Join(t.TempDir(), "plugins")
	must(t, os.Mkdir(dir, 0o755))
	tk, _, _ := watchFolder(t, h, dir, FolderOptions{})
	served := func(want string) func() bool { return func() bool { return callVersion(tk, "s") == want } }

	install(t, dir, "v", wasm, "1")
	eventually(t, "added plugin", served("version 1"))
	install(t, dir, "v", wasm, "2")
	eventually(t, "replaced plugin", served("version 2"))

	// Written in place, in two steps, like an editor or cp would.
	must(t, os.WriteFile(filepath.Join(dir, "v.wasm"), wasm[:len(wasm)/2], 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "v.json"), []byte(`{"grants":{"env":{"VERSION":"3"}}}`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "v.wasm"), wasm, 0o644))
	eventually(t, "plugin written in steps", served("version 3"))

	writeAtomic(t, filepath.Join(dir, "v.wasm"), []byte("not wasm"))
	time.Sleep(4 * DefaultDebounce)
	if got := callVersion(tk, "s"); got != "version 3" {
		t.Errorf("broken file: %q, want the last good version", got)
	}
	must(t, os.Remove(filepath.Join(dir, "v.wasm")))
	eventually(t, "deleted plugin", func() bool { _, ok := tk.Tool("version"); return !ok })

	must(t, os.RemoveAll(dir))
	time.Sleep(4 * DefaultDebounce)
	install(t, dir, "v", wasm, "4")
	eventually(t, "folder recreated", served("version 4"))

	writeAtomic(t, filepath.Join(dir, "tools", GroupFileName), []byte("description: Extra tools.\nactive: true\n"))
	install(t, filepath.Join(dir, "tools"), "extra", wasm, "5")
	eventually(t, "clash reported and group added", func() bool { return len(tk.Groups()) == 1 })
	must(t, os.Remove(filepath.Join(dir, "v.wasm")))
	eventually(t, "group plugin serves once the clash is gone", served("version 5"))
}

// TestFolderReplaceUnderLoad replaces a plugin 100 times (10 with -short
// or under the race detector; make test-long runs it in full), with a
// broken version now and then, while 8 goroutines call it: no call may
// fail, the heap may not grow, and no goroutine may be left behind.
func TestFolderReplaceUnderLoad(t *testing.T) {
	wasm := versionedWasm(t)
	h := newTestHost(t)
	dir := t.TempDir()
	install(t, dir, "v", wasm, "0")
	baseline := runtime.NumGoroutine()

	tk, _, stopWatch := watchFolder(t, h, dir, FolderOptions{Debounce: 5 * time.Millisecond})
	{
		if got := callVersion(tk, "s"); got != "version 0" {
			t.Fatalf("first call: %q", got)
		}
		var stop atomic.Bool
		var calls, failures atomic.Int64
		var firstFailure atomic.Value
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for !stop.Load() {
					time.Sleep(time.Millisecond) // leave the reloads some CPU
					got := callVersion(tk, fmt.Sprint("caller", g))
					calls.Add(1)
					if !strings.HasPrefix(got, "version ") {
						failures.Add(1)
						firstFailure.CompareAndSwap(nil, got)
					}
				}
			})
		}
		var heapAtBase, heapAtEnd uint64
		replacements := 100
		if testing.Short() || raceEnabled {
			replacements = 10 // a broken version included (i = 5)
		}
		base := min(10, replacements/2) // the heap's growth is measured from here
		for i := 1; i <= replacements; i++ {
			if i%10 == 5 {
				writeAtomic(t, filepath.Join(dir, "v.wasm"), []byte("\x00asm\x01\x00\x00\x00broken"))
				time.Sleep(20 * time.Millisecond)
			}
			want := fmt.Sprint("version ", i)
			install(t, dir, "v", wasm, fmt.Sprint(i))
			eventually(t, want, func() bool { return callVersion(tk, "main") == want })
			if i == base {
				heapAtBase = heapInUse()
			}
		}
		stop.Store(true)
		wg.Wait()
		heapAtEnd = heapInUse()
		t.Logf("%d calls during %d replacements; heap in use %d MiB after %d, %d MiB at the end",
			calls.Load(), replacements, heapAtBase>>20, base, heapAtEnd>>20)
		if heapAtEnd > heapAtBase*3/2+32<<20 {
			t.Errorf("heap grew from %d MiB to %d MiB over %d replacements", heapAtBase>>20, heapAtEnd>>20, replacements-base)
		}
		if n := failures.Load(); n > 0 {
			t.Errorf("%d of %d calls failed; first: %v", n, calls.Load(), firstFailure.Load())
		}
		if calls.Load() < 100 {
			t.Errorf("only %d calls ran: the callers did not overlap the replacements", calls.Load())
		}
	}
	// With the watch stopped and the folder closed, every goroutine of the
	// watch and of retired plugins must be gone.
	stopWatch()
	eventually(t, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= baseline })
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestFolderRespectsOtherSources: a plugin folder may not take a tool name
// or redefine a group that something else registered.
func TestFolderRespectsOtherSources(t *testing.T) {
	wasm := versionedWasm(t)
	h := newTestHost(t)
	dir := t.TempDir()
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	builtin, err := toolkit.NewFunc("version", "The built-in.", func(context.Context, struct{}) (string, error) { return "built-in", nil }, toolkit.FuncOptions{})
	must(t, err)
	must(t, tk.Register(builtin))
	must(t, tk.AddGroup(toolkit.Group{Name: "ops", Description: "Configured ops group.", Active: true}))
	other, err := toolkit.NewFunc("deploy", "Configured.", func(context.Context, struct{}) (string, error) { return "ok", nil }, toolkit.FuncOptions{})
	must(t, err)
	must(t, tk.Register(other, toolkit.InGroup("ops")))

	var rec recorder
	ctx := context.Background()
	install(t, dir, "v", wasm, "1")
	f, err := h.OpenFolder(ctx, tk, dir, FolderOptions{OnEvent: rec.add})
	must(t, err)
	t.Cleanup(func() { f.Close(ctx) })
	if got := rec.take(); !slices.Equal(got, []string{"failed v.wasm"}) || callVersion(tk, "s") != "built-in" {
		t.Fatalf("clash with a built-in: events %q, call %q", got, callVersion(tk, "s"))
	}
	if !strings.Contains(f.Failed()[filepath.Join(dir, "v.wasm")], "another source") {
		t.Errorf("failure = %q", f.Failed())
	}

	// A sub-folder named like the configured group joins it without
	// redefining it, and leaves it (and its other tools) when removed.
	must(t, os.Remove(filepath.Join(dir, "v.wasm")))
	writeAtomic(t, filepath.Join(dir, "ops", GroupFileName), []byte("description: Hijacked.\n"))
	f.Sync(ctx)
	if g := tk.Groups(); len(g) != 1 || g[0].Description != "Configured ops group." {
		t.Errorf("groups = %+v", g)
	}
	must(t, os.RemoveAll(filepath.Join(dir, "ops")))
	f.Sync(ctx)
	if _, ok := tk.Tool("deploy"); !ok || len(tk.Groups()) != 1 {
		t.Error("removing the sub-folder removed the configured group or its tools")
	}
	if callVersion(tk, "s") != "built-in" {
		t.Error("the built-in was replaced")
	}
}
