package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wasmtools/wasmtools/permission"
	shell "github.com/wasmtools/wasmtools/permission/bash"
	"github.com/wasmtools/wasmtools/permission/pathpolicy"
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
	c := &struct {
		b     Bash
		local LocalBackend
	}{}
	b := &c.b
	b.opts, b.backend = opts, opts.Backend
	if b.backend == nil {
		b.backend = &c.local
	}
	b.analyzer = shell.NewWithPolicy(pathpolicy.New(pathpolicy.Options{DangerousFiles: opts.DangerousFiles, DangerousDirs: opts.DangerousDirs, Home: opts.Home}))
	return b
}

var bashSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The shell command to run (bash syntax)."},
    "timeout": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "Timeout in milliseconds (default 120000, at most 600000). The whole process group is killed when it expires."},
    "description": {"type": "string", "description": "A few words saying what the command does, shown to the user."},
    "sandbox": {"type": "string", "enum": ["on", "off"], "description": "Leave out (\"on\"). Set \"off\" only to re-run a command the OS sandbox refused (the result says so) and that must write outside the working directories or use the network: the user is asked to approve running it unconfined."}
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

// env is where the command runs, for the analysis. Only the modes
// accept_edits and dont_ask allow edits inside the working directories
// by themselves (CheckPermissions); in the others the analysis leaves
// out the step that looks for them.
func (b *Bash) env(pc *permission.Context) shell.Env {
	env := shell.Env{Cwd: b.cwd(pc), NoEdits: true}
	if pc != nil {
		env.WorkingDirs, env.NoEdits = pc.WorkingDirs, !editsAllowed(pc.Mode)
	}
	return env
}

// bashReport is one analysis shared within a decision: the report of
// the command, run in the directory cwd; the working directories come
// from the decision's context. It is kept under the tool itself (a
// pointer key, which costs no allocation to look up) and used only for
// the same command, directory and edits step.
type bashReport struct {
	command, cwd string
	noEdits      bool
	report       *shell.Report
}

// report analyses the command. Within one permission decision the
// read-only verdict, the tool's own check and the rule coverage share
// one analysis (permission.Context.Shared); never across decisions.
func (b *Bash) report(in toolkit.Input, pc *permission.Context) *shell.Report {
	command, env := in.String("command"), b.env(pc)
	shared := pc.Shared(b, func() any {
		return &bashReport{command: command, cwd: env.Cwd, noEdits: env.NoEdits, report: b.analyzer.Analyze(command, env)}
	}).(*bashReport)
	if shared.command != command || shared.cwd != env.Cwd || shared.noEdits != env.NoEdits {
		// Another input in the same decision: not this one's analysis.
		return b.analyzer.Analyze(command, env)
	}
	return shared.report
}

// IsReadOnly implements toolkit.ReadOnlyChecker, for callers without a
// permission context: judged from the tool's own directory.
func (b *Bash) IsReadOnly(in toolkit.Input) bool { return b.IsReadOnlyIn(in, nil) }

// IsReadOnlyIn implements toolkit.ContextReadOnlyChecker: every command
// only reads, nothing sensitive is read (by name, through links, or in a
// tree a recursive reader walks), and nothing in the arguments can turn
// into an option or a planted configuration where the call runs.
func (b *Bash) IsReadOnlyIn(in toolkit.Input, pc *permission.Context) bool {
	// A command whose words say it writes (mkdir, a redirect to a file)
	// is not read-only wherever its paths lead: the path analysis and its
	// system calls are left to the checks that need them (none, in the
	// mode explore, which then denies). One whose text alone shows it
	// cannot be analysed (a substitution, a loop) is not even parsed
	// here.
	command := in.String("command")
	if shell.SurelyUnanalysable(command) || !shell.MayReadOnly(b.analyzer.Parse(command)) {
		return false
	}
	return b.report(in, pc).ReadOnly
}

// CheckPermissions implements toolkit.Tool, composing the analysis steps:
// unanalysable, dangerous, bad sed, sensitive writes and critical removals
// ask for the user (bypass-immune); a read-only command is allowed; a
// sensitive read, or a read that cannot be vouched for where it runs,
// asks; edits inside the working directories are allowed in accept_edits
// and dont_ask; the rest is left to the engine.
func (b *Bash) CheckPermissions(_ context.Context, in toolkit.Input, pc *permission.Context) (permission.Decision, error) {
	r := b.report(in, pc)
	if strings.TrimSpace(in.String("command")) == "" {
		return permission.AskDecision("The command is empty.", "empty command"), nil
	}
	if why := r.Safety(); why != "" {
		return permission.SafetyAsk("Safety check: "+why+". Approve only if you meant exactly this.", why), nil
	}
	if r.ReadOnly {
		return permission.AllowDecision("read-only command"), nil
	}
	if len(r.SensitiveReads) > 0 {
		return permission.AskDecision("The command "+r.SensitiveReads[0]+".", r.SensitiveReads[0]), nil
	}
	if len(r.Untrusted) > 0 {
		return permission.AskDecision("The command cannot be vouched for here: "+r.Untrusted[0]+".", r.Untrusted[0]), nil
	}
	if editsAllowed(pc.Mode) && r.EditsInWorkingDirs {
		return permission.AllowDecision("edits inside the working directories"), nil
	}
	return permission.PassthroughDecision(), nil
}

