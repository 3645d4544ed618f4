package bash

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmtools/wasmtools/permission/pathpolicy"
)

// flagSet collects a command's flags until "--": short letters (from
// clusters) and long names (without =value).
type flagSet struct {
	// short is indexed by the letter: an array, not a map, since flagsOf
	// runs for nearly every command.
	short [256]bool
	long  map[string]bool // nil until a long option is seen
}

func flagsOf(cmd string, args []string) flagSet {
	var fs flagSet
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(a[2:], "=")
			if fs.long == nil {
				fs.long = map[string]bool{}
			}
			fs.long[canonicalLong(cmd, name)] = true
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
	// The arguments' values and flags only for the commands that read
	// them: this runs for every command of every check.
	switch name := c.Name; {
	case name == "sudo" || name == "doas" || name == "su" || name == "pkexec":
		out = append(out, name+" runs commands as another user")
	case name == "rm":
		fs := flagsOf(name, c.Values())
		recursive := fs.short['r'] || fs.short['R'] || fs.long["recursive"]
		force := fs.short['f'] || fs.long["force"]
		if recursive && force {
			out = append(out, "rm removes recursively and by force")
		}
	case diskCommands[name] || name == "mkfs" || strings.HasPrefix(name, "mkfs."):
		out = append(out, name+" can destroy disks and file systems")
	case name == "chmod":
		args := c.Values()
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
		for _, mode := range optionValues(name, c.Values(), 'm', "mode") {
			if worldWritable(mode) {
				out = append(out, name+" creates files writable by everyone ("+mode+")")
			}
		}
	case name == "chown" || name == "chgrp":
		if fs := flagsOf(name, c.Values()); fs.short['R'] || fs.long["recursive"] {
			out = append(out, name+" -R changes ownership of a whole tree")
		}
	case name == "kill" || name == "pkill" || name == "killall":
		if killsHard(c.Values()) {
			out = append(out, name+" sends SIGKILL")
		}
	}
	if !readOnly(c) {
		// A command that writes may write to a device it names (cp x
		// /dev/sda, truncate -s0 /dev/sda, curl -o /dev/sda, tee /dev/sda).
		var candidates [4]Word
		for _, w := range appendPathCandidates(candidates[:0], c) {
			if p := cleanAbs(w.Value); strings.HasPrefix(p, "/dev/") && !harmlessOutput(p) && !strings.HasPrefix(p, "/dev/fd/") {
				out = append(out, fmt.Sprintf("%s names the device %s", c.Name, p))
				break
			}
		}
	}
	return out
}

