package pathpolicy

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestScopedProbeMemoOrder: one scope answers a long run of questions,
// in random orders, about paths that share prefixes (a path the probe
// found, its parents, paths below it, below a file, below a missing
// folder, through links to each): whatever an earlier answer left in
// the memo (found, absent, lstats), each Resolve and Lstat must say what
// the plain walk and the file system say.
func TestScopedProbeMemoOrder(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b/c", "home/.ssh", "e", "a/fdir"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/b/file", "home/.ssh/id_rsa", "a/f"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mkfifo(filepath.Join(root, "a/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"a/b/keys": "../../home/.ssh", "a/b/self": ".", "a/b/fl": "file", "a/b/dang": "../../home/.ssh/new", "a/up": "..", "e/abs": root + "/a/b", "a/l": "b",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, n := range []string{"", "/a", "/a/b", "/a/b/c", "/a/b/c/d/e", "/a/b/file", "/a/b/file/x", "/a/b/file/x/y", "/a/fifo", "/a/fifo/x",
		"/a/b/keys", "/a/b/keys/id_rsa", "/a/b/keys/x/y", "/a/b/self/keys/id_rsa", "/a/b/self/self/c", "/a/b/fl", "/a/b/fl/x", "/a/b/dang", "/a/b/dang/x",
		"/a/up/home/.ssh/id_rsa", "/e/abs/keys/id_rsa", "/e/abs/c/x", "/missing/x/y", "/missing", "/home/.ssh/id_rsa", "/home/.ssh/id_rsa/x",
		"/a/b/c/../keys/id_rsa", "/a/b/file/../keys", "/a/b/dang/../c",
		// What the probe of a working directory says must not stretch to
		// a path that is only a string prefix of it.
		"/a/f", "/a/fdir", "/a/fdir/x", "/a/l", "/a/l/c", "/a/lmissing/x", "/a/l/file"} {
		names = append(names, root+n)
	}
	var cwds []string
	for _, n := range []string{"", "/a", "/a/b", "/a/b/c", "/a/fdir", "/a/lmissing/x"} {
		cwds = append(cwds, root+n)
	}
	p := New(Options{Home: root + "/home"})
	rng := rand.New(rand.NewPCG(1, 2))
	probed := 0
	for round := range 300 {
		order := rng.Perm(len(names))
		cwd := cwds[rng.IntN(len(cwds))]
		s := p.ScopedIn(cwd)
		for _, i := range order {
			n := names[i]
			if rng.IntN(2) == 0 {
				m1, err1 := s.Lstat(n)
				m2, err2 := lstatMode(n)
				if (err1 == nil) != (err2 == nil) || err1 == nil && m1&(os.ModeSymlink|os.ModeDir) != m2&(os.ModeSymlink|os.ModeDir) {
					t.Fatalf("round %d: Lstat(%q) scoped %v %v, file system %v %v", round, n, m1, err1, m2, err2)
				}
				continue
			}
			got, ok := s.Resolve(n, cwd)
			want, wantOK := referenceResolve(n, cwd, 0)
			if got != want || ok != wantOK {
				t.Fatalf("round %d: Resolve(%q) scoped %q %v, walk %q %v", round, n, got, ok, want, wantOK)
			}
		}
		probed += len(s.memo.found)
	}
	if probed == 0 {
		t.Error("no path was found by the probe: the test no longer exercises it")
	}
}

// BenchmarkProbeCosts is what the file system's answers cost on this
// machine, next to the probe the analysis makes of a command's working
// directory: a system call that looks nothing up (getppid), lstat of an
// existing and of a missing path, and probeDir (openat2 refusing links)
// of an existing directory (open and close) and of a missing one.
func BenchmarkProbeCosts(b *testing.B) {
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	var st unix.Stat_t
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"getppid", func() { unix.Getppid() }},
		{"lstat/existing", func() { unix.Lstat(dir, &st) }},
		{"lstat/missing", func() { unix.Lstat(missing, &st) }},
		{"probeDir/existing", func() { probeDir(dir) }},
		{"probeDir/missing", func() { probeDir(missing) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f()
			}
		})
	}
}
