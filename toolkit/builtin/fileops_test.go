package builtin

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// execOnly hides LocalBackend's fast paths: only Exec, ReadFile and
// WriteFile remain, as on a minimal remote backend.
type execOnly struct{ Backend }

func TestDerivedFileOps(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "hello")
	writeFile(t, filepath.Join(dir, "sub", "b.txt"), "x")
	writeFile(t, filepath.Join(dir, "sub", "deeper", "c.txt"), "y")
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "a.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, b := range map[string]Backend{"native": &LocalBackend{}, "exec": execOnly{&LocalBackend{}}} {
		fi, err := Stat(ctx, b, filepath.Join(dir, "a.txt"))
		if err != nil || fi.Size != 5 || !fi.ModTime.Equal(old) || fi.IsDir() {
			t.Errorf("%s: Stat = %+v, %v", name, fi, err)
		}
		if _, err := Stat(ctx, b, filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: Stat of a missing file: %v", name, err)
		}
		entries, err := ReadDir(ctx, b, dir)
		var names []string
		for _, e := range entries {
			names = append(names, filepath.Base(e.Path))
		}
		slices.Sort(names)
		if err != nil || !slices.Equal(names, []string{"a.txt", "sub"}) {
			t.Errorf("%s: ReadDir = %v, %v", name, names, err)
		}
		var walked []string
		err = Walk(ctx, b, dir, func(fi FileInfo) error {
			rel, _ := filepath.Rel(dir, fi.Path)
			if fi.IsDir() && rel == filepath.Join("sub", "deeper") {
				return fs.SkipDir
			}
			walked = append(walked, rel)
			return nil
		})
		slices.Sort(walked)
		if err != nil || strings.Join(walked, " ") != ". a.txt sub sub/b.txt" {
			t.Errorf("%s: Walk = %v, %v", name, walked, err)
		}
		p := filepath.Join(dir, name+"-gone.txt")
		writeFile(t, p, "z")
		if err := Remove(ctx, b, p); err != nil {
			t.Errorf("%s: Remove: %v", name, err)
		}
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: Remove left the file", name)
		}
	}
}

func TestFileToolsOnAMinimalBackend(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	writeFile(t, p, "one\n")
	b := execOnly{&LocalBackend{}}
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass}})
	for _, tool := range []toolkit.Tool{NewRead(FileOptions{Backend: b}), NewEdit(FileOptions{Backend: b})} {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	k := &fileKit{t: t, tk: tk}
	if r := k.call("Read", map[string]any{"file_path": p}); r.State != toolkit.StateSuccess {
		t.Fatalf("read: %q", r.Text())
	}
	if r := k.call("Edit", map[string]any{"file_path": p, "old_string": "one", "new_string": "two"}); r.State != toolkit.StateSuccess {
		t.Fatalf("edit through a minimal backend: %q", r.Text())
	}
}

func TestParseFindTime(t *testing.T) {
	for in, want := range map[string]time.Time{
		"1700000000.123456789": time.Unix(1700000000, 123456789),
		"1700000000.5":         time.Unix(1700000000, 500000000),
		"1700000000":           time.Unix(1700000000, 0),
	} {
		if got := parseFindTime(in); !got.Equal(want) {
			t.Errorf("parseFindTime(%q) = %v, want %v", in, got, want)
		}
	}
}
