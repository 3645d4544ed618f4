package pathpolicy

import (
	"math/rand/v2"
	"path"
	"testing"
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
