package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// TestConcurrentEditsLoseNothing: sessions doing Read then Edit on one
// file at the same time, each edit appending a line. Every edit that
// reports success is in the file; the others were told to read again.
func TestConcurrentEditsLoseNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shared.txt")
	writeFile(t, path, "end\n")
	// Separate tools and backends, as separate processes would have:
	// only the file system is shared.
	newKit := func() *toolkit.Toolkit {
		tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass, WorkingDirs: []string{dir}}})
		for _, tool := range []toolkit.Tool{NewRead(FileOptions{}), NewEdit(FileOptions{}), NewWrite(FileOptions{})} {
			if err := tk.Register(tool); err != nil {
				t.Fatal(err)
			}
		}
		return tk
	}
	call := func(tk *toolkit.Toolkit, session, name string, in map[string]any) *toolkit.Response {
		res, err := toolkittest.Run(context.Background(), tk, session, name, in, toolkit.TurnOptions{})
		if err != nil {
			t.Error(err)
			return nil
		}
		return res.Outcome.Response
	}
	const sessions, rounds = 3, 60
	var wg sync.WaitGroup
	succeeded := make([]int, sessions)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := newKit()
			id := fmt.Sprintf("s%d", i)
			for r := range rounds {
				if resp := call(tk, id, "Read", map[string]any{"file_path": path}); resp == nil || resp.State != toolkit.StateSuccess {
					continue
				}
				tool, in := "Edit", map[string]any{"file_path": path, "old_string": "end\n", "new_string": fmt.Sprintf("%s-%d\nend\n", id, r)}
				if r%5 == 0 {
					// A whole-file Write races the Edits too.
					data, _ := os.ReadFile(path)
					tool, in = "Write", map[string]any{"file_path": path, "content": strings.Replace(string(data), "end\n", fmt.Sprintf("%s-%d\nend\n", id, r), 1)}
				}
				resp := call(tk, id, tool, in)
				if resp != nil && resp.State == toolkit.StateSuccess {
					succeeded[i]++
				} else if resp != nil && !strings.Contains(resp.Text(), "read it again") && !strings.Contains(resp.Text(), "Read tool") {
					t.Errorf("%s: a refused edit must say to read again: %s", tool, resp.Text())
				}
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range succeeded {
		total += n
	}
	lines := strings.Count(string(data), "\n") - 1 // without "end"
	if lines != total {
		t.Fatalf("%d edits reported success, the file holds %d of them: updates were lost", total, lines)
	}
	if total == 0 {
		t.Fatal("no edit succeeded")
	}
	t.Logf("%d of %d edits succeeded, all kept", total, sessions*rounds)
}

// TestWriteCheckedAbortsOnChange: the stamp comparison right before the
// rename refuses a write when the file changed after the freshness check
// (a writer that does not take the lock, such as an editor).
func TestWriteCheckedAbortsOnChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "one\n")
	b := &LocalBackend{}
	err := b.WriteFileChecked(context.Background(), path, []byte("two\n"), 0o644, func() error {
		writeFile(t, path, "changed by someone else\n")
		return errChanged(path)
	})
	if err == nil || !strings.Contains(err.Error(), "read it again") {
		t.Fatalf("err = %v, want the file-changed error", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "changed by someone else\n" {
		t.Fatalf("the aborted write changed the file: %q", data)
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".f.txt.tmp-*"))
	if len(matches) > 0 {
		t.Fatalf("temporary files left behind: %v", matches)
	}
}

// TestDiffCapped: a small edit of a file with very long lines returns a
// bounded diff.
func TestDiffCapped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "long.txt")
	writeFile(t, path, strings.Repeat("x", 1<<20)+"\nneedle\n"+strings.Repeat("y", 1<<20)+"\n")
	k := newFileKit(t, permission.ModeBypass, dir)
	k.call("Read", map[string]any{"file_path": path})
	resp := k.call("Edit", map[string]any{"file_path": path, "old_string": "needle", "new_string": "thread"})
	if resp.State != toolkit.StateSuccess {
		t.Fatal(resp.Text())
	}
	d, _ := resp.Metadata["diff"].(string)
	if len(d) > MaxDiffBytes+100 || !strings.Contains(d, "diff cut") {
		t.Fatalf("diff of %d bytes, want at most %d with a note", len(d), MaxDiffBytes)
	}
}

// TestStaleTempsRemoved: temporary files a killed writer left behind are
// removed by the next write of the same file; fresh ones (a writer at
// work) are kept.
func TestStaleTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	stale, fresh := filepath.Join(dir, ".f.txt.tmp-111"), filepath.Join(dir, ".f.txt.tmp-222")
	for _, p := range []string{stale, fresh} {
		writeFile(t, p, "partial")
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := (&LocalBackend{}).WriteFile(context.Background(), path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale temporary file was left")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary file (a writer at work) was removed")
	}
}
