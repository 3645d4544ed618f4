package watch

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func TestWithin(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/a/b", true}, {"/a/b/c", true}, {"/a/bc", false}, {"/a", false}, {"/a/b/../x", false}, {"/a/b/..c", true},
	}
	for _, tt := range tests {
		if got := Within("/a/b", tt.path); got != tt.want {
			t.Errorf("Within(/a/b, %s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestRun: events deep in the tree count only down to Depth, bursts fold
// into few callbacks, and the root can go and come back.
func TestRun(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "root")
	if err := os.MkdirAll(filepath.Join(root, "a", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := New(root, Options{Depth: 1, Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx, func() { calls.Add(1) }); close(done) }()
	defer func() { cancel(); <-done }()

	wait := func(what string, want int32) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for calls.Load() < want {
			if time.Now().After(deadline) {
				t.Fatalf("no callback for %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	write := func(rel string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		write("a/f")
	}
	wait("writes in a sub-folder", 1)
	time.Sleep(100 * time.Millisecond)
	if n := calls.Load(); n > 3 {
		t.Errorf("10 quick writes gave %d callbacks", n)
	}

	before := calls.Load()
	write("a/deep/f") // below Depth: not watched
	time.Sleep(150 * time.Millisecond)
	if calls.Load() != before {
		t.Error("an event below Depth was reported")
	}

	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	wait("root removed", before+1)
	time.Sleep(50 * time.Millisecond) // let the removal settle
	before = calls.Load()
	write("b/f")
	wait("root recreated", before+1)
}

func TestNewNeedsParent(t *testing.T) {
	if _, err := New(filepath.Join(t.TempDir(), "no", "such"), Options{Debounce: time.Millisecond}); err == nil {
		t.Error("New without a parent folder succeeded")
	}
	if _, err := New(t.TempDir(), Options{}); err == nil {
		t.Error("New without a debounce succeeded")
	}
}
