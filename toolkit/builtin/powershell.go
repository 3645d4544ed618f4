package builtin

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// PowerShell limits: the same as Bash's, from the reference.
const (
	DefaultPowerShellTimeout = 120 * time.Second
	MaxPowerShellTimeout     = 600 * time.Second
	// MaxPowerShellOutput is how many characters of output a call returns.
	MaxPowerShellOutput = 30_000
)

// IsWindows reports whether the host runs Windows, where a CLI offers the
// PowerShell tool instead of Bash.
func IsWindows() bool { return runtime.GOOS == "windows" }

// DefaultShellTool returns the shell tool that suits the host: PowerShell
// on Windows, Bash elsewhere.
func DefaultShellTool(bash BashOptions, ps PowerShellOptions) toolkit.Tool {
	return shellToolFor(runtime.GOOS, bash, ps)
}

func shellToolFor(goos string, bash BashOptions, ps PowerShellOptions) toolkit.Tool {
	if goos == "windows" {
		return NewPowerShell(ps)
	}
	return NewBash(bash)
}

// PowerShellOptions configure the PowerShell tool.
type PowerShellOptions struct {
	// Cwd is the directory commands start in; empty means the permission
	// context's directory (its Cwd, else its first working directory).
	Cwd string
	// Executable is the PowerShell program to run; empty means pwsh
	// (PowerShell 7) when it is on PATH, else powershell.exe (Windows
	// PowerShell 5.1), looked up once.
	Executable string
	// LookPath finds pwsh or powershell.exe; nil means exec.LookPath.
	LookPath func(name string) (string, error)
	// Env makes the commands' environment from the host's (they run
	// unconfined); nil means the host's.
	Env func(environ []string) []string
}

// PowerShell runs PowerShell commands on the local machine (AgentScope
// ships it beside Bash for Windows hosts). There is no static analysis of
// PowerShell: every call asks the user (a plain ask, so allow rules and
// the bypass mode still apply), and no rule is suggested, because a prefix
// rule would not mean anything safe for a language with pipelines,
// script blocks and aliases.
//
// Unlike Bash it does not go through a Backend: Backend.Exec runs POSIX
// shell source, and PowerShell needs its own command line.
type PowerShell struct {
	opts PowerShellOptions

	// lookPath finds programs on PATH; tests replace it.
	lookPath func(string) (string, error)
	once     sync.Once
	exe      string
	exeErr   error
}

// NewPowerShell returns the PowerShell tool.
func NewPowerShell(opts PowerShellOptions) *PowerShell {
	lookPath := opts.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	return &PowerShell{opts: opts, lookPath: lookPath}
}

var (
	_ toolkit.Caller    = (*PowerShell)(nil)
	_ toolkit.Suggester = (*PowerShell)(nil)
)

var powerShellSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The PowerShell command or script to run."},
    "timeout": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "Timeout in milliseconds (default 120000, at most 600000). The process is killed when it expires."},
    "description": {"type": "string", "description": "A few words saying what the command does, shown to the user."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)

