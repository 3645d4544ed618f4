package bash

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wasmtools/wasmtools/permission/pathpolicy"
)

// Options configure an Analyzer.
type Options struct {
	// DangerousFiles and DangerousDirs replace the defaults when not nil;
	// an empty, non-nil list turns that check off.
	DangerousFiles, DangerousDirs []string
	// Home is the home directory ~ and $HOME stand for; empty means the
	// current user's.
	Home string
}

// Analyzer judges shell commands. It is safe for concurrent use.
type Analyzer struct {
	paths *pathpolicy.Policy
	home  string
	cache *scriptCache
}

// New returns an analyzer.
func New(opts Options) *Analyzer {
	p := pathpolicy.New(pathpolicy.Options{DangerousFiles: opts.DangerousFiles, DangerousDirs: opts.DangerousDirs, Home: opts.Home})
	return NewWithPolicy(p)
}

// NewWithPolicy returns an analyzer judging paths with p, the policy the
// other tools share.
func NewWithPolicy(p *pathpolicy.Policy) *Analyzer {
	// The analyzer, its cache and its policy in one allocation: all are
	// read at every check, and a tool made for a few checks would miss
	// the processor's caches on each separately. A Policy is never
	// changed once made, so a copy judges as p does.
	c := &struct {
		a      Analyzer
		policy pathpolicy.Policy
		cache  scriptCache
	}{policy: *p}
	c.a = Analyzer{paths: &c.policy, home: p.Home(), cache: &c.cache}
	return &c.a
}

// scoped returns a copy of a whose path policy remembers file-system
// lookups for the length of one analysis (pathpolicy.Policy.Scoped): the
// copy lives on the caller's stack of calls only and is dropped with it.
func (a *Analyzer) scoped(cwd string) *Analyzer {
	c := *a
	c.paths = a.paths.ScopedIn(cwd)
	return &c
}

// Policy returns the path policy the analyzer judges paths with.
func (a *Analyzer) Policy() *pathpolicy.Policy { return a.paths }

// Env is where a command runs, for the path checks.
type Env struct {
	// WorkingDirs are the directories edits may be auto-allowed in.
	WorkingDirs []string
	// Cwd is the directory the command starts in.
	Cwd string
	// NoEdits skips the step that fills Report.EditsInWorkingDirs, which
	// then stays false: a caller that asks before every edit anyway (a
	// permission mode that never allows edits by themselves) saves that
	// step's path resolutions and system calls.
	NoEdits bool
}

// Report holds the facts about a command, one field per analysis step.
// The Bash tool turns them into a permission decision in the order the
// fields are listed.
type Report struct {
	Script *Script
	// Unanalysable: why the command cannot be judged statically (step 0).
	Unanalysable []string
	// ReadOnly: every command only reads, and nothing sensitive (step 1).
	ReadOnly bool
	// Dangerous: dangerous commands (step 2).
	Dangerous []string
	// Sed: sed scripts outside the allowlist (step 3).
	Sed []string
	// SensitiveWrites: sensitive paths a command may change (step 4).
	SensitiveWrites []string
	// SensitiveReads: sensitive paths read-only commands read; the
	// command is then not read-only, and asks (plain).
	SensitiveReads []string
	// CriticalRemovals: removals of /, ~, a child of / or everything
	// (step 5).
	CriticalRemovals []string
	// Untrusted: why commands that would only read cannot be vouched for
	// where they run: a glob or variable that can turn into an option
	// (a file named --pre=sh), git configuration the repository may have
	// planted, an option naming a host. The command then asks (plain).
	Untrusted []string
	// EditsInWorkingDirs: every command is read-only apart from output
	// redirects, or an edit command (mkdir touch rm rmdir mv cp sed), and
	// every target resolves inside a working directory (step 6).
	EditsInWorkingDirs bool
}

// Safety returns the first reason for a safety ask, in step order, or "".
func (r *Report) Safety() string {
	for _, list := range [][]string{r.Unanalysable, r.Dangerous, r.Sed, r.SensitiveWrites, r.CriticalRemovals} {
		if len(list) > 0 {
			return list[0]
		}
	}
	return ""
}

// Analyze parses and judges a command.
func (a *Analyzer) Analyze(command string, env Env) *Report {
	return a.AnalyzeScript(a.Parse(command), env)
}

