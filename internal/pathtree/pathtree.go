// Package pathtree answers whether one absolute, clean path lies in the
// tree of another, by their spelling (Holds, Below), and resolves a path
// as the kernel does, showing every link met on the way (Resolve).
package pathtree

import (
	"fmt"
	"os"
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

// Resolve resolves the absolute path p one element at a time, as the kernel
// does (a ".." after a link leaves the link's target, not the link's
// folder), calling visit with the path of every link met. It returns the
// resolved path; the part that does not exist is kept as written.
func Resolve(p string, visit func(link string)) (string, error) {
	const maxLinks = 40
	vol := filepath.VolumeName(p)
	rest := strings.Split(filepath.ToSlash(p[len(vol):]), "/")
	cur := vol + string(os.PathSeparator)
	links := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		info, err := os.Lstat(next)
		if err != nil {
			// Absent from here on: nothing more to follow.
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if info.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if visit != nil {
			visit(next)
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many links", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(next); err != nil {
			return "", fmt.Errorf("%s is a dangling link", next)
		}
		if filepath.IsAbs(target) {
			cur = filepath.VolumeName(target) + string(os.PathSeparator)
			target = target[len(filepath.VolumeName(target)):]
		}
		rest = append(strings.Split(filepath.ToSlash(target), "/"), rest...)
	}
	return cur, nil
}