// editsAllowed reports the permission modes in which CheckPermissions
// allows edits inside the working directories without asking.
func editsAllowed(m permission.Mode) bool {
	return m == permission.ModeAcceptEdits || m == permission.ModeDontAsk
}

// Escalation implements toolkit.Escalator: "sandbox": "off" asks the
// user, in every mode, to run the command outside the OS sandbox.
func (b *Bash) Escalation(in toolkit.Input, _ *permission.Context) string {
	return sandboxEscalation(b.backend, in)
}

// MatchRule implements toolkit.RuleMatcher for deny and ask rules: the rule
// hits if it matches any simple command of the script, and may hit when
// the script runs code the analysis cannot see.
func (b *Bash) MatchRule(content string, in toolkit.Input, _ *permission.Context) permission.Match {
	if content == "" {
		return permission.Matches
	}
	switch shell.MatchAny(b.analyzer.Parse(in.String("command")), content) {
	case shell.Matches:
		return permission.Matches
	case shell.MayMatch:
		return permission.MayMatch
	}
	return permission.NoMatch
}

// CoveredBy implements toolkit.RulesCoverer: allow rules cover the script
// when each of its simple commands is read-only or matched by one of them,
// its output goes inside the working directories, and nothing it reads is
// sensitive or can turn into an option where it runs.
func (b *Bash) CoveredBy(contents []string, in toolkit.Input, pc *permission.Context) bool {
	for _, c := range contents {
		if c == "" {
			return true // a tool-level rule allows every command
		}
	}
	// The rules first: matching them needs only the (cached) parse, and
	// most scripts they do not cover need no analysis at all.
	if !shell.CoveredBy(b.analyzer.Parse(in.String("command")), contents) {
		return false
	}
	r := b.report(in, pc)
	if len(r.SensitiveReads) > 0 || len(r.Untrusted) > 0 {
		return false
	}
	env := b.env(pc)
	return b.analyzer.OutputsInside(r.Script, env) && b.analyzer.OptionOutputsInside(r.Script, env)
}

// SharesRulesWith implements toolkit.RuleSharer: none. Bash honours the
// path rules of Read, Edit and Write through MatchForeignRule, which
// knows which of its commands read and which write.
func (b *Bash) SharesRulesWith() []string { return nil }

// MatchForeignRule implements toolkit.ForeignRuleMatcher: a deny or ask
// rule on Read(pattern) also hits commands that read a matching path
// (cat, grep -r, find -exec cat {}, git show :0:path, ...), one on
// Edit(pattern) or Write(pattern) commands that write one (redirects, rm,
// mv, cp, touch, sed -i, tee, tar -x, git checkout, ...). Paths are
// matched as spelled and as resolved. A reader or writer whose paths are
// known only when it runs may match.
func (b *Bash) MatchForeignRule(rule permission.Rule, in toolkit.Input, pc *permission.Context) permission.Match {
	var targets []shell.PathTarget
	var unknown bool
	s := b.analyzer.Parse(in.String("command"))
	recursiveCertain := true
	switch {
	case rule.Tool == "Read":
		targets, unknown = shell.ReadTargets(s)
		targets = append(targets, shell.ArgumentPaths(s, false)...)
	case (rule.Tool == "Edit" || rule.Tool == "Write") && rule.Host:
		// The host's configuration: the paths commands are sure to write,
		// writes through links made earlier in the same command, and code
		// the analysis cannot see (python3 -c, awk print >), unless the
		// OS sandbox keeps the file read-only for the command (it then
		// need not ask about what it cannot see). Not whole folders
		// rewritten (git checkout, tar -x), nor loops and substitutions
		// whose commands are collected: guarding a file must not make
		// every script ask.
		all, unknownTarget := shell.WriteTargets(s)
		for _, t := range all {
			if !t.Recursive {
				targets = append(targets, t)
			}
		}
		unknown = unknownTarget || shell.Opaque(s) || len(all) > 1 && b.analyzer.MakesLinks(s, b.env(pc))
		if len(targets) == 0 && !unknown {
			return permission.NoMatch
		}
		m := matchTargets(b.analyzer, rule.Content, targets, unknown, b.env(pc), pc, false)
		if m == permission.MayMatch && kernelGuards(b.backend, in, strings.TrimPrefix(rule.Content, "/")) {
			return permission.NoMatch
		}
		return m
	case rule.Tool == "Edit" || rule.Tool == "Write":
		targets, unknown = shell.WriteTargets(s)
		targets = append(targets, shell.ArgumentPaths(s, true)...)
		// A folder rewritten as a whole may or may not touch the path.
		recursiveCertain = false
	default:
		return permission.NoMatch
	}
	// Code the analysis cannot see (python3 -c, awk with print >, sed w)
	// may read or write anything; so may a script that makes links and
	// then writes or reads through paths resolved before they existed.
	unknown = unknown || shell.Opaque(s) || len(targets) > 1 && b.analyzer.MakesLinks(s, b.env(pc))
	if len(targets) == 0 && !unknown {
		return permission.NoMatch
	}
	if rule.Content == "" {
		if len(targets) == 0 {
			return permission.MayMatch
		}
		return permission.Matches
	}
	return matchTargets(b.analyzer, rule.Content, targets, unknown, b.env(pc), pc, recursiveCertain)
}

