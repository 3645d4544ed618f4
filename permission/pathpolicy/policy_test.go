package pathpolicy

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree makes a fixture: a home with credentials, a working directory with
// links pointing in and out, and a secrets folder beside it.
func tree(t testing.TB) (root, home, wd string) {
	t.Helper()
	root, _ = filepath.EvalSymlinks(t.TempDir())
	home = filepath.Join(root, "home")
	wd = filepath.Join(root, "work")
	for _, d := range []string{home + "/.ssh", wd + "/src", root + "/secrets", root + "/outside"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{home + "/.ssh/id_rsa", wd + "/src/main.go", root + "/secrets/key", wd + "/.env.prod"} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		wd + "/keys":        "../home/.ssh",
		wd + "/src/seclink": "../../secrets",
		wd + "/up":          "..",
		wd + "/abs":         root + "/outside",
		wd + "/inner":       "src",
		wd + "/loop":        "loop",
		root + "/wdlink":    "work",
	}
	for name, target := range links {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	return root, home, wd
}

func TestResolve(t *testing.T) {
	root, home, wd := tree(t)
	p := New(Options{Home: home})
	cases := []struct {
		name, cwd, want string
		ok              bool
	}{
		{"src/main.go", wd, wd + "/src/main.go", true},
		{"keys/id_rsa", wd, home + "/.ssh/id_rsa", true},
		{"src/seclink/key", wd, root + "/secrets/key", true},
		{"src/seclink/../outside", wd, root + "/outside", true}, // .. after the link, as the kernel does
		{"up/secrets", wd, root + "/secrets", true},
		{"abs/x", wd, root + "/outside/x", true},
		{"missing/../x", wd, wd + "/x", true},
		{"loop/x", wd, "", false},
		{"x", "", "", false},
		{"/proc/self/root" + root + "/secrets/key", wd, root + "/secrets/key", true},
		{"/proc/thread-self/root/etc/passwd", wd, "/etc/passwd", true},
		{"/proc/self/cwd/keys", wd, home + "/.ssh", true},
		{"/proc/self/task/1/cwd/src", wd, wd + "/src", true},
		{"/proc/1/root/etc", wd, "/etc", true},
		{"/proc/self/fd/3/x", wd, "", false},
		{"/proc/self/environ", wd, "/proc/self/environ", true},
		{root + "/wdlink/src/seclink", "/", root + "/secrets", true},
	}
	for _, c := range cases {
		got, ok := p.Resolve(c.name, c.cwd)
		if got != c.want || ok != c.ok {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q, %v", c.name, c.cwd, got, ok, c.want, c.ok)
		}
	}
}

func TestSensitive(t *testing.T) {
	_, home, wd := tree(t)
	p := New(Options{Home: home})
	yes := []string{
		"/home/u/.ssh/id_rsa", "/etc/shadow", "/root/.gitconfig", "/w/.env", "/w/.env.prod", "/w/.ENV.Staging",
		"/proc/self/environ", "/proc/123/environ", "/proc/1/mem", "/proc/self/maps", "/home/u/.config/gh/hosts.yml",
		"/etc/ssh/ssh_host_rsa_key", "/home/u/.config/git/config", "/home/u/.zshenv", "/home/u/.bash_login",
		"/w/.git/config", "/w/.git", "/home/u/.aws/credentials", "/proc/1/fd/3", "/etc/sudoers.d/x",
	}
	no := []string{"/w/src/main.go", "/w/env", "/w/.environment.md", "/etc/passwd", "/etc/ssh/ssh_config", "/proc/cpuinfo", "/w/.github/workflows/ci.yml", "/w/gitconfig.txt"}
	for _, s := range yes {
		if _, ok := p.Sensitive(s); !ok {
			t.Errorf("Sensitive(%q) = false, want true", s)
		}
	}
	for _, s := range no {
		if _, ok := p.Sensitive(s); ok {
			t.Errorf("Sensitive(%q) = true, want false", s)
		}
	}
	// By resolution: a link in the working directory to the home's keys.
	for _, name := range []string{"keys/id_rsa", "keys", "/proc/self/cwd/keys/id_rsa", "/proc/self/fd/3"} {
		if _, ok := p.SensitivePath(name, wd); !ok {
			t.Errorf("SensitivePath(%q) = false, want true", name)
		}
	}
	if what, ok := p.SensitivePath("src/main.go", wd); ok {
		t.Errorf("SensitivePath(src/main.go) = %q, want not sensitive", what)
	}
}

func TestGlobMaySensitive(t *testing.T) {
	_, home, wd := tree(t)
	p := New(Options{Home: home})
	yes := []string{".en*", ".env.*", ".e?v", "/proc/self/environ*", "/proc/*/env*", "/p*/self/environ", "keys/*", "~/.ss[h]/*", home + "/.*/id_rsa", ".g*/config", ".*"}
	no := []string{"*.go", "src/*", "*.md"}
	for _, g := range yes {
		if _, ok := p.GlobMaySensitive(p.ExpandHome(g), wd); !ok {
			t.Errorf("GlobMaySensitive(%q) = false, want true", g)
		}
	}
	for _, g := range no {
		if what, ok := p.GlobMaySensitive(g, wd); ok {
			t.Errorf("GlobMaySensitive(%q) = %q, want false", g, what)
		}
	}
}

func TestInside(t *testing.T) {
	root, home, wd := tree(t)
	p := New(Options{Home: home})
	dirs := []string{root + "/wdlink"} // a working directory given through a link
	in := []string{"src/x", "inner/x", wd + "/new/file"}
	out := []string{"src/seclink/x", "up/x", "abs/x", "keys/x", "/proc/self/cwd/../x", "loop/x"}
	for _, n := range in {
		if !p.Inside(n, wd, dirs) {
			t.Errorf("Inside(%q) = false, want true", n)
		}
	}
	for _, n := range out {
		if p.Inside(n, wd, dirs) {
			t.Errorf("Inside(%q) = true, want false", n)
		}
	}
}

func TestMatch(t *testing.T) {
	root, home, wd := tree(t)
	p := New(Options{Home: home})
	dirs := []string{wd}
	cases := []struct {
		rule, path string
		kind       MatchKind
		want       bool
	}{
		{"//etc/**", "/etc/x", Loose, true},
		{"//etc/**", "/etc/x", Strict, true},
		{"/etc/**", "/etc/x/y", Loose, true},
		{"~/.ssh/**", home + "/.ssh/id_rsa", Loose, true},
		{"~/.ssh/**", "keys/id_rsa", Loose, true}, // through the link
		{"~", home + "/.ssh/id_rsa", Loose, true}, // a directory names what is below it
		{"secrets/**", "x", Loose, false},
		{"//" + root[1:] + "/secrets/**", "src/seclink/key", Loose, true},
		{"//" + root[1:] + "/secrets/**", "/proc/self/root" + root + "/secrets/key", Loose, true},
		{"src/**", "src/main.go", Strict, true},
		{"src/**", "src/seclink/key", Strict, false}, // allowed name, path outside
		{"src/**", "src/seclink/key", Loose, true},
		{"./src/*.go", wd + "/src/main.go", Strict, true},
		{"inner/**", "src/main.go", Loose, true}, // the rule's directory is a link
		{"*.go", "src/main.go", Loose, false},
		{"**/*.go", "src/main.go", Loose, true},
		{"src", "src/main.go", Loose, true},
		{"//tmp/**", "/proc/self/fd/9", Loose, true}, // unknown: loose matches
		{"//tmp/**", "/proc/self/fd/9", Strict, false},
	}
	for _, c := range cases {
		if got := p.Match(c.rule, c.path, wd, dirs, c.kind); got != c.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v (patterns %q)", c.rule, c.path, c.kind, got, c.want, p.Patterns(c.rule, dirs))
		}
	}
	if !p.NamesBelow("secrets/**", root, wd, []string{root}) {
		t.Error("NamesBelow: a rule under the searched folder must hit")
	}
	if p.NamesBelow("//etc/**", wd+"/src", wd, dirs) {
		t.Error("NamesBelow: /etc is not below src")
	}
	if !p.GlobMayMatch("secrets/*", "secret?/*", root, []string{root}) {
		t.Error("GlobMayMatch: secret?/* could name secrets/key")
	}
	if !p.GlobMayMatch("//"+root[1:]+"/secrets/**", "src/seclink/*", wd, dirs) {
		t.Error("GlobMayMatch: src/seclink/* expands into secrets")
	}
}

