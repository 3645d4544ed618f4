package bash

import (
	"fmt"
	"os"
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
		if rd.Output() && !harmlessOutput(rd.Target.Value) {
			ro = false
		}
		if rd.Output() && strings.HasPrefix(rd.Target.Value, "/dev/") && !harmlessOutput(rd.Target.Value) {
			r.Dangerous = append(r.Dangerous, fmt.Sprintf("writes to the device %s", rd.Target.Value))
		}
	}
	r.Dangerous = append(r.Dangerous, pipedDownloads(s)...)
	a.sensitive(s, r)
	r.CriticalRemovals = a.criticalRemovals(s, env)
	r.ReadOnly = ro && len(r.SensitiveReads) == 0 && len(r.SensitiveWrites) == 0 && len(r.Dangerous) == 0 && len(r.Sed) == 0 && len(r.CriticalRemovals) == 0
	if len(s.Commands) == 0 && len(s.Redirects) == 0 {
		r.ReadOnly = false
	}
	if !r.ReadOnly {
		r.EditsInWorkingDirs = a.editsInWorkingDirs(s, env)
	}
	return r
}

func harmlessOutput(target string) bool {
	switch target {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return false
}

// sensitive fills SensitiveReads and SensitiveWrites.
func (a *Analyzer) sensitive(s *Script, r *Report) {
	for _, c := range s.Commands {
		ro := readOnly(c)
		for _, w := range pathCandidates(c) {
			if p, ok := a.sensitivePath(w); ok {
				if ro {
					r.SensitiveReads = append(r.SensitiveReads, fmt.Sprintf("%s reads the sensitive path %s", c.Name, p))
				} else {
					r.SensitiveWrites = append(r.SensitiveWrites, fmt.Sprintf("%s touches the sensitive path %s", displayName(c), p))
				}
			}
		}
	}
	for _, rd := range s.Redirects {
		p, ok := a.sensitivePath(rd.Target.Value)
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

func displayName(c *Command) string {
	if c.Name == "" {
		return "an assignment"
	}
	return c.Name
}

// pathCandidates are the strings of a command that may name files: every
// argument, the value of --opt=value, and the rest of -oVALUE.
func pathCandidates(c *Command) []string {
	var out []string
	for _, a := range c.Args {
		v := a.Value
		out = append(out, v)
		if strings.HasPrefix(v, "-") {
			if _, val, ok := strings.Cut(v, "="); ok {
				out = append(out, val)
			} else if !strings.HasPrefix(v, "--") && len(v) > 2 {
				out = append(out, v[2:])
			}
		}
	}
	for _, as := range c.Assigns {
		out = append(out, as.Value.Value)
	}
	return out
}

// sensitivePath reports whether a path names a dangerous file or lies in a
// dangerous directory, and returns the part that matched.
func (a *Analyzer) sensitivePath(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	lower := strings.ToLower(strings.TrimRight(p, "/"))
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
		v = filepath.Join(cwd, v)
	}
	return realPath(filepath.Clean(v)), true
}

// realPath resolves symbolic links in the longest existing prefix of p.
func realPath(p string) string {
	rest := ""
	cur := p
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// inside reports whether p is one of dirs or below one.
func inside(p string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d = realPath(filepath.Clean(d))
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
	return inside(realPath(filepath.Clean(path)), dirs)
}
