package pathpolicy

import (
	"path"
	"path/filepath"
	"strings"
)

// ExpandGlob expands a bash glob (absolute, or relative to cwd) the way
// bash does by default: its syntax (BashGlob), and no match whose part
// starts with "." unless the pattern's part does. Matches come back as
// absolute paths; an invalid pattern matches nothing.
func ExpandGlob(glob, cwd string) []string {
	abs := Abs(glob, cwd)
	if abs == "" {
		return nil
	}
	clean := path.Clean(abs)
	matches, _ := filepath.Glob(BashGlob(clean))
	segs := strings.Split(clean, "/")
	out := matches[:0]
	for _, m := range matches {
		ms := strings.Split(m, "/")
		hidden := false
		for i := range ms {
			if i < len(segs) && strings.HasPrefix(ms[i], ".") && !strings.HasPrefix(segs[i], ".") && hasGlob(segs[i]) {
				hidden = true
				break
			}
		}
		if !hidden {
			out = append(out, m)
		}
	}
	return out
}

// BashGlob turns a bash glob into a pattern of Go's path.Match and
// filepath.Glob, erring on the side of matching more: "[!x]" (bash's
// negation) becomes "[^x]", and a bracket expression holding a POSIX
// class ("[[:alpha:]]") becomes "?", any one character.
func BashGlob(g string) string {
	if !strings.Contains(g, "[") {
		return g
	}
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		if c == '\\' && i+1 < len(g) {
			b.WriteByte(c)
			b.WriteByte(g[i+1])
			i++
			continue
		}
		if c != '[' {
			b.WriteByte(c)
			continue
		}
		// Find the end of the bracket expression (a ] right after [ or
		// [! is a member, not the end).
		j := i + 1
		if j < len(g) && (g[j] == '!' || g[j] == '^') {
			j++
		}
		if j < len(g) && g[j] == ']' {
			j++
		}
		for j < len(g) && g[j] != ']' {
			if g[j] == '[' && j+1 < len(g) && (g[j+1] == ':' || g[j+1] == '=' || g[j+1] == '.') {
				if k := strings.Index(g[j+2:], string(g[j+1])+"]"); k >= 0 {
					j += k + 4
					continue
				}
			}
			j++
		}
		if j >= len(g) {
			b.WriteString("\\[") // no closing bracket: a literal [
			continue
		}
		expr := g[i : j+1]
		switch {
		case strings.Contains(expr[1:], "[:") || strings.Contains(expr[1:], "[=") || strings.Contains(expr[1:], "[."):
			b.WriteByte('?')
		case strings.HasPrefix(expr, "[!"):
			b.WriteString("[^" + expr[2:])
		default:
			b.WriteString(expr)
		}
		i = j
	}
	return b.String()
}

// OptionLike reports a path with a part that starts with "-": a file or
// folder that a later glob turns into an option (mkdir -p ./--pre=sh/x
// makes "--pre=sh" for `rg x *`). Writing one is never automatic.
func OptionLike(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, "-") {
			return true
		}
	}
	return false
}
