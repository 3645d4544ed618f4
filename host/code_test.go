package host

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/toolkit"
)

// TestIdleRelease: a loaded plugin holds no code until its first call,
// keeps code and a warm instance after calls, releases both once idle for
// IdleTimeout, and the next call loads the code again and answers the
// same. A module file changed meanwhile is refused, naming the change;
// without a disk cache nothing is released.
func TestIdleRelease(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hash.wasm")
	wasm, err := os.ReadFile(testplugins.Go(t, "hash"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{CacheDir: testplugins.CompileCache(t), Logger: slog.New(slog.DiscardHandler), IdleTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	p, err := h.LoadFile(context.Background(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	if p.Resident() || p.Idle() != 0 {
		t.Fatalf("after load: resident %v, %d idle instances", p.Resident(), p.Idle())
	}
	tk := kit(t, bypass, p)
	want := ""
	for i := range 3 {
		r, _ := call(t, tk, "hash", `{"text":"abc"}`)
		if r.State != toolkit.StateSuccess || (want != "" && r.Text() != want) {
			t.Fatalf("call %d: %s %q (want %q)", i, r.State, r.Text(), want)
		}
		want = r.Text()
		eventually(t, "the code and instances released after the idle timeout", func() bool { return !p.Resident() && p.Idle() == 0 })
	}

	// The file changes under the plugin: the code cannot be loaded again
	// from it, and the call says why.
	if err := os.WriteFile(path, append(wasm, 0, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, _ := call(t, tk, "hash", `{"text":"abc"}`); r.State == toolkit.StateSuccess || !strings.Contains(r.Text(), "changed since it was loaded") {
		t.Errorf("call after the file changed: %s %q", r.State, r.Text())
	}

	// Without a disk cache, the code stays. (A hand-built module: with no
	// cache, a Go module would be compiled here, ten seconds under the
	// race detector.)
	off, err := New(Options{CacheDir: "off", Logger: slog.New(slog.DiscardHandler), IdleTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { off.Close(context.Background()) })
	q := loadBuilt(t, off, pluginModule(oneTool, func(m *built) []byte { return code(m.output(okResult), i32c(0)) }), Config{})
	if r, _ := call(t, kit(t, bypass, q), "t", `{}`); r.State != toolkit.StateSuccess {
		t.Fatalf("without a disk cache: %s %q", r.State, r.Text())
	}
	time.Sleep(20 * time.Millisecond)
	if !q.Resident() {
		t.Error("without a disk cache the code was released")
	}
}

// TestIdleReleaseUnderLoad: calls that race with releases all succeed
// (the race detector checks the bookkeeping).
func TestIdleReleaseUnderLoad(t *testing.T) {
	h, err := New(Options{CacheDir: testplugins.CompileCache(t), Logger: slog.New(slog.DiscardHandler), IdleTimeout: time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	wasm, err := os.ReadFile(testplugins.Go(t, "hash"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.Load(context.Background(), wasm, Config{Name: "hash"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	tk := kit(t, bypass, p)
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				if r, _ := call(t, tk, "hash", `{"text":"abc"}`); r.State != toolkit.StateSuccess {
					errs <- r.Text()
				}
				if (g+i)%2 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