// AnalyzeScript judges a parsed command.
func (a *Analyzer) AnalyzeScript(s *Script, env Env) *Report {
	r := &Report{Script: s, Unanalysable: s.Unsafe}
	if !s.Analysable() || len(s.Commands) == 0 && len(s.Redirects) == 0 {
		// Nothing to run is nothing we can vouch for: the caller asks.
		return r
	}
	a = a.scoped(env.Cwd)
	assigned := assignedVariables(s)
	ro := readsOnly(s, assigned)
	for _, c := range s.Commands {
		if v := usesAny(c, assigned); v != "" {
			// A variable the script itself sets is not the harmless value
			// the environment holds (DEBUG=--pre=sh; rg x $DEBUG).
			r.Untrusted = append(r.Untrusted, fmt.Sprintf("%s expands $%s, which the command sets itself", displayName(c), v))
		}
		r.Dangerous = append(r.Dangerous, dangerous(c)...)
		r.Sed = append(r.Sed, sedFindings(c)...)
	}
	for _, rd := range s.Redirects {
		target := cleanAbs(rd.Target.Value)
		if rd.Output() && strings.HasPrefix(target, "/dev/") && !harmlessOutput(target) {
			r.Dangerous = append(r.Dangerous, fmt.Sprintf("writes to the device %s", target))
		}
	}
	r.Dangerous = append(r.Dangerous, pipedDownloads(s)...)
	a.sensitive(s, env, r)
	r.CriticalRemovals = a.criticalRemovals(s, env)
	r.Untrusted = append(r.Untrusted, a.optionInjection(s, env)...)
	r.Untrusted = append(r.Untrusted, a.localRemoteFolders(s, env)...)
	if ro {
		r.Untrusted = append(r.Untrusted, a.plantedGit(s, env)...)
	}
	r.ReadOnly = ro && len(r.SensitiveReads) == 0 && len(r.SensitiveWrites) == 0 && len(r.Dangerous) == 0 &&
		len(r.Sed) == 0 && len(r.CriticalRemovals) == 0 && len(r.Untrusted) == 0
	if !r.ReadOnly && len(r.Untrusted) == 0 && !env.NoEdits {
		r.EditsInWorkingDirs = a.editsInWorkingDirs(s, env)
	}
	return r
}

// MayReadOnly reports whether the script can be read-only at all, judged
// from its words alone: it is analysable and runs something, every
// command is one that only reads, no output goes to a file or a network
// connection, and no variable the script sets itself is expanded. When it
// is false, AnalyzeScript's ReadOnly is false whatever the paths name: a
// caller that needs only that verdict (the permission mode explore) can
// skip the path analysis and its system calls. When it is true, only
// AnalyzeScript can tell.
func MayReadOnly(s *Script) bool {
	if !s.Analysable() || len(s.Commands) == 0 && len(s.Redirects) == 0 {
		return false
	}
	return readsOnly(s, assignedVariables(s))
}

// readsOnly is the words' part of the read-only verdict (see
// MayReadOnly); assigned are the variables the script sets.
func readsOnly(s *Script, assigned map[string]bool) bool {
	for _, c := range s.Commands {
		if !readOnly(c) || usesAny(c, assigned) != "" {
			return false
		}
	}
	for _, rd := range s.Redirects {
		target := cleanAbs(rd.Target.Value)
		switch {
		case rd.Output() && !harmlessOutput(target),
			// bash opens a network connection
			strings.HasPrefix(target, "/dev/tcp/"), strings.HasPrefix(target, "/dev/udp/"),
			// Here-documents and here-strings expand variables into the
			// command's input: the same rule as for arguments.
			!harmlessWord(rd.Target):
			return false
		}
	}
	return true
}

// cleanAbs cleans an absolute path (//dev/sda and /tmp/../dev/sda are
// /dev/sda); other strings are returned as they are.
func cleanAbs(p string) string {
	if strings.HasPrefix(p, "/") {
		return filepath.Clean(p)
	}
	return p
}

