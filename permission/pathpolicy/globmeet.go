package pathpolicy

import (
	"strings"
	"unicode/utf8"
)

// globsMeet reports whether some name matches both glob segments a and b
// (path.Match syntax within one segment: *, ?, [classes], \ escapes).
// It errs towards yes: a negated class or a malformed one is taken to
// match any character, so a may-match question never gets a false no,
// which would let a sensitive path through.
func globsMeet(a, b string) bool {
	ta, tb := globTokens(a), globTokens(b)
	// seen[i][j]: the pair of positions was explored and met nothing.
	seen := make([][]bool, len(ta)+1)
	for i := range seen {
		seen[i] = make([]bool, len(tb)+1)
	}
	var meet func(i, j int) bool
	meet = func(i, j int) bool {
		if seen[i][j] {
			return false
		}
		var ok bool
		switch {
		case i == len(ta) && j == len(tb):
			return true
		case i < len(ta) && ta[i].star:
			// The star matches nothing more, or takes b's next token (one
			// character of b's, or b's own star, which then ends).
			ok = meet(i+1, j) || j < len(tb) && meet(i, j+1)
		case j < len(tb) && tb[j].star:
			ok = meet(i, j+1) || i < len(ta) && meet(i+1, j)
		case i < len(ta) && j < len(tb):
			ok = ta[i].overlaps(tb[j]) && meet(i+1, j+1)
		}
		if !ok {
			seen[i][j] = true
		}
		return ok
	}
	return meet(0, 0)
}

// globToken is one element of a glob segment: a star, or one character
// out of a set (a literal, any character, or a class).
type globToken struct {
	star   bool
	any    bool      // ?, a negated class, or a malformed one
	ranges [][2]rune // the characters of a literal or a class
}

func (t globToken) overlaps(u globToken) bool {
	if t.any || u.any {
		return true
	}
	for _, r := range t.ranges {
		for _, s := range u.ranges {
			if r[0] <= s[1] && s[0] <= r[1] {
				return true
			}
		}
	}
	return false
}

// globTokens splits a glob segment into tokens, by character.
func globTokens(g string) []globToken {
	var out []globToken
	for i := 0; i < len(g); {
		switch g[i] {
		case '*':
			if len(out) == 0 || !out[len(out)-1].star {
				out = append(out, globToken{star: true})
			}
			i++
			continue
		case '?':
			out = append(out, globToken{any: true})
			i++
			continue
		case '[':
			if t, n, ok := globClass(g[i:]); ok {
				out = append(out, t)
				i += n
				continue
			}
			out = append(out, globToken{any: true}) // malformed: anything
			i++
			continue
		case '\\':
			if i+1 < len(g) {
				i++
			}
		}
		r, n := utf8.DecodeRuneInString(g[i:])
		out = append(out, globToken{ranges: [][2]rune{{r, r}}})
		i += n
	}
	return out
}

// globClass reads a bracket expression at the start of g: its token and
// length.
func globClass(g string) (globToken, int, bool) {
	i := 1
	if i < len(g) && (g[i] == '^' || g[i] == '!') {
		// Negated: the characters it matches are most of them.
		for j := i + 1; j < len(g); j++ {
			if g[j] == ']' && j > i+1 {
				return globToken{any: true}, j + 1, true
			}
		}
		return globToken{}, 0, false
	}
	var t globToken
	for i < len(g) {
		if g[i] == ']' && i > 1 {
			return t, i + 1, len(t.ranges) > 0
		}
		if g[i] == '\\' && i+1 < len(g) {
			i++
		}
		lo, n := utf8.DecodeRuneInString(g[i:])
		i += n
		hi := lo
		if i+1 < len(g) && g[i] == '-' && g[i+1] != ']' {
			i++
			if g[i] == '\\' && i+1 < len(g) {
				i++
			}
			hi, n = utf8.DecodeRuneInString(g[i:])
			i += n
		}
		t.ranges = append(t.ranges, [2]rune{lo, hi})
	}
	return globToken{}, 0, false
}

// globPathsMeet reports whether some path matches both patterns a and b:
// slash-separated globs whose ** segments span any number of segments
// (doublestar's syntax, which rule patterns use). Like globsMeet it errs
// towards yes: brace alternatives and a ** inside a segment are taken
// to match anything from there on.
func globPathsMeet(a, b string) bool {
	if strings.ContainsAny(a, "{}") || strings.ContainsAny(b, "{}") {
		return true
	}
	sa, sb := strings.Split(a, "/"), strings.Split(b, "/")
	seen := make([][]bool, len(sa)+1)
	for i := range seen {
		seen[i] = make([]bool, len(sb)+1)
	}
	var meet func(i, j int) bool
	meet = func(i, j int) bool {
		if seen[i][j] {
			return false
		}
		var ok bool
		switch {
		case i == len(sa) && j == len(sb):
			return true
		case i < len(sa) && strings.Contains(sa[i], "**") && sa[i] != "**",
			j < len(sb) && strings.Contains(sb[j], "**") && sb[j] != "**":
			return true
		case i < len(sa) && sa[i] == "**":
			ok = meet(i+1, j) || j < len(sb) && meet(i, j+1)
		case j < len(sb) && sb[j] == "**":
			ok = meet(i, j+1) || i < len(sa) && meet(i+1, j)
		case i < len(sa) && j < len(sb):
			ok = globsMeet(sa[i], sb[j]) && meet(i+1, j+1)
		}
		if !ok {
			seen[i][j] = true
		}
		return ok
	}
	return meet(0, 0)
}
