package pathpolicy

import (
	"math/rand/v2"
	"path"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func TestGlobsMeet(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"*_key", "ssh_host_*", true}, // the red-team case: ssh_host_x_key
		{"*_key", "ssh_host_rsa_k?y", true},
		{"id_*", "*.pub", true},
		{"a*", "b*", false},
		{"*a", "*b", false},
		{"[ab]x", "[cd]x", false},
		{"[a-c]x", "[c-e]x", true},
		{"[!a]x", "ax", true}, // negated classes are taken to match anything
		{"x?z", "xyz*", true},
		{"x?z", "x", false},
		{"*", "", true},
		{"?", "", false},
		{`\*x`, "*", true},
		{"é*", "?", true},
		{"[", "a", true}, // malformed: anything
	}
	for _, tt := range tests {
		if got := globsMeet(tt.a, tt.b); got != tt.want {
			t.Errorf("globsMeet(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := globsMeet(tt.b, tt.a); got != tt.want {
			t.Errorf("globsMeet(%q, %q) = %v, want %v (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

// TestGlobsMeetNeverMissesANameBothMatch compares globsMeet with an
// exhaustive search over short names: whenever a name matches both
// globs, it must say yes (a false no would let a sensitive path through).
func TestGlobsMeetNeverMissesANameBothMatch(t *testing.T) {
	parts := []string{"a", "b", "c", "*", "?", "[ab]", "[b-c]", "[!a]"}
	var names []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		names = append(names, prefix)
		if n == 0 {
			return
		}
		for _, c := range []string{"a", "b", "c"} {
			gen(prefix+c, n-1)
		}
	}
	gen("", 4)
	rnd := rand.New(rand.NewPCG(1, 2))
	glob := func() string {
		s := ""
		for range rnd.IntN(4) + 1 {
			s += parts[rnd.IntN(len(parts))]
		}
		return s
	}
	for range 3000 {
		a, b := glob(), glob()
		both := false
		for _, n := range names {
			ma, _ := path.Match(a, n)
			mb, _ := path.Match(b, n)
			if ma && mb {
				both = true
				break
			}
		}
		if both && !globsMeet(a, b) {
			t.Fatalf("globsMeet(%q, %q) = false, but a name matches both", a, b)
		}
	}
}

func TestGlobPathsMeet(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"/etc/ssh/*_key", "/etc/ssh/ssh_host_*", true},
		{"/etc/**", "/etc/ssh/x", true},
		{"/etc/**", "/home/*", false},
		{"/home/u/**/.env*", "/home/u/p/*", true},
		{"/home/u/**/.env", "/home/u/p/a.txt", false},
		{"/a/**/b", "/a/b", true},
		{"/a/*/b", "/a/b", false},
		{"/a/{x,y}", "/a/z", true}, // braces: taken to meet
		{"/a/x**y/z", "/a/q", true},
	}
	for _, tt := range tests {
		if got := globPathsMeet(tt.a, tt.b); got != tt.want {
			t.Errorf("globPathsMeet(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := globPathsMeet(tt.b, tt.a); got != tt.want {
			t.Errorf("globPathsMeet(%q, %q) = %v, want %v (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

// TestGlobPathsMeetNeverMissesAPathBothMatch: whenever some short path
// matches both patterns (doublestar's matching), globPathsMeet says yes.
func TestGlobPathsMeetNeverMissesAPathBothMatch(t *testing.T) {
	segs := []string{"a", "b", "*", "?", "[ab]", "**"}
	var paths []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		if prefix != "" {
			paths = append(paths, prefix)
		}
		if n == 0 {
			return
		}
		for _, c := range []string{"a", "b", "ab"} {
			gen(prefix+"/"+c, n-1)
		}
	}
	gen("", 3)
	rnd := rand.New(rand.NewPCG(3, 4))
	pattern := func() string {
		s := ""
		for range rnd.IntN(3) + 1 {
			s += "/" + segs[rnd.IntN(len(segs))]
		}
		return s
	}
	for range 3000 {
		a, b := pattern(), pattern()
		both := false
		for _, p := range paths {
			ma, _ := doublestar.Match(a, p)
			mb, _ := doublestar.Match(b, p)
			if ma && mb {
				both = true
				break
			}
		}
		if both && !globPathsMeet(a, b) {
			t.Fatalf("globPathsMeet(%q, %q) = false, but a path matches both", a, b)
		}
	}
}
