package bash

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// flagSet collects a command's flags until "--": short letters (from
// clusters) and long names (without =value).
type flagSet struct {
	short map[byte]bool
	long  map[string]bool
}

func flagsOf(args []string) flagSet {
	fs := flagSet{short: map[byte]bool{}, long: map[string]bool{}}
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(a[2:], "=")
			fs.long[name] = true
		} else if len(a) > 1 && a[0] == '-' {
			for i := 1; i < len(a); i++ {
				fs.short[a[i]] = true
			}
		}
	}
	return fs
}

// dangerous returns the dangerous findings of one command (step 2).
func dangerous(c *Command) []string {
	var out []string
	for _, w := range c.Wrappers {
		if w == "sudo" || w == "doas" {
			out = append(out, fmt.Sprintf("%s runs under %s, as another user", c.Name, w))
		}
	}
	args := c.Values()
	fs := flagsOf(args)
	switch name := c.Name; {
	case name == "sudo" || name == "doas" || name == "su" || name == "pkexec":
		out = append(out, name+" runs commands as another user")
	case name == "rm":
		recursive := fs.short['r'] || fs.short['R'] || fs.long["recursive"]
		force := fs.short['f'] || fs.long["force"]
		if recursive && force {
			out = append(out, "rm removes recursively and by force")
		}
	case diskCommands[name] || name == "mkfs" || strings.HasPrefix(name, "mkfs."):
		out = append(out, name+" can destroy disks and file systems")
	case name == "chmod":
		for _, m := range positionals(args, nil) {
			if worldWritable(m) {
				out = append(out, "chmod makes files writable by everyone ("+m+")")
				break
			}
		}
		// Modes like -w or o+w look like flags.
		for _, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && worldWritable(a) {
				out = append(out, "chmod makes files writable by everyone ("+a+")")
			}
		}
	case name == "mkdir" || name == "install":
		// mkdir -m 777 makes a world-writable directory, like chmod 777.
		for i, a := range args {
			mode := ""
			switch {
			case (a == "-m" || a == "--mode") && i+1 < len(args):
				mode = args[i+1]
			case strings.HasPrefix(a, "--mode="):
				mode = strings.TrimPrefix(a, "--mode=")
			case strings.HasPrefix(a, "-m") && len(a) > 2:
				mode = a[2:]
			}
			if mode != "" && worldWritable(mode) {
				out = append(out, name+" creates files writable by everyone ("+mode+")")
			}
		}
	case name == "chown" || name == "chgrp":
		if fs.short['R'] || fs.long["recursive"] {
			out = append(out, name+" -R changes ownership of a whole tree")
		}
	case name == "kill" || name == "pkill" || name == "killall":
		if killsHard(args) {
			out = append(out, name+" sends SIGKILL")
		}
	case name == "tee":
		for _, a := range positionals(args, nil) {
			if strings.HasPrefix(a, "/dev/") && !harmlessOutput(a) {
				out = append(out, "tee writes to the device "+a)
			}
		}
	}
	return out
}

// worldWritable reports whether a chmod mode gives write permission to
// others: an octal mode whose last digit has the 2 bit, or a symbolic
// clause for o or a adding or setting w.
func worldWritable(mode string) bool {
	if mode == "" {
		return false
	}
	if n, err := strconv.ParseUint(mode, 8, 32); err == nil && !strings.HasPrefix(mode, "-") {
		return n&0o002 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		i := 0
		who := ""
		for i < len(clause) && strings.ContainsRune("ugoa", rune(clause[i])) {
			who += string(clause[i])
			i++
		}
		rest := clause[i:]
		for len(rest) > 0 && strings.ContainsRune("+-=", rune(rest[0])) {
			op := rest[0]
			j := 1
			for j < len(rest) && !strings.ContainsRune("+-=", rune(rest[j])) {
				j++
			}
			perms := rest[1:j]
			rest = rest[j:]
			if op == '-' {
				continue
			}
			if strings.ContainsAny(who, "oa") && strings.Contains(perms, "w") {
				return true
			}
		}
	}
	return false
}

func killsHard(args []string) bool {
	for i, a := range args {
		switch strings.ToUpper(a) {
		case "-9", "-KILL", "-SIGKILL":
			return true
		case "-S", "-N", "--SIGNAL":
			if i+1 < len(args) {
				switch strings.ToUpper(args[i+1]) {
				case "9", "KILL", "SIGKILL":
					return true
				}
			}
		}
		if strings.HasPrefix(a, "--signal=") {
			switch strings.ToUpper(strings.TrimPrefix(a, "--signal=")) {
			case "9", "KILL", "SIGKILL":
				return true
			}
		}
	}
	return false
}

// pipedDownloads finds a download piped into a shell or interpreter.
func pipedDownloads(s *Script) []string {
	var out []string
	for _, dl := range s.Commands {
		if dl.Pipeline == 0 || !downloaders[dl.Name] {
			continue
		}
		for _, sh := range s.Commands {
			if sh.Pipeline == dl.Pipeline && sh.Stage > dl.Stage && interpreters[sh.Name] {
				out = append(out, fmt.Sprintf("%s pipes a download into %s", dl.Name, sh.Name))
			}
		}
	}
	return out
}

