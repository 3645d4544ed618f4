package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// This file holds what both Grep engines share (the query, the result
// types, the .gitignore and glob rules) and the pure-Go engine. The rules
// follow ripgrep run as
//
//	rg --hidden --no-require-git --no-ignore-dot --no-ignore-exclude
//	   --no-ignore-global -g '!.git' -g '!.svn' ...
//
// so that the two engines give the same answer; ripgrep.go holds the
// other engine.

// MaxGrepColumns is the longest line, in characters, Grep shows in full;
// longer lines are cut with a note saying how much was left out.
const MaxGrepColumns = 500

// searchVCSDirs are the version-control folders no search enters.
var searchVCSDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

func isSearchVCSDir(name string) bool {
	for _, d := range searchVCSDirs {
		if name == d {
			return true
		}
	}
	return false
}

// Output modes of Grep.
const (
	grepModeFiles   = "files_with_matches"
	grepModeContent = "content"
	grepModeCount   = "count"
)

// grepQuery is one Grep call, checked and normalised.
type grepQuery struct {
	pattern       string
	ignoreCase    bool
	multiline     bool
	mode          string
	before, after int
	// globs are the glob filters as given, "!" marking an exclusion.
	globs []string
	// typeGlobs are the file-name globs of the type filter; nil means none.
	typeGlobs []string
}

// grepTarget is what a Grep call searches: a directory tree or one file.
type grepTarget struct {
	root   string // absolute and clean
	isFile bool
}

// grepFileResult is what an engine found in one file.
type grepFileResult struct {
	path string
	// modTime is zero when the engine did not learn it.
	modTime time.Time
	// count is the number of matching lines (a match spanning several
	// lines counts each of them).
	count int
	// lines holds, in content mode only, the matching lines and their
	// context in file order.
	lines []grepLine
}

// grepLine is one output line of content mode.
type grepLine struct {
	num   int
	text  string
	match bool
}

// grepDisplayLine turns a line's bytes into what Grep shows: without its line
// terminator, and cut after MaxGrepColumns characters (as rg
// --max-columns does) so one minified file can't flood the model.
func grepDisplayLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) <= MaxGrepColumns {
		return string(b)
	}
	off, n := 0, 0
	for off < len(b) && n < MaxGrepColumns {
		_, size := utf8.DecodeRune(b[off:])
		off += size
		n++
	}
	if off == len(b) {
		return string(b)
	}
	rest := utf8.RuneCount(b[off:])
	return fmt.Sprintf("%s [... %d more characters cut]", b[:off], rest)
}

// searchPathLess orders paths component by component, the order of a directory
// walk: "a/b" sorts before "a-b" because the separator sorts first.
func searchPathLess(a, b string) bool {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return true
		}
		if cb == '/' {
			return false
		}
		return ca < cb
	}
	return len(a) < len(b)
}

// ---------------------------------------------------------------------------
// Patterns

// errGrepNewline is the model-facing error for a line-mode pattern that needs
// to match a newline.
var errGrepNewline = errors.New("the pattern matches a newline character (\\n), which never occurs inside a line; " +
	"set multiline: true to search across lines, or remove the \\n")

// grepMatcher finds matching lines in a file's contents.
type grepMatcher struct {
	re        *regexp.Regexp
	multiline bool
	// lit is a literal every match contains, used to skip lines (and
	// whole files) cheaply; nil when the pattern has none worth using.
	lit []byte
	// fold makes lit compare ASCII case-insensitively.
	fold bool
	// rare is the index in lit of the byte searched for first when fold is
	// set (the rarest one, so fewer false starts).
	rare int
	// pure means the pattern is exactly lit: a line holding lit matches
	// without running the regexp.
	pure bool
}

