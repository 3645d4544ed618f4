package pathpolicy

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
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
	files []entry
	dirs  []entry
	home  string
}

// entry is one sensitive-list item split into lower-case segments.
type entry struct {
	segs     []string
	absolute bool // anchored at the root
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
	p.files = parseEntries(files)
	p.dirs = parseEntries(dirs)
	return p
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
		out = append(out, e)
	}
	return out
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

// maxLinks is how many symbolic links a resolution follows, as the
// kernel's limit: past it the open fails (ELOOP).
const maxLinks = 40

// Resolve returns the path the kernel would open for p, relative to cwd:
// absolute and clean, with symbolic links followed component by component
// as far as the path exists (a dangling link's target counts), ".."
// applied after a link, and /proc/{self,thread-self,PID}/{root,cwd} (and
// their task/TID forms) replaced by what they stand for. cwd is both the
// directory relative paths start from and the working directory of the
// process that would open the path (what /proc/self/cwd names).
//
// ok is false when the path cannot be known: a relative path without an
// absolute cwd, a link loop, or a /proc entry that names another
// process's open file.
func (p *Policy) Resolve(name, cwd string) (string, bool) {
	abs := Abs(name, cwd)
	if abs == "" {
		return "", false
	}
	return resolve(abs, cwd, 0)
}

func resolve(abs, cwd string, depth int) (string, bool) {
	resolved := "/"
	rest := strings.Split(abs, "/")
	links := 0
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			resolved = path.Dir(resolved)
			continue
		}
		if resolved == "/proc" && isProcess(part) {
			r, remaining, ok := procEntry(part, rest, cwd, depth)
			if !ok {
				return "", false
			}
			if r != "" {
				resolved, rest = r, remaining
				continue
			}
		}
		next := path.Join(resolved, part)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		target, err := os.Readlink(next)
		if err != nil || links > maxLinks {
			return "", false
		}
		if strings.HasPrefix(target, "/") {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return resolved, true
}

