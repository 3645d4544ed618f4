package pathpolicy

import (
	"io/fs"
	"strings"
)

// probeResult is what probeDir learnt about a path.
type probeResult int

const (
	probeUnknown probeResult = iota
	probeDirOK
	probeMissing
	probeNotDir
	probeFound // probePath: the path exists, no link on the way
)

// absentResult is a path probeDir found missing, or not a directory,
// with no link before the component where the lookup stopped: nothing
// below it exists, and it resolves to itself, as does everything below
// it (see resolve).
type absentResult struct {
	name    string
	missing bool // ENOENT: the path itself does not exist either
}

// warmDir learns, in one system call, what the component-by-component
// walk would learn about the directory relative paths start from, which
// most words of a command lie under: all its components as directories
// without links, or the place below which nothing exists. dir must be
// clean, absolute, not "/" and not under /proc.
func (p *Policy) warmDir(dir string) {
	m := p.memo
	if m.warmed || len(m.lstats)+strings.Count(dir, "/") > maxLookups {
		return
	}
	m.warmed = true
	switch probeDir(dir) {
	case probeDirOK:
		// Every prefix is a directory, not a link: what Lstat would say.
		for i := 1; i <= len(dir); i++ {
			if i == len(dir) || dir[i] == '/' {
				if !m.knownLstat(dir[:i]) {
					m.lstats = append(m.lstats, lstatResult{name: dir[:i], mode: fs.ModeDir})
				}
			}
		}
	case probeMissing:
		m.absent = append(m.absent, absentResult{dir, true})
		// No link on the way and the lookup ended with ENOENT: each
		// proper prefix is a directory, or missing itself (at or after
		// the component the lookup stopped at); never a link.
		for i := len(dir) - 1; i > 0; i-- {
			if dir[i] == '/' {
				m.noLink = append(m.noLink, dir[:i])
			}
		}
	case probeNotDir:
		m.absent = append(m.absent, absentResult{dir, false})
	}
}

func (m *lookups) knownLstat(name string) bool {
	for i := range m.lstats {
		if m.lstats[i].name == name {
			return true
		}
	}
	return false
}

// resolvesInPlace reports a clean path at or below an absent path the
// probe found: it resolves to itself.
func (m *lookups) resolvesInPlace(abs string) bool {
	for _, a := range m.absent {
		if abs == a.name || len(abs) > len(a.name) && abs[len(a.name)] == '/' && strings.HasPrefix(abs, a.name) {
			return true
		}
	}
	return false
}

// lstatFails reports a path Lstat is known to fail on: below an absent
// path, or a missing one itself.
func (m *lookups) lstatFails(name string) bool {
	for _, a := range m.absent {
		if name == a.name && a.missing || len(name) > len(a.name) && name[len(a.name)] == '/' && strings.HasPrefix(name, a.name) {
			return true
		}
	}
	return false
}

// probeable reports a directory warmDir may probe: clean, absolute, not
// the root and not under /proc (whose entries resolve specially).
func probeable(dir string) bool {
	return len(dir) > 1 && dir[0] == '/' && dir != "/proc" && !strings.HasPrefix(dir, "/proc/") && isClean(dir)
}

// isClean reports an absolute path with no empty, "." or ".." component
// and no trailing slash (what path.Clean leaves alone), without
// allocating.
func isClean(p string) bool {
	if p == "/" {
		return true
	}
	if p == "" || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	start := 1
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		switch p[start:i] {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}
