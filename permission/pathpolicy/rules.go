package pathpolicy

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Rule patterns.

// Patterns returns the absolute doublestar patterns a path rule's content
// stands for: "//x" and "/x" are absolute, "~" and "~/x" are in the home
// directory, anything else is relative to each working directory. Each
// pattern comes spelled as written and with its literal leading
// directories resolved, so a rule on a linked directory names its target
// too. Duplicates are removed.
func (p *Policy) Patterns(content string, workingDirs []string) []string {
	content = strings.TrimSpace(content)
	var bases []string
	switch {
	case strings.HasPrefix(content, "//"):
		bases = []string{content[1:]}
	case strings.HasPrefix(content, "/"):
		bases = []string{content}
	case content == "~" || strings.HasPrefix(content, "~/"):
		bases = []string{p.ExpandHome(content)}
	default:
		rel := content
		for strings.HasPrefix(rel, "./") {
			rel = rel[2:]
		}
		for _, wd := range workingDirs {
			if strings.HasPrefix(wd, "/") {
				bases = append(bases, strings.TrimSuffix(wd, "/")+"/"+rel)
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, b := range bases {
		lexical := cleanPattern(b)
		add(lexical)
		add(p.resolvePattern(lexical))
	}
	return out
}

// cleanPattern cleans a pattern's path syntax ("a/./b", "a//b", "a/../b")
// without touching its glob characters.
func cleanPattern(s string) string {
	c := path.Clean(s)
	if strings.HasSuffix(s, "/") && c != "/" {
		c += "/"
	}
	return c
}

// resolvePattern resolves the literal directories that lead a pattern.
func (p *Policy) resolvePattern(pattern string) string {
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs) && !strings.ContainsAny(segs[i], "*?[{\\") {
		i++
	}
	static := strings.Join(segs[:i], "/")
	if static == "" {
		static = "/"
	}
	real, ok := p.Resolve(static, "/")
	if !ok {
		return ""
	}
	if i == len(segs) {
		return real
	}
	return strings.TrimSuffix(real, "/") + "/" + strings.Join(segs[i:], "/")
}

// MatchKind says how strictly a rule is matched.
type MatchKind int

const (
	// Loose is for deny and ask rules: the spelling or the resolution
	// matching is enough (a miss would let a call through).
	Loose MatchKind = iota
	// Strict is for allow rules: the resolution must match (a link must
	// not carry an allowed name to a path the rule does not name).
	Strict
)

// Match reports whether a path rule's content names the path (relative to
// cwd). A pattern that names a directory names everything below it too.
// A path that cannot be resolved matches loosely and never strictly.
func (p *Policy) Match(content, name, cwd string, workingDirs []string, kind MatchKind) bool {
	abs := Abs(name, cwd)
	if abs == "" {
		return kind == Loose
	}
	real, ok := p.Resolve(abs, cwd)
	var candidates []string
	switch {
	case kind == Strict && !ok:
		return false
	case kind == Strict:
		candidates = []string{real}
	case !ok:
		return true
	default:
		candidates = []string{path.Clean(abs), real}
	}
	for _, pat := range p.Patterns(content, workingDirs) {
		for _, c := range candidates {
			if matchPattern(pat, c) {
				return true
			}
		}
	}
	return false
}

// matchPattern matches a path against a pattern, or against the pattern
// taken as a directory.
func matchPattern(pattern, name string) bool {
	if ok, _ := doublestar.Match(pattern, name); ok {
		return true
	}
	dir := strings.TrimSuffix(pattern, "/")
	if strings.HasSuffix(dir, "/**") {
		return false
	}
	ok, _ := doublestar.Match(dir+"/**", name)
	return ok
}

// NamesBelow reports whether a path rule names something at or below dir
// (relative to cwd): a recursive read of dir would read it.
func (p *Policy) NamesBelow(content, dir, cwd string, workingDirs []string) bool {
	abs := Abs(dir, cwd)
	if abs == "" {
		return true
	}
	dirs := []string{path.Clean(abs)}
	if real, ok := p.Resolve(abs, cwd); ok {
		dirs = append(dirs, real)
	} else {
		return true
	}
	for _, pat := range p.Patterns(content, workingDirs) {
		static := pat
		if i := strings.IndexAny(pat, "*?[{"); i >= 0 {
			static = pat[:i]
		}
		static = strings.TrimSuffix(static, "/")
		if static == "" {
			static = "/"
		}
		for _, d := range dirs {
			// The rule's literal part lies below the directory, or the
			// directory lies below it (and the pattern may match there).
			if within(static, d) || within(d, static) && matchPattern(pat, d+"/x") {
				return true
			}
		}
	}
	return false
}

// GlobMayMatch reports whether a shell glob (relative to cwd) could name
// a path the rule names: a path it expands to now matches, or the glob
// and the pattern could meet.
func (p *Policy) GlobMayMatch(content, glob, cwd string, workingDirs []string) bool {
	abs := Abs(glob, cwd)
	if abs == "" {
		return true
	}
	abs = BashGlob(path.Clean(abs))
	matches, _ := filepath.Glob(abs)
	for _, m := range matches {
		if p.Match(content, m, cwd, workingDirs, Loose) {
			return true
		}
	}
	for _, pat := range p.Patterns(content, workingDirs) {
		if globPathsMeet(pat, abs) {
			return true
		}
	}
	return false
}