// compileGrepMatcher compiles a Grep pattern with Go's regexp (RE2 syntax,
// close to ripgrep's). In line mode the pattern is rewritten the way
// ripgrep does it: classes and . never match a newline, ^ and $ match at
// line boundaries, and a literal \n is an error. In multiline mode . also
// matches a newline and ^ and $ still match at line boundaries.
func compileGrepMatcher(pattern string, ignoreCase, multiline bool) (*grepMatcher, error) {
	flags := syntax.ClassNL | syntax.PerlX | syntax.UnicodeGroups
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	if multiline {
		flags |= syntax.DotNL
	}
	tree, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, fmt.Errorf("the pattern is not a valid regular expression: %v. "+
			"Fix the syntax (RE2/ripgrep syntax; escape literal ( ) [ ] { } . * + ? | \\ ^ $ with a backslash)", err)
	}
	if !multiline {
		if err := grepLineMode(tree); err != nil {
			return nil, err
		}
	}
	re, err := regexp.Compile(tree.String())
	if err != nil {
		return nil, fmt.Errorf("the pattern is not a valid regular expression: %v", err)
	}
	m := &grepMatcher{re: re, multiline: multiline}
	simple := tree.Simplify()
	lit, fold := grepRequiredLiteral(simple)
	if fold {
		lit = grepFoldSafe(lit)
	}
	if len(lit) > 0 && !strings.ContainsRune(lit, utf8.RuneError) {
		m.lit, m.fold = []byte(lit), fold
		m.pure = !multiline && grepIsOnlyLiteral(simple, lit, fold)
		if fold {
			m.rare = grepRarestByte(m.lit)
		}
	}
	return m, nil
}

// grepLineMode rewrites a parsed pattern in place so no match can cross a
// line end.
func grepLineMode(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return errGrepNewline
			}
		}
	case syntax.OpCharClass:
		re.Rune = grepClassWithoutNewline(re.Rune)
		if len(re.Rune) == 0 {
			re.Op = syntax.OpNoMatch
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
		re.Flags &^= syntax.WasDollar
	}
	for _, sub := range re.Sub {
		if err := grepLineMode(sub); err != nil {
			return err
		}
	}
	return nil
}

// grepClassWithoutNewline removes '\n' from a class given as sorted
// [lo, hi] pairs.
func grepClassWithoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

// grepRequiredLiteral returns the longest literal every match of re must
// contain, and whether it is case-folded. It looks only at what is
// certain: literals, concatenations, groups and repetitions of at least
// one.
func grepRequiredLiteral(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return grepRequiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return grepRequiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best, run strings.Builder
		bestFold, runFold := false, false
		flush := func() {
			if run.Len() > best.Len() {
				best.Reset()
				best.WriteString(run.String())
				bestFold = runFold
			}
			run.Reset()
			runFold = false
		}
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				// A folded run may absorb exact literals: comparing
				// them case-insensitively is still exact for
				// characters without case, and only a little looser
				// otherwise.
				run.WriteString(string(sub.Rune))
				runFold = runFold || sub.Flags&syntax.FoldCase != 0
				continue
			}
			flush()
			if l, f := grepRequiredLiteral(sub); len(l) > best.Len() {
				best.Reset()
				best.WriteString(l)
				bestFold = f
			}
		}
		flush()
		return best.String(), bestFold
	}
	return "", false
}

// grepFoldSafe keeps the longest piece of a case-folded literal that an ASCII
// case-insensitive byte search finds exactly: no non-ASCII characters, and
// no k or s, which Go's folding also matches with the Kelvin sign and the
// long s.
func grepFoldSafe(lit string) string {
	best, start := "", 0
	for i := 0; i <= len(lit); i++ {
		if i == len(lit) || lit[i] >= utf8.RuneSelf || strings.IndexByte("kKsS", lit[i]) >= 0 {
			if i-start > len(best) {
				best = lit[start:i]
			}
			start = i + 1
		}
	}
	return best
}

// grepIsOnlyLiteral reports whether the simplified pattern is exactly lit,
// every part of it folded as fold says: "(?i:a)B" is not a folded "AB".
func grepIsOnlyLiteral(re *syntax.Regexp, lit string, fold bool) bool {
	parts := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		parts = re.Sub
	}
	var b strings.Builder
	for _, sub := range parts {
		if sub.Op != syntax.OpLiteral || (sub.Flags&syntax.FoldCase != 0) != fold {
			return false
		}
		b.WriteString(string(sub.Rune))
	}
	return b.String() == lit
}

// grepByteRank estimates how common a byte is in source code and prose:
// higher is more common. The fold search starts from the rarest byte of
// the literal.
func grepByteRank(c byte) int {
	switch {
	case c == ' ' || c == 'e' || c == 't':
		return 100
	case strings.IndexByte("aoinsrhl", c) >= 0:
		return 90
	case strings.IndexByte("dcumfpgwybv\t.,;()_=", c) >= 0:
		return 70
	case c >= 'a' && c <= 'z':
		return 50
	case c >= 'A' && c <= 'Z':
		return 40
	case c >= '0' && c <= '9':
		return 45
	}
	return 20
}

func grepRarestByte(lit []byte) int {
	best := 0
	for i := range lit {
		if grepRankFold(lit[i]) < grepRankFold(lit[best]) {
			best = i
		}
	}
	return best
}