func TestTreeSensitive(t *testing.T) {
	_, home, wd := tree(t)
	p := New(Options{Home: home})
	if _, ok := p.TreeSensitive("src", wd, TreeOptions{}); ok {
		t.Error("src holds nothing sensitive")
	}
	if _, ok := p.TreeSensitive(".", wd, TreeOptions{Hidden: true}); !ok {
		t.Error("grep -r . would read .env.prod")
	}
	if what, ok := p.TreeSensitive(".", wd, TreeOptions{}); ok {
		t.Errorf("without hidden files and links the tree is clean, got %q", what)
	}
	if _, ok := p.TreeSensitive(".", wd, TreeOptions{FollowLinks: true}); !ok {
		t.Error("following links reaches keys/id_rsa")
	}
	if _, ok := p.TreeSensitive("keys", wd, TreeOptions{}); !ok {
		t.Error("a root that resolves into .ssh is sensitive")
	}
	if _, ok := p.TreeSensitive("src", wd, TreeOptions{MaxEntries: 1}); !ok {
		t.Error("a tree past the bound counts as sensitive")
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a/../b", "/proc/self/cwd/x", "/proc/1/task/2/root/etc", "//x//y/", "~/.ssh", "../../..",
		"keys/id_rsa", "missing/../keys/id_rsa", "src/main.go/../seclink/key", "up/wdlink/abs/../inner/x", "loop/x", "/etc/ssh/x_key"} {
		f.Add(s)
	}
	p := New(Options{Home: "/home/u"})
	_, _, wd := tree(f)
	f.Fuzz(func(t *testing.T, s string) {
		if r, ok := p.Resolve(s, "/tmp"); ok && (r == "" || r[0] != '/') {
			t.Fatalf("Resolve(%q) = %q: not absolute", s, r)
		}
		// The shortcuts (a scope's memo, no lookup below a missing
		// component) must answer as the plain walk does.
		scoped := p.Scoped()
		for range 2 {
			r, ok := scoped.Resolve(s, wd)
			wr, wok := referenceResolve(Abs(s, wd), wd, 0)
			if r != wr || ok != wok {
				t.Fatalf("Resolve(%q) = %q, %v; the plain walk says %q, %v", s, r, ok, wr, wok)
			}
		}
		if _, ok := p.Sensitive(s); ok != referenceSensitive(p, s) {
			t.Fatalf("Sensitive(%q) = %v, trying every entry says %v", s, ok, !ok)
		}
		p.Match(s, "/tmp/x", "/tmp", []string{"/tmp"}, Loose)
		p.Patterns(s, []string{"/tmp"})
	})
}

