package bash

import "strings"

// inner is the command a wrapper runs.
type inner struct {
	words    []Word
	assigns  []Assign
	via      string
	moreArgs bool
}

// wrapperOptions lists, per wrapper, the options that take a separate
// value; other options are flags. A wrapper not listed in wrappers is not
// one.
var wrappers = map[string]struct {
	valued []string // options taking the next word as value
	// positional is how many operands precede the command (timeout's
	// duration).
	positional int
}{
	"timeout":    {valued: []string{"-s", "--signal", "-k", "--kill-after"}, positional: 1},
	"nice":       {valued: []string{"-n", "--adjustment"}},
	"nohup":      {},
	"env":        {valued: []string{"-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P", "--default-signal", "--ignore-signal", "--block-signal"}},
	"sudo":       {valued: []string{"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user", "-R", "--chroot"}},
	"doas":       {valued: []string{"-u", "-C"}},
	"command":    {},
	"builtin":    {},
	"exec":       {valued: []string{"-a"}},
	"xargs":      {valued: []string{"-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "-I", "-L", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"}},
	"stdbuf":     {valued: []string{"-i", "--input", "-o", "--output", "-e", "--error"}},
	"time":       {valued: []string{"-f", "--format", "-o", "--output"}},
	"ionice":     {valued: []string{"-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"}},
	"chrt":       {},
	"setsid":     {},
	"unbuffer":   {},
	"caffeinate": {},
}

// unwrap returns the command a wrapper command runs. ok is false when cmd
// is not a wrapper; words is empty when the wrapper runs nothing (sudo -l,
// command -v, a bare env).
func unwrap(cmd *Command) (inner, bool) {
	spec, ok := wrappers[cmd.Name]
	if !ok {
		return inner{}, false
	}
	in := inner{via: cmd.Name, moreArgs: cmd.Name == "xargs"}
	args := cmd.Args
	positional := spec.positional
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if a == "--" {
			args = args[i+1:]
			break
		}
		if cmd.Name == "env" && !strings.HasPrefix(a, "-") && strings.Contains(a, "=") {
			name, value, _ := strings.Cut(a, "=")
			in.assigns = append(in.assigns, Assign{Name: name, Value: Word{Raw: value, Value: value, Vars: args[i].Vars, Dynamic: args[i].Dynamic}})
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && !(cmd.Name == "nice" && isNumber(a[1:])) {
			if cmd.Name == "command" && (a == "-v" || a == "-V") {
				// command -v NAME only looks NAME up.
				return in, true
			}
			if cmd.Name == "env" && (a == "-S" || strings.HasPrefix(a, "--split-string")) {
				// env -S splits a string into a command line: not
				// analysed; report the string as an unknown command.
				in.words = []Word{{Raw: a, Value: a, Dynamic: true}}
				return in, true
			}
			// An option taking a value takes the next word, unless the
			// value is attached (--signal=KILL, -n5).
			if _, _, attached := strings.Cut(a, "="); !attached && contains(spec.valued, a) {
				i++
			}
			continue
		}
		if positional > 0 {
			positional--
			continue
		}
		args = args[i:]
		in.words = args
		return in, true
	}
	if len(in.words) == 0 && len(args) > 0 && args[0].Value != "--" && !strings.HasPrefix(args[0].Value, "-") {
		in.words = args
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shells are the programs whose -c option runs a command string.
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true}

// shellCommandString returns the string of `bash -c STRING`.
func shellCommandString(cmd *Command) (Word, bool) {
	if !shells[cmd.Name] {
		return Word{}, false
	}
	args := cmd.Args
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if v == "--" || len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			return Word{}, false // a script file, or nothing to run
		}
		if strings.HasPrefix(v, "--") {
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		}
		// -c may be clustered with other flags: bash -lc, sh -ec.
		if v[0] == '-' && strings.Contains(v[1:], "c") {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return Word{}, false
		}
		if strings.ContainsAny(v[1:], "oO") {
			i++ // -o OPTION
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
