package search

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

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

// SplitGlobs splits Grep's glob argument into globs: on white space, and
// on commas outside braces ("*.ts,*.tsx" but not "*.{ts,tsx}").
func SplitGlobs(s string) []string {
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

func newSearchTreeFilter(root string, q *Query) *searchTreeFilter {
	f := &searchTreeFilter{root: root, typeGlobs: q.TypeGlobs}
	for _, g := range q.Globs {
		if r, ok := parseSearchGlobRule(g); ok {
			f.globs = append(f.globs, r)
			f.keepGlobs = f.keepGlobs || !r.bang
		}
	}
	return f
}

// loadSearchIgnoreDir reads a directory's ignore files. needGit says whether
// the .git probe matters (only when an outer .gitignore has rules).
func loadSearchIgnoreDir(ctx context.Context, b FS, dir string, needGit bool) *searchIgnoreDir {
	d := &searchIgnoreDir{dir: dir}
	if data, err := b.ReadFile(ctx, filepath.Join(dir, ".gitignore")); err == nil {
		d.git = parseSearchRuleSet(string(data))
	}
	if data, err := b.ReadFile(ctx, filepath.Join(dir, ".rgignore")); err == nil {
		d.rg = parseSearchRuleSet(string(data))
	}
	if needGit {
		_, err := b.Stat(ctx, filepath.Join(dir, ".git"))
		d.hasGit = err == nil
	}
	return d
}

// loadParents reads the ignore files above root, as ripgrep does: up to
// the nearest directory holding .git (the repository root), or up to the
// file-system root when there is none.
func (f *searchTreeFilter) loadParents(ctx context.Context, b FS, rootHasGit bool) {
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
		switch f.globs.filterVerdict(RelSlash(f.root, p), isDir) {
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
		return MatchAnyName(f.typeGlobs, filepath.Base(p))
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
			rgV = d.rg.ignoreVerdict(RelSlash(d.dir, p), isDir)
		}
		if d.git != nil && gitV == searchNoVerdict && !sawGit {
			gitV = d.git.ignoreVerdict(RelSlash(d.dir, p), isDir)
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

func MatchAnyName(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
	}
	return false
}

// RelSlash returns p relative to base with forward slashes; p is inside
// base.
func RelSlash(base, p string) string {
	rel := strings.TrimPrefix(p, base)
	rel = strings.TrimPrefix(rel, string(filepath.Separator))
	return filepath.ToSlash(rel)
}
