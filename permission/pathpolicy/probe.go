package pathpolicy

import "strings"

// probeResult is what probeDir learnt about a path.
type probeResult uint8

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
//
// What the probe said is kept as it is, dir and dirProbe, and read back
// by the lookups (probedDir, isNoLink, resolvesInPlace, lstatFails):
// one string and a number instead of a list of the paths it stands for.
func (p *Policy) warmDir(dir string) {
	m := p.memo
	if m.warmed {
		return
	}
	m.warmed = true
	m.dir, m.dirProbe = dir, probeDir(dir)
}

// probedDir reports a path the probe found to be a directory, not a
// link: the probed directory or one of its parents (except "/"), when
// every component of the directory was found so.
func (m *lookups) probedDir(name string) bool {
	return m.dirProbe == probeDirOK && len(name) > 1 && atOrBelow(m.dir, name)
}

// isNoLink reports a path the probe found to be a directory or missing,
// not a link: a proper parent (except "/") of the probed directory,
// when the probe found the directory missing. No link was on the way
// and the lookup ended with ENOENT: each component before the last is a
// directory, or missing itself (at or after the component the lookup
// stopped at). Resolving such a path gives itself, and what lies below
// it is asked about as usual.
func (m *lookups) isNoLink(name string) bool {
	return m.dirProbe == probeMissing && len(name) > 1 && below(m.dir, name)
}

func (m *lookups) knownLstat(name string) bool {
	if m.probedDir(name) {
		return true
	}
	for i := range m.lstats {
		if m.lstats[i].name == name {
			return true
		}
	}
	return false
}

// probedAbsent returns what the probe found of the probed directory
// when it found it missing, or not a directory, as an absentResult.
func (m *lookups) probedAbsent() (absentResult, bool) {
	switch m.dirProbe {
	case probeMissing:
		return absentResult{m.dir, true}, true
	case probeNotDir:
		return absentResult{m.dir, false}, true
	}
	return absentResult{}, false
}

// resolvesInPlace reports a clean path at or below an absent path the
// probes found: it resolves to itself.
func (m *lookups) resolvesInPlace(abs string) bool {
	if a, ok := m.probedAbsent(); ok && a.holds(abs) {
		return true
	}
	for _, a := range m.absent {
		if a.holds(abs) {
			return true
		}
	}
	return false
}

// lstatFails reports a path Lstat is known to fail on: below an absent
// path, or a missing one itself.
func (m *lookups) lstatFails(name string) bool {
	if a, ok := m.probedAbsent(); ok && a.fails(name) {
		return true
	}
	for _, a := range m.absent {
		if a.fails(name) {
			return true
		}
	}
	return false
}

// holds reports a path at or below a.
func (a absentResult) holds(name string) bool {
	return atOrBelow(name, a.name)
}

// fails reports a path whose Lstat fails: below a, or a itself when
// missing.
func (a absentResult) fails(name string) bool {
	return name == a.name && a.missing || below(name, a.name)
}

// probeable reports a directory warmDir may probe: clean, absolute, not
// the root and not under /proc (whose entries resolve specially).
func probeable(dir string) bool {
	return isClean(dir) && probeableClean(dir)
}

// probeableClean is probeable for a path isClean reports.
func probeableClean(dir string) bool {
	return len(dir) > 1 && dir != "/proc" && !strings.HasPrefix(dir, "/proc/")
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