// grepRankFold ranks a byte searched for in both cases.
func grepRankFold(c byte) int {
	return grepByteRank(asciiLowerByte(c)) + grepByteRank(asciiUpperByte(c))
}

func asciiLowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func asciiUpperByte(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// index returns the first offset of the literal in buf, or -1.
func (m *grepMatcher) index(buf []byte) int {
	if !m.fold {
		return bytes.Index(buf, m.lit)
	}
	n, j := len(m.lit), m.rare
	lo, up := asciiLowerByte(m.lit[j]), asciiUpperByte(m.lit[j])
	// Next offsets of each case of the rare byte, searched lazily.
	nextLo, nextUp := -2, -2
	if lo == up {
		nextUp = -1
	}
	pos := j
	for pos < len(buf) {
		if nextLo != -1 && nextLo < pos {
			if i := bytes.IndexByte(buf[pos:], lo); i >= 0 {
				nextLo = pos + i
			} else {
				nextLo = -1
			}
		}
		if nextUp != -1 && nextUp < pos {
			if i := bytes.IndexByte(buf[pos:], up); i >= 0 {
				nextUp = pos + i
			} else {
				nextUp = -1
			}
		}
		p := nextLo
		if p == -1 || (nextUp != -1 && nextUp < p) {
			p = nextUp
		}
		if p == -1 {
			return -1
		}
		if s := p - j; s+n <= len(buf) && grepEqualFoldASCII(buf[s:s+n], m.lit) {
			return s
		}
		pos = p + 1
	}
	return -1
}

func grepEqualFoldASCII(a, b []byte) bool {
	for i := range a {
		if a[i] != b[i] && asciiLowerByte(a[i]) != asciiLowerByte(b[i]) {
			return false
		}
	}
	return true
}

// eachLine calls fn with the start and end (newline excluded) of every
// line of buf holding a match, in order, until fn returns false.
func (m *grepMatcher) eachLine(buf []byte, fn func(start, end int) bool) {
	if m.multiline {
		m.eachSpanLine(buf, fn)
		return
	}
	if m.lit != nil {
		// Every match contains the literal and stays inside one line:
		// only lines holding the literal need the regexp.
		pos := 0
		for pos < len(buf) {
			i := m.index(buf[pos:])
			if i < 0 {
				return
			}
			at := pos + i
			start := bytes.LastIndexByte(buf[:at], '\n') + 1
			end := grepLineEnd(buf, at)
			if m.pure || m.re.Match(buf[start:end]) {
				if !fn(start, end) {
					return
				}
			}
			pos = end + 1
		}
		return
	}
	// No literal to look for: run the regexp on each line. Short inputs
	// let Go's regexp use its backtracker, which is faster than scanning
	// the whole buffer with the NFA.
	for start := 0; start < len(buf); {
		end := grepLineEnd(buf, start)
		if m.re.Match(buf[start:end]) && !fn(start, end) {
			return
		}
		start = end + 1
	}
}

// eachSpanLine is eachLine for multiline patterns: every line a match
// touches is a matching line.
func (m *grepMatcher) eachSpanLine(buf []byte, fn func(start, end int) bool) {
	if len(buf) == 0 || (m.lit != nil && m.index(buf) < 0) {
		return
	}
	lastStart := -1
	for _, loc := range m.re.FindAllIndex(buf, -1) {
		s, e := loc[0], loc[1]
		if s == len(buf) && s > 0 && buf[s-1] == '\n' {
			break
		}
		last := s
		if e > s {
			last = e - 1
		}
		start := bytes.LastIndexByte(buf[:s], '\n') + 1
		for {
			end := grepLineEnd(buf, start)
			if start > lastStart {
				if !fn(start, end) {
					return
				}
				lastStart = start
			}
			if end >= last || end >= len(buf) {
				break
			}
			start = end + 1
		}
	}
}

// grepLineEnd returns the offset of the newline ending the line at off, or
// len(buf).
func grepLineEnd(buf []byte, off int) int {
	if i := bytes.IndexByte(buf[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(buf)
}

// search runs the grepMatcher over one file's contents for the query's mode.
// ok is false when nothing matched.
func (m *grepMatcher) search(buf []byte, q *grepQuery) (fm grepFileResult, ok bool) {
	switch q.mode {
	case grepModeFiles:
		m.eachLine(buf, func(int, int) bool { ok = true; return false })
		return fm, ok
	case grepModeCount:
		m.eachLine(buf, func(int, int) bool { fm.count++; return true })
		return fm, fm.count > 0
	}
	type hit struct{ num, start, end int }
	var hits []hit
	num, off := 1, 0 // line number at offset off, a line start
	m.eachLine(buf, func(start, end int) bool {
		num += bytes.Count(buf[off:start], []byte{'\n'})
		off = start
		hits = append(hits, hit{num, start, end})
		return true
	})
	if len(hits) == 0 {
		return fm, false
	}
	fm.count = len(hits)
	fm.lines = make([]grepLine, 0, len(hits))
	lastNum, lastEnd := 0, 0 // last line emitted, and the offset after it
	for i, h := range hits {
		// Context before, not repeating lines already shown.
		if q.before > 0 {
			var starts []int
			s := h.start
			for k := 0; k < q.before && h.num-k-1 > lastNum && s > 0; k++ {
				s = bytes.LastIndexByte(buf[:s-1], '\n') + 1
				starts = append(starts, s)
			}
			for k := len(starts) - 1; k >= 0; k-- {
				s := starts[k]
				fm.lines = append(fm.lines, grepLine{num: h.num - k - 1, text: grepDisplayLine(buf[s:grepLineEnd(buf, s)])})
			}
		}
		fm.lines = append(fm.lines, grepLine{num: h.num, text: grepDisplayLine(buf[h.start:h.end]), match: true})
		lastNum, lastEnd = h.num, h.end+1
		// Context after, stopping before the next matching line.
		next := -1
		if i+1 < len(hits) {
			next = hits[i+1].num
		}
		for k := 0; k < q.after && lastEnd < len(buf) && (next < 0 || lastNum+1 < next); k++ {
			end := grepLineEnd(buf, lastEnd)
			fm.lines = append(fm.lines, grepLine{num: lastNum + 1, text: grepDisplayLine(buf[lastEnd:end])})
			lastNum, lastEnd = lastNum+1, end+1
		}
	}
	return fm, true
}

// ---------------------------------------------------------------------------
// Ignore files and glob filters

// searchGlobRule is one line of a .gitignore file or one glob filter, in the
// gitignore syntax ripgrep uses for both.
type searchGlobRule struct {
	glob string // doublestar pattern matched against the path relative to the rule's base
	// bang is set for a line starting with "!": a re-inclusion in an
	// ignore file, an exclusion among glob filters.
	bang    bool
	dirOnly bool
}

// parseSearchGlobRule parses one gitignore-syntax line; ok is false for blank
// lines and comments.
func parseSearchGlobRule(line string) (r searchGlobRule, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return r, false
	}
	if line[0] == '!' {
		r.bang = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	anchored := false
	if strings.HasPrefix(line, "/") {
		anchored = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return r, false
	}
	// A pattern without a slash matches a name at any depth; one with a
	// slash is relative to the base directory.
	if !anchored && !strings.Contains(line, "/") && !strings.HasPrefix(line, "**/") {
		line = "**/" + line
	}
	// "dir/**" matches everything inside dir but not dir itself.
	if strings.HasSuffix(line, "/**") {
		line += "/*"
	}
	r.glob = line
	return r, true
}

// match tells whether the rule matches a path relative to its base.
func (r *searchGlobRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	ok, _ := doublestar.Match(r.glob, rel)
	return ok
}

// Verdicts of a rule set on a path.
const (
	searchNoVerdict = iota
	searchVerdictIgnore
	searchVerdictKeep
)

// searchRuleSet is one ignore file (or the glob filters): the last rule that
// matches decides.
type searchRuleSet []searchGlobRule

func parseSearchRuleSet(text string) searchRuleSet {
	var rs searchRuleSet
	for _, line := range strings.Split(text, "\n") {
		if r, ok := parseSearchGlobRule(line); ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// ignoreVerdict reads the set as an ignore file: a match ignores, a
// "!" match keeps.
func (rs searchRuleSet) ignoreVerdict(rel string, isDir bool) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].match(rel, isDir) {
			if rs[i].bang {
				return searchVerdictKeep
			}
			return searchVerdictIgnore
		}
	}
	return searchNoVerdict
}

// filterVerdict reads the set as glob filters: a match keeps, a "!"
// match ignores.
func (rs searchRuleSet) filterVerdict(rel string, isDir bool) int {
	switch rs.ignoreVerdict(rel, isDir) {
	case searchVerdictIgnore:
		return searchVerdictKeep
	case searchVerdictKeep:
		return searchVerdictIgnore
	}
	return searchNoVerdict
}

// splitGrepGlobs splits Grep's glob argument into globs: on white space, and
// on commas outside braces ("*.ts,*.tsx" but not "*.{ts,tsx}").
func splitGrepGlobs(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		depth, start := 0, 0
		for i := 0; i < len(f); i++ {
			switch f[i] {
			case '{':
				depth++
			case '}':
				if depth > 0 {
					depth--
				}
			case ',':
				if depth == 0 {
					if i > start {
						out = append(out, f[start:i])
					}
					start = i + 1
				}
			}
		}
		if start < len(f) {
			out = append(out, f[start:])
		}
	}
	return out
}

// searchIgnoreDir is what one directory contributes to the ignore rules.
type searchIgnoreDir struct {
	dir    string
	git    searchRuleSet // .gitignore
	rg     searchRuleSet // .rgignore
	hasGit bool          // the directory holds .git: outer .gitignore files stop here
}

// searchTreeFilter decides which entries of a tree are searched, as ripgrep
// does: glob filters first (they override everything else), then
// .rgignore and .gitignore files, then the type filter.
type searchTreeFilter struct {
	root      string
	globs     searchRuleSet
	keepGlobs bool // some glob filter is not an exclusion
	typeGlobs []string
	// parents are the directories above root whose ignore files apply,
	// innermost first.
	parents []*searchIgnoreDir
}

func newSearchTreeFilter(root string, q *grepQuery) *searchTreeFilter {
	f := &searchTreeFilter{root: root, typeGlobs: q.typeGlobs}
	for _, g := range q.globs {
		if r, ok := parseSearchGlobRule(g); ok {
			f.globs = append(f.globs, r)
			f.keepGlobs = f.keepGlobs || !r.bang
		}
	}
	return f
}

// loadSearchIgnoreDir reads a directory's ignore files. needGit says whether
// the .git probe matters (only when an outer .gitignore has rules).
func loadSearchIgnoreDir(ctx context.Context, b Backend, dir string, needGit bool) *searchIgnoreDir {
	d := &searchIgnoreDir{dir: dir}
	if data, err := b.ReadFile(ctx, filepath.Join(dir, ".gitignore")); err == nil {
		d.git = parseSearchRuleSet(string(data))
	}
	if data, err := b.ReadFile(ctx, filepath.Join(dir, ".rgignore")); err == nil {
		d.rg = parseSearchRuleSet(string(data))
	}
	if needGit {
		_, err := Stat(ctx, b, filepath.Join(dir, ".git"))
		d.hasGit = err == nil
	}
	return d
}

// loadParents reads the ignore files above root, as ripgrep does: up to
// the nearest directory holding .git (the repository root), or up to the
// file-system root when there is none.
func (f *searchTreeFilter) loadParents(ctx context.Context, b Backend, rootHasGit bool) {
	if rootHasGit {
		return
	}
	dir := f.root
	for {
		up := filepath.Dir(dir)
		if up == dir {
			return
		}
		dir = up
		d := loadSearchIgnoreDir(ctx, b, dir, true)
		if d.git != nil || d.rg != nil || d.hasGit {
			f.parents = append(f.parents, d)
		}
		if d.hasGit {
			return
		}
	}
}

// wants decides whether a walked entry is searched (a file) or entered (a
// directory). stack holds the directories from root down to the entry's
// parent.
func (f *searchTreeFilter) wants(p string, isDir bool, stack []*searchIgnoreDir) bool {
	if len(f.globs) > 0 {
		switch f.globs.filterVerdict(searchRelSlash(f.root, p), isDir) {
		case searchVerdictIgnore:
			return false
		case searchVerdictKeep:
			return true
		}
		if f.keepGlobs && !isDir {
			return false
		}
	}
	if f.ignored(p, isDir, stack) {
		return false
	}
	if !isDir && f.typeGlobs != nil {
		return searchMatchAnyName(f.typeGlobs, filepath.Base(p))
	}
	return true
}

// ignored applies the ignore files from the innermost directory out: the
// first one with a verdict decides; any .rgignore verdict beats every
// .gitignore one, and .gitignore files above a repository root don't
// apply inside it.
func (f *searchTreeFilter) ignored(p string, isDir bool, stack []*searchIgnoreDir) bool {
	rgV, gitV := searchNoVerdict, searchNoVerdict
	sawGit := false
	visit := func(d *searchIgnoreDir) {
		if d.rg != nil && rgV == searchNoVerdict {
			rgV = d.rg.ignoreVerdict(searchRelSlash(d.dir, p), isDir)
		}
		if d.git != nil && gitV == searchNoVerdict && !sawGit {
			gitV = d.git.ignoreVerdict(searchRelSlash(d.dir, p), isDir)
		}
		sawGit = sawGit || d.hasGit
	}
	for i := len(stack) - 1; i >= 0; i-- {
		visit(stack[i])
	}
	for _, d := range f.parents {
		visit(d)
	}
	if rgV != searchNoVerdict {
		return rgV == searchVerdictIgnore
	}
	return gitV == searchVerdictIgnore
}

// hasGitRules reports whether any directory in stack or above root has
// .gitignore rules, which makes .git probes below matter.
func (f *searchTreeFilter) hasGitRules(stack []*searchIgnoreDir) bool {
	for _, d := range stack {
		if d.git != nil {
			return true
		}
	}
	for _, d := range f.parents {
		if d.git != nil {
			return true
		}
	}
	return false
}

func searchMatchAnyName(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
	}
	return false
}

