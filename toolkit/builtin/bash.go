package builtin

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/wasmtools/wasmtools/permission"
	shell "github.com/wasmtools/wasmtools/permission/bash"
	"github.com/wasmtools/wasmtools/toolkit"
)

// Bash limits, from the reference.
const (
	DefaultBashTimeout = 120 * time.Second
	MaxBashTimeout     = 600 * time.Second
	// MaxBashOutput is how many characters of output a call returns.
	MaxBashOutput = 30_000
)

// BashOptions configure the Bash tool.
type BashOptions struct {
	// Cwd is the directory commands start in; empty means the permission
	// context's directory (its Cwd, else its first working directory).
	Cwd string
	// DangerousFiles and DangerousDirs replace the default lists of
	// sensitive paths when not nil; an empty list turns the check off.
	DangerousFiles, DangerousDirs []string
	// Backend runs the commands; nil means a LocalBackend.
	Backend Backend
	// Home is the home directory for ~ and $HOME in path checks; empty
	// means the current user's.
	Home string
}

// Bash runs shell commands. Its permission check is the static analysis of
// package permission/bash: fail-closed, per simple command.
type Bash struct {
	opts     BashOptions
	analyzer *shell.Analyzer
	backend  Backend
}

// NewBash returns the Bash tool.
func NewBash(opts BashOptions) *Bash {
	b := &Bash{opts: opts, backend: opts.Backend}
	if b.backend == nil {
		b.backend = &LocalBackend{}
	}
	b.analyzer = shell.New(shell.Options{DangerousFiles: opts.DangerousFiles, DangerousDirs: opts.DangerousDirs, Home: opts.Home})
	return b
}

var bashSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The shell command to run (bash syntax)."},
    "timeout": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "Timeout in milliseconds (default 120000, at most 600000). The whole process group is killed when it expires."},
    "description": {"type": "string", "description": "A few words saying what the command does, shown to the user."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)