func harmlessOutput(target string) bool {
	switch target {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return false
}

// sensitive fills SensitiveReads and SensitiveWrites. A path is
// sensitive by its spelling, by what it resolves to through symbolic links
// and /proc, or, for a glob, by what it could match; a recursive reader
// (grep -r, rg, git grep) is sensitive when the tree it would read holds
// a sensitive file.
func (a *Analyzer) sensitive(s *Script, env Env, r *Report) {
	// A script that can make links (ln, cp -a, an archive, a checkout)
	// may make one that a read of the same script goes through: every
	// path was resolved before the links existed, so what a read reaches
	// is known only when it runs (cp -a planted copy && cat copy/link).
	links := a.MakesLinks(s, env)
	for _, c := range s.Commands {
		ro := readOnly(c)
		dir, dirKnown := a.dirOf(env, c)
		var candidates [4]Word
		for _, w := range appendPathCandidates(candidates[:0], c) {
			if ro && links {
				r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("%s reads %s, where a link this script makes may lead", c.Name, w.Value))
				continue
			}
			if ro && unknownPath(w) {
				// /home/$USER/.ssh/id_rsa, ~root/.ssh, ~+/.env: a path known
				// only when the command runs may be anything.
				r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("%s reads %s, a path known only when it runs", c.Name, w.Value))
				continue
			}
			if ro && !dirKnown && relativeWord(w) {
				r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("%s reads %s in a folder known only when it runs", c.Name, w.Value))
				continue
			}
			p, ok := a.sensitiveWordIn(w, dir)
			if !ok {
				continue
			}
			if ro {
				r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("%s reads the sensitive path %s", c.Name, p))
			} else {
				r.SensitiveWrites = append(r.SensitiveWrites, fmt.Sprintf("%s touches the sensitive path %s", displayName(c), p))
			}
		}
		if ro {
			for _, p := range a.recursiveSensitive(c, env) {
				r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("%s reads the sensitive path %s", c.Name, p))
			}
			for _, p := range a.gitPathspecSensitive(c, env) {
				r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("%s reads the sensitive path %s", c.Name, p))
			}
		}
	}
	for _, rd := range s.Redirects {
		if rd.Input() && links && !harmlessWord(rd.Target) {
			r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("a redirect reads %s, where a link this script makes may lead", rd.Target.Value))
			continue
		}
		if rd.Input() && anyAfterCd(s) && relativeWord(rd.Target) {
			// Which command the redirect belongs to, and so its folder,
			// is not tracked: after a cd, a relative input is unknown.
			r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("a redirect reads %s in a folder known only when it runs", rd.Target.Value))
			continue
		}
		if rd.Input() && unknownPath(rd.Target) {
			// cat < ~+/.env, cat < ~user/.ssh/id_rsa, cat < $PWD/.env:
			// as for a command's operands, a path known only when the
			// script runs may be anything (sensitiveWord cannot judge it).
			r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("a redirect reads %s, a path known only when it runs", rd.Target.Value))
			continue
		}
		p, ok := a.sensitiveWord(rd.Target, env, anyAfterCd(s))
		if !ok {
			continue
		}
		if rd.Output() {
			r.SensitiveWrites = append(r.SensitiveWrites, fmt.Sprintf("a redirect writes to the sensitive path %s", p))
		} else if rd.Input() {
			r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("a redirect reads the sensitive path %s", p))
		}
	}
}

// unknownPath reports a word whose path bash decides at run time: a
// variable other than HOME, a dynamic part, or a tilde form other than ~
// and ~/ (~user, ~+, ~-).
func unknownPath(w Word) bool {
	if w.Dynamic {
		return true
	}
	for _, v := range w.Vars {
		if v != "HOME" {
			return true
		}
	}
	return w.Tilde && w.Value != "~" && !strings.HasPrefix(w.Value, "~/")
}

// wordPath returns the path a word names before resolution (~ and $HOME
// expanded), relative or absolute; ok is false when it depends on
// something unknown (another variable, ~user, a dynamic part).
func (a *Analyzer) wordPath(w Word) (string, bool) {
	v := w.Value
	for _, name := range w.Vars {
		if name != "HOME" {
			return "", false
		}
	}
	if w.Dynamic {
		return "", false
	}
	switch {
	case strings.HasPrefix(v, "$HOME") && (len(v) == 5 || v[5] == '/'):
		v = a.home + v[5:]
	case len(w.Vars) > 0:
		return "", false // $HOME elsewhere than at the start
	case w.Tilde && (v == "~" || strings.HasPrefix(v, "~/")):
		v = a.home + v[1:]
	case w.Tilde:
		return "", false // ~user
	}
	return v, true
}

// commandDir is the directory a command's relative paths start from
// when no cd ran before it: the script's; "" after a cd (unknown).
func commandDir(env Env, afterCd bool) string {
	if afterCd {
		return ""
	}
	return env.Cwd
}