// knownLong are the long options of commands whose flags the checks
// read: GNU getopt accepts any unambiguous prefix (rm --recu --fo), so a
// prefix is resolved to the option it abbreviates.
var knownLong = map[string][]string{
	"rm":    {"recursive", "force", "interactive", "one-file-system", "no-preserve-root", "preserve-root", "dir", "verbose", "help", "version"},
	"chown": {"recursive", "changes", "dereference", "no-dereference", "from", "preserve-root", "no-preserve-root", "quiet", "silent", "reference", "verbose", "help", "version"},
	"chgrp": {"recursive", "changes", "dereference", "no-dereference", "preserve-root", "no-preserve-root", "quiet", "silent", "reference", "verbose", "help", "version"},
	"chmod": {"recursive", "changes", "quiet", "silent", "verbose", "reference", "preserve-root", "no-preserve-root", "help", "version"},
	"cp": {"archive", "attributes-only", "backup", "copy-contents", "dereference", "force", "interactive", "link", "no-clobber",
		"no-dereference", "no-preserve", "no-target-directory", "one-file-system", "parents", "preserve", "recursive", "reflink",
		"remove-destination", "sparse", "strip-trailing-slashes", "suffix", "symbolic-link", "target-directory", "update", "verbose", "help", "version"},
	"mv":      {"backup", "force", "interactive", "no-clobber", "no-target-directory", "strip-trailing-slashes", "suffix", "target-directory", "update", "verbose", "help", "version"},
	"mkdir":   {"mode", "parents", "verbose", "context", "help", "version"},
	"install": {"mode", "owner", "group", "directory", "target-directory", "verbose", "help", "version"},
	"kill":    {"signal", "list", "table"},
	"grep": {"recursive", "dereference-recursive", "directories", "devices", "regexp", "file", "include", "exclude", "exclude-dir",
		"exclude-from", "ignore-case", "invert-match", "word-regexp", "line-regexp", "count", "files-with-matches", "files-without-match",
		"max-count", "only-matching", "quiet", "silent", "no-messages", "byte-offset", "line-number", "with-filename", "no-filename",
		"label", "null", "null-data", "text", "binary-files", "context", "after-context", "before-context", "color", "colour",
		"extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "help", "version", "initial-tab", "unix-byte-offsets", "line-buffered", "binary", "no-ignore-case"},
}

// canonicalLong resolves an abbreviated long option of cmd.
func canonicalLong(cmd, name string) string {
	match := ""
	for _, full := range knownLong[cmd] {
		if full == name {
			return full
		}
		if strings.HasPrefix(full, name) {
			if match != "" {
				return name // ambiguous: getopt refuses it
			}
			match = full
		}
	}
	if match != "" {
		return match
	}
	return name
}

// optionValues returns the values of an option given as -xVALUE, -x VALUE
// (also inside a cluster: -pm 777), --long=VALUE or --long VALUE
// (abbreviations included).
func optionValues(cmd string, args []string, short byte, long string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, val, attached := strings.Cut(a[2:], "=")
			if canonicalLong(cmd, name) != long {
				continue
			}
			if attached {
				out = append(out, val)
			} else if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		if j := strings.IndexByte(a[1:], short); j >= 0 {
			if rest := a[j+2:]; rest != "" {
				out = append(out, rest)
			} else if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
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
			// o=u and a+g copy another class's bits, w included.
			if strings.ContainsAny(who, "oa") && strings.ContainsAny(perms, "wug") {
				return true
			}
		}
	}
	return false
}

func killsHard(args []string) bool {
	hard := func(s string) bool {
		switch strings.ToUpper(strings.TrimPrefix(strings.ToUpper(s), "SIG")) {
		case "9", "KILL":
			return true
		}
		return false
	}
	for _, a := range args {
		// -sKILL, -s9, -n9: the signal attached to its option.
		if len(a) > 2 && (strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "-n")) && hard(a[2:]) {
			return true
		}
	}
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

