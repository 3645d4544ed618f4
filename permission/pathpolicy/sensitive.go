package pathpolicy

import (
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// Sensitive reports whether an absolute path (taken as spelled, not
// resolved) is a sensitive file or lies in a sensitive directory, and
// returns the path when it is.
func (p *Policy) Sensitive(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	var buf [16]string // most paths have fewer segments: no allocation
	segs, abs, ok := cleanSegs(buf[:0], name)
	if !ok {
		// The general way, for what cleanSegs leaves: the segments of
		// the cleaned path, lower-cased as Unicode says.
		lower := strings.ToLower(path.Clean(name))
		segs = splitSegs(buf[:0], strings.Trim(lower, "/"))
		abs = strings.HasPrefix(lower, "/")
	}
	if p.files.index.sensitive(segs, abs, true) || p.dirs.index.sensitive(segs, abs, false) {
		return name, true
	}
	return "", false
}

// cleanSegs is the common case of what Sensitive makes of a name, in one
// pass and without allocating: when name is ASCII and clean (path.Clean
// would return it unchanged), it appends to dst the segments of name
// without its leading "/", as splitSegs would, and reports whether name
// is absolute. The segments keep their case: an ASCII string's
// strings.ToLower is lowerASCII, which the matching applies as it
// compares (see foldedEqual). ok is false for any other name: the caller
// takes the general way.
func cleanSegs(dst []string, name string) (segs []string, abs, ok bool) {
	switch name {
	case "":
		return dst, false, false
	case "/", ".":
		// Clean as they are; "/" is one empty segment once trimmed.
		return append(dst, strings.Trim(name, "/")), name == "/", true
	}
	abs = name[0] == '/'
	rest := name
	if abs {
		rest = name[1:]
	}
	// parents: a relative path's leading ".." segments are clean, as
	// path.Clean keeps them; anywhere else ".." is not.
	parents := !abs
	start := 0
	for i := 0; i <= len(rest); i++ {
		if i < len(rest) {
			if rest[i] >= utf8.RuneSelf {
				return dst, false, false
			}
			if rest[i] != '/' {
				continue
			}
		}
		seg := rest[start:i]
		switch seg {
		case "", ".":
			return dst, false, false
		case "..":
			if !parents {
				return dst, false, false
			}
		default:
			parents = false
		}
		dst = append(dst, seg)
		start = i + 1
	}
	return dst, abs, true
}

// sensitive reports whether one of the index's entries matches segs, as
// a file or a directory. It tries only the entries whose literal key
// segment equals the path segment it must match, those keyed by a glob
// whose literal start the path segment could begin with, and the other
// entries keyed by a glob: the answer is the one trying every entry
// gives.
//
// segs may hold ASCII upper case: each comparison lower-cases it (see
// foldedEqual).
func (x *entryIndex) sensitive(segs []string, abs, files bool) bool {
	for i := range x.rest {
		if x.rest[i].match(segs, abs, files) {
			return true
		}
	}
	if len(segs) == 0 {
		return false // no entry matches no segment
	}
	if x.endStarts.mayStart(segs[0]) || x.endStarts.mayStart(segs[len(segs)-1]) {
		for i := range x.ends {
			if x.ends[i].match(segs, abs, files) {
				return true
			}
		}
	}
	if abs {
		es := x.absFirst.lookup(&x.absKeys, segs[0])
		for i := range es {
			if es[i].match(segs, abs, files) {
				return true
			}
		}
	}
	if files {
		es := x.relKey.lookup(&x.relKeys, segs[len(segs)-1])
		for i := range es {
			if es[i].matchFile(segs, abs) {
				return true
			}
		}
		return false
	}
	for i, seg := range segs {
		es := x.relKey.lookup(&x.relKeys, seg)
		for j := range es {
			if e := &es[j]; i+len(e.segs) <= len(segs) && e.segsMatch(segs[i:i+len(e.segs)]) {
				return true
			}
		}
	}
	return false
}

// lookup returns the entries filed under seg lower-cased, f holding
// their keys.
func (m entryMap) lookup(f *keyFilter, seg string) []entry {
	if !f.mayHold(seg) {
		return nil
	}
	if !hasUpperASCII(seg) {
		return m[seg]
	}
	var buf [64]byte
	if len(seg) > len(buf) {
		return m[lowerASCII(seg)]
	}
	b := buf[:len(seg)]
	for i := range b {
		b[i] = lowerByte(seg[i])
	}
	return m[string(b)] // the compiler makes no string of b for a look-up
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

// match is matchFile for a files entry, matchDir for a directories one.
func (e *entry) match(segs []string, abs, files bool) bool {
	if files {
		return e.matchFile(segs, abs)
	}
	return e.matchDir(segs, abs)
}

// matchFile: the entry's segments end the path (anchored at the root for
// an absolute entry).
func (e *entry) matchFile(segs []string, abs bool) bool {
	if len(segs) < len(e.segs) {
		return false
	}
	if e.absolute {
		return abs && len(segs) == len(e.segs) && e.segsMatch(segs)
	}
	return e.segsMatch(segs[len(segs)-len(e.segs):])
}

// matchDir: the entry's segments appear consecutively in the path (from
// the root for an absolute entry).
func (e *entry) matchDir(segs []string, abs bool) bool {
	if e.absolute {
		return abs && len(segs) >= len(e.segs) && e.segsMatch(segs[:len(e.segs)])
	}
	for i := 0; i+len(e.segs) <= len(segs); i++ {
		if e.segsMatch(segs[i : i+len(e.segs)]) {
			return true
		}
	}
	return false
}

// segsMatch reports whether segs, lower-cased (lowerASCII), match the
// entry's segments with path.Match. It compares a literal segment as a
// string, which is what path.Match does with it, without its cost, and
// a glob segment's literal start before calling path.Match.
func (e *entry) segsMatch(segs []string) bool {
	for i, pat := range e.segs {
		if e.lit[i] {
			if !foldedEqual(pat, segs[i]) {
				return false
			}
			continue
		}
		if len(segs[i]) < len(e.prefix[i]) || !foldedEqual(e.prefix[i], segs[i][:len(e.prefix[i])]) {
			return false
		}
		if ok, _ := path.Match(pat, lowerASCII(segs[i])); !ok {
			return false
		}
	}
	return true
}

// foldedEqual reports whether lowerASCII(s) == lower.
//
// Sensitive's segments come either from an ASCII name as spelled, whose
// strings.ToLower is lowerASCII, or from a name strings.ToLower already
// lower-cased, which holds no ASCII upper case and which lowerASCII
// leaves alone: either way lowerASCII(s) is the lower-cased segment the
// entries, lower-cased when parsed, are compared with.
func foldedEqual(lower, s string) bool {
	if len(lower) != len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lowerByte(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

// lowerASCII returns s with the ASCII letters A to Z lower-cased, and s
// itself when it has none.
func lowerASCII(s string) string {
	if !hasUpperASCII(s) {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte(c)
	}
	return string(b)
}

func hasUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// SensitivePath judges a path as a command would open it: relative to
// cwd, by its spelling, by its resolution and by its identity (a hard
// link to a file of the user's credential stores is that file). A path whose resolution
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
	if c, ok := p.linkedCredential(real); ok {
		return name + " (a hard link to " + c + ")", true
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
	var flags [16]bool // most globs have fewer segments: no allocation
	g := globSegs{segs: strings.Split(strings.Trim(lower, "/"), "/"), glob: flags[:0]}
	for _, s := range g.segs {
		g.glob = append(g.glob, hasGlob(s))
	}
	n := len(g.segs)
	for i := range p.files.entries {
		e := &p.files.entries[i]
		if e.absolute {
			if n == len(e.segs) && g.mayMatch(e, 0) {
				return true
			}
			continue
		}
		if n >= len(e.segs) && g.mayMatch(e, n-len(e.segs)) {
			return true
		}
	}
	for i := range p.dirs.entries {
		e := &p.dirs.entries[i]
		if e.absolute {
			if n >= len(e.segs) && g.mayMatch(e, 0) {
				return true
			}
			continue
		}
		for at := 0; at+len(e.segs) <= n; at++ {
			if g.mayMatch(e, at) {
				return true
			}
		}
	}
	return false
}

// globSegs are a glob's segments, each with whether it holds glob
// syntax (hasGlob), which patternMaySensitive asks of each segment for
// each entry: once per segment here.
type globSegs struct {
	segs []string
	glob []bool
}

// mayMatch reports whether some name could match both the entry's
// segments and the glob's from at on: one of those glob segments at
// least holds glob syntax, and each pair can meet.
func (g *globSegs) mayMatch(e *entry, at int) bool {
	if !slices.Contains(g.glob[at:at+len(e.segs)], true) {
		return false
	}
	for i, pat := range e.segs {
		seg, glob := g.segs[at+i], g.glob[at+i]
		if !glob && e.lit[i] {
			// path.Match of a pattern with no special character is
			// equality.
			if pat != seg {
				return false
			}
			continue
		}
		if !segMayMatch(pat, seg, glob) {
			return false
		}
	}
	return true
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// segMayMatch: can one name match both the entry segment e and the glob
// segment g (holding glob syntax when glob is true)? bash never matches
// a leading dot with a wildcard.
func segMayMatch(e, g string, glob bool) bool {
	if !glob {
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