// maxFollowedCds bounds the cd commands dirOf follows: each command
// follows all those before it, so a script of n cds costs n² path
// resolutions. Past the bound the directory is unknown, which asks about
// every relative path the command reads.
const maxFollowedCds = 32

// dirOf is the directory a command runs in: the script's, followed
// through the cd commands before it (as bash's cd does, logically: ".."
// undoes the folder named before it, then the kernel resolves links).
// ok is false when a cd's target is known only at run time.
func (a *Analyzer) dirOf(env Env, c *Command) (string, bool) {
	if !c.AfterCd {
		return env.Cwd, env.Cwd != ""
	}
	if c.CdLost || env.Cwd == "" || len(c.Cds) > maxFollowedCds {
		return "", false
	}
	dir := env.Cwd
	for _, w := range c.Cds {
		v := a.home
		if w.Raw != "" || w.Value != "" {
			var known bool
			if v, known = a.wordPath(w); !known || w.Glob {
				return "", false
			}
		}
		abs := pathpolicy.Abs(v, dir)
		if abs == "" {
			return "", false
		}
		real, ok := a.paths.Resolve(filepath.Clean(abs), dir)
		if !ok {
			return "", false
		}
		dir = real
	}
	return dir, true
}

// sensitiveWord checks a word by spelling, as a glob, and by the path it
// resolves to. A relative word after a cd is judged by spelling only, as
// its directory is unknown.
func (a *Analyzer) sensitiveWord(w Word, env Env, afterCd bool) (string, bool) {
	return a.sensitiveWordIn(w, commandDir(env, afterCd))
}

// relativeWord reports a word naming a relative path (not absolute, not
// from the home directory).
func relativeWord(w Word) bool {
	return !strings.HasPrefix(w.Value, "/") && !w.Tilde && !strings.HasPrefix(w.Value, "$HOME")
}

// sensitiveWordIn is sensitiveWord for a command running in cwd ("" when
// unknown).
func (a *Analyzer) sensitiveWordIn(w Word, cwd string) (string, bool) {
	v, known := a.wordPath(w)
	if !known {
		return "", false
	}
	if _, ok := a.paths.Sensitive(v); ok {
		return w.Value, true
	}
	if w.Glob {
		if p, ok := a.paths.GlobMaySensitive(v, cwd); ok {
			return p, true
		}
		return "", false
	}
	if !pathpolicy.AbsKnown(v, cwd) {
		// Unknown directory: at least the spelling was checked, segment
		// by segment, above.
		return "", false
	}
	return a.paths.SensitivePath(v, cwd)
}

// recursiveSensitive: a recursive reader's trees that hold a sensitive
// file, as that reader walks them (hidden files, links, VCS folders).
func (a *Analyzer) recursiveSensitive(c *Command, env Env) []string {
	opts, ok := recursiveReaderOptions(c)
	if !ok {
		return nil
	}
	roots := recursiveRoots(c)
	if len(roots) == 0 {
		roots = []Word{{Raw: ".", Value: "."}}
	}
	var out []string
	for _, w := range roots {
		v, known := a.wordPath(w)
		cwd, _ := a.dirOf(env, c)
		if !known || !pathpolicy.AbsKnown(v, cwd) {
			out = append(out, w.Value+" (a tree known only when it runs)")
			continue
		}
		if w.Glob {
			// Each folder the glob names now is a tree the reader walks.
			if p, ok := a.paths.GlobMaySensitive(v, cwd); ok {
				out = append(out, p)
				continue
			}
			for _, m := range pathpolicy.ExpandGlob(v, cwd) {
				if p, ok := a.paths.TreeSensitive(m, "/", opts); ok {
					out = append(out, p)
					break
				}
			}
			continue
		}
		if p, ok := a.holdsHome(v, cwd); ok {
			out = append(out, p)
			continue
		}
		if p, ok := a.paths.TreeSensitive(v, cwd, opts); ok {
			out = append(out, p)
		}
	}
	return out
}

// holdsHome reports a folder that is the root or holds the home folder,
// where the credential stores live (grep -r x ~, rg x /): too large to
// scan, and sure to hold something sensitive.
func (a *Analyzer) holdsHome(dir, cwd string) (string, bool) {
	p, ok := a.paths.Resolve(dir, cwd)
	if !ok {
		return dir, true
	}
	home, ok := a.paths.Resolve(a.home, "/")
	if p == "/" || a.home != "" && ok && (p == home || strings.HasPrefix(home, p+"/")) {
		return dir, true
	}
	return "", false
}