// pipedDownloads finds a download fed to a shell or interpreter: an
// interpreter reading a pipe after a downloader anywhere before it in the
// script (curl x | sh, curl x <<EOF | sh, curl x > f; cat f | sh).
func pipedDownloads(s *Script) []string {
	var out []string
	for _, dl := range s.Commands {
		if !downloaders[dl.Name] {
			continue
		}
		// Anywhere in the script: a here-document's pipeline is found
		// before the command it belongs to.
		for _, sh := range s.Commands {
			if sh.Pipeline != 0 && sh.Stage > 0 && interpreters[sh.Name] {
				out = append(out, fmt.Sprintf("%s output reaches %s", dl.Name, sh.Name))
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
		case a == "-i" || a == "--in-place":
			o.inPlace = true
		case strings.HasPrefix(a, "--in-place="):
			o.inPlace = true
			if strings.ContainsAny(strings.TrimPrefix(a, "--in-place="), "/*") {
				o.bad = append(o.bad, "a sed backup suffix that names another path")
			}
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
					// The rest is the backup suffix; with / or * in it, GNU
					// sed writes the backup somewhere else.
					if strings.ContainsAny(a[j+1:], "/*") {
						o.bad = append(o.bad, "a sed backup suffix that names another path")
					}
					break cluster
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
	if v == "*" || v == "/*" || strings.HasSuffix(v, "/*") || v == "/" ||
		(arg.Tilde && v == "~") || (v == "$HOME" && slices.Contains(arg.Vars, "HOME")) {
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
		if real, ok := a.paths.Resolve(wd, wd); ok && (p == real || strings.HasPrefix(real, strings.TrimSuffix(p, "/")+"/")) {
			return true
		}
	}
	return filepath.Dir(p) == "/"
}

// editsInWorkingDirs is the step 6 condition. Besides every target being
// inside a working directory: no target is named like an option (a file
// called --pre=sh turns a later `rg x *` into code), and a command that
// can create or move symbolic links (ln, cp -P/-R/-a, mv of a link or a
// folder, archive extraction) is not combined with other writes, whose
// targets were resolved before the links existed.
func (a *Analyzer) editsInWorkingDirs(s *Script, env Env) bool {
	if len(env.WorkingDirs) == 0 {
		return false
	}
	writes, linkers := 0, 0
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
		if c.Name == "cp" || c.Name == "mv" {
			// A source lands at DEST/basename(source), which may already
			// be a link pointing out of the working directories.
			if ops := operands(c); len(ops) >= 2 {
				for _, src := range ops[:len(ops)-1] {
					targets = append(targets, intoDir(ops[len(ops)-1], src))
				}
			}
			for _, d := range optionValues(c.Name, c.Values(), 't', "target-directory") {
				for _, src := range operands(c) {
					targets = append(targets, intoDir(Word{Raw: d, Value: d}, src))
				}
			}
		}
		for _, t := range targets {
			if !a.targetInside(t, env, c.AfterCd) || pathpolicy.OptionLike(t.Value) {
				return false
			}
		}
		writes++
		if a.mayMakeLinks(c, env) {
			linkers++
		}
	}
	for _, rd := range s.Redirects {
		if rd.Output() && !harmlessOutput(rd.Target.Value) {
			if !a.targetInside(rd.Target, env, anyAfterCd(s)) || pathpolicy.OptionLike(rd.Target.Value) {
				return false
			}
			writes++
		}
		if !rd.Output() && !harmlessWord(rd.Target) {
			return false // cat <<< $SECRET: not an edit, a disclosure
		}
		if t := cleanAbs(rd.Target.Value); strings.HasPrefix(t, "/dev/tcp/") || strings.HasPrefix(t, "/dev/udp/") {
			return false // a network connection
		}
	}
	return linkers == 0 || writes == 1
}

// MakesLinks reports a script with a command that can create or move
// symbolic links (ln, cp -P/-R/-a, mv of a link or folder, archive
// extraction, git checkout or clone of a tree that holds links): paths
// that later commands of the script write were resolved before the
// links existed.
func (a *Analyzer) MakesLinks(s *Script, env Env) bool {
	for _, c := range s.Commands {
		switch c.Name {
		case "ln", "link", "unzip", "bsdtar", "cpio", "rsync", "7z", "pax":
			return true
		case "tar":
			fs := flagsOf("tar", c.Values())
			if fs.short['x'] || fs.long["extract"] || fs.long["get"] || len(c.Args) > 0 && !strings.HasPrefix(c.Args[0].Value, "-") && strings.Contains(c.Args[0].Value, "x") {
				return true
			}
		case "git":
			switch sub, _, _ := gitSubcommand(c.Values()); sub {
			case "checkout", "switch", "restore", "reset", "clone", "merge", "pull", "rebase", "stash", "cherry-pick", "revert", "am", "apply", "worktree":
				return true
			}
		case "cp", "mv":
			if a.mayMakeLinks(c, env) {
				return true
			}
		}
	}
	return false
}

// mayMakeLinks reports an edit command that can create or move symbolic
// links: cp copying links as links (-P, -d, -a, -R, -r, -s, -l), mv of
// a link, a folder (which may hold relative links) or a path that does
// not exist yet (made earlier in the script).
func (a *Analyzer) mayMakeLinks(c *Command, env Env) bool {
	fs := flagsOf(c.Name, c.Values())
	switch c.Name {
	case "cp":
		for _, f := range "PdaRrsl" {
			if fs.short[byte(f)] {
				return true
			}
		}
		return fs.long["archive"] || fs.long["recursive"] || fs.long["no-dereference"] || fs.long["symbolic-link"] || fs.long["link"]
	case "mv":
		ops := operands(c)
		if len(ops) > 0 && !fs.short['t'] && !fs.long["target-directory"] {
			ops = ops[:len(ops)-1] // the last operand is the destination
		}
		for _, w := range ops {
			v, known := a.wordPath(w)
			abs := pathpolicy.Abs(v, commandDir(env, c.AfterCd))
			if !known || abs == "" || w.Glob {
				return true
			}
			// A source that does not exist moves nothing (one made by an
			// earlier command of the script would come from a linker,
			// counted on its own).
			mode, err := a.paths.Lstat(abs)
			if err == nil && (mode&os.ModeSymlink != 0 || mode.IsDir()) {
				return true
			}
		}
	}
	return false
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
		return ok && a.paths.ResolvedInside(p, env.WorkingDirs)
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
	if !ok || !a.paths.ResolvedInside(p, env.WorkingDirs) {
		return false
	}
	matches, err := filepath.Glob(filepath.Join(p, pathpolicy.BashGlob(last)))
	if err != nil {
		return false
	}
	for _, m := range matches {
		if !a.paths.Inside(m, "/", env.WorkingDirs) {
			return false
		}
	}
	return true
}

// editOptions are, per edit command, its short options taking a value
// and its long ones (resolved through knownLong).
var editOptions = map[string]struct {
	short string
	long  []string
}{
	"cp":    {short: "St", long: []string{"suffix", "target-directory", "backup", "reflink", "sparse", "preserve", "no-preserve"}},
	"mv":    {short: "St", long: []string{"suffix", "target-directory", "backup"}},
	"mkdir": {short: "m", long: []string{"mode", "context"}},
	"touch": {short: "dtr", long: []string{"date", "reference", "time"}},
	"rm":    {},
	"rmdir": {},
}

// editTargets returns the paths an edit command touches (its operands and
// cp/mv's target directory); ok is false for an option this check does not
// understand.
func editTargets(c *Command) ([]Word, bool) {
	if c.Name == "sed" {
		o := parseSed(c)
		if len(o.bad) > 0 {
			return nil, false
		}
		return o.files, len(o.files) > 0
	}
	spec, known := editOptions[c.Name]
	if !known {
		return nil, false
	}
	var out []Word
	args := c.Args
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		switch {
		case a == "--":
			return append(out, args[i+1:]...), len(out)+len(args[i+1:]) > 0
		case a == "-" || !strings.HasPrefix(a, "-"):
			out = append(out, args[i])
		case strings.HasPrefix(a, "--"):
			name, val, attached := strings.Cut(a[2:], "=")
			name = canonicalLong(c.Name, name)
			valued := slices.Contains(spec.long, name)
			if !valued && attached {
				return nil, false // an option with a value we do not know
			}
			if !valued {
				continue
			}
			if !attached && name != "backup" && name != "reflink" && name != "sparse" && name != "preserve" && name != "no-preserve" {
				if i+1 >= len(args) {
					return nil, false
				}
				i++
				val = args[i].Value
			}
			if name == "target-directory" {
				w := args[i]
				w.Value = val
				out = append(out, w)
			}
		default:
			// A cluster: the first letter taking a value takes the rest
			// of the cluster or the next word (cp -ut/etc, mkdir -pm 777).
			for j := 1; j < len(a); j++ {
				if !strings.ContainsRune(spec.short, rune(a[j])) {
					continue
				}
				w := args[i]
				if j+1 < len(a) {
					w.Value = a[j+1:]
				} else if i+1 < len(args) {
					i++
					w = args[i]
				} else {
					return nil, false
				}
				if a[j] == 't' && (c.Name == "cp" || c.Name == "mv") {
					out = append(out, w)
				}
				break
			}
		}
	}
	return out, len(out) > 0
}