// isProcess reports a /proc entry that stands for a process.
func isProcess(s string) bool {
	if s == "self" || s == "thread-self" {
		return true
	}
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

// procEntry resolves /proc/PROC/... where PROC is self, thread-self or a
// PID: root is the file system's root (same mount namespace), cwd is the
// reading process's directory (for self) or what the kernel says (for a
// PID), fd and map_files name open files nobody can know in advance.
// task/TID is the process itself. It returns "" to let the caller walk
// the entry as an ordinary path (environ, maps, ...).
func procEntry(proc string, rest []string, cwd string, depth int) (string, []string, bool) {
	self := proc == "self" || proc == "thread-self"
	for len(rest) >= 2 && rest[0] == "task" {
		rest = rest[2:] // /proc/PID/task/TID/x is /proc/PID/x
	}
	for len(rest) > 0 && (rest[0] == "" || rest[0] == ".") {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return "/proc/" + proc, rest, true
	}
	switch rest[0] {
	case "root":
		return "/", rest[1:], true
	case "cwd":
		if self {
			if !strings.HasPrefix(cwd, "/") || depth > 0 {
				return "", nil, false
			}
			r, ok := resolve(cwd, cwd, depth+1)
			return r, rest[1:], ok
		}
		target, err := os.Readlink("/proc/" + proc + "/cwd")
		if err != nil || !strings.HasPrefix(target, "/") {
			return "", nil, false
		}
		return path.Clean(target), rest[1:], true
	case "fd", "map_files", "exe", "fdinfo":
		if len(rest) == 1 {
			return "/proc/" + proc + "/" + rest[0], nil, true
		}
		return "", nil, false
	}
	return "/proc/" + proc + "/" + rest[0], rest[1:], true
}

// Sensitive reports whether an absolute path (taken as spelled, not
// resolved) is a sensitive file or lies in a sensitive directory, and
// returns the path when it is.
func (p *Policy) Sensitive(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	lower := strings.ToLower(path.Clean(name))
	segs := strings.Split(strings.Trim(lower, "/"), "/")
	for _, e := range p.files {
		if e.matchFile(segs, strings.HasPrefix(lower, "/")) {
			return name, true
		}
	}
	for _, e := range p.dirs {
		if e.matchDir(segs, strings.HasPrefix(lower, "/")) {
			return name, true
		}
	}
	return "", false
}

// matchFile: the entry's segments end the path (anchored at the root for
// an absolute entry).
func (e entry) matchFile(segs []string, abs bool) bool {
	if len(segs) < len(e.segs) {
		return false
	}
	if e.absolute {
		return abs && len(segs) == len(e.segs) && segsMatch(e.segs, segs)
	}
	return segsMatch(e.segs, segs[len(segs)-len(e.segs):])
}

// matchDir: the entry's segments appear consecutively in the path (from
// the root for an absolute entry).
func (e entry) matchDir(segs []string, abs bool) bool {
	if e.absolute {
		return abs && len(segs) >= len(e.segs) && segsMatch(e.segs, segs[:len(e.segs)])
	}
	for i := 0; i+len(e.segs) <= len(segs); i++ {
		if segsMatch(e.segs, segs[i:i+len(e.segs)]) {
			return true
		}
	}
	return false
}

func segsMatch(pattern, segs []string) bool {
	for i := range pattern {
		if ok, _ := path.Match(pattern[i], segs[i]); !ok {
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
	abs := Abs(name, cwd)
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
	if _, ok := p.Sensitive(real); ok {
		if real == path.Clean(abs) {
			return name, true
		}
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
	for _, e := range p.files {
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
	for _, e := range p.dirs {
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
	// Both are globs: try samples of each against the other.
	for _, sample := range []string{sampleOf(e, ""), sampleOf(e, "x")} {
		if ok, _ := path.Match(g, sample); ok {
			return true
		}
	}
	for _, sample := range []string{sampleOf(g, ""), sampleOf(g, "x")} {
		if ok, _ := path.Match(e, sample); ok {
			return true
		}
	}
	return false
}

// sampleOf turns a glob into one name it matches: * becomes fill, ? and
// bracket expressions become their first choice.
func sampleOf(g, fill string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '*':
			b.WriteString(fill)
		case '?':
			b.WriteByte('x')
		case '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				b.WriteByte('[')
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^") || class == "" {
				b.WriteByte('x')
			} else {
				b.WriteByte(class[0])
			}
			i += j + 1
		default:
			b.WriteByte(g[i])
		}
	}
	return b.String()
}

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
	return p == dir || dir == "/" || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// Rule patterns.

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
		if ok, _ := doublestar.Match(pat, sampleOf(abs, "")); ok {
			return true
		}
		if ok, _ := doublestar.Match(abs, sampleOf(pat, "x")); ok {
			return true
		}
		if ok, _ := doublestar.Match(abs, sampleOf(strings.ReplaceAll(pat, "**", "*"), "x")); ok {
			return true
		}
	}
	return false
}

// Tree scans.

// TreeOptions say which entries a recursive reader visits.
type TreeOptions struct {
	// Hidden: entries whose name starts with a dot are visited (grep -r
	// does; rg and ag do not without --hidden).
	Hidden bool
	// FollowLinks: symbolic links below the root are followed (grep -R,
	// rg -L).
	FollowLinks bool
	// SkipVCS: .git and the other version-control folders are not visited
	// (rg, git grep).
	SkipVCS bool
	// MaxEntries bounds the scan; 0 means DefaultMaxTreeEntries. A tree
	// larger than that counts as holding something sensitive.
	MaxEntries int
	// IgnoreFiles are the ignore files the reader honours (.gitignore,
	// .ignore, .rgignore for rg). A "!" line in one whitelists what it
	// would skip, hidden files included: where the tree or a folder above
	// it has one, hidden entries count as visited.
	IgnoreFiles []string
}

// DefaultMaxTreeEntries bounds a tree scan.
const DefaultMaxTreeEntries = 20_000

// TreeSensitive reports whether a recursive reader starting at root
// (relative to cwd) would read a sensitive file, and which. The scan is
// breadth-first and bounded: a tree too large to scan, or a root that
// cannot be resolved, counts as sensitive.
func (p *Policy) TreeSensitive(root, cwd string, opts TreeOptions) (string, bool) {
	if what, ok := p.SensitivePath(root, cwd); ok {
		return what, true
	}
	if !opts.Hidden && len(opts.IgnoreFiles) > 0 {
		if real, ok := p.Resolve(root, cwd); ok && p.whitelists(real, opts) {
			opts.Hidden = true
		}
	}
	found := ""
	complete := p.Walk(root, cwd, opts, func(name, real string) bool {
		if _, ok := p.Sensitive(name); ok {
			found = name
		} else if _, ok := p.Sensitive(real); ok {
			found = name + " (" + real + ")"
		}
		return found != ""
	})
	switch {
	case found != "":
		return found, true
	case !complete:
		return root + " (too large, or not resolvable, to check every file)", true
	}
	return "", false
}

// Walk visits what a recursive reader starting at root (relative to cwd)
// would visit, breadth-first: fn gets each entry's path as reached and,
// for a followed link, what it resolves to (else the same path); fn
// returning true stops the walk. It reports whether the walk was
// complete: false when the root cannot be resolved, a followed link
// cannot, or the tree has more than opts.MaxEntries entries.
func (p *Policy) Walk(root, cwd string, opts TreeOptions, fn func(name, real string) bool) bool {
	real, ok := p.Resolve(root, cwd)
	if !ok {
		return false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return true
	}
	limit := opts.MaxEntries
	if limit <= 0 {
		limit = DefaultMaxTreeEntries
	}
	seen := map[string]bool{real: true}
	queue := []string{real}
	count := 0
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			count++
			if count > limit {
				return false
			}
			name := e.Name()
			if !opts.Hidden && strings.HasPrefix(name, ".") {
				continue
			}
			if opts.SkipVCS && isVCSDir(name) {
				continue
			}
			full := dir + "/" + name
			target, isDir := full, e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if !opts.FollowLinks {
					continue
				}
				t, ok := resolve(full, dir, 0)
				if !ok {
					return false
				}
				target = t
				ti, err := os.Stat(t)
				isDir = err == nil && ti.IsDir()
			}
			if fn(full, target) {
				return true
			}
			if isDir && !seen[target] {
				seen[target] = true
				queue = append(queue, target)
			}
		}
	}
	return true
}

// whitelists reports an ignore file with a "!" line in root, a folder
// above it, or a folder below it (within the scan's bound).
func (p *Policy) whitelists(root string, opts TreeOptions) bool {
	has := func(dir string) bool {
		for _, name := range opts.IgnoreFiles {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || len(data) > 1<<20 {
				continue
			}
			for _, line := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "!") {
					return true
				}
			}
		}
		return false
	}
	for dir := root; ; dir = filepath.Dir(dir) {
		if has(dir) {
			return true
		}
		if dir == "/" || dir == "." {
			break
		}
	}
	found := false
	scan := opts
	scan.Hidden = true // ignore files are themselves dot files
	p.Walk(root, "/", scan, func(name, real string) bool {
		if fi, err := os.Stat(real); err == nil && fi.IsDir() && has(real) {
			found = true
		}
		return found
	})
	return found
}

func isVCSDir(name string) bool {
	switch name {
	case ".git", ".svn", ".hg", ".bzr", ".jj", ".sl":
		return true
	}
	return false
}