// recursiveReaderOptions says how a recursive reader walks a tree, and
// whether c is one. grep -r reads hidden files and .git; -R follows
// links. rg and ag skip hidden files and VCS folders unless told not to.
// git grep reads tracked files (or, with --no-index or --untracked, the
// tree), never .git.
func recursiveReaderOptions(c *Command) (pathpolicy.TreeOptions, bool) {
	args := c.Values()
	fs := flagsOf(c.Name, args)
	switch c.Name {
	case "grep", "egrep", "fgrep":
		gfs := flagsOf("grep", args) // long options resolved as grep abbreviates them
		recurse := false
		for _, v := range optionValues("grep", args, 'd', "directories") {
			recurse = recurse || v == "recurse"
		}
		if !(gfs.short['r'] || gfs.short['R'] || gfs.long["recursive"] || gfs.long["dereference-recursive"] || recurse) {
			return pathpolicy.TreeOptions{}, false
		}
		return pathpolicy.TreeOptions{Hidden: true, FollowLinks: gfs.short['R'] || gfs.long["dereference-recursive"]}, true
	case "rg", "ag":
		u := 0
		for _, a := range args {
			if a == "--" {
				break
			}
			if len(a) > 1 && a[0] == '-' && a[1] != '-' {
				u += strings.Count(a, "u")
			}
		}
		hidden := u >= 2 || fs.short['.'] || fs.long["hidden"] || fs.long["unrestricted"] || (c.Name == "ag" && (fs.short['u'] || fs.short['U']))
		follow := fs.short['L'] || fs.long["follow"]
		ignores := []string{".gitignore", ".ignore", ".rgignore"}
		if c.Name == "ag" {
			ignores = []string{".gitignore", ".ignore", ".agignore"}
		}
		return pathpolicy.TreeOptions{Hidden: hidden, FollowLinks: follow, SkipVCS: !hidden, IgnoreFiles: ignores}, true
	case "ack":
		return pathpolicy.TreeOptions{Hidden: true, FollowLinks: fs.long["follow"], SkipVCS: true}, true
	case "git":
		sub, _, _ := gitSubcommand(args)
		if sub != "grep" {
			return pathpolicy.TreeOptions{}, false
		}
		return pathpolicy.TreeOptions{Hidden: true, SkipVCS: true}, true
	}
	return pathpolicy.TreeOptions{}, false
}

// recursiveRoots returns the paths a recursive reader is given.
func recursiveRoots(c *Command) []Word {
	if c.Name == "git" {
		var out []Word
		_, rest, _ := gitSubcommand(c.Values())
		start := len(c.Args) - len(rest)
		dashdash := false
		for _, w := range c.Args[start:] {
			if w.Value == "--" {
				dashdash = true
				continue
			}
			if dashdash {
				out = append(out, w)
			}
		}
		return out
	}
	explicit := hasShortOrLong(c.Values(), "ef", "--regexp", "--file")
	var out []Word
	for i, w := range searchOperands(c) {
		if i == 0 && !explicit {
			continue // the pattern
		}
		out = append(out, w)
	}
	return out
}