// referenceSensitive is Sensitive trying every entry with path.Match.
func referenceSensitive(p *Policy, name string) bool {
	if name == "" {
		return false
	}
	lower := strings.ToLower(path.Clean(name))
	segs := strings.Split(strings.Trim(lower, "/"), "/")
	abs := strings.HasPrefix(lower, "/")
	match := func(pattern, segs []string) bool {
		for i := range pattern {
			if ok, _ := path.Match(pattern[i], segs[i]); !ok {
				return false
			}
		}
		return true
	}
	for _, e := range p.files.entries {
		if len(segs) < len(e.segs) {
			continue
		}
		if e.absolute && abs && len(segs) == len(e.segs) && match(e.segs, segs) ||
			!e.absolute && match(e.segs, segs[len(segs)-len(e.segs):]) {
			return true
		}
	}
	for _, e := range p.dirs.entries {
		if e.absolute {
			if abs && len(segs) >= len(e.segs) && match(e.segs, segs[:len(e.segs)]) {
				return true
			}
			continue
		}
		for i := 0; i+len(e.segs) <= len(segs); i++ {
			if match(e.segs, segs[i:i+len(e.segs)]) {
				return true
			}
		}
	}
	return false
}

// referenceResolve is resolve without its shortcuts: one Lstat per
// component, every time.
func referenceResolve(abs, cwd string, depth int) (string, bool) {
	if abs == "" {
		return "", false
	}
	resolved := "/"
	rest := strings.Split(abs, "/")
	links := 0
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			resolved = path.Dir(resolved)
			continue
		}
		if resolved == "/proc" && isProcess(part) {
			r, remaining, ok := (&Policy{}).procEntry(part, rest, cwd, depth)
			if !ok {
				return "", false
			}
			if r != "" {
				resolved, rest = r, remaining
				continue
			}
		}
		next := path.Join(resolved, part)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		target, err := os.Readlink(next)
		if err != nil || links > maxLinks {
			return "", false
		}
		if strings.HasPrefix(target, "/") {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return resolved, true
}

