package pathpolicy

import (
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"
)

// sensitiveParts are path segments near the lists' entries: their keys
// in several cases, globs' prefixes, the /proc and /dev forms, and what
// cleaning and lower-casing change ("", ".", "..", non-ASCII, the Kelvin
// sign that lower-cases to an ASCII "k").
var sensitiveParts = []string{
	"", ".", "..", "...", "a", "B", "tmp", "Project", "README.md", "README.txt", "Extra", "src", "home", "user",
	".ssh", ".SSH", ".Ssh", "config", "CONFIG", "authorized_keys", ".git", ".GIT", ".github", ".gitconfig",
	".env", ".ENV", ".env.prod", ".Env.Staging", ".env-ci", ".env_x", ".envrc", ".env~", ".en",
	".config", "gh", "GH", "hosts.yml", "fish", "config.fish", "git", "credentials", ".cargo", ".\u212Aube", ".kube", ".KUBE",
	"proc", "PROC", "self", "1", "environ", "Environ", "fd", "task", "mem", "kcore",
	"dev", "sda", "SDA1", "nvme0n1", "mapper", "disk", "etc", "ETC", "shadow", "shadow-", "ssh", "ssh_host_rsa_key", "sudoers.d",
	"run", "secrets", "var", "é", "Ä", "\xff", "x\u0130", ".local", "share", "keyrings",
}

// randomPath joins a few sensitiveParts, absolute or not, with a
// doubled or trailing slash now and then.
func randomPath(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteByte('/')
	}
	for i := range 1 + rng.IntN(6) {
		if i > 0 {
			b.WriteByte('/')
			if rng.IntN(20) == 0 {
				b.WriteByte('/')
			}
		}
		b.WriteString(sensitiveParts[rng.IntN(len(sensitiveParts))])
	}
	if rng.IntN(20) == 0 {
		b.WriteByte('/')
	}
	return b.String()
}

// testPolicies are the default lists, lists of entries with upper case,
// globs in every place, empty and non-ASCII segments, and lists of
// entries that match most paths.
func testPolicies() []*Policy {
	return []*Policy{
		New(Options{Home: "/home/user"}),
		New(Options{
			Home: "/home/user",
			DangerousFiles: []string{"README.MD", "a/*/b", "[ab]?", "*.Key", "/ETC/*", "x//y", "é", "\u212Aube", "s\\*", "/*/.ssh/config",
				"/E*/shadow", "/h?me/*/.ssh", "x/.Env*", "READ[mM]E.*", "Self/?nviron"},
			DangerousDirs: []string{"Src/B", "/tmp/project", "[", "pro*/a", "/proc/*/TASK", "/R*n/secrets", "/v[a]r", "S?a*"},
		}),
		New(Options{Home: "/home/user", DangerousFiles: []string{"?", "[ab]*"}, DangerousDirs: []string{"*", "[!.]*"}}),
	}
}

// TestCleanSegs: whenever cleanSegs takes a name, the name is what
// path.Clean makes of it and what strings.ToLower makes of it is
// lowerASCII's, and the segments and absoluteness are the general way's.
func TestCleanSegs(t *testing.T) {
	check := func(name string) {
		segs, abs, ok := cleanSegs(nil, name)
		if !ok {
			return
		}
		if path.Clean(name) != name || strings.ToLower(name) != lowerASCII(name) {
			t.Fatalf("cleanSegs took %q, which cleaning or lower-casing changes", name)
		}
		want := strings.Split(strings.Trim(name, "/"), "/")
		if !slices.Equal(segs, want) || abs != strings.HasPrefix(name, "/") {
			t.Fatalf("cleanSegs(%q) = %q, %v; want %q, %v", name, segs, abs, want, !abs)
		}
	}
	// The common names take the fast way.
	for _, name := range []string{"/", ".", "/tmp/project/README.md", "README.md", "../x", "../../a/b", "a", "/home/user/.bashrc"} {
		if _, _, ok := cleanSegs(nil, name); !ok {
			t.Errorf("cleanSegs(%q) takes the general way", name)
		}
		check(name)
	}
	// And what cleaning or lower-casing would change does not.
	for _, name := range []string{"", "./a", "a/.", "a/..", "a/../b", "/..", "/../a", "//a", "a//b", "a/", "/a/", "é", "/\u212A"} {
		if _, _, ok := cleanSegs(nil, name); ok {
			t.Errorf("cleanSegs(%q) takes the fast way", name)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		check(randomPath(rng))
	}
}

// TestSensitiveMatchesReference: Sensitive (the fast way through
// cleanSegs and the index, and the general way) answers as trying every
// entry with path.Match on the cleaned, lower-cased path does.
func TestSensitiveMatchesReference(t *testing.T) {
	agreeWithReference(t, "Sensitive", 50_000, rand.New(rand.NewPCG(5, 6)), randomPath,
		func(p *Policy, name string) bool { _, ok := p.Sensitive(name); return ok }, referenceSensitive)
}

// agreeWithReference checks fast against reference on n inputs that gen
// makes, for each of testPolicies, and that the first two policies
// judge a fair share of them each way (else the inputs no longer tell
// the two apart).
func agreeWithReference(t *testing.T, what string, n int, rng *rand.Rand, gen func(*rand.Rand) string, fast, reference func(*Policy, string) bool) {
	t.Helper()
	for i, p := range testPolicies() {
		yes := 0
		for range n {
			in := gen(rng)
			got := fast(p, in)
			if want := reference(p, in); got != want {
				t.Fatalf("policy %d: %s(%q) = %v, the reference says %v", i, what, in, got, want)
			}
			if got {
				yes++
			}
		}
		if i < 2 && (yes < n/20 || yes > n*19/20) {
			t.Errorf("policy %d: %s says yes to %d of %d inputs: the test no longer tells the ways apart", i, what, yes, n)
		}
	}
}

func FuzzSensitive(f *testing.F) {
	for _, s := range []string{"/tmp/project/README.md", "/home/u/.SSH/id_rsa", "/proc/1/Environ", "a/.Env.Prod", "/dev/SDA1",
		"../.git/config", "x/./.ssh", "/etc//shadow", ".\u212Aube/config", "/ETC/ssh/Host_key"} {
		f.Add(s)
	}
	policies := testPolicies()
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range policies {
			if _, ok := p.Sensitive(s); ok != referenceSensitive(p, s) {
				t.Fatalf("Sensitive(%q) = %v, trying every entry says %v", s, ok, !ok)
			}
		}
	})
}