// Spec implements toolkit.Tool.
func (b *Bash) Spec() toolkit.Spec {
	return toolkit.Spec{
		Name: "Bash",
		Description: "Runs a shell command and returns its output (standard output and standard error, " +
			"cut after 30,000 characters). Each call starts a fresh shell in the working directory. " +
			"Prefer the Read, Glob and Grep tools for reading and searching files.",
		InputSchema: bashSchema,
		Source:      toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

func (b *Bash) cwd(pc *permission.Context) string {
	if b.opts.Cwd != "" {
		return b.opts.Cwd
	}
	if pc != nil {
		return pc.Dir()
	}
	return ""
}

func (b *Bash) report(in toolkit.Input, pc *permission.Context) *shell.Report {
	env := shell.Env{Cwd: b.cwd(pc)}
	if pc != nil {
		env.WorkingDirs = pc.WorkingDirs
	}
	return b.analyzer.Analyze(in.String("command"), env)
}

// IsReadOnly implements toolkit.ReadOnlyChecker: every command only reads
// and nothing sensitive is read.
func (b *Bash) IsReadOnly(in toolkit.Input) bool {
	return b.report(in, nil).ReadOnly
}

// CheckPermissions implements toolkit.Tool, composing the analysis steps:
// unanalysable, dangerous, bad sed, sensitive writes and critical removals
// ask for the user (bypass-immune); a read-only command is allowed; a
// sensitive read asks; edits inside the working directories are allowed
// in accept_edits and dont_ask; the rest is left to the engine.
func (b *Bash) CheckPermissions(_ context.Context, in toolkit.Input, pc *permission.Context) (permission.Decision, error) {
	r := b.report(in, pc)
	if strings.TrimSpace(in.String("command")) == "" {
		return permission.AskDecision("The command is empty.", "empty command"), nil
	}
	if why := r.Safety(); why != "" {
		d := permission.SafetyAsk("Safety check: "+why+". Approve only if you meant exactly this.", why)
		// No rule can silence a safety ask: suggesting one would mislead.
		d.Suggestions = []permission.Rule{}
		return d, nil
	}
	if r.ReadOnly {
		return permission.AllowDecision("read-only command"), nil
	}
	if len(r.SensitiveReads) > 0 {
		return permission.AskDecision("The command "+r.SensitiveReads[0]+".", r.SensitiveReads[0]), nil
	}
	if (pc.Mode == permission.ModeAcceptEdits || pc.Mode == permission.ModeDontAsk) && r.EditsInWorkingDirs {
		return permission.AllowDecision("edits inside the working directories"), nil
	}
	return permission.PassthroughDecision(), nil
}

// MatchRule implements toolkit.RuleMatcher for deny and ask rules: the rule
// hits if it matches any simple command of the script.
func (b *Bash) MatchRule(content string, in toolkit.Input, _ *permission.Context) bool {
	if content == "" {
		return true
	}
	return shell.MatchAny(b.analyzer.Parse(in.String("command")), content)
}

// CoveredBy implements toolkit.RulesCoverer: allow rules cover the script
// when each of its simple commands is read-only or matched by one of them.
func (b *Bash) CoveredBy(contents []string, in toolkit.Input, pc *permission.Context) bool {
	for _, c := range contents {
		if c == "" {
			return true // a tool-level rule allows every command
		}
	}
	s := b.analyzer.Parse(in.String("command"))
	if !shell.CoveredBy(s, contents) {
		return false
	}
	env := shell.Env{Cwd: b.cwd(pc)}
	if pc != nil {
		env.WorkingDirs = pc.WorkingDirs
	}
	return b.analyzer.OutputsInside(s, env)
}

// MatchForeignRule implements toolkit.ForeignRuleMatcher: a deny rule on
// Read(pattern) also hits commands that read a matching path with a known
// reader (cat, grep, sed, ...). A reader whose arguments are not known
// statically could read anything, so it hits too.
func (b *Bash) MatchForeignRule(rule permission.Rule, in toolkit.Input, pc *permission.Context) bool {
	if rule.Tool != "Read" {
		return false
	}
	s := b.analyzer.Parse(in.String("command"))
	targets, unknown := shell.ReadTargets(s)
	if unknown {
		return true
	}
	if len(targets) == 0 {
		return false
	}
	if rule.Content == "" {
		return true
	}
	for _, t := range targets {
		p, ok := b.analyzer.Resolve(t.Word, b.cwd(pc), t.AfterCd)
		if !ok {
			return true
		}
		paths := []string{p}
		if t.Word.Glob {
			// What the glob reads is what it expands to now, and anything
			// the rule names that it could expand to.
			paths, _ = filepath.Glob(p)
			if globMayName(p, rule.Content, pc) {
				return true
			}
		}
		for _, p := range paths {
			if matchPathRule(rule.Content, p, pc) || (t.Recursive && ruleBelow(rule.Content, p, pc)) {
				return true
			}
		}
	}
	return false
}

// globMayName reports whether a shell glob could match what a path rule
// names (cat .secre? against Read(.secret)).
func globMayName(glob, pattern string, pc *permission.Context) bool {
	patterns := []string{pattern}
	if !filepath.IsAbs(pattern) {
		patterns = nil
		if pc != nil {
			for _, wd := range pc.WorkingDirs {
				patterns = append(patterns, filepath.Join(wd, pattern))
			}
		}
	}
	for _, p := range patterns {
		if ok, _ := filepath.Match(glob, p); ok {
			return true
		}
		if ok, _ := doublestar.Match(p, glob); ok {
			return true
		}
	}
	return false
}

// ruleBelow reports whether a path rule names files below dir: a
// recursive search of dir reads them.
func ruleBelow(pattern, dir string, pc *permission.Context) bool {
	patterns := []string{pattern}
	if !filepath.IsAbs(pattern) {
		patterns = nil
		if pc != nil {
			for _, wd := range pc.WorkingDirs {
				patterns = append(patterns, filepath.Join(wd, pattern))
			}
		}
	}
	for _, p := range patterns {
		static := p
		if i := strings.IndexAny(p, "*?[{"); i >= 0 {
			static = p[:i]
		}
		static = strings.TrimSuffix(static, "/")
		if static == dir || strings.HasPrefix(static, strings.TrimSuffix(dir, "/")+"/") || dir == "/" {
			return true
		}
	}
	return false
}

// matchPathRule matches an absolute path against a path rule: a doublestar
// glob, absolute or anchored at each working directory.
func matchPathRule(pattern, path string, pc *permission.Context) bool {
	if filepath.IsAbs(pattern) {
		ok, _ := doublestar.Match(pattern, path)
		return ok
	}
	if pc == nil {
		return false
	}
	for _, wd := range pc.WorkingDirs {
		if ok, _ := doublestar.Match(filepath.Join(wd, pattern), path); ok {
			return true
		}
	}
	return false
}

// Suggestions implements toolkit.Suggester: one prefix rule per distinct
// command, none for interpreters, shells and wrappers.
func (b *Bash) Suggestions(in toolkit.Input) []permission.Rule {
	var out []permission.Rule
	for _, c := range shell.Suggestions(b.analyzer.Parse(in.String("command"))) {
		out = append(out, permission.Rule{Tool: "Bash", Content: c})
	}
	return out
}

// Call implements toolkit.Caller: it streams the command's output as it
// comes and ends with the exit code in the metadata. A non-zero exit code
// or a timeout makes the response an error.
func (b *Bash) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		timeout := DefaultBashTimeout
		if ms, ok := in.Int("timeout"); ok && ms > 0 {
			timeout = min(time.Duration(ms)*time.Millisecond, MaxBashTimeout)
		}
		var pc *permission.Context
		if rt := toolkit.RuntimeFrom(ctx); rt != nil {
			pc = rt.Permission
		}
		req := ExecRequest{Command: in.String("command"), Dir: b.cwd(pc), Timeout: timeout}

		streamCommand(ctx, yield, MaxBashOutput, timeout, "the command and its children were killed",
			func(ctx context.Context, output func([]byte)) (ExecResult, error) {
				return b.backend.Exec(ctx, req, func(_ Stream, data []byte) { output(data) })
			})
	}
}