// matchTargets matches a path rule against what a script reads or
// writes.
func matchTargets(a *shell.Analyzer, content string, targets []shell.PathTarget, unknown bool, env shell.Env, pc *permission.Context, recursiveCertain bool) permission.Match {
	// One scope for the rule: its targets and the working directories
	// share folders, which the scope looks up once (never longer).
	paths := a.Policy().ScopedIn(env.Cwd)
	var dirs []string
	if pc != nil {
		dirs = pc.WorkingDirs
	}
	maybe := unknown
	for _, t := range targets {
		v, ok := a.WordPath(t.Word)
		cwd := env.Cwd
		if t.AfterCd {
			cwd = ""
		}
		if !ok || !pathpolicy.AbsKnown(v, cwd) {
			// The path is known only when the command runs: a relative
			// path after a cd, a variable.
			if !ok || !strings.HasPrefix(v, "/") {
				maybe = true
				continue
			}
		}
		switch {
		case t.Word.Glob:
			if paths.GlobMayMatch(content, v, cwd, dirs) {
				return permission.Matches
			}
		case paths.Match(content, v, cwd, dirs, pathpolicy.Loose):
			return permission.Matches
		case t.Recursive && paths.NamesBelow(content, v, cwd, dirs):
			if recursiveCertain {
				return permission.Matches
			}
			maybe = true
		case t.Recursive && t.FollowLinks:
			// Links below the folder carry the reader wherever they
			// point: match what each resolves to.
			hit := false
			complete := paths.Walk(v, cwd, pathpolicy.TreeOptions{Hidden: true, FollowLinks: true}, func(name, real string) bool {
				hit = name != real && (paths.Match(content, real, "/", dirs, pathpolicy.Loose) || paths.NamesBelow(content, real, "/", dirs))
				return hit
			})
			if hit {
				return permission.Matches
			}
			if !complete {
				maybe = true
			}
		}
	}
	if maybe {
		return permission.MayMatch
	}
	return permission.NoMatch
}

// Suggestions implements toolkit.Suggester: one prefix rule per distinct
// command, none for interpreters, shells and wrappers.
func (b *Bash) Suggestions(in toolkit.Input) []permission.Rule {
	cs := shell.Suggestions(b.analyzer.Parse(in.String("command")))
	if len(cs) == 0 {
		return nil
	}
	out := make([]permission.Rule, len(cs))
	for i, c := range cs {
		out[i] = permission.Rule{Tool: "Bash", Content: c}
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
		req := ExecRequest{Command: in.String("command"), Dir: b.cwd(pc), Timeout: timeout, Env: gitSafetyEnv(),
			Unsandboxed: in.String("sandbox") == "off"}

		streamCommand(ctx, yield, MaxBashOutput, timeout, "the command and its children were killed",
			func(ctx context.Context, output func([]byte)) (ExecResult, error) {
				return b.backend.Exec(ctx, req, func(_ Stream, data []byte) { output(data) })
			})
	}
}

// gitSafetyEnv configures every git a command runs, with the precedence
// of git's command line, so that a repository's own files cannot make an
// allowed git command run a program: a bare repository is used only when
// named (a working directory whose HEAD, config, objects/ and refs/ were
// written as ordinary files is not taken for one), and no file-system
// monitor program starts (core.fsmonitor in a repository's config runs
// on git status). Entries of the caller's GIT_CONFIG_COUNT are kept.
func gitSafetyEnv() []string {
	n, err := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT"))
	if err != nil || n < 0 {
		n = 0
	}
	pairs := [][2]string{{"safe.bareRepository", "explicit"}, {"core.fsmonitor", "false"}}
	env := make([]string, 0, 2*len(pairs)+1)
	for i, p := range pairs {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, p[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, p[1]))
	}
	return append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+len(pairs)))
}
