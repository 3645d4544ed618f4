package pathpolicy

import (
	"os"
	"slices"
	"strings"
	"sync"
)

// Options configure a Policy.
type Options struct {
	// DangerousFiles and DangerousDirs replace the defaults when not nil;
	// an empty, non-nil list turns that check off.
	DangerousFiles, DangerousDirs []string
	// Home is the directory ~ stands for; empty means the current user's.
	Home string
}

// Policy judges paths. It is safe for concurrent use.
type Policy struct {
	// files and dirs are the sensitive lists, parsed; shared between
	// policies, never changed.
	files, dirs *parsedEntries
	home        string
	// idents are the identities of the credential files, to judge hard
	// links to them (see linkedCredential); shared with scoped copies.
	idents *identities
	// memo is set on the copies Scoped returns, nil on a shared Policy.
	memo *lookups
}

// parsedEntries is a sensitive list parsed, with its index: the same
// entries keyed by a segment that must equal a path segment for the entry
// to match (Sensitive runs for every word of every command, and trying
// each of the hundred entries with path.Match was most of its cost).
type parsedEntries struct {
	entries []entry
	index   entryIndex
}

// entry is one sensitive-list item split into lower-case segments.
type entry struct {
	segs []string
	lit  []bool // segs[i] holds no glob syntax: it matches only itself
	// prefix[i] is the literal start of a glob segment (".env." of
	// ".env.*"), which every name it matches starts with: most names
	// are rejected without path.Match.
	prefix   []string
	absolute bool // anchored at the root
}

// entryIndex files entries by their key segment when it is literal: the
// first segment for an absolute entry (it must equal the path's first),
// the last for a relative file (the path's last), the first for a
// relative directory (the segment its window starts at). Entries whose
// key segment is a glob are tried one by one: those in ends when the
// path segment they start with, or for a relative file end with, begins
// with one of the bytes in endStarts (the first byte of each key's
// literal start), those in rest always (relative directories, and keys
// with no literal start).
type entryIndex struct {
	absFirst, relKey entryMap
	ends, rest       []entry
	endStarts        byteSet
	// absKeys and relKeys hold the keys of absFirst and relKey: most
	// path segments are no key, and the filter says so before the map
	// is asked (and before the segment is lower-cased to ask it).
	absKeys, relKeys keyFilter
}

func newEntryIndex(list []entry, files bool) entryIndex {
	x := entryIndex{absFirst: entryMap{}, relKey: entryMap{}}
	for _, e := range list {
		k := 0
		if files && !e.absolute {
			k = len(e.segs) - 1
		}
		key := e.segs[k]
		switch {
		case !e.lit[k] && e.prefix[k] != "" && (e.absolute || files):
			x.ends = append(x.ends, e)
			x.endStarts.add(e.prefix[k][0])
		case !e.lit[k]:
			x.rest = append(x.rest, e)
		case e.absolute:
			x.absFirst[key] = append(x.absFirst[key], e)
			x.absKeys.add(key)
		default:
			x.relKey[key] = append(x.relKey[key], e)
			x.relKeys.add(key)
		}
	}
	return x
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte) { s[b/64] |= 1 << (b % 64) }

func (s *byteSet) has(b byte) bool { return s[b/64]&(1<<(b%64)) != 0 }

// mayStart reports whether seg, lower-cased, starts with a byte of s.
func (s *byteSet) mayStart(seg string) bool {
	return seg != "" && s.has(lowerByte(seg[0]))
}

// entryMap files entries by a lower-case key segment.
type entryMap map[string][]entry

// keyFilter is a set of lower-case strings reduced to their first byte
// and length (both modulo the table's size): a string whose pair is not
// in the set is none of the strings added, and the test costs a load.
type keyFilter [128]uint32

func (f *keyFilter) add(key string) {
	b, n := filterPair(key)
	f[b] |= n
}

// mayHold reports whether seg, lower-cased, may be one of the keys added.
func (f *keyFilter) mayHold(seg string) bool {
	b, n := filterPair(seg)
	return f[b]&n != 0
}

// filterPair is the row (the first byte, lower-cased) and the bit (the
// length) of s in a keyFilter. Lower-casing changes neither for the
// segments Sensitive compares (see foldedEqual).
func filterPair(s string) (byte, uint32) {
	var b byte
	if s != "" {
		b = lowerByte(s[0]) % 128
	}
	return b, 1 << (len(s) % 32)
}

// New returns a policy.
func New(opts Options) *Policy {
	p := &Policy{home: opts.Home}
	if p.home == "" {
		p.home, _ = os.UserHomeDir()
	}
	files := opts.DangerousFiles
	if files == nil {
		files = DefaultDangerousFiles
	}
	dirs := opts.DangerousDirs
	if dirs == nil {
		dirs = DefaultDangerousDirs
	}
	p.files = parsedList(files, true)
	p.dirs = parsedList(dirs, false)
	p.idents = &identities{home: p.home}
	return p
}

// parsedDefaults are the default lists as they were at the first New,
// parsed once and indexed: a tool is made per session (or per check),
// almost always with the default lists, and parsing them was most of the
// cost of making one. Nothing changes them once built, so policies share
// them.
type parsedDefaults struct {
	files, dirs             []string // copies of the lists parsed
	parsedFiles, parsedDirs *parsedEntries
}