// searchRelSlash returns p relative to base with forward slashes; p is inside
// base.
func searchRelSlash(base, p string) string {
	rel := strings.TrimPrefix(p, base)
	rel = strings.TrimPrefix(rel, string(filepath.Separator))
	return filepath.ToSlash(rel)
}

// ---------------------------------------------------------------------------
// The pure-Go engine

// grepGoEngine is the pure-Go Grep engine: it walks the tree through the
// backend's Walk, reads files through its ReadFile (with a buffer-reusing
// fast path for LocalBackend) and searches them in parallel.
type grepGoEngine struct {
	backend Backend
	workers int
}

// searchBinaryProbe is how much of a file is read first to spot a binary file
// before reading the rest.
const searchBinaryProbe = 8 << 10

func (s *grepGoEngine) search(ctx context.Context, q *grepQuery, t grepTarget) ([]grepFileResult, error) {
	m, err := compileGrepMatcher(q.pattern, q.ignoreCase, q.multiline)
	if err != nil {
		return nil, err
	}
	if t.isFile {
		return s.searchFiles(ctx, m, q, func(send func(job grepFileJob) bool) error {
			fi, err := Stat(ctx, s.backend, t.root)
			if err != nil {
				return err
			}
			send(grepFileJob{path: t.root, modTime: fi.ModTime, size: fi.Size})
			return nil
		})
	}
	return s.searchFiles(ctx, m, q, func(send func(job grepFileJob) bool) error {
		return s.walk(ctx, q, t.root, send)
	})
}