func TestBashGlob(t *testing.T) {
	for in, want := range map[string]string{
		"*.go": "*.go", "[!.]*": "[^.]*", "[[:alnum:][:punct:]]*": "?*", "a[bc]d": "a[bc]d", "x[": "x\\[", "[]a]": "[]a]",
	} {
		if got := BashGlob(in); got != want {
			t.Errorf("BashGlob(%q) = %q, want %q", in, got, want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "--compress-program=sh"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, BashGlob("[!.]*"))); len(m) != 1 {
		t.Errorf("[!.]* should match the option-named file as bash does, got %v", m)
	}
}

func TestOptionLike(t *testing.T) {
	for p, want := range map[string]bool{
		"--pre=sh": true, "./--pre=sh/x": true, "a/-n": true, "/abs/-": true,
		"src/main.go": false, "a-b/c-": false, "": false,
	} {
		if got := OptionLike(p); got != want {
			t.Errorf("OptionLike(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestAbsKnown(t *testing.T) {
	for _, p := range []string{"", "a", "/a", "./a", "~", "a/b", "/"} {
		for _, cwd := range []string{"", "x", "/", "/x", "/x/"} {
			if got, want := AbsKnown(p, cwd), Abs(p, cwd) != ""; got != want {
				t.Errorf("AbsKnown(%q, %q) = %v, Abs gives %q", p, cwd, got, Abs(p, cwd))
			}
		}
	}
}

// TestJoins: the scope's memory of the last relative path made absolute
// answers exactly when Abs would give the path it holds.
func TestJoins(t *testing.T) {
	parts := []string{"", "/", "a", "ab", "a/b", "b", "/a", "/a/", "/ab", "//", "a/", "/a/b"}
	for _, abs := range append(parts, "/a/a", "/a/b", "/ab/b", "/a//b", "/a/a/b", "//a", "/b") {
		for _, cwd := range parts {
			for _, name := range parts {
				if strings.HasPrefix(name, "/") {
					continue // abs takes an absolute name as it is
				}
				if got, want := joins(abs, cwd, name), abs != "" && abs == Abs(name, cwd); got != want {
					t.Errorf("joins(%q, %q, %q) = %v, Abs gives %q", abs, cwd, name, got, Abs(name, cwd))
				}
			}
		}
	}
}

// TestWithin: within is the prefix test it replaces, dir and a slash.
func TestWithin(t *testing.T) {
	parts := []string{"", "/", "//", "/a", "/a/", "/ab", "/a/b", "/a/b/", "/ab/c", "/a//b", "a", "a/b", "/b"}
	for _, p := range parts {
		for _, dir := range parts {
			want := p == dir || dir == "/" || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
			if got := within(p, dir); got != want {
				t.Errorf("within(%q, %q) = %v, want %v", p, dir, got, want)
			}
			if strings.HasSuffix(dir, "/") {
				continue // below and atOrBelow take dir without a trailing slash
			}
			if got, want := below(p, dir), strings.HasPrefix(p, dir+"/"); got != want {
				t.Errorf("below(%q, %q) = %v, want %v", p, dir, got, want)
			}
			if got, want := atOrBelow(p, dir), p == dir || strings.HasPrefix(p, dir+"/"); got != want {
				t.Errorf("atOrBelow(%q, %q) = %v, want %v", p, dir, got, want)
			}
		}
	}
}

// TestDefaultListsParsedOnce: policies made with the default lists share
// one parse of them, and a program that changes a default list gets its
// change.
func TestDefaultListsParsedOnce(t *testing.T) {
	a, b := New(Options{Home: "/home/u"}), New(Options{Home: "/home/u"})
	if a.files != b.files || a.dirs != b.dirs {
		t.Error("two policies with the default lists parsed them twice")
	}
	saved := DefaultDangerousFiles
	DefaultDangerousFiles = append(slices.Clone(saved), "secrets.yaml")
	defer func() { DefaultDangerousFiles = saved }()
	p := New(Options{Home: "/home/u"})
	if _, ok := p.Sensitive("/srv/app/secrets.yaml"); !ok {
		t.Error("a default list changed by the program was not honoured")
	}
	if _, ok := a.Sensitive("/srv/app/secrets.yaml"); ok {
		t.Error("a policy made before the change sees it")
	}
}