var defaults = sync.OnceValue(func() *parsedDefaults {
	d := &parsedDefaults{files: slices.Clone(DefaultDangerousFiles), dirs: slices.Clone(DefaultDangerousDirs)}
	d.parsedFiles, d.parsedDirs = parseList(d.files, true), parseList(d.dirs, false)
	return d
})

// parsedList returns list parsed: the shared parse of a default list
// when list has the same entries (compared by value: the default lists
// are variables a program may change), else a parse of its own.
func parsedList(list []string, files bool) *parsedEntries {
	d := defaults()
	switch {
	case files && slices.Equal(list, d.files):
		return d.parsedFiles
	case !files && slices.Equal(list, d.dirs):
		return d.parsedDirs
	}
	return parseList(list, files)
}

func parseList(list []string, files bool) *parsedEntries {
	entries := parseEntries(list)
	return &parsedEntries{entries: entries, index: newEntryIndex(entries, files)}
}

func parseEntries(list []string) []entry {
	out := make([]entry, 0, len(list))
	for _, s := range list {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" {
			continue
		}
		e := entry{absolute: strings.HasPrefix(s, "/")}
		e.segs = strings.Split(strings.Trim(s, "/"), "/")
		e.lit = make([]bool, len(e.segs))
		e.prefix = make([]string, len(e.segs))
		for i, seg := range e.segs {
			// path.Match treats * ? [ and \ specially; any other pattern
			// matches exactly the equal string, and a pattern matches
			// only names that start with what precedes its first special.
			j := strings.IndexAny(seg, `*?[\`)
			e.lit[i] = j < 0
			if j >= 0 {
				e.prefix[i] = seg[:j]
			}
		}
		out = append(out, e)
	}
	return out
}

// Scoped returns a copy of p that remembers what the file system said
// about each path it resolves, for one analysis (one permission decision
// at most): resolving the words of a command asks about the same folders
// again and again. The copy is not safe for concurrent use and must be
// dropped when the analysis ends, since the file system changes between
// calls; p itself never remembers anything.
func (p *Policy) Scoped() *Policy { return p.ScopedIn("") }

// ScopedIn is Scoped for an analysis of a command that starts in dir
// (absolute and clean, or ""): the first lookup at or below dir, by
// Resolve or by Lstat, probes dir once (see warmDir) and answers the
// lookups below it from what the probe learnt.
func (p *Policy) ScopedIn(dir string) *Policy {
	// One allocation for the copy, its memo and room for the first
	// lookups (an analysis makes a few): a decision's cost is much that
	// of the memory it touches, and this is most of what it allocates.
	c := &scopedPolicy{Policy: *p}
	c.l.lstats = c.lstatRoom[:0]
	c.l.absent = c.absentRoom[:0]
	c.l.found = c.foundRoom[:0]
	if probeable(dir) {
		c.l.dir = dir
	}
	c.Policy.memo = &c.l
	return &c.Policy
}

type scopedPolicy struct {
	Policy
	l          lookups
	lstatRoom  [3]lstatResult
	absentRoom [1]absentResult
	foundRoom  [1]string
}

// Home returns the directory ~ stands for.
func (p *Policy) Home() string { return p.home }

// ExpandHome expands a leading "~" or "~/" to the home directory.
func (p *Policy) ExpandHome(s string) string {
	if s == "~" {
		return p.home
	}
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		return strings.TrimSuffix(p.home, "/") + "/" + rest
	}
	return s
}

// Abs joins a path to cwd without cleaning it, so that ".." still applies
// after the links resolution follows. It returns "" for a relative path
// without a usable cwd.
func Abs(p, cwd string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	if !strings.HasPrefix(cwd, "/") {
		return ""
	}
	return strings.TrimSuffix(cwd, "/") + "/" + p
}

// AbsKnown reports whether Abs(p, cwd) is not "", without building the
// path.
func AbsKnown(p, cwd string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(cwd, "/")
}

// maxLinks is how many symbolic links a resolution follows, as the
// kernel's limit: past it the open fails (ELOOP).
const maxLinks = 40

// Inside reports whether a path (relative to cwd) resolves to one of dirs
// or below one; dirs are resolved too. A path that cannot be resolved is
// not inside.
func (p *Policy) Inside(name, cwd string, dirs []string) bool {
	real, ok := p.Resolve(name, cwd)
	if !ok {
		return false
	}
	return p.ResolvedInside(real, dirs)
}

// ResolvedInside is Inside for a path already resolved.
func (p *Policy) ResolvedInside(real string, dirs []string) bool {
	for _, d := range dirs {
		if !strings.HasPrefix(d, "/") {
			continue
		}
		rd, ok := p.Resolve(d, d)
		if !ok {
			continue
		}
		if within(real, rd) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if p == dir || dir == "/" {
		return true
	}
	return below(p, strings.TrimSuffix(dir, "/"))
}

// below reports whether p is strictly below dir, a path without a
// trailing slash: dir, then a slash and more. It builds no string (a
// long dir would allocate dir+"/").
func below(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// atOrBelow reports whether p is dir or below it (see below).
func atOrBelow(p, dir string) bool { return p == dir || below(p, dir) }