// grepFileJob is one file to search.
type grepFileJob struct {
	path    string
	modTime time.Time
	size    int64
}

// walk sends every file of the tree at root that the filters let through.
func (s *grepGoEngine) walk(ctx context.Context, q *grepQuery, root string, send func(grepFileJob) bool) error {
	f := newSearchTreeFilter(root, q)
	rootDir := loadSearchIgnoreDir(ctx, s.backend, root, true)
	f.loadParents(ctx, s.backend, rootDir.hasGit)
	stack := []*searchIgnoreDir{rootDir}
	// A trailing separator makes the walk enter root even when it is a
	// symbolic link to a directory, as rg does with a path it is given.
	walkRoot := root
	if !strings.HasSuffix(walkRoot, string(filepath.Separator)) {
		walkRoot += string(filepath.Separator)
	}
	stopped := false
	err := Walk(ctx, s.backend, walkRoot, func(fi FileInfo) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p := filepath.Clean(fi.Path)
		if p == root {
			return nil
		}
		parent := filepath.Dir(p)
		for len(stack) > 0 && stack[len(stack)-1].dir != parent {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return nil
		}
		isDir := fi.IsDir()
		switch {
		case isSearchVCSDir(filepath.Base(p)):
			if isDir {
				return fs.SkipDir
			}
			return nil
		case fi.Mode&fs.ModeSymlink != 0:
			return nil // links are not followed, as rg does without -L
		case !isDir && !fi.Mode.IsRegular():
			return nil
		}
		if !f.wants(p, isDir, stack) {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if isDir {
			stack = append(stack, loadSearchIgnoreDir(ctx, s.backend, p, f.hasGitRules(stack)))
			return nil
		}
		if !send(grepFileJob{path: p, modTime: fi.ModTime, size: fi.Size}) {
			stopped = true
			return fs.SkipAll
		}
		return nil
	})
	if stopped && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// searchFiles runs a bounded pool of workers over the files produce
// sends.
func (s *grepGoEngine) searchFiles(ctx context.Context, m *grepMatcher, q *grepQuery, produce func(send func(grepFileJob) bool) error) ([]grepFileResult, error) {
	workers := s.workers
	if workers <= 0 {
		workers = max(2, runtime.GOMAXPROCS(0))
	}
	jobs := make(chan grepFileJob, 4*workers)
	results := make([][]grepFileResult, workers)
	_, local := s.backend.(*LocalBackend)
	// Without context lines or multiline matches, a file can be searched
	// a chunk at a time: a small buffer that stays in the CPU cache and is
	// reused for every file, instead of a whole-file buffer.
	chunked := local && q.mode != grepModeContent && !m.multiline
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var bufp *[]byte
			if local {
				pool := &searchWholePool
				if chunked {
					pool = &searchChunkPool
				}
				bufp = pool.Get().(*[]byte)
				defer pool.Put(bufp)
			}
			for job := range jobs {
				if ctx.Err() != nil {
					continue // drain
				}
				var fm grepFileResult
				var ok bool
				switch {
				case chunked:
					fm, ok = m.searchLocalChunks(job.path, job.size, bufp, q)
				case local:
					data, err := searchReadLocal(job.path, job.size, *bufp)
					*bufp = data[:0]
					if err == nil && !searchIsBinary(data) {
						fm, ok = m.search(data, q)
					}
				default:
					data, err := s.backend.ReadFile(ctx, job.path)
					if err == nil && !searchIsBinary(data) {
						fm, ok = m.search(data, q)
					}
				}
				if ok {
					fm.path, fm.modTime = job.path, job.modTime
					results[w] = append(results[w], fm)
				}
			}
		}()
	}
	err := produce(func(j grepFileJob) bool {
		select {
		case jobs <- j:
			return true
		case <-ctx.Done():
			return false
		}
	})
	close(jobs)
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	var out []grepFileResult
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// searchIsBinary reports whether data looks binary: it holds a NUL byte, as
// ripgrep decides.
func searchIsBinary(data []byte) bool { return bytes.IndexByte(data, 0) >= 0 }

