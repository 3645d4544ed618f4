package pathpolicy

import (
	"path"
	"strings"
)

// Sensitive reports whether an absolute path (taken as spelled, not
// resolved) is a sensitive file or lies in a sensitive directory, and
// returns the path when it is.
func (p *Policy) Sensitive(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	lower := strings.ToLower(path.Clean(name))
	var buf [16]string // most paths have fewer segments: no allocation
	segs := splitSegs(buf[:0], strings.Trim(lower, "/"))
	abs := strings.HasPrefix(lower, "/")
	if p.files.index.sensitive(segs, abs, true) || p.dirs.index.sensitive(segs, abs, false) {
		return name, true
	}
	return "", false
}

// sensitive reports whether one of the index's entries matches segs, as
// a file (matchFile) or a directory (matchDir). It tries only the
// entries whose literal key segment equals the path segment it must
// match, and every entry whose key is a glob: the answer is the one
// trying every entry gives.
func (x *entryIndex) sensitive(segs []string, abs, files bool) bool {
	match := func(e entry) bool {
		if files {
			return e.matchFile(segs, abs)
		}
		return e.matchDir(segs, abs)
	}
	for _, e := range x.rest {
		if match(e) {
			return true
		}
	}
	if abs && len(segs) > 0 {
		for _, e := range x.absFirst[segs[0]] {
			if match(e) {
				return true
			}
		}
	}
	if files {
		if len(segs) > 0 {
			for _, e := range x.relKey[segs[len(segs)-1]] {
				if e.matchFile(segs, abs) {
					return true
				}
			}
		}
		return false
	}
	for i, seg := range segs {
		for _, e := range x.relKey[seg] {
			if i+len(e.segs) <= len(segs) && segsMatchLit(e, segs[i:i+len(e.segs)]) {
				return true
			}
		}
	}
	return false
}

// splitSegs appends the "/"-separated parts of s to dst, as
// strings.Split would return them.
func splitSegs(dst []string, s string) []string {
	for {
		i := strings.IndexByte(s, '/')
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+1:]
	}
}

// matchFile: the entry's segments end the path (anchored at the root for
// an absolute entry).
func (e entry) matchFile(segs []string, abs bool) bool {
	if len(segs) < len(e.segs) {
		return false
	}
	if e.absolute {
		return abs && len(segs) == len(e.segs) && segsMatchLit(e, segs)
	}
	return segsMatchLit(e, segs[len(segs)-len(e.segs):])
}

// matchDir: the entry's segments appear consecutively in the path (from
// the root for an absolute entry).
func (e entry) matchDir(segs []string, abs bool) bool {
	if e.absolute {
		return abs && len(segs) >= len(e.segs) && segsMatchLit(e, segs[:len(e.segs)])
	}
	for i := 0; i+len(e.segs) <= len(segs); i++ {
		if segsMatchLit(e, segs[i:i+len(e.segs)]) {
			return true
		}
	}
	return false
}

// segsMatchLit is segsMatch with the entry's literal segments compared
// as strings, which is what path.Match does with them, without its cost.
func segsMatchLit(e entry, segs []string) bool {
	for i, pat := range e.segs {
		if e.lit[i] {
			if pat != segs[i] {
				return false
			}
			continue
		}
		if !strings.HasPrefix(segs[i], e.prefix[i]) {
			return false
		}
		if ok, _ := path.Match(pat, segs[i]); !ok {
			return false
		}
	}
	return true
}

// SensitivePath judges a path as a command would open it: relative to
// cwd, by its spelling and by its resolution. A path whose resolution
// cannot be known (another process's open file, a link loop) counts as
// sensitive: nobody can say what it names. It returns a description of
// what matched.
func (p *Policy) SensitivePath(name, cwd string) (string, bool) {
	abs := p.abs(name, cwd)
	if abs == "" {
		return "", false
	}
	if _, ok := p.Sensitive(abs); ok {
		return name, true
	}
	real, ok := p.Resolve(abs, cwd)
	if !ok {
		return name + " (which cannot be resolved)", true
	}
	// Sensitive judges the cleaned path and real is clean: when real is
	// abs cleaned, the answer is the one just given.
	if real == abs || real == path.Clean(abs) {
		return "", false
	}
	if _, ok := p.Sensitive(real); ok {
		return name + " (" + real + ")", true
	}
	return "", false
}

// GlobMaySensitive reports whether a shell glob (relative to cwd) could
// name a sensitive path: a glob anywhere under /proc (whose entries come
// and go), a glob that some sensitive entry could match as bash matches
// (a leading dot matched explicitly), or a file the glob matches now that
// is sensitive.
func (p *Policy) GlobMaySensitive(glob, cwd string) (string, bool) {
	abs := Abs(glob, cwd)
	if abs == "" {
		return glob, true // unknown directory: fail closed
	}
	clean := BashGlob(path.Clean(abs))
	if strings.HasPrefix(clean, "/proc/") {
		return glob, true
	}
	if p.patternMaySensitive(clean) {
		return glob, true
	}
	for _, m := range ExpandGlob(abs, "/") {
		if what, ok := p.SensitivePath(m, cwd); ok {
			return glob + " (" + what + ")", true
		}
	}
	return "", false
}

// patternMaySensitive compares a glob's segments with the entries'.
func (p *Policy) patternMaySensitive(pattern string) bool {
	lower := strings.ToLower(pattern)
	segs := strings.Split(strings.Trim(lower, "/"), "/")
	for _, e := range p.files.entries {
		if e.absolute {
			if len(segs) == len(e.segs) && segsMayMatch(e.segs, segs) {
				return true
			}
			continue
		}
		if len(segs) >= len(e.segs) && segsMayMatch(e.segs, segs[len(segs)-len(e.segs):]) {
			return true
		}
	}
	for _, e := range p.dirs.entries {
		if e.absolute {
			if len(segs) >= len(e.segs) && segsMayMatch(e.segs, segs[:len(e.segs)]) {
				return true
			}
			continue
		}
		for i := 0; i+len(e.segs) <= len(segs); i++ {
			if segsMayMatch(e.segs, segs[i:i+len(e.segs)]) {
				return true
			}
		}
	}
	return false
}

// segsMayMatch reports whether some name could match both an entry's
// segments and a glob's: each pair must be able to meet.
func segsMayMatch(entry, glob []string) bool {
	any := false
	for i := range entry {
		if !segMayMatch(entry[i], glob[i]) {
			return false
		}
		any = any || hasGlob(glob[i])
	}
	return any
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// segMayMatch: can one name match both the entry segment e and the glob
// segment g? bash never matches a leading dot with a wildcard.
func segMayMatch(e, g string) bool {
	if !hasGlob(g) {
		ok, _ := path.Match(e, g)
		return ok
	}
	if strings.HasPrefix(e, ".") && !strings.HasPrefix(g, ".") {
		return false
	}
	if !hasGlob(e) {
		ok, _ := path.Match(g, e)
		return ok
	}
	// Both are globs: whether one name can match both.
	return globsMeet(e, g)
}
