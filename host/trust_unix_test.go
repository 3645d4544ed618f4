//go:build unix

package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/toolkit"
)

// TestPlantedFIFONeverBlocksASync plants a FIFO under a module's and a
// sidecar's name: reading either would block the folder's Sync forever.
func TestPlantedFIFONeverBlocksASync(t *testing.T) {
	h := newTestHost(t)
	dir := t.TempDir()
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo.wasm"), 0o644))
	install(t, dir, "v", versionedWasm(t), "1")
	must(t, os.Remove(filepath.Join(dir, "v.json")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "v.json"), 0o644))
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	done := make(chan *Folder, 1)
	ctx := context.Background()
	go func() {
		f, err := h.OpenFolder(ctx, tk, dir, FolderOptions{})
		if err != nil {
			t.Error(err)
		}
		done <- f
	}()
	select {
	case f := <-done:
		defer f.Close(ctx)
		failed := f.Failed()
		for _, name := range []string{"fifo.wasm", "v.wasm"} {
			if why := failed[filepath.Join(dir, name)]; !strings.Contains(why, "not a regular file") {
				t.Errorf("%s: %q, want it refused as not a regular file", name, why)
			}
		}
	case <-time.After(time.Minute):
		t.Fatal("the Sync blocked on a FIFO")
	}
}