// searchChunkSize is the read size of chunked searches: large enough to
// make few system calls, small enough to stay in the CPU cache.
const searchChunkSize = 256 << 10

// Buffers outlive a call so repeated searches don't allocate (and zero)
// them again; the pools drop them when the garbage collector runs.
var (
	searchChunkPool = sync.Pool{New: func() any { b := make([]byte, searchChunkSize); return &b }}
	searchWholePool = sync.Pool{New: func() any { var b []byte; return &b }}
)

// searchLocalChunks searches a local file for files_with_matches or count
// mode, reading it a chunk at a time into *bufp (grown for lines longer
// than a chunk). A NUL byte anywhere makes the file binary and ends the
// search with no result, so a matched file is still read to its end.
func (m *grepMatcher) searchLocalChunks(name string, size int64, bufp *[]byte, q *grepQuery) (fm grepFileResult, ok bool) {
	f, err := os.Open(name)
	if err != nil {
		return fm, false
	}
	defer f.Close()
	buf := *bufp
	keep := 0
	var total int64
	for {
		if keep == len(buf) {
			// One line fills the buffer: grow it to hold more.
			bigger := make([]byte, 2*len(buf))
			copy(bigger, buf)
			buf = bigger
			*bufp = buf
		}
		n, rerr := f.Read(buf[keep:])
		if rerr != nil && rerr != io.EOF {
			return fm, false
		}
		if bytes.IndexByte(buf[keep:keep+n], 0) >= 0 {
			return fm, false
		}
		total += int64(n)
		// Reading exactly the size the walk saw ends the file without
		// another system call to learn of the end.
		eof := rerr == io.EOF || n == 0 || (total >= size && keep+n < len(buf))
		data := buf[:keep+n]
		complete := data
		if !eof {
			last := bytes.LastIndexByte(data, '\n')
			if last < 0 {
				keep = len(data)
				continue
			}
			complete = data[:last+1]
		}
		if !ok || q.mode == grepModeCount {
			m.eachLine(complete, func(int, int) bool {
				fm.count++
				ok = true
				return q.mode == grepModeCount
			})
		}
		if eof {
			return fm, ok
		}
		keep = copy(buf, data[len(complete):])
	}
}