// Spec implements toolkit.Tool.
func (p *PowerShell) Spec() toolkit.Spec {
	return toolkit.Spec{
		Name: "PowerShell",
		Description: "Runs a PowerShell command and returns its output (success and error streams, cut after " +
			"30,000 characters). Each call starts a fresh PowerShell session (no profile, non-interactive) in the " +
			"working directory. Prefer the Read, Glob and Grep tools for reading and searching files.",
		InputSchema: powerShellSchema,
		Source:      toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

// CheckPermissions implements toolkit.Tool: PowerShell commands are not
// analysed, so every call asks. The ask is not bypass-immune: an allow
// rule for the tool or the bypass mode lets calls through, and dont_ask
// denies them.
func (p *PowerShell) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	return permission.AskDecision(
		"PowerShell commands are not analysed for safety; approve only if you trust this command.",
		"PowerShell commands always ask"), nil
}

// MatchRule implements toolkit.RuleMatcher: a PowerShell command is not
// analysed, so a content rule may always match it (the engine then asks,
// in every mode); a tool-level rule matches.
func (p *PowerShell) MatchRule(content string, _ toolkit.Input, _ *permission.Context) permission.Match {
	if content == "" {
		return permission.Matches
	}
	return permission.MayMatch
}

// MatchForeignRule implements toolkit.ForeignRuleMatcher: a command that
// is not analysed may read or write any path, so path rules on Read, Edit
// and Write may match it.
func (p *PowerShell) MatchForeignRule(rule permission.Rule, _ toolkit.Input, _ *permission.Context) permission.Match {
	switch rule.Tool {
	case "Read", "Edit", "Write":
		return permission.MayMatch
	}
	return permission.NoMatch
}

// Suggestions implements toolkit.Suggester: none. The only rule that
// could cover a call is the tool-level one, which would allow every
// PowerShell command: the user has to write that rule on purpose.
func (p *PowerShell) Suggestions(toolkit.Input) []permission.Rule {
	return []permission.Rule{}
}

// executable returns the PowerShell program, found once per tool.
func (p *PowerShell) executable() (string, error) {
	p.once.Do(func() {
		if p.opts.Executable != "" {
			p.exe = p.opts.Executable
			return
		}
		lookPath := p.lookPath
		if lookPath == nil {
			lookPath = exec.LookPath
		}
		// pwsh first: PowerShell 7 is UTF-8 by default and cross-platform;
		// Windows PowerShell 5.1 is the fallback every Windows has.
		for _, name := range []string{"pwsh", "powershell.exe"} {
			if path, err := lookPath(name); err == nil {
				p.exe = path
				return
			}
		}
		p.exeErr = errors.New("PowerShell is not installed here: neither pwsh nor powershell.exe is on the PATH. " +
			"Use another tool, or ask the user to install PowerShell 7 (pwsh)")
	})
	return p.exe, p.exeErr
}

func (p *PowerShell) cwd(pc *permission.Context) string {
	if p.opts.Cwd != "" {
		return p.opts.Cwd
	}
	if pc != nil {
		return pc.Dir()
	}
	return ""
}

// powerShellArgs is the command line for one command. -EncodedCommand
// takes base64 of UTF-16LE and so carries any text (quotes, newlines,
// non-ASCII) without a layer of command-line quoting to get wrong.
func powerShellArgs(command string) []string {
	return []string{"-NoProfile", "-NonInteractive", "-EncodedCommand", encodeUTF16LEBase64(powerShellScript(command))}
}

// powerShellPrelude is run before the command: without it PowerShell
// writes redirected output in the console's code page (mangling anything
// but ASCII on Windows) and may write progress records to the error stream.
const powerShellPrelude = "$ProgressPreference = 'SilentlyContinue'; " +
	"try { [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false } catch {}\n"

// powerShellScript is the script run for a command: the prelude, then the
// command, except where PowerShell requires the command's first statement
// to come first (using statements and a param block).
func powerShellScript(command string) string {
	head := strings.ToLower(strings.TrimLeft(command, " \t\r\n\ufeff"))
	if strings.HasPrefix(head, "using ") || strings.HasPrefix(head, "param") {
		return command
	}
	return powerShellPrelude + command
}

// encodeUTF16LEBase64 encodes s as PowerShell's -EncodedCommand expects:
// UTF-16 little-endian code units (astral characters as surrogate pairs),
// then standard base64. Invalid UTF-8 becomes U+FFFD.
func encodeUTF16LEBase64(s string) string {
	units := utf16.Encode([]rune(s))
	buf := make([]byte, 2*len(units))
	for i, u := range units {
		binary.LittleEndian.PutUint16(buf[2*i:], u)
	}
	return base64.StdEncoding.EncodeToString(buf)
}

// Call implements toolkit.Caller: it streams the command's output as it
// comes (cut after MaxPowerShellOutput characters, with a note) and ends
// with the exit code in the metadata. A non-zero exit code or a timeout
// makes the response an error. It mirrors Bash.Call.
func (p *PowerShell) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		exe, err := p.executable()
		if err != nil {
			yield(nil, err)
			return
		}
		timeout := DefaultPowerShellTimeout
		if ms, ok := in.Int("timeout"); ok && ms > 0 {
			timeout = min(time.Duration(ms)*time.Millisecond, MaxPowerShellTimeout)
		}
		var pc *permission.Context
		if rt := toolkit.RuntimeFrom(ctx); rt != nil {
			pc = rt.Permission
		}

		args, dir := powerShellArgs(in.String("command")), p.cwd(pc)
		streamCommand(ctx, yield, MaxPowerShellOutput, timeout, "the command was killed",
			func(ctx context.Context, output func([]byte)) (ExecResult, error) {
				env := os.Environ()
				if p.opts.Env != nil {
					env = p.opts.Env(env)
				}
				return runPowerShell(ctx, exe, args, dir, env, timeout, output)
			})
	}
}

// runPowerShell runs exe with args in dir, calling output with each piece
// of standard output and standard error, never concurrently. On timeout
// or cancellation the process is killed with its process group.
func runPowerShell(ctx context.Context, exe string, args []string, dir string, env []string, timeout time.Duration,
	output func([]byte)) (ExecResult, error) {
	return process{
		name: exe,
		command: func(runCtx context.Context) *exec.Cmd {
			cmd := exec.CommandContext(runCtx, exe, args...)
			cmd.Dir = dir
			cmd.Env = env
			return cmd
		},
		timeout: timeout,
		output:  func(_ Stream, data []byte) { output(data) },
	}.run(ctx)
}
