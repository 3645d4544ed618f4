package search

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

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

// CompileMatcher compiles a Grep pattern with Go's regexp (RE2 syntax,
// close to ripgrep's). In line mode the pattern is rewritten the way
// ripgrep does it: classes and . never match a newline, ^ and $ match at
// line boundaries, and a literal \n is an error. In multiline mode . also
// matches a newline and ^ and $ still match at line boundaries.
func CompileMatcher(pattern string, ignoreCase, multiline bool) (*grepMatcher, error) {
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
func (m *grepMatcher) search(buf []byte, q *Query) (fm FileResult, ok bool) {
	switch q.Mode {
	case ModeFiles:
		m.eachLine(buf, func(int, int) bool { ok = true; return false })
		return fm, ok
	case ModeCount:
		m.eachLine(buf, func(int, int) bool { fm.Count++; return true })
		return fm, fm.Count > 0
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
	fm.Count = len(hits)
	fm.Lines = make([]Line, 0, len(hits))
	lastNum, lastEnd := 0, 0 // last line emitted, and the offset after it
	for i, h := range hits {
		// Context before, not repeating lines already shown.
		if q.Before > 0 {
			var starts []int
			s := h.start
			for k := 0; k < q.Before && h.num-k-1 > lastNum && s > 0; k++ {
				s = bytes.LastIndexByte(buf[:s-1], '\n') + 1
				starts = append(starts, s)
			}
			for k := len(starts) - 1; k >= 0; k-- {
				s := starts[k]
				fm.Lines = append(fm.Lines, Line{Num: h.num - k - 1, Text: DisplayLine(buf[s:grepLineEnd(buf, s)])})
			}
		}
		fm.Lines = append(fm.Lines, Line{Num: h.num, Text: DisplayLine(buf[h.start:h.end]), Match: true})
		lastNum, lastEnd = h.num, h.end+1
		// Context after, stopping before the next matching line.
		next := -1
		if i+1 < len(hits) {
			next = hits[i+1].num
		}
		for k := 0; k < q.After && lastEnd < len(buf) && (next < 0 || lastNum+1 < next); k++ {
			end := grepLineEnd(buf, lastEnd)
			fm.Lines = append(fm.Lines, Line{Num: lastNum + 1, Text: DisplayLine(buf[lastEnd:end])})
			lastNum, lastEnd = lastNum+1, end+1
		}
	}
	return fm, true
}