// sedOptions parses sed's arguments into scripts, files and problems.
type sedOptions struct {
	scripts []Word
	files   []Word
	quiet   bool
	inPlace bool
	bad     []string
}

func parseSed(c *Command) sedOptions {
	var o sedOptions
	explicit := false
	args := c.Args
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		switch {
		case a == "--":
			o.files = append(o.files, args[i+1:]...)
			i = len(args)
		case a == "-n" || a == "--quiet" || a == "--silent":
			o.quiet = true
		case a == "-E" || a == "--regexp-extended":
		case a == "-i" || a == "--in-place" || strings.HasPrefix(a, "--in-place="):
			o.inPlace = true
		case a == "-e" || a == "--expression":
			explicit = true
			if i+1 < len(args) {
				o.scripts = append(o.scripts, args[i+1])
				i++
			} else {
				o.bad = append(o.bad, "sed -e without a script")
			}
		case strings.HasPrefix(a, "--expression="):
			explicit = true
			w := args[i]
			w.Value = strings.TrimPrefix(a, "--expression=")
			o.scripts = append(o.scripts, w)
		case strings.HasPrefix(a, "--"):
			o.bad = append(o.bad, "sed option "+a+" is not allowed")
		case len(a) > 1 && a[0] == '-':
			// A cluster: n, E, i[SUFFIX], e SCRIPT.
		cluster:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'n':
					o.quiet = true
				case 'E':
				case 'i':
					o.inPlace = true
					break cluster // the rest is the backup suffix
				case 'e':
					explicit = true
					w := args[i]
					if j+1 < len(a) {
						w.Value = a[j+1:]
					} else if i+1 < len(args) {
						i++
						w = args[i]
					} else {
						o.bad = append(o.bad, "sed -e without a script")
					}
					o.scripts = append(o.scripts, w)
					break cluster
				default:
					o.bad = append(o.bad, fmt.Sprintf("sed flag -%c is not allowed", a[j]))
					break cluster
				}
			}
		default:
			o.files = append(o.files, args[i])
		}
	}
	if !explicit && len(o.files) > 0 {
		o.scripts = append(o.scripts, o.files[0])
		o.files = o.files[1:]
	}
	return o
}

// sedFindings validates every sed script of a command (step 3).
func sedFindings(c *Command) []string {
	if c.Name != "sed" {
		return nil
	}
	o := parseSed(c)
	out := o.bad
	if len(o.scripts) == 0 {
		out = append(out, "sed without a script")
	}
	for _, s := range o.scripts {
		if !s.Literal() {
			out = append(out, "a sed script built at run time")
			continue
		}
		if err := validSedScript(s.Value, o.quiet); err != "" {
			out = append(out, err)
		}
	}
	return out
}

// sedReadOnly: sed -n with line-number prints only.
func sedReadOnly(args []string) bool {
	c := &Command{Name: "sed"}
	for _, a := range args {
		c.Args = append(c.Args, Word{Value: a})
	}
	o := parseSed(c)
	if len(o.bad) > 0 || o.inPlace || !o.quiet || len(o.scripts) == 0 {
		return false
	}
	for _, s := range o.scripts {
		if !isLinePrint(strings.TrimSpace(s.Value)) {
			return false
		}
	}
	return true
}

// validSedScript checks one script against the allowlist: a single
// substitution s/a/b/flags with delimiter / | or # and flags among g, p
// and digits; or, with -n, a print of line N or lines N,M.
func validSedScript(script string, quiet bool) string {
	s := strings.TrimSpace(script)
	if isLinePrint(s) {
		if quiet {
			return ""
		}
		return "sed prints lines without -n"
	}
	if len(s) < 2 || s[0] != 's' {
		return fmt.Sprintf("sed script %q is not a plain substitution", script)
	}
	delim := s[1]
	if delim != '/' && delim != '|' && delim != '#' {
		return fmt.Sprintf("sed substitution delimiter %q is not allowed", delim)
	}
	parts := 0
	i := 2
	for ; i < len(s) && parts < 2; i++ {
		switch s[i] {
		case '\\':
			i++
		case delim:
			parts++
		}
	}
	if parts < 2 {
		return fmt.Sprintf("sed script %q is not a complete substitution", script)
	}
	for _, f := range s[i:] {
		if f != 'g' && f != 'p' && (f < '0' || f > '9') {
			return fmt.Sprintf("sed substitution flag %q is not allowed", f)
		}
	}
	return ""
}

func isLinePrint(s string) bool {
	body, ok := strings.CutSuffix(s, "p")
	if !ok {
		return false
	}
	a, b, two := strings.Cut(body, ",")
	if two {
		return isNumber(a) && isNumber(b)
	}
	return isNumber(a)
}