// TestIsClean: isClean reports exactly the absolute paths path.Clean
// leaves alone, which resolve relies on to skip path.Clean.
func TestIsClean(t *testing.T) {
	check := func(name string) {
		if got, want := isClean(name), strings.HasPrefix(name, "/") && path.Clean(name) == name; got != want {
			t.Fatalf("isClean(%q) = %v, path.Clean gives %q", name, got, path.Clean(name))
		}
	}
	for _, name := range []string{"", "/", "//", "/.", "/..", "/a", "/a/", "/a/.", "/a/..", "/a/.b", "/a/..b", "/a//b", "a", "./a", "/a/b/c"} {
		check(name)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 100_000 {
		check(randomPath(rng))
	}
}

// referencePatternMaySensitive is patternMaySensitive as it was before
// globSegs: every segment's syntax asked again for every entry, and
// every pair compared with path.Match.
func referencePatternMaySensitive(p *Policy, pattern string) bool {
	lower := strings.ToLower(pattern)
	segs := strings.Split(strings.Trim(lower, "/"), "/")
	mayMatch := func(entry, glob []string) bool {
		any := false
		for i := range entry {
			if !segMayMatch(entry[i], glob[i], hasGlob(glob[i])) {
				return false
			}
			any = any || hasGlob(glob[i])
		}
		return any
	}
	for _, e := range p.files.entries {
		if e.absolute {
			if len(segs) == len(e.segs) && mayMatch(e.segs, segs) {
				return true
			}
			continue
		}
		if len(segs) >= len(e.segs) && mayMatch(e.segs, segs[len(segs)-len(e.segs):]) {
			return true
		}
	}
	for _, e := range p.dirs.entries {
		if e.absolute {
			if len(segs) >= len(e.segs) && mayMatch(e.segs, segs[:len(e.segs)]) {
				return true
			}
			continue
		}
		for i := 0; i+len(e.segs) <= len(segs); i++ {
			if mayMatch(e.segs, segs[i:i+len(e.segs)]) {
				return true
			}
		}
	}
	return false
}

// globParts are glob segments near the lists' entries.
var globParts = []string{"*", "?", "*.go", "*.md", ".*", ".e*", ".env*", "[.]env", ".ENV.*", "[a-z]*", "[!.]*", "[^a]", "*_key", "s?a*", "id_*",
	"\\*", "[", "x[", "**", "*/", "proc", "*environ", "e?viron", "1", "etc", "ssh", "home", ".ss?", ".SSH", "dev", "sd*", "config"}

// TestPatternMaySensitiveMatchesReference: patternMaySensitive answers
// as it did before globSegs, on random globs mixing sensitiveParts and
// globParts.
func TestPatternMaySensitiveMatchesReference(t *testing.T) {
	agreeWithReference(t, "patternMaySensitive", 20_000, rand.New(rand.NewPCG(9, 10)), randomGlob,
		(*Policy).patternMaySensitive, referencePatternMaySensitive)
}

// randomGlob joins a few segments, each from globParts or
// sensitiveParts, absolute or not.
func randomGlob(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteByte('/')
	}
	for j := range 1 + rng.IntN(5) {
		if j > 0 {
			b.WriteByte('/')
		}
		if rng.IntN(2) == 0 {
			b.WriteString(globParts[rng.IntN(len(globParts))])
		} else {
			b.WriteString(sensitiveParts[rng.IntN(len(sensitiveParts))])
		}
	}
	return b.String()
}

func FuzzPatternMaySensitive(f *testing.F) {
	for _, s := range []string{"/tmp/project/*.go", "/home/u/.ss?/*", "/proc/*/env*", ".e*", "/etc/ssh/*_key", "a/[.]git/x", "/dev/sd?", "\\*/.ENV.*"} {
		f.Add(s)
	}
	policies := testPolicies()
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range policies {
			if got, want := p.patternMaySensitive(s), referencePatternMaySensitive(p, s); got != want {
				t.Fatalf("patternMaySensitive(%q) = %v, before %v", s, got, want)
			}
		}
	})
}
