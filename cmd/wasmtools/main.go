// Command wasmtools is the command line of the wasmtools tool host. It
// lists the tools, calls one through the whole pipeline, and asks the
// permission engine about calls without running them.
//
// Usage:
//
//	wasmtools <command> [arguments]
//
// The commands are:
//
//	list     list the tools and tool groups
//	call     call a tool through the whole pipeline
//	check    ask the permission engine about a call, without running it
//	serve    serve the tools over MCP
//	inspect  describe a Wasm plugin
//	plugins  trust, list or revoke plugins in folders tool calls may write
//	new      create a ready-to-build plugin
//	version  print the version
//
// Run "wasmtools help <command>" for the flags and examples of a command.
//
// Exit status: 0 on success, 1 when the tool failed or the call was
// interrupted, 2 on a usage error, 3 when the call was denied.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	wt "github.com/wasmtools/wasmtools" // as wt: the tests name a function wasmtools
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
)

// Exit codes.
const (
	exitOK        = 0
	exitToolError = 1 // the tool failed, or the call was interrupted
	exitUsage     = 2 // the command line is wrong
	exitDenied    = 3 // a rule, the mode or the user denied the call
)

// version is set at link time with -ldflags "-X main.version=v1.2.3";
// otherwise it comes from the build information.
var version string

// env is what a command runs with: its standard streams and its logger.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	log            *slog.Logger
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

// commands in the order "wasmtools help" lists them.
var commands = []*command{
	{"list", "list the tools and tool groups", runList},
	{"call", "call a tool through the whole pipeline", runCall},
	{"check", "ask the permission engine about a call, without running it", runCheck},
	{"serve", "serve the tools over MCP (stdio or HTTP)", runServe},
	{"inspect", "describe a Wasm plugin: ABI, exports, tools, grants", runInspect},
	{"plugins", "trust, list or revoke plugins in folders tool calls may write", runPlugins},
	{"new", "create a ready-to-build plugin", runNew},
	{"version", "print the version", runVersion},
}

func main() {
	// Started as the sandbox helper of a shell command, confine this
	// process and become the command; nothing below runs.
	sandbox.Main()
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, log: newLogger(os.Stderr)}
	os.Exit(run(context.Background(), e, os.Args[1:]))
}

// newLogger logs to w at the level named by WASMTOOLS_LOG (debug, info,
// warn or error; warn when unset).
func newLogger(w io.Writer) *slog.Logger {
	level := slog.LevelWarn
	bad := false
	if s := os.Getenv("WASMTOOLS_LOG"); s != "" {
		bad = level.UnmarshalText([]byte(s)) != nil
	}
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	if bad {
		log.Warn("WASMTOOLS_LOG must be debug, info, warn or error; using warn", "value", os.Getenv("WASMTOOLS_LOG"))
	}
	return log
}

// run runs the command line args and returns the exit code.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	name, args := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) == 0 {
			usage(e.stdout)
			return exitOK
		}
		name, args = args[0], []string{"--help"}
	case "--version", "-version":
		name = "version"
	}
	var cmd *command
	for _, c := range commands {
		if c.name == name {
			cmd = c
		}
	}
	if cmd == nil {
		fmt.Fprintf(e.stderr, "wasmtools: unknown command %q\nRun 'wasmtools help' for the list of commands.\n", name)
		return exitUsage
	}
	err := cmd.run(ctx, e, args)
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintf(e.stderr, "wasmtools %s: %v\n", name, ee.err)
			if ee.code == exitUsage {
				fmt.Fprintf(e.stderr, "Run 'wasmtools %s --help' for usage.\n", name)
			}
		}
		return ee.code
	default:
		fmt.Fprintf(e.stderr, "wasmtools %s: %v\n", name, err)
		return exitToolError
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `wasmtools is a tool host for LLM agents: it decides whether each tool call
may run, runs it, and streams back the result.

Usage:

	wasmtools <command> [arguments]

The commands are:

`)
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "wasmtools help <command>" or "wasmtools <command> --help" for the flags
and examples of a command.

Environment:

	WASMTOOLS_LOG         log level on standard error: debug, info, warn (default), error
	WASMTOOLS_DEMO_TOOLS  set to 1 to register two demo tools, echo and upper
	WASMTOOLS_TRUST_FILE  the plugin trust record (see "wasmtools help plugins")
