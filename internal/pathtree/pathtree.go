// Package pathtree answers whether one absolute, clean path lies in the
// tree of another, by their spelling (no link is resolved, nothing is
// read from disk).
package pathtree

import (
	"path/filepath"
	"strings"
)

// Holds reports whether p is dir or lies below it. Both are absolute and
// clean; "/a/b" holds "/a/b/c" but not "/a/bc".
func Holds(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// Below reports whether p lies strictly below dir.
func Below(dir, p string) bool { return p != dir && Holds(dir, p) }