// criticalRemovals: rm or rmdir of /, ~, $HOME, a direct child of /,
// *, /*, anything ending in /*, or a path resolving to one of those
// (step 5).
func (a *Analyzer) criticalRemovals(s *Script, env Env) []string {
	var out []string
	for _, c := range s.Commands {
		if c.Name != "rm" && c.Name != "rmdir" && c.Name != "unlink" {
			continue
		}
		for _, arg := range c.Args {
			v := arg.Value
			if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "-/") {
				continue
			}
			if a.critical(arg, env, c.AfterCd) {
				out = append(out, fmt.Sprintf("%s removes %s", c.Name, v))
			}
		}
	}
	return out
}

func (a *Analyzer) critical(arg Word, env Env, afterCd bool) bool {
	v := arg.Value
	if v == "*" || v == "/*" || strings.HasSuffix(v, "/*") || v == "~" || v == "$HOME" || v == "/" {
		return true
	}
	p, ok := a.resolve(arg, env.Cwd, afterCd)
	if !ok {
		// An unknown path with .. in it could reach anything.
		return strings.Contains(v, "..")
	}
	if p == "/" || (a.home != "" && p == filepath.Clean(a.home)) {
		return true
	}
	// Removing a working directory, or a directory holding one, removes
	// the whole project.
	for _, wd := range env.WorkingDirs {
		wd = realPath(filepath.Clean(wd))
		if p == wd || strings.HasPrefix(wd, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return filepath.Dir(p) == "/"
}

// editsInWorkingDirs is the step 6 condition.
func (a *Analyzer) editsInWorkingDirs(s *Script, env Env) bool {
	if len(env.WorkingDirs) == 0 {
		return false
	}
	for _, c := range s.Commands {
		if readOnly(c) {
			continue
		}
		if !editCommands[c.Name] || !c.NameWord.Literal() || c.PathQualified() || len(c.Assigns) > 0 || len(c.Wrappers) > 0 || c.MoreArgs {
			return false
		}
		targets, ok := editTargets(c)
		if !ok {
			return false
		}
		for _, t := range targets {
			if !a.targetInside(t, env, c.AfterCd) {
				return false
			}
		}
	}
	for _, rd := range s.Redirects {
		if rd.Output() && !harmlessOutput(rd.Target.Value) {
			if !a.targetInside(rd.Target, env, anyAfterCd(s)) {
				return false
			}
		}
	}
	return true
}

func anyAfterCd(s *Script) bool {
	for _, c := range s.Commands {
		if c.AfterCd {
			return true
		}
	}
	return false
}

// targetInside resolves a target (expanding a glob in its last part) and
// reports whether everything it names is inside a working directory.
func (a *Analyzer) targetInside(w Word, env Env, afterCd bool) bool {
	if !w.Glob {
		p, ok := a.resolve(w, env.Cwd, afterCd)
		return ok && inside(p, env.WorkingDirs)
	}
	dir, last := filepath.Split(w.Value)
	if strings.ContainsAny(dir, "*?[") || strings.Contains(last, "..") {
		return false
	}
	dw := w
	dw.Value = dir
	if dir == "" {
		dw.Value = "."
		dw.Tilde = false
	}
	p, ok := a.resolve(dw, env.Cwd, afterCd)
	if !ok || !inside(p, env.WorkingDirs) {
		return false
	}
	matches, err := filepath.Glob(filepath.Join(p, last))
	if err != nil {
		return false
	}
	for _, m := range matches {
		if !inside(realPath(m), env.WorkingDirs) {
			return false
		}
	}
	return true
}

// editTargets returns the paths an edit command touches; ok is false for
// an option this check does not understand.
func editTargets(c *Command) ([]Word, bool) {
	var valued map[string]bool
	switch c.Name {
	case "cp", "mv":
		valued = setOf("-t", "--target-directory", "-S", "--suffix")
	case "mkdir":
		valued = setOf("-m", "--mode", "--context")
	case "touch":
		valued = setOf("-d", "--date", "-t", "-r", "--reference")
	case "sed":
		o := parseSed(c)
		if len(o.bad) > 0 {
			return nil, false
		}
		return o.files, len(o.files) > 0
	}
	var out []Word
	args := c.Args
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if a == "--" {
			out = append(out, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			name, val, attached := strings.Cut(a, "=")
			if valued[name] {
				if name == "-t" || name == "--target-directory" {
					if attached {
						w := args[i]
						w.Value = val
						out = append(out, w)
					} else if i+1 < len(args) {
						out = append(out, args[i+1])
					}
				}
				if !attached {
					i++
				}
				continue
			}
			if attached {
				return nil, false // an option with a value we do not know
			}
			if !strings.HasPrefix(a, "--") && len(a) > 2 && valued[a[:2]] {
				if a[:2] == "-t" && (c.Name == "cp" || c.Name == "mv") {
					w := args[i]
					w.Value = a[2:]
					out = append(out, w)
				}
				continue
			}
			continue
		}
		out = append(out, args[i])
	}
	return out, len(out) > 0
}
