package bash

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
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
	files []string // lower case
	dirs  [][]string
	home  string
	cache *scriptCache
}

// New returns an analyzer.
func New(opts Options) *Analyzer {
	a := &Analyzer{home: opts.Home, cache: newScriptCache()}
	files := opts.DangerousFiles
	if files == nil {
		files = DefaultDangerousFiles
	}
	for _, f := range files {
		a.files = append(a.files, strings.ToLower(strings.Trim(f, "/")))
	}
	dirs := opts.DangerousDirs
	if dirs == nil {
		dirs = DefaultDangerousDirs
	}
	for _, d := range dirs {
		a.dirs = append(a.dirs, strings.Split(strings.ToLower(strings.Trim(d, "/")), "/"))
	}
	if a.home == "" {
		a.home, _ = os.UserHomeDir()
	}
	return a
}

// Env is where a command runs, for the path checks.
type Env struct {
	// WorkingDirs are the directories edits may be auto-allowed in.
	WorkingDirs []string
	// Cwd is the directory the command starts in.
	Cwd string
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
	ro := true
	for _, c := range s.Commands {
		if !readOnly(c) {
			ro = false
		}
		r.Dangerous = append(r.Dangerous, dangerous(c)...)
		r.Sed = append(r.Sed, sedFindings(c)...)
	}
	for _, rd := range s.Redirects {
		target := cleanAbs(rd.Target.Value)
		if rd.Output() && !harmlessOutput(target) {
			ro = false
		}
		if rd.Output() && strings.HasPrefix(target, "/dev/") && !harmlessOutput(target) {
			r.Dangerous = append(r.Dangerous, fmt.Sprintf("writes to the device %s", target))
		}
		if strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/") {
			ro = false // bash opens a network connection
		}
		// Here-documents and here-strings expand variables into the
		// command's input: the same rule as for arguments.
		if !harmlessWord(rd.Target) {
			ro = false
		}
	}
	r.Dangerous = append(r.Dangerous, pipedDownloads(s)...)
	a.sensitive(s, env, r)
	r.CriticalRemovals = a.criticalRemovals(s, env)
	r.ReadOnly = ro && len(r.SensitiveReads) == 0 && len(r.SensitiveWrites) == 0 && len(r.Dangerous) == 0 && len(r.Sed) == 0 && len(r.CriticalRemovals) == 0
	if !r.ReadOnly {
		r.EditsInWorkingDirs = a.editsInWorkingDirs(s, env)
	}
	return r
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
// sensitive by its name (a glob is sensitive when it could match a
// sensitive name), by what it resolves to through symbolic links, or, for
// a recursive search, by holding the home directory (grep -r x ~).
func (a *Analyzer) sensitive(s *Script, env Env, r *Report) {
	for _, c := range s.Commands {
		ro := readOnly(c)
		for _, w := range pathCandidates(c) {
			p, ok := a.sensitiveWord(w, env, c.AfterCd)
			if !ok && ro && recursiveReader(c) {
				p, ok = a.holdsHome(w, env, c.AfterCd)
			}
			if !ok {
				continue
			}
			if ro {
				r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("%s reads the sensitive path %s", c.Name, p))
			} else {
				r.SensitiveWrites = append(r.SensitiveWrites, fmt.Sprintf("%s touches the sensitive path %s", displayName(c), p))
			}
		}
	}
	for _, rd := range s.Redirects {
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

// sensitiveWord checks a word by name, as a glob, and by the path it
// resolves to.
func (a *Analyzer) sensitiveWord(w Word, env Env, afterCd bool) (string, bool) {
	if p, ok := a.sensitivePath(w.Value); ok {
		return p, true
	}
	if w.Glob && a.globMaySensitive(w.Value) {
		return w.Value, true
	}
	if real, ok := a.resolve(w, env.Cwd, afterCd); ok {
		if _, ok := a.sensitivePath(real); ok {
			return w.Value + " (" + real + ")", true
		}
	}
	return "", false
}

// globMaySensitive reports whether a glob could match a sensitive path:
// some segment matches a sensitive name as bash would (a leading dot must
// be matched explicitly).
func (a *Analyzer) globMaySensitive(pattern string) bool {
	segs := strings.Split(strings.ToLower(pattern), "/")
	match := func(seg, name string) bool {
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
			return false
		}
		ok, _ := path.Match(seg, name)
		return ok
	}
	// A sensitive entry of several segments (.ssh/config) must match the
	// pattern's last segments; a one-segment entry any glob segment.
	entries := make([][]string, 0, len(a.files)+len(a.dirs))
	for _, f := range a.files {
		entries = append(entries, strings.Split(f, "/"))
	}
	entries = append(entries, a.dirs...)
	for _, e := range entries {
		if len(e) == 1 {
			for _, seg := range segs {
				if strings.ContainsAny(seg, "*?[") && match(seg, e[0]) {
					return true
				}
			}
			continue
		}
		if len(segs) < len(e) {
			continue
		}
		tail := segs[len(segs)-len(e):]
		all, anyGlob := true, false
		for i := range e {
			anyGlob = anyGlob || strings.ContainsAny(tail[i], "*?[")
			if !match(tail[i], e[i]) {
				all = false
				break
			}
		}
		if all && anyGlob {
			return true
		}
	}
	return false
}

