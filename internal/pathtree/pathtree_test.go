package pathtree

import "testing"

func TestHolds(t *testing.T) {
	for _, c := range []struct {
		dir, p       string
		holds, below bool
	}{
		{"/a/b", "/a/b", true, false},
		{"/a/b", "/a/b/c", true, true},
		{"/a/b", "/a/bc", false, false},
		{"/a/b", "/a", false, false},
		{"/", "/x", true, true},
		{"/", "/", true, false},
	} {
		if got := Holds(c.dir, c.p); got != c.holds {
			t.Errorf("Holds(%q, %q) = %v", c.dir, c.p, got)
		}
		if got := Below(c.dir, c.p); got != c.below {
			t.Errorf("Below(%q, %q) = %v", c.dir, c.p, got)
		}
	}
}
