package bash

import (
	"slices"
	"strings"
)

// inner is the command a wrapper runs.
type inner struct {
	words    []Word
	assigns  []Assign
	via      string
	moreArgs bool
}

// wrapperSpec describes a wrapper's command line: which options take a
// value, and how many operands come before the command it runs.
type wrapperSpec struct {
	short string   // short options taking a value ("sk": -s SIG, -k DUR)
	long  []string // long options taking a value
	// positional is how many operands precede the command (timeout's
	// duration, chrt's priority).
	positional int
}

// wrappers are the commands that run another command. A wrapper not
// listed here is not one.
var wrappers = map[string]wrapperSpec{
	"timeout":    {short: "sk", long: []string{"--signal", "--kill-after"}, positional: 1},
	"nice":       {short: "n", long: []string{"--adjustment"}},
	"nohup":      {},
	"env":        {short: "uCSP", long: []string{"--unset", "--chdir", "--split-string"}},
	"sudo":       {short: "ugCDhprtTUR", long: []string{"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user", "--chroot"}},
	"doas":       {short: "uC"},
	"command":    {},
	"builtin":    {},
	"exec":       {short: "a"},
	"xargs":      {short: "adEILnPs", long: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var", "--max-lines"}},
	"stdbuf":     {short: "ioe", long: []string{"--input", "--output", "--error"}},
	"time":       {short: "fo", long: []string{"--format", "--output"}},
	"ionice":     {short: "cnpPu", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
	"chrt":       {positional: 1},
	"setsid":     {},
	"unbuffer":   {},
	"caffeinate": {},
	"coproc":     {},
	"flock":      {short: "wEc", long: []string{"--timeout", "--conflict-exit-code", "--command"}, positional: 1},
	"gtimeout":   {short: "sk", long: []string{"--signal", "--kill-after"}, positional: 1},
	// Runners that change privileges, limits, namespaces or CPUs and
	// then run their operands as a command.
	"setpriv": {long: []string{"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits",
		"--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule", "--rlimit", "--seccomp-filter"}},
	"chroot":           {long: []string{"--userspec", "--groups"}, positional: 1},
	"prlimit":          {short: "p", long: []string{"--pid", "--output"}},
	"taskset":          {positional: 1},
	"numactl":          {short: "CNmpiP", long: []string{"--physcpubind", "--cpunodebind", "--membind", "--preferred", "--interleave"}},
	"nsenter":          {short: "tSGw", long: []string{"--target", "--setuid", "--setgid", "--wdns"}},
	"unshare":          {long: []string{"--map-user", "--map-group", "--setuid", "--setgid", "--propagation", "--setgroups", "--map-users", "--map-groups"}},
	"runuser":          {short: "ugG", long: []string{"--user", "--group", "--supp-group"}},
	"sg":               {positional: 1},
	"cgexec":           {short: "g"},
	"systemd-run":      {short: "pEuM", long: []string{"--unit", "--property", "--setenv", "--uid", "--gid", "--machine", "--description", "--slice", "--working-directory"}},
	"strace":           {short: "eoOpPsSuIabXE"},
	"ltrace":           {short: "eopsuanADE"},
	"valgrind":         {},
	"faketime":         {short: "m", positional: 1},
	"setarch":          {positional: 1},
	"linux32":          {},
	"linux64":          {},
	"fakeroot":         {short: "is", long: []string{"--lib", "--faked"}},
	"fakechroot":       {},
	"proxychains":      {short: "f"},
	"proxychains4":     {short: "f"},
	"torsocks":         {short: "uapP"},
	"eatmydata":        {},
	"nocache":          {},
	"chronic":          {},
	"ifne":             {},
	"dbus-run-session": {},
	"catchsegv":        {},
	"busybox":          {},
	"firejail":         {},
	"ssh-agent":        {},
	"xvfb-run":         {short: "nsfpe", long: []string{"--server-num", "--server-args", "--auth-file", "--xauth-protocol", "--error-file"}},
	"rlwrap":           {short: "aAbcCfDeFhHiIlmMnNopPqrRsStTUvwWz"},
	"pkexec":           {long: []string{"--user"}},
	"dbus-launch":      {},
	"sshpass":          {short: "pfde"},
	"bwrap":            {long: []string{"--bind", "--ro-bind", "--dev-bind", "--chdir", "--setenv", "--unsetenv", "--uid", "--gid", "--hostname", "--proc", "--dev", "--tmpfs", "--symlink", "--dir", "--file", "--remount-ro"}},
}

// subcommandWrappers run the rest of their command line as a command
// after a subcommand word (bundle exec CMD, uv run CMD), skipping
// positional operands first (direnv exec DIR CMD).
var subcommandWrappers = map[string]struct {
	sub        []string
	positional int
}{
	"bundle": {sub: []string{"exec"}}, "uv": {sub: []string{"run"}}, "poetry": {sub: []string{"run"}}, "pipenv": {sub: []string{"run"}},
	"pdm": {sub: []string{"run"}}, "hatch": {sub: []string{"run"}}, "rye": {sub: []string{"run"}}, "conda": {sub: []string{"run"}},
	"direnv": {sub: []string{"exec"}, positional: 1}, "perf": {sub: []string{"stat", "record", "trace"}},
	"toybox": {}, "mise": {sub: []string{"exec", "x"}}, "asdf": {sub: []string{"exec"}}, "rbenv": {sub: []string{"exec"}},
	"pyenv": {sub: []string{"exec"}}, "nodenv": {sub: []string{"exec"}}, "dotenv": {}, "op": {sub: []string{"run"}},
}

// unwrapSubcommand returns the command a subcommand wrapper runs: every
// word after the subcommand (and its positional operands) that is not an
// option; when the options cannot be told from the command, the caller's
// suffix matching covers the rest.
func unwrapSubcommand(cmd *Command) (inner, bool) {
	spec, ok := subcommandWrappers[cmd.Name]
	if !ok {
		return inner{}, false
	}
	args := cmd.Args
	i := 0
	if len(spec.sub) > 0 {
		for i < len(args) && strings.HasPrefix(args[i].Value, "-") {
			i++
		}
		if i >= len(args) || !slices.Contains(spec.sub, args[i].Value) {
			return inner{}, false
		}
		i++
	}
	for i < len(args) && strings.HasPrefix(args[i].Value, "-") {
		if args[i].Value == "--" {
			i++
			break
		}
		i++
	}
	i += spec.positional
	if i >= len(args) {
		return inner{via: cmd.Name}, true
	}
	return inner{via: cmd.Name, words: args[i:]}, true
}

// longValued reports whether a long option (possibly abbreviated, as GNU
// getopt allows) takes a value.
func longValued(opt string, long []string) bool {
	for _, l := range long {
		if strings.HasPrefix(l, opt) {
			return true
		}
	}
	return false
}

// unwrap returns the command a wrapper command runs. ok is false when cmd
// is not a wrapper; words is empty when the wrapper runs nothing (sudo -l,
// command -v, a bare env).
func unwrap(cmd *Command) (inner, bool) {
	if in, ok := unwrapSubcommand(cmd); ok {
		return in, true
	}
	spec, ok := wrappers[cmd.Name]
	if !ok {
		return inner{}, false
	}
	in := inner{via: cmd.Name, moreArgs: cmd.Name == "xargs"}
	args := cmd.Args
	positional := spec.positional
	i := 0
	for ; i < len(args); i++ {
		a := args[i].Value
		if a == "--" {
			i++
			break
		}
		if cmd.Name == "env" && !strings.HasPrefix(a, "-") && strings.Contains(a, "=") {
			name, value, _ := strings.Cut(a, "=")
			in.assigns = append(in.assigns, Assign{Name: name, Value: Word{Raw: value, Value: value, Vars: args[i].Vars, Dynamic: args[i].Dynamic}})
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" && cmd.Name != "env" {
			break
		}
		if a == "-" { // env -: like -i
			continue
		}
		if cmd.Name == "nice" && isNumber(a[1:]) {
			continue // nice -19: an adjustment
		}
		if cmd.Name == "command" && (a == "-v" || a == "-V") {
			return in, true // command -v NAME only looks NAME up
		}
		if strings.HasPrefix(a, "--") {
			name, _, attached := strings.Cut(a, "=")
			if cmd.Name == "env" && strings.HasPrefix("--split-string", name) && len(name) > 2 {
				in.words = []Word{{Raw: a, Value: a, Dynamic: true}}
				return in, true
			}
			if !attached && longValued(name, spec.long) {
				i++
			}
			continue
		}
		// A cluster of short options: the first one taking a value takes
		// the rest of the cluster, or the next word.
		for j := 1; j < len(a); j++ {
			if !strings.ContainsRune(spec.short, rune(a[j])) {
				continue
			}
			if cmd.Name == "env" && a[j] == 'S' {
				// env -S splits a string into a command line: not analysed.
				in.words = []Word{{Raw: a, Value: a, Dynamic: true}}
				return in, true
			}
			if j == len(a)-1 {
				i++ // the value is the next word
			}
			break
		}
	}
	rest := args[min(i, len(args)):]
	for positional > 0 && len(rest) > 0 {
		rest = rest[1:]
		positional--
	}
	in.words = rest
	if cmd.Name == "xargs" {
		// xargs -I R substitutes its input for R in every word: such a
		// word is known only when it runs (sh -c {} runs the input).
		repl := ""
		vals := cmd.Values()
		if v := optionValues("xargs", vals, 'I', "replace"); len(v) > 0 {
			repl = v[0]
		} else if hasShortOrLong(vals, "i", "--replace") {
			repl = "{}"
		}
		if repl != "" {
			words := make([]Word, len(in.words))
			for k, w := range in.words {
				if strings.Contains(w.Value, repl) {
					w.Dynamic = true
				}
				words[k] = w
			}
			in.words = words
		}
	}
	if cmd.Name == "xargs" && len(in.words) == 0 {
		// xargs with no command runs echo.
		in.words = []Word{{Raw: "echo", Value: "echo"}}
	}
	return in, true
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// shells are the programs whose -c option runs a command string.
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true,
	"rbash": true, "csh": true, "tcsh": true, "yash": true, "posh": true, "ksh93": true, "oksh": true, "loksh": true, "pdksh": true,
	"elvish": true, "nu": true, "xonsh": true, "busybox-sh": true}

// stringRunners run a command string given to an option through a shell:
// `su -c STRING`, `script -c STRING`, `flock FILE -c STRING`.
var stringRunners = map[string]struct {
	short byte
	long  []string
}{
	"su":        {'c', []string{"--command", "--session-command"}},
	"runuser":   {'c', []string{"--command", "--session-command"}},
	"script":    {'c', []string{"--command"}},
	"flock":     {'c', []string{"--command"}},
	"sg":        {'c', nil},
	"nix-shell": {0, []string{"--run", "--command"}},
}

// shellCommandString returns the string of `bash -c STRING`: with -c
// among the options, the first operand (options may follow -c, and --
// ends them); and the string of a runner's -c (su, runuser, script,
// flock, sg).
func shellCommandString(cmd *Command) (Word, bool) {
	if r, ok := stringRunners[cmd.Name]; ok {
		args := cmd.Args
		for i := 0; i < len(args); i++ {
			v := args[i].Value
			if v == "--" {
				break
			}
			if strings.HasPrefix(v, "--") {
				name, val, attached := strings.Cut(v, "=")
				if longValued(name, r.long) && len(name) > 2 {
					if attached {
						w := args[i]
						w.Value = val
						return w, true
					}
					if i+1 < len(args) {
						return args[i+1], true
					}
				}
				continue
			}
			if len(v) > 1 && v[0] == '-' {
				if j := strings.IndexByte(v[1:], r.short); j >= 0 {
					if rest := v[j+2:]; rest != "" {
						w := args[i]
						w.Value = rest
						return w, true
					}
					if i+1 < len(args) {
						return args[i+1], true
					}
				}
			}
		}
		if cmd.Name == "sg" {
			// sg GROUP COMMAND: the command is a shell string too.
			if ops := operands(cmd); len(ops) >= 2 {
				return ops[1], true
			}
		}
		return Word{}, false
	}
	if !shells[cmd.Name] {
		return Word{}, false
	}
	args := cmd.Args
	hasC := false
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--" || v == "-":
			if hasC && i+1 < len(args) {
				return args[i+1], true
			}
			return Word{}, false
		case strings.HasPrefix(v, "--"):
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			if v[0] == '-' && strings.Contains(v[1:], "c") {
				hasC = true
			}
			if strings.ContainsAny(v[1:], "oO") {
				i++ // -o OPTION
			}
		default:
			if hasC {
				return args[i], true
			}
			return Word{}, false // a script file
		}
	}
	return Word{}, false
}

// findExec is a command run by find -exec and friends.
type findExec struct {
	flag  string
	words []Word
}

// findExecs returns the commands a find command runs.
func findExecs(cmd *Command) []findExec {
	if cmd.Name != "find" {
		return nil
	}
	var out []findExec
	args := cmd.Args
	for i := 0; i < len(args); i++ {
		switch a := args[i].Value; a {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].Value != ";" && args[j].Value != "+" && args[j].Value != "\\" {
				j++
			}
			if j > i+1 {
				out = append(out, findExec{flag: a, words: args[i+1 : j]})
			}
			i = j
		}
	}
	return out
}

// findRoots returns the starting points of a find command: its operands
// before the expression (none means ".").
func findRoots(cmd *Command) []Word {
	var out []Word
	for _, w := range cmd.Args {
		v := w.Value
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			break
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		out = []Word{{Raw: ".", Value: "."}}
	}
	return out
}