// recursiveReader: commands that read every file below a directory.
func recursiveReader(c *Command) bool {
	switch c.Name {
	case "rg", "ag", "ack":
		return true
	case "grep", "egrep", "fgrep":
		fs := flagsOf(c.Name, c.Values())
		return fs.short['r'] || fs.short['R'] || fs.long["recursive"] || fs.long["dereference-recursive"]
	}
	return false
}

// holdsHome reports whether a directory is the root or holds the home
// directory, where the credential stores live (grep -r x ~, rg x /).
func (a *Analyzer) holdsHome(w Word, env Env, afterCd bool) (string, bool) {
	p, ok := a.resolve(w, env.Cwd, afterCd)
	if !ok {
		return "", false
	}
	home := filepath.Clean(a.home)
	if p == "/" || (a.home != "" && (p == home || strings.HasPrefix(home, p+"/"))) {
		return w.Value, true
	}
	return "", false
}

func displayName(c *Command) string {
	if c.Name == "" {
		return "an assignment"
	}
	return c.Name
}

// noPathArgs are read-only commands whose arguments name no files.
var noPathArgs = setOf("echo", "printf", "expr", "seq", "numfmt", "id", "uname", "whoami", "true", "false", "pwd", "which", "whereis", "type", ":")

// pathCandidates are the words of a command that may name files. For
// read-only commands whose arguments are text or patterns (echo, grep's
// pattern, find's expression, sed's script), those are left out; for
// every other command each argument counts, with the value of --opt=value
// and the rest of -oVALUE; git's rev:path names its path.
func pathCandidates(c *Command) []Word {
	var out []Word
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

// sensitivePath reports whether a path names a dangerous file or lies in a
// dangerous directory, and returns the part that matched.
func (a *Analyzer) sensitivePath(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	lower := strings.ToLower(strings.TrimRight(p, "/"))
	if strings.HasPrefix(lower, "/proc/") && strings.HasSuffix(lower, "/environ") {
		return p, true // a process's environment holds its secrets
	}
	segs := strings.Split(lower, "/")
	base := segs[len(segs)-1]
	for _, f := range a.files {
		if strings.Contains(f, "/") {
			if lower == f || strings.HasSuffix(lower, "/"+f) {
				return p, true
			}
			continue
		}
		if base == f {
			return p, true
		}
	}
	for _, d := range a.dirs {
		for i := 0; i+len(d) <= len(segs); i++ {
			match := true
			for j := range d {
				if segs[i+j] != d[j] {
					match = false
					break
				}
			}
			if match {
				return p, true
			}
		}
	}
	return "", false
}

// resolve returns the absolute, cleaned path an argument names, following
// symbolic links as far as the path exists. ok is false when the path
// depends on something unknown (a variable, ~user, a relative path after
// a cd).
func (a *Analyzer) resolve(w Word, cwd string, afterCd bool) (string, bool) {
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
	case strings.Contains(v, "$"):
		return "", false
	case w.Tilde && (v == "~" || strings.HasPrefix(v, "~/")):
		v = a.home + v[1:]
	case w.Tilde:
		return "", false // ~user
	}
	if !filepath.IsAbs(v) {
		if afterCd || cwd == "" {
			return "", false
		}
		v = cwd + "/" + v // not Join: it would apply ".." before the links
	}
	return realPath(v), true
}

// realPath resolves an absolute path as the kernel would: component by
// component, following symbolic links (dangling ones too) before a ".."
// applies to them, so linkdir/../x lands beside linkdir's target and not
// beside linkdir.
func realPath(p string) string {
	if !filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	resolved := "/"
	rest := strings.Split(p, "/")
	links := 0
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, part)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		target, err := os.Readlink(next)
		if err != nil || links > 40 {
			return next // unreadable or a loop: as good as it gets
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return resolved
}

// inside reports whether p is one of dirs or below one.
func inside(p string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d = realPath(d)
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// Sensitive reports whether a path names a dangerous file or lies inside a
// dangerous directory. The file tools use it with the same lists as the
// shell checks.
func (a *Analyzer) Sensitive(path string) bool {
	_, ok := a.sensitivePath(path)
	return ok
}

// Inside reports whether an absolute path, once .. and symbolic links are
// resolved, is one of dirs or below one.
func Inside(path string, dirs []string) bool {
	return inside(realPath(path), dirs)
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
