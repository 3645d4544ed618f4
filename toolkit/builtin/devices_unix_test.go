//go:build unix

package builtin

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// TestReadRefusesDevicesAndFIFOs: Read answers a device (which never
// ends: /dev/zero would fill memory) or a FIFO (whose open may never
// return) with an error at once, even in bypass mode; Grep skips a FIFO
// in a folder it searches instead of blocking on it.
func TestReadRefusesDevicesAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	writeFile(t, filepath.Join(dir, "notes.txt"), "needle\n")
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass, WorkingDirs: []string{dir}}})
	for _, tool := range []toolkit.Tool{NewRead(FileOptions{}), NewGrep(GrepOptions{Engine: "go"})} {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"/dev/zero", fifo} {
		r := toolkittest.Call(t, tk, "s", "Read", map[string]any{"file_path": path})
		if r.State != toolkit.StateError || !strings.Contains(r.Text(), "regular file") {
			t.Errorf("Read %s: %s %q, want an error saying only regular files are read", path, r.State, r.Text())
		}
	}
	r := toolkittest.Call(t, tk, "s", "Grep", map[string]any{"pattern": "needle", "path": dir})
	if r.State != toolkit.StateSuccess || !strings.Contains(r.Text(), "notes.txt") || strings.Contains(r.Text(), "pipe") {
		t.Errorf("Grep beside a FIFO: %s %q", r.State, r.Text())
	}
}