`)
}

// exitError ends a command with an exit code. A nil err means the
// command has already said everything it had to say.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports a mistake on the command line (exit status 2).
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// exitCode ends a command silently with code.
func exitCode(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "version", "Usage: wasmtools version\n\nVersion prints the version of wasmtools and of the Go toolchain that built it.\n")
	if _, err := parseArgs(e, fs, args); err != nil {
		return err
	}
	goVersion := "unknown Go version"
	if info, ok := debug.ReadBuildInfo(); ok {
		goVersion = info.GoVersion
	}
	fmt.Fprintf(e.stdout, "wasmtools %s %s\n", versionString(), goVersion)
	return nil
}

// versionString is the link-time version, else the module version from
// the build information, else "(devel)".
func versionString() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// newFlagSet returns a flag set whose --help prints help (the command's
// usage text followed by its flags).
func newFlagSet(e *env, name, help string) *flag.FlagSet {
	fs := flag.NewFlagSet("wasmtools "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseArgs reports errors itself
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprint(w, help)
		if hasFlags(fs) {
			fmt.Fprint(w, "\nFlags:\n\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parseArgs parses flags placed anywhere among the positional arguments
// ("call echo '{}' --json" as well as "call --json echo '{}'") and
// returns the positional ones. Everything after "--" is positional. On
// --help it prints the help to standard output and returns flag.ErrHelp.
func parseArgs(e *env, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return nil, flag.ErrHelp
		}
		if err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// permFlags are the flags list, call, check and serve share: the
// permission configuration and the folders and servers the host serves.
// They are merged over the configuration file into a wt.Config.
type permFlags struct {
	mode             permission.Mode
	modeSet          bool     // --mode was given
	workdirs         []string // absolute
	allow, deny, ask []permission.Rule
	plugins          []string     // plugin folders, absolute
	skillDirs        []string     // skill folders, absolute
	noWatch          bool         // --no-watch: load folders once
	mcpConfigs       []string     // MCP server configuration files
	configPath       string       // --config, or "" for ./wasmtools.yaml if present
	tools            []string     // --tools: the built-in tools to offer
	toolsSet         bool         // --tools was given
	sandboxMode      sandbox.Mode // --sandbox, or "" for the configuration's
	// store and storeTTL are serve's --store and --session-idle: where
	// sessions keep their state, and for how long once idle.
	store    string
	storeTTL time.Duration
	// tokenFile is serve's --token-file: the host then knows that its
	// HTTP clients present a token (Config.TokenFile).
	tokenFile string
}

func (p *permFlags) register(fs *flag.FlagSet) {
	p.mode = permission.ModeDefault
	fs.Func("mode", "permission `mode`: default, accept_edits, explore, bypass or dont_ask (default \"default\")", func(s string) error {
		m, err := permission.ParseMode(s)
		if err != nil {
			return err
		}
		p.mode, p.modeSet = m, true
		return nil
	})
	fs.Func("workdir", "working `dir`ectory in which edits may be allowed; repeatable (default: the current directory)", func(s string) error {
		dir, err := filepath.Abs(s)
		if err != nil {
			return err
		}
		p.workdirs = append(p.workdirs, dir)
		return nil
	})
	fs.Func("allow", "allow `rule`, such as upper or 'Bash(npm run:*)'; repeatable", ruleList(&p.allow))
	fs.Func("deny", "deny `rule`: calls it matches are denied; repeatable", ruleList(&p.deny))
	fs.Func("ask", "ask `rule`: calls it matches ask first; repeatable", ruleList(&p.ask))
	fs.StringVar(&p.configPath, "config", "", "read the configuration from `file` (default: wasmtools.yaml in the current directory, if present)")
	fs.Func("mcp-config", "offer the tools of the MCP servers in `file` ({\"mcpServers\": {NAME: {\"command\", \"args\", \"env\"} or {\"url\", \"headers\"}}}); repeatable", func(s string) error {
		p.mcpConfigs = append(p.mcpConfigs, s)
		return nil
	})
	fs.Func("skills", "serve the skills in `dir`ectory: a folder with a SKILL.md, or one holding skill folders at any depth; repeatable: a later folder's skill overrides an earlier one's of the same name", func(s string) error {
		dir, err := filepath.Abs(s)
		if err != nil {
			return err
		}
		p.skillDirs = append(p.skillDirs, dir)
		return nil
	})
	p.registerSandbox(fs)
	fs.Func("tools", "offer only these built-in `tools`, comma-separated (e.g. Read,Glob,Grep; default: the configuration's tools.enable, else all)", func(s string) error {
		p.tools, p.toolsSet = nil, true
		for _, n := range strings.Split(s, ",") {
			if n = strings.TrimSpace(n); n == "" {
				continue
			} else if !slices.Contains(builtin.Names(), n) {
				return fmt.Errorf("%q is not a built-in tool; the built-in tools are %s", n, strings.Join(builtin.Names(), ", "))
			}
			p.tools = append(p.tools, n)
		}
		if len(p.tools) == 0 {
			return errors.New("name at least one tool (the built-in tools are " + strings.Join(builtin.Names(), ", ") + ")")
		}
		return nil
	})
	fs.BoolVar(&p.noWatch, "no-watch", false, "load plugin and skill folders once instead of following their changes (serve)")
	fs.Func("plugins", "load every .wasm plugin in `dir`ectory (grants from each NAME.json beside NAME.wasm); repeatable", func(s string) error {
		dir, err := filepath.Abs(s)
		if err != nil {
			return err
		}
		p.plugins = append(p.plugins, dir)
		return nil
	})
}

func ruleList(rules *[]permission.Rule) func(string) error {
	return func(s string) error {
		r, err := permission.ParseRule(s)
		if err != nil {
			return err
		}
		*rules = append(*rules, r)
		return nil
	}
}

// config returns the configuration the flags and the configuration file
// describe: flags win for the mode, the working directories and the
// sandbox mode; rules, folders and MCP configuration files add up. watch
// says whether the command runs long enough to follow its folders (serve).
func (p *permFlags) config(e *env, watch bool) (wt.Config, error) {
	path, explicit := p.configPath, p.configPath != ""
	if !explicit {
		path = wt.ConfigFile
	}
	var cfg wt.Config
	var err error
	if explicit {
		cfg, err = wt.LoadConfig(path)
	} else {
		cfg, err = wt.LoadFoundConfig(path, p.workdirs)
		if errors.Is(err, fs.ErrNotExist) {
			// No configuration yet; the file is still protected, since
			// the next start would read it.
			cfg, err = wt.Config{File: path}, nil
		}
	}
	if err != nil {
		return cfg, err
	}
	if p.modeSet {
		cfg.Mode = p.mode
	}
	if len(p.workdirs) > 0 {
		cfg.WorkingDirs = p.workdirs
	}
	cfg.Allow = append(slices.Clip(p.allow), cfg.Allow...)
	cfg.Deny = append(slices.Clip(p.deny), cfg.Deny...)
	cfg.Ask = append(slices.Clip(p.ask), cfg.Ask...)
	cfg.Plugins = append(slices.Clip(p.plugins), cfg.Plugins...)
	// Skill folders are layers, later ones overriding earlier ones: the
	// flags come after the file, so a folder given for this run wins.
	cfg.Skills = append(slices.Clip(cfg.Skills), p.skillDirs...)
	for _, f := range p.mcpConfigs {
		abs, err := filepath.Abs(f) // relative to the current directory, not the file's
		if err != nil {
			return cfg, fmt.Errorf("--mcp-config %s: %w", f, err)
		}
		cfg.MCPConfigFiles = append(cfg.MCPConfigFiles, abs)
	}
	if p.sandboxMode != "" {
		cfg.Sandbox.Mode = p.sandboxMode
	}
	if p.toolsSet {
		// --tools replaces the file's choice of built-ins; the file's
		// groups for them stay.
		cfg.Tools.Enable, cfg.Tools.Disable = p.tools, nil
	}
	if p.store != "" {
		cfg.Store = p.store
	}
	if !watch {
		// One-shot commands (list, call, check) keep their one session
		// in memory: a shared store would carry its grants to the next run.
		cfg.Store = ""
	}
	cfg.StoreTTL = p.storeTTL
	if p.tokenFile != "" {
		abs, err := filepath.Abs(p.tokenFile)
		if err != nil {
			return cfg, err
		}
		cfg.TokenFile = abs
	}
	cfg.Watch = watch && !p.noWatch
	cfg.Logger = e.log
	cfg.Version = versionString()
	if os.Getenv(demoToolsEnv) == "1" {
		cfg.Register = registerDemoTools
	}
	return cfg, nil
}

// open opens the host the flags describe; tk are more toolkit options.
func (p *permFlags) open(ctx context.Context, e *env, watch bool, tk toolkit.Options) (*wt.Host, error) {
	cfg, err := p.config(e, watch)
	if err != nil {
		return nil, err
	}
	if !cfg.Watch {
		// Say which flag is wrong: loaded once, a folder must be there.
		for _, f := range []struct {
			flag string
			dirs []string
		}{{"--plugins", p.plugins}, {"--skills", p.skillDirs}} {
			for _, dir := range f.dirs {
				if info, err := os.Stat(dir); err != nil || !info.IsDir() {
					return nil, fmt.Errorf("%s %s: not a folder", f.flag, dir)
				}
			}
		}
	}
	cfg.Toolkit = tk
	return wt.Open(ctx, cfg)
}

// readArguments returns a call's JSON arguments from its positional
// argument: "-" reads standard input, nothing means the empty object.
func readArguments(e *env, args []string) (string, error) {
	if len(args) == 0 {
		return "", nil
	}
	if args[0] != "-" {
		return args[0], nil
	}
	b, err := io.ReadAll(e.stdin)
	if err != nil {
		return "", fmt.Errorf("read the arguments from standard input: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