// searchReadLocal reads a local file into buf (grown as needed and
// returned). It reads the first searchBinaryProbe bytes first and stops
// there when they hold a NUL byte, so large binary files cost one small
// read; the returned data then holds just that NUL-bearing prefix.
func searchReadLocal(name string, size int64, buf []byte) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	want := int(size) + 1 // one more byte to see the end without a second read
	if cap(buf) < want {
		buf = make([]byte, 0, max(want, 2*cap(buf)))
	}
	buf = buf[:0]
	probe := min(searchBinaryProbe, cap(buf))
	n, err := io.ReadFull(f, buf[:probe])
	buf = buf[:n]
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return buf, nil
		}
		return buf, err
	}
	if searchIsBinary(buf) {
		return buf, nil
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew since the walk
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// ---------------------------------------------------------------------------
// File types

// grepTypes maps Grep's type filter names to file-name globs. The names
// and globs follow ripgrep's built-in table (rg --type-list) for the
// common languages; both engines use this table, so they agree.
var grepTypes = map[string][]string{
	"asm":        {"*.S", "*.asm", "*.s"},
	"c":          {"*.c", "*.h", "*.H", "*.cats"},
	"clojure":    {"*.clj", "*.cljc", "*.cljs", "*.cljx"},
	"cmake":      {"*.cmake", "CMakeLists.txt"},
	"config":     {"*.cfg", "*.conf", "*.config", "*.ini"},
	"cpp":        {"*.C", "*.cc", "*.cpp", "*.cxx", "*.c++", "*.h", "*.H", "*.hh", "*.hpp", "*.hxx", "*.inl"},
	"cs":         {"*.cs"},
	"csharp":     {"*.cs"},
	"css":        {"*.css", "*.scss"},
	"csv":        {"*.csv"},
	"dart":       {"*.dart"},
	"docker":     {"*Dockerfile*"},
	"elixir":     {"*.eex", "*.ex", "*.exs"},
	"erlang":     {"*.erl", "*.hrl"},
	"go":         {"*.go"},
	"gradle":     {"*.gradle"},
	"graphql":    {"*.graphql", "*.graphqls"},
	"groovy":     {"*.gradle", "*.groovy"},
	"h":          {"*.h", "*.hpp"},
	"haskell":    {"*.hs", "*.lhs"},
	"html":       {"*.ejs", "*.htm", "*.html"},
	"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":         {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
	"json":       {"*.json", "composer.lock"},
	"jsonl":      {"*.jsonl"},
	"julia":      {"*.jl"},
	"kotlin":     {"*.kt", "*.kts"},
	"less":       {"*.less"},
	"lua":        {"*.lua"},
	"make":       {"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"},
	"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"md":         {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"nix":        {"*.nix"},
	"objc":       {"*.h", "*.m"},
	"ocaml":      {"*.ml", "*.mli", "*.mll", "*.mly"},
	"perl":       {"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"},
	"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
	"protobuf":   {"*.proto"},
	"ps":         {"*.cdxml", "*.ps1", "*.ps1xml", "*.psd1", "*.psm1"},
	"py":         {"*.py", "*.pyi"},
	"r":          {"*.R", "*.Rmd", "*.Rnw", "*.r"},
	"rst":        {"*.rst"},
	"ruby":       {"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"},
	"rust":       {"*.rs"},
	"sass":       {"*.sass", "*.scss"},
	"scala":      {"*.sbt", "*.scala"},
	"sh":         {"*.bash", "*.bashrc", "*.csh", "*.ksh", "*.sh", "*.tcsh", "*.zsh", ".bash_profile", ".bashrc", ".profile", ".zshrc"},
	"sql":        {"*.psql", "*.sql"},
	"svelte":     {"*.svelte"},
	"swift":      {"*.swift"},
	"tex":        {"*.bib", "*.cls", "*.ltx", "*.sty", "*.tex"},
	"tf":         {"*.tf", "*.tfvars"},
	"toml":       {"*.toml", "Cargo.lock"},
	"ts":         {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"txt":        {"*.txt"},
	"vim":        {"*.vim"},
	"vue":        {"*.vue"},
	"xml":        {"*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xml", "*.xsd", "*.xsl", "*.xslt"},
	"yaml":       {"*.yaml", "*.yml"},
	"zig":        {"*.zig"},
	"javascript": {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
	"typescript": {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"python":     {"*.py", "*.pyi"},
	"golang":     {"*.go"},
}

// grepTypeNames lists the known type names, for error messages.
func grepTypeNames() string {
	names := make([]string, 0, len(grepTypes))
	for n := range grepTypes {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
