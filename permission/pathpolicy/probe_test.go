package pathpolicy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScopedResolveProbe: a scope that probes the starting directory in
// one call resolves every path, and answers every Lstat, as the plain
// component-by-component walk does: with the directory present, missing,
// a file, a link, below a link, and for paths with "..", links and
// missing parts below it.
func TestScopedResolveProbe(t *testing.T) {
	root := t.TempDir()
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk("proj/src")
	mk("other/.ssh")
	if err := os.WriteFile(filepath.Join(root, "proj/file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"proj/ln": "../other", "proj/src/up": "..", "linkdir": "proj", "proj/abs": "/etc", "proj/dangling": "nowhere/x",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	p := New(Options{Home: "/home/user"})
	cwds := []string{"proj", "proj/src", "missing", "missing/deeper", "proj/file", "proj/file/below", "linkdir", "linkdir/src", "proj/ln", "proj/dangling"}
	names := []string{".", "x", "src", "src/x", "../x", "ln/.ssh", "src/up/ln", "file", "file/x", "dangling", "abs/passwd", "a/b/c", "/etc/passwd", "", "./x/../y",
		// through the parents of the starting directory
		root, root + "/proj/ln/.ssh", root + "/linkdir/src/up/ln", root + "/missing/x", root + "/missing/deeper/x", root + "/proj/file/x", filepath.Dir(root) + "/x",
		// whole paths probed in one call: a trailing link, a dangling
		// one, a link to an absolute path, a file, a folder, below a file
		root + "/proj/ln", root + "/proj/dangling", root + "/proj/dangling/x", root + "/proj/abs", root + "/proj/abs/passwd",
		root + "/proj/file", root + "/proj/src", root + "/proj/file/x/y", root + "/linkdir", root + "/proj/src/up"}
	probed := 0
	for _, c := range cwds {
		cwd := filepath.Join(root, c)
		for i, n := range append(names, names...) {
			// The second time, the scope knows where the command starts
			// and its first Lstat may probe (ScopedIn).
			s := p.Scoped()
			if i >= len(names) {
				s = p.ScopedIn(cwd)
				for q := Abs(n, cwd); len(q) > 1; q = filepath.Dir(q) {
					m1, err1 := s.Lstat(q)
					m2, err2 := lstatMode(q)
					if (err1 == nil) != (err2 == nil) || err1 == nil && m1&(os.ModeSymlink|os.ModeDir) != m2&(os.ModeSymlink|os.ModeDir) {
						t.Errorf("ScopedIn(%q): Lstat(%q) scoped %v %v, file system %v %v", cwd, q, m1, err1, m2, err2)
					}
				}
			}
			want, wantOK := p.Resolve(n, cwd)
			got, ok := s.Resolve(n, cwd)
			if got != want || ok != wantOK {
				t.Errorf("Resolve(%q, %q): scoped %q %v, walk %q %v", n, cwd, got, ok, want, wantOK)
			}
			if s.memo.warmed {
				probed++
			}
			// Then Lstat of the path and its parents, from the scope's memory.
			for q := Abs(n, cwd); len(q) > 1; q = filepath.Dir(q) {
				_, err1 := s.Lstat(q)
				m2, err2 := lstatMode(q)
				m1, _ := s.Lstat(q)
				if (err1 == nil) != (err2 == nil) || err1 == nil && m1&(os.ModeSymlink|os.ModeDir) != m2&(os.ModeSymlink|os.ModeDir) {
					t.Errorf("after Resolve(%q, %q): Lstat(%q) scoped %v %v, file system %v %v", n, cwd, q, m1, err1, m2, err2)
				}
			}
		}
	}
	if probed == 0 {
		t.Log("no probe made (no openat2 here): only the walk was compared")
	}
}