// gitPathspecSensitive: git's path arguments are pathspecs, globs of its
// own (quoted or not, * crossing /), and rev:path or :N:path name files
// of a commit or of the index. A pathspec that could name a sensitive
// file, or uses pathspec magic (":(glob)", ":!x"), is sensitive.
func (a *Analyzer) gitPathspecSensitive(c *Command, env Env) []string {
	if c.Name != "git" {
		return nil
	}
	sub, rest, _ := gitSubcommand(c.Values())
	switch sub {
	case "log", "show", "diff", "grep", "blame", "cat-file", "ls-files", "ls-tree", "shortlog", "whatchanged":
	default:
		return nil
	}
	var out []string
	cwd, _ := a.dirOf(env, c)
	for _, w := range c.Args[len(c.Args)-len(rest):] {
		v := w.Value
		if v == "--" || strings.HasPrefix(v, "-") {
			continue
		}
		spec := v
		if _, p, ok := strings.Cut(v, ":"); ok && !strings.HasPrefix(v, ":(") {
			spec = p
			// :0:path, :1:path ... (an index stage)
			if stage, p2, ok := strings.Cut(p, ":"); ok && len(stage) == 1 && stage[0] >= '0' && stage[0] <= '3' {
				spec = p2
			}
		}
		switch {
		case strings.HasPrefix(spec, ":"):
			out = append(out, v+" (a pathspec with magic)")
		case strings.ContainsAny(spec, "*?["):
			if p, ok := a.paths.GlobMaySensitive(spec, cwd); ok {
				out = append(out, p)
			} else if p, ok := a.paths.GlobMaySensitive("*/"+spec, cwd); ok && strings.Contains(spec, "*") {
				out = append(out, p) // git's * crosses directories
			}
		case spec != v:
			// HEAD:.env, :0:.env: a path of the repository, by spelling.
			if _, ok := a.paths.Sensitive(spec); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func displayName(c *Command) string {
	if c.Name == "" {
		return "an assignment"
	}
	return c.Name
}

// pathCandidates are the words of a command that may name files. For
// read-only commands whose arguments are text or patterns (echo, grep's
// pattern, find's expression, sed's script), those are left out; for
// every other command each argument counts, with the value of --opt=value
// and the rest of -oVALUE; git's rev:path names its path.
func pathCandidates(c *Command) []Word { return appendPathCandidates(nil, c) }

// appendPathCandidates is pathCandidates into dst (empty: a caller's
// stack buffer with room spares the allocation). The answer may instead
// be a list of c's own (sed's files): it is read, never changed.
func appendPathCandidates(dst []Word, c *Command) []Word {
	out := dst[:0]
	add := func(w Word, v string) {
		w.Value = v
		out = append(out, w)
	}
	if readOnly(c) {
		switch c.Name {
		case "echo", "printf", "expr", "seq", "numfmt", "id", "uname", "whoami", "true", "false", "pwd", "which", "whereis", "type", ":":
			return nil
		case "grep", "egrep", "fgrep", "rg", "ag", "ack":
			explicit := hasShortOrLong(c.Values(), "ef", "--regexp", "--file")
			for i, w := range searchOperands(c) {
				if i == 0 && !explicit {
					continue // the pattern
				}
				out = append(out, w)
			}
			for _, f := range optionValues(c.Name, c.Values(), 'f', "file") {
				out = append(out, Word{Raw: f, Value: f}) // a file of patterns is read too
			}
			return out
		case "find":
			for _, w := range c.Args {
				if strings.HasPrefix(w.Value, "-") || w.Value == "(" || w.Value == "!" {
					break // the paths come before the expression
				}
				out = append(out, w)
			}
			return out
		case "sed":
			return parseSed(c).files
		}
	}
	if n := 2*len(c.Args) + len(c.Assigns); cap(out) < n {
		// Room for each argument and a value it holds, in one allocation.
		out = make([]Word, 0, n)
	}
	for _, w := range c.Args {
		v := w.Value
		out = append(out, w)
		if strings.HasPrefix(v, "-") {
			if _, val, ok := strings.Cut(v, "="); ok {
				add(w, val)
			} else if !strings.HasPrefix(v, "--") && len(v) > 2 {
				add(w, v[2:])
			}
		}
		if _, p, ok := strings.Cut(v, ":"); ok && c.Name == "git" {
			add(w, p) // HEAD:.env
		}
	}
	for _, as := range c.Assigns {
		out = append(out, as.Value)
	}
	return out
}

// searchOperands returns grep's (or rg's) operands: the arguments that are
// neither options nor the values of options that take one.
func searchOperands(c *Command) []Word {
	var out []Word
	args := c.Args
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(v, "--"):
			if !strings.Contains(v, "=") && hasLong([]string{v}, "--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context", "--glob", "--type", "--type-not", "--iglob", "--max-depth", "--encoding", "--include", "--exclude", "--exclude-dir", "--label", "--devices", "--directories", "--binary-files", "--color", "--colour", "--pre", "--replace", "--sort", "--sortr", "--threads", "--max-filesize", "--max-columns") {
				i++
			}
		case strings.HasPrefix(v, "-") && v != "-":
			// -e PATTERN, -m N, -A N, ...: the value is the rest of the
			// cluster or the next word. (grep -r recurses; rg -r replaces.)
			valued := "efmABCdD"
			switch c.Name {
			case "rg":
				valued = "efmABCgtTrjM"
			case "ag", "ack":
				valued = "ABCGgm"
			}
			if j := strings.IndexAny(v[1:], valued); j >= 0 && j+2 == len(v) {
				i++
			}
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// operands returns the arguments that are not options.
func operands(c *Command) []Word {
	var out []Word
	for i, w := range c.Args {
		if w.Value == "--" {
			return append(out, c.Args[i+1:]...)
		}
		if strings.HasPrefix(w.Value, "-") && w.Value != "-" {
			continue
		}
		out = append(out, w)
	}
	return out
}

// hasShortOrLong reports a short option among letters (also inside a
// cluster) or one of the long options.
func hasShortOrLong(args []string, letters string, long ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if shortFlagHas(a, letters) {
			return true
		}
	}
	return hasLong(args, long...)
}

// resolve returns the absolute path an argument names, resolved as the
// kernel would; ok is false when it depends on something unknown (a
// variable, ~user, a relative path after a cd).
func (a *Analyzer) resolve(w Word, cwd string, afterCd bool) (string, bool) {
	v, ok := a.wordPath(w)
	if !ok {
		return "", false
	}
	return a.paths.Resolve(v, commandDir(Env{Cwd: cwd}, afterCd))
}

// Sensitive reports whether a path names a dangerous file or lies inside a
// dangerous directory, by its spelling.
func (a *Analyzer) Sensitive(path string) bool {
	_, ok := a.paths.Sensitive(path)
	return ok
}

// outputLongOptions name a file (or folder) a program writes.
var outputLongOptions = []string{"--output", "--output-file", "--outfile", "--output-document", "--log-file", "--junitxml",
	"--junit-xml", "--basetemp", "--target-dir", "--out-dir", "--output-dir", "--outdir", "--dest", "--destination"}

// outputShortCommands take -o FILE as their output (compilers, linkers,
// go build, sort).
var outputShortCommands = setOf("go", "gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "as", "rustc", "tcc", "zig", "sort", "xz", "zstd")

// OptionOutputsInside reports whether every file a command is told to
// write by an option (git log --output=F, go build -o F, gcc -o F,
// pytest --junitxml=F, go test -coverprofile=F) lies inside a working
// directory: an allow rule for the command does not vouch for where it
// writes.
func (a *Analyzer) OptionOutputsInside(s *Script, env Env) bool {
	for _, c := range s.Commands {
		if c.Name == "" || readOnly(c) {
			continue
		}
		args := c.Args
		for i := 0; i < len(args); i++ {
			v := args[i].Value
			if v == "--" {
				break
			}
			var target *Word
			switch {
			case strings.HasPrefix(v, "--"):
				name, val, attached := strings.Cut(v, "=")
				if !hasLong([]string{name}, outputLongOptions...) || len(name) < 5 {
					continue
				}
				if attached {
					w := args[i]
					w.Value = val
					target = &w
				} else if i+1 < len(args) {
					target = &args[i+1]
					i++
				}
			case c.Name == "go" && strings.HasPrefix(v, "-"):
				name, val, attached := strings.Cut(strings.TrimLeft(v, "-"), "=")
				if name != "o" && !strings.HasSuffix(name, "profile") && name != "trace" && name != "outputdir" {
					continue
				}
				if attached {
					w := args[i]
					w.Value = val
					target = &w
				} else if i+1 < len(args) {
					target = &args[i+1]
					i++
				}
			case outputShortCommands[c.Name] && v == "-o" && i+1 < len(args):
				target = &args[i+1]
				i++
			case outputShortCommands[c.Name] && strings.HasPrefix(v, "-o") && len(v) > 2:
				w := args[i]
				w.Value = v[2:]
				target = &w
			}
			if target == nil {
				continue
			}
			dir, ok := a.dirOf(env, c)
			p, known := a.wordPath(*target)
			if !ok || !known || target.Glob || !a.paths.Inside(p, dir, env.WorkingDirs) {
				return false
			}
		}
	}
	return true
}

// OutputsInside reports whether every output redirect of the script
// (other than /dev/null and the standard streams) writes inside a working
// directory: an allow rule for a command does not vouch for where its
// output goes.
func (a *Analyzer) OutputsInside(s *Script, env Env) bool {
	for _, rd := range s.Redirects {
		if rd.Output() && !harmlessOutput(cleanAbs(rd.Target.Value)) && !a.targetInside(rd.Target, env, anyAfterCd(s)) {
			return false
		}
	}
	return true
}
