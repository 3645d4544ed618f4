package bash

import (
	"path"
	"slices"
	"strings"
)

// MatchKind says how strictly a rule is matched. Deny and ask rules match
// loosely (a miss would let a command through), allow rules strictly (a
// false match would let a command through).
type MatchKind int

// The match kinds.
const (
	MatchStrict MatchKind = iota // for allow rules
	MatchLoose                   // for deny and ask rules
)

// appendRuleWords appends to dst the words a rule sees for a command: the
// name, then the arguments; git's global options are skipped so that
// `git -C /p reset --hard` reads as `git reset --hard`. dst is empty; a
// caller's stack buffer with room spares the allocation.
func appendRuleWords(dst []string, c *Command) []string {
	// The words are rewritten in place for git.
	words := append(dst[:0], c.Name)
	for _, a := range c.Args {
		words = append(words, a.Value)
	}
	if sub, ok := strings.CutPrefix(c.Name, "git-"); ok && sub != "" {
		// /usr/lib/git-core/git-push is git push.
		return append([]string{"git", sub}, words[1:]...)
	}
	if c.Name == "git" {
		if sub, rest, _ := gitSubcommand(words[1:]); sub != "" {
			// rest follows sub at the end of words: "git" goes just
			// before sub, over the last global option (or over "git").
			i := len(words) - len(rest) - 2
			words[i], words[i+1] = "git", sub
			return words[i:]
		}
	}
	return words
}

// normalizeFlag maps spellings of the same flag to one name where the
// command is known: rm's --recursive (or --recu) and -R are r, --force is
// f; git push --force is f.
func normalizeFlag(cmd, flag string) string {
	if long, ok := strings.CutPrefix(flag, "--"); ok {
		flag = "--" + canonicalLong(cmd, long)
	}
	switch cmd {
	case "rm", "cp", "chmod", "chown", "chgrp":
		switch flag {
		case "--recursive", "R":
			return "r"
		case "--force":
			return "f"
		}
	case "git":
		switch flag {
		case "--force":
			return "f"
		}
	}
	return flag
}

// splitWords splits argv-like text: flags expanded into single letters,
// positionals kept in order, appended to pos (a caller's buffer).
func splitWords(cmd string, words, pos []string) (flags map[string]bool, _ []string) {
	// flags is made at the first flag: rules and commands often have none
	// (a nil map reads as empty).
	set := func(f string) {
		if flags == nil {
			flags = map[string]bool{}
		}
		flags[f] = true
	}
	endOfFlags := false
	for _, w := range words {
		switch {
		case endOfFlags || w == "-" || !strings.HasPrefix(w, "-"):
			pos = append(pos, w)
		case w == "--":
			endOfFlags = true
		case strings.HasPrefix(w, "--"):
			set(normalizeFlag(cmd, w))
		default:
			for i := 1; i < len(w); i++ {
				set(normalizeFlag(cmd, string(w[i])))
			}
		}
	}
	return flags, pos
}

// ruleText parses a rule's command text into words the way the shell
// would.
func ruleText(text string) []string { return appendRuleText(make([]string, 0, 4), text) }

// appendRuleText is ruleText into dst (empty, with room: a caller's
// stack buffer spares the allocation).
func appendRuleText(dst []string, text string) []string {
	// Plain words (see plainWords) are what the shell makes of them:
	// rules are mostly such ("npm run:*", "git push"), and parsing them
	// was most of the cost of matching one.
	if words, ok := appendPlainWords(dst[:0], text); ok && !anyQuoted(words) {
		return words
	}
	s := Parse(text)
	if !s.Analysable() || len(s.Commands) == 0 {
		return strings.Fields(text)
	}
	c := s.Commands[0]
	return append([]string{c.NameWord.Value}, c.Values()...)
}

// anyQuoted reports a word plainWords kept with its quotes.
func anyQuoted(words []string) bool {
	for _, w := range words {
		if strings.HasPrefix(w, "'") || strings.HasPrefix(w, "\"") {
			return true
		}
	}
	return false
}

// MatchRule reports whether the rule content (prefix:*, exact text, or a
// * wildcard pattern) matches the simple command c.
func MatchRule(c *Command, content string, kind MatchKind) bool {
	if kind == MatchStrict {
		// An allow rule vouches for a program by name: not for one named
		// by a path it did not name (./npm, /tmp/evil/npm), and not for
		// git with global options (-c, -C, --exec-path change what runs).
		if c.PathQualified() && !systemPath(c.NameWord.Value) && !strings.HasPrefix(strings.TrimSpace(content), c.NameWord.Value) {
			return false
		}
		if c.Name == "git" {
			if _, _, hadGlobal := gitSubcommand(c.Values()); hadGlobal {
				return false
			}
		}
	}
	var wordsBuf [8]string
	words := appendRuleWords(wordsBuf[:0], c)
	if kind == MatchStrict {
		// An allow rule vouches for the words it names, not for options
		// that make the program run something else (git push
		// --receive-pack=CMD, make --eval, go test -toolexec) unless the
		// rule names them itself.
		if opt := runsCode(c); opt != "" && !strings.Contains(content, opt) {
			return false
		}
	}
	var textBuf [4]string
	if prefix, ok := strings.CutSuffix(content, ":*"); ok {
		return matchPrefix(words, appendRuleText(textBuf[:0], prefix), kind)
	}
	if strings.Contains(content, "*") {
		// "rm -rf *" is the prefix rm -rf followed by anything: matched
		// like a prefix rule, so its flags compare as sets (rm -fr,
		// rm -r -f, rm --recursive --force).
		if prefix, ok := trailingStarPrefix(content); ok {
			pw := ruleText(prefix)
			// Each trailing star stands for at least one more word.
			return len(words) > len(pw) && matchPrefix(words, pw, kind)
		}
		if wildcard(content, strings.Join(words, " ")) {
			return true
		}
		return kind == MatchLoose && wildcard(normalizeText(content), strings.Join(normalizeWords(words), " "))
	}
	return matchExact(words, ruleText(content))
}

// trailingStarPrefix returns the words before a pattern's trailing " *"
// (one or more), when the pattern has no other star.
func trailingStarPrefix(pattern string) (string, bool) {
	p := strings.TrimSpace(pattern)
	trimmed := false
	for strings.HasSuffix(p, " *") {
		p = strings.TrimSpace(strings.TrimSuffix(p, " *"))
		trimmed = true
	}
	if !trimmed || strings.Contains(p, "*") || p == "" {
		return "", false
	}
	return p, true
}

// normalizeWords spells flags one way: clusters split (-rf is -r -f) and
// long names the command knows replaced by their short form.
func normalizeWords(words []string) []string {
	if len(words) == 0 {
		return words
	}
	cmd := words[0]
	out := []string{cmd}
	for _, w := range words[1:] {
		switch {
		case w == "--" || w == "-" || !strings.HasPrefix(w, "-"):
			out = append(out, w)
		case strings.HasPrefix(w, "--"):
			f := normalizeFlag(cmd, w)
			if !strings.HasPrefix(f, "-") {
				f = "-" + f
			}
			out = append(out, f)
		default:
			for i := 1; i < len(w); i++ {
				out = append(out, "-"+normalizeFlag(cmd, string(w[i])))
			}
		}
	}
	return out
}

// normalizeText normalises a wildcard pattern's words, keeping its stars.
func normalizeText(pattern string) string {
	return strings.Join(normalizeWords(strings.Fields(pattern)), " ")
}

func matchPrefix(words, prefix []string, kind MatchKind) bool {
	if len(prefix) == 0 || len(words) == 0 || words[0] != baseName(prefix[0]) {
		return false
	}
	cmd := words[0]
	var pbuf, cbuf [8]string // rules and commands have few positionals: no allocation
	pf, pp := splitWords(cmd, prefix[1:], pbuf[:0])
	cf, cp := splitWords(cmd, words[1:], cbuf[:0])
	for f := range pf {
		if !cf[f] {
			return false
		}
	}
	if kind == MatchStrict {
		if len(cp) < len(pp) {
			return false
		}
		for i := range pp {
			if cp[i] != pp[i] {
				return false
			}
		}
		return true
	}
	// Loose: the prefix's positionals in order, anywhere.
	j := 0
	for _, w := range cp {
		if j < len(pp) && w == pp[j] {
			j++
		}
	}
	return j == len(pp)
}

func matchExact(words, want []string) bool {
	if len(want) == 0 || len(words) == 0 || words[0] != baseName(want[0]) {
		return false
	}
	cmd := words[0]
	var wbuf, cbuf [8]string
	wf, wp := splitWords(cmd, want[1:], wbuf[:0])
	cf, cp := splitWords(cmd, words[1:], cbuf[:0])
	if len(wf) != len(cf) || len(wp) != len(cp) {
		return false
	}
	for f := range wf {
		if !cf[f] {
			return false
		}
	}
	for i := range wp {
		if wp[i] != cp[i] {
			return false
		}
	}
	return true
}

func baseName(s string) string {
	if i := strings.LastIndex(s, "/"); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}

// wildcard matches text against a pattern where * is any run of
// characters (spaces and slashes included) and the rest is literal.
func wildcard(pattern, text string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(text, parts[0]) {
		return false
	}
	text = text[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(text, p)
		if i < 0 {
			return false
		}
		text = text[i+len(p):]
	}
	if len(parts) == 1 {
		return text == ""
	}
	return strings.HasSuffix(text, last) && len(text) >= len(last)
}

// Match says how a rule relates to a script.
type Match int

// The answers of MatchAny.
const (
	NoMatch Match = iota
	// Matches: some command of the script matches the rule.
	Matches
	// MayMatch: no command visibly matches, but the script runs code the
	// analysis cannot see, so one might.
	MayMatch
)

// MatchAny reports whether the rule hits any command of the script (deny
// and ask rules), reaching commands inside every construct and after
// every wrapper; with a wrapper whose options it may misread, any word
// of its command line may start the command it runs. When nothing
// matches but the script runs code the analysis cannot see (a name known
// only at run time, eval, source, inline interpreter code, a runtime-built
// -c string, a PATH it changes itself, a command it could not parse), the
// rule may match.
func MatchAny(s *Script, content string) Match {
	// A script that cannot be analysed holds code nobody can see into.
	maybe := s.Incomplete || !s.Analysable()
	for _, c := range s.Commands {
		if c.Name == "" {
			continue
		}
		if MatchRule(c, content, MatchLoose) {
			return Matches
		}
		_, isWrapper := wrappers[c.Name]
		_, isSub := subcommandWrappers[c.Name]
		if isWrapper || isSub {
			for i := range c.Args {
				sub := &Command{Name: baseName(c.Args[i].Value), NameWord: c.Args[i], Args: c.Args[i+1:]}
				if MatchRule(sub, content, MatchLoose) {
					return Matches
				}
			}
		}
		if opaque(c) {
			maybe = true
		}
	}
	if maybe || changesLookup(s) || runsWhatItWrites(s) {
		return MayMatch
	}
	return NoMatch
}

// runsWhatItWrites reports a script that writes files and runs a program
// by a path outside the system folders (cp /bin/rm ./r; ./r -f x runs rm
// under another name), or an interpreter on a script file (printf 'rm x'
// > s.sh && bash s.sh).
func runsWhatItWrites(s *Script) bool {
	local := false
	for _, c := range s.Commands {
		if c.PathQualified() && !systemPath(c.NameWord.Value) {
			local = true
		}
		if _, inline := inlineCodeFlags[c.Name]; (interpreters[c.Name] || inline) && len(operands(c)) > 0 {
			local = true
		}
	}
	if !local {
		return false
	}
	targets, unknown := WriteTargets(s)
	return unknown || len(targets) > 0
}

// lookupVariables change which program a name runs, or run code when a
// shell starts: set by the script itself, they make every later command
// unknown.
var lookupVariables = setOf("PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "GCONV_PATH", "BASH_LOADABLES_PATH", "IFS")

func lookupVariable(name string) bool {
	return lookupVariables[name] || programVariables[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "BASH_FUNC_") ||
		strings.HasPrefix(name, "GIT_")
}

// programVariables name a program another program runs, or code it
// loads: set by the script, they make that program run anything
// (GIT_EDITOR=cmd git commit, GIT_SSH_COMMAND=cmd git fetch).
var programVariables = setOf("EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "SUDO_ASKPASS", "BROWSER",
	"NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER", "GOFLAGS", "CC", "CXX",
	"MAKEFLAGS", "PROMPT_COMMAND", "ZDOTDIR", "XDG_CONFIG_HOME", "HOME", "KUBECONFIG", "DOCKER_HOST", "npm_config_script_shell")

// changesLookup reports a script that sets a lookup variable, for one
// command (PATH=. ls) or for the rest (export PATH=., read PATH).
func changesLookup(s *Script) bool {
	for _, c := range s.Commands {
		for _, a := range c.Assigns {
			if lookupVariable(a.Name) {
				return true
			}
		}
	}
	for name := range assignedVariables(s) {
		if lookupVariable(name) {
			return true
		}
	}
	for _, c := range s.Commands {
		switch c.Name {
		case "declare", "typeset", "local":
			// declare -n p=PATH; p=/x: a name reference writes another
			// variable under a harmless name.
			for _, a := range c.Args {
				if shortFlagHas(a.Value, "n") {
					return true
				}
			}
		case "git":
			// git config alias.x '!cmd' (or core.pager, core.sshCommand)
			// changes what later git commands run.
			if sub, rest, _ := gitSubcommand(c.Values()); sub == "config" && !gitReadOnlyArgs(append([]string{"config"}, rest...)) {
				return true
			}
		}
	}
	return false
}

// systemPath reports a program named by its path in a system directory
// (/bin/rm is rm; ./npm and /tmp/x/npm are not npm).
func systemPath(p string) bool {
	switch path.Dir(path.Clean(p)) {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin":
		return true
	}
	return false
}

// opaqueRunners run code given as data, or change what a name runs.
var opaqueRunners = setOf("eval", "source", ".", "trap", "coproc", "watch", "alias", "hash", "enable", "fc", "parallel", "ssh", "complete",
	"at", "batch", "crontab", "tmux", "screen", "let", "ed", "red", "ex", "npx", "pnpx", "bunx", "nix-shell", "nix", "expect")

// subscriptBuiltins take variable names, whose array subscripts bash
// evaluates arithmetically, command substitutions included:
// printf -v 'a[$(rm x)]' y runs rm.
var subscriptBuiltins = setOf("printf", "read", "declare", "typeset", "local", "export", "readonly", "unset", "mapfile", "readarray", "test", "[", "getopts", "wait", "shift", "return", "exit", "kill")

// inlineCodeFlags are, per interpreter, the options whose value is a
// program.
var inlineCodeFlags = map[string]string{
	"python": "c", "python2": "c", "python3": "c", "perl": "eE", "ruby": "e", "node": "ep", "nodejs": "ep",
	"php": "rR", "lua": "e", "Rscript": "e", "osascript": "e", "pwsh": "cCeE", "powershell": "cCeE",
	"deno": "", "bun": "e", "tclsh": "", "expect": "c",
}

// opaque reports a command that runs code the analysis cannot see.
func opaque(c *Command) bool {
	if !c.NameWord.Literal() || c.NameWord.Glob || opaqueRunners[c.Name] {
		return true
	}
	if runsCode(c) != "" {
		return true // tar --checkpoint-action=exec=, rsync -e, vim -c ...
	}
	if c.Name == "git" {
		if hasGlobalConfig(c.Values()) {
			return true // git -c alias.x='!cmd' x, -c core.pager=cmd
		}
		if sub, _, _ := gitSubcommand(c.Values()); sub != "" && !gitCommands[sub] {
			return true // not a git command: an alias, which may be !cmd
		}
	}
	if subscriptBuiltins[c.Name] {
		for _, a := range c.Args {
			if strings.Contains(a.Value, "[") && strings.ContainsAny(a.Value, "$`") {
				return true
			}
		}
	}
	for _, a := range c.Assigns {
		if lookupVariable(a.Name) {
			return true // PATH=. ls runs ./ls
		}
	}
	if script, ok := shellCommandString(c); ok {
		// A literal string was parsed: its commands are in the script.
		return !script.Literal()
	}
	flags, inline := inlineCodeFlags[c.Name]
	if interpreters[c.Name] || inline {
		// An interpreter with inline code (python -c, node -e, perl -e)
		// or reading its program from standard input (echo 'rm x' | sh,
		// python3 - <<EOF) runs what no rule can see.
		ops := operands(c)
		if len(ops) == 0 && onlyInformation(c.Values()) {
			return false // python3 --version, node -v
		}
		if len(ops) == 0 || ops[0].Value == "-" {
			return true
		}
		if flags != "" && hasShortOrLong(c.Values(), flags, "--eval", "--print", "--command", "--execute", "-Command", "-EncodedCommand") {
			return true
		}
		if c.Name == "deno" && ops[0].Value == "eval" {
			return true
		}
	}
	switch c.Name {
	case "sqlite3", "sqlite":
		// Dot-commands (.output FILE, .shell CMD, .system CMD, .load LIB)
		// write files and run programs.
		for _, a := range c.Args {
			v := strings.TrimSpace(a.Value)
			if v == "-cmd" || v == "-init" || dotCommand(v) || strings.Contains(v, "\n.") {
				return true
			}
		}
		return false
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		return awkRunsCommands(c)
	case "sed":
		return sedRunsCommands(c)
	}
	return false
}

// dotCommand reports an sqlite3 dot-command (.output, .shell, ...).
func dotCommand(s string) bool {
	return len(s) > 1 && s[0] == '.' && ('a' <= s[1] && s[1] <= 'z')
}

// onlyInformation reports an interpreter asked only for its version or
// help.
func onlyInformation(args []string) bool {
	if len(args) == 0 {
		return false
	}
	for _, a := range args {
		switch a {
		case "--version", "-V", "-v", "--help", "-h", "-VV":
		default:
			return false
		}
	}
	return true
}

// awkValued are awk's options that take the next argument.
var awkValued = setOf("-F", "-v", "--field-separator", "--assign")

// awkRunsCommands: an awk program from a file, or one that can run
// commands (system(), pipes to or from a command).
func awkRunsCommands(c *Command) bool {
	args := c.Values()
	if hasShortOrLong(args, "f", "--file", "--include", "--load", "--source") {
		return true
	}
	ops := positionals(args, awkValued)
	if len(ops) == 0 {
		return true
	}
	prog := ops[0]
	// system(), pipes, getline from a command, extensions, and output
	// redirection (print > "file" writes a file).
	return strings.Contains(prog, "system") || strings.Contains(prog, "|") || strings.Contains(prog, "getline") ||
		strings.Contains(prog, "@load") || strings.Contains(prog, ">")
}

// sedRunsCommands: a sed script outside the allowlist may hold the e
// command or the s///e flag; a script file is unknown.
func sedRunsCommands(c *Command) bool {
	o := parseSed(c)
	if len(o.bad) > 0 || len(o.scripts) == 0 {
		return true
	}
	for _, sc := range o.scripts {
		if !sc.Literal() || validSedScript(sc.Value, o.quiet) != "" {
			return true
		}
	}
	return false
}

// CoveredBy reports whether every command of the script is read-only or
// matched by one of the allow rules.
func CoveredBy(s *Script, contents []string) bool {
	if !s.Analysable() || len(s.Commands) == 0 {
		return false
	}
	for _, c := range s.Commands {
		if readOnly(c) {
			continue
		}
		if c.Name == "" || !c.NameWord.Literal() || c.NameWord.Glob || setsUnsafeVariables(c) {
			return false
		}
		covered := false
		for _, content := range contents {
			if MatchRule(c, content, MatchStrict) {
				covered = true
				break
			}
		}
		if !covered {
			return false
		}
	}
	return true
}

// Suggestions returns prefix rules (content only, "npm run:*") that would
// allow the script's commands: one per distinct command that is not
// read-only, at most five. None when some command cannot be covered by a
// prefix rule (an interpreter, a shell, a wrapper, a name known only at
// run time): accepting the others would not stop the asking.
func Suggestions(s *Script) []string {
	if !s.Analysable() {
		return nil
	}
	var out []string
	for _, c := range s.Commands {
		if readOnly(c) {
			continue
		}
		if c.Name == "" || !c.NameWord.Literal() || c.NameWord.Glob || noSuggestion[c.Name] || c.MoreArgs ||
			len(c.Wrappers) > 0 && !allHarmlessWrappers(c.Wrappers) || setsUnsafeVariables(c) {
			if _, isWrapper := wrappers[c.Name]; isWrapper {
				continue // the command it runs is suggested for
			}
			return nil
		}
		if c.Name == "git" {
			if _, _, hadGlobal := gitSubcommand(c.Values()); hadGlobal {
				return nil // an allow rule never covers git with global options
			}
		}
		var wordsBuf [8]string
		words := appendRuleWords(wordsBuf[:0], c)
		rule := words[0]
		if c.PathQualified() {
			rule = c.NameWord.Value // ./deploy.sh, not any deploy.sh
		}
		if len(words) > 1 && !fileOperands[words[0]] && plainWord(words[1]) {
			rule += " " + words[1] + ":*"
		} else {
			rule += ":*"
		}
		if !slices.Contains(out, rule) { // a few: no map
			out = append(out, rule)
		}
	}
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

// plainWord: a second word worth putting in a suggested prefix, which
// looks like a subcommand (npm run, git commit): not a flag, and nothing
// that varies (variables, globs, assignments, paths, file names).
func plainWord(w string) bool {
	return w != "" && !strings.HasPrefix(w, "-") && !strings.ContainsAny(w, " \t\n*?[$=/.'\"\\`~")
}

// setsUnsafeVariables reports an assignment prefix, or an export-like
// command, that sets a variable outside the harmless list: a rule on the
// command's words cannot vouch for what such a variable changes.
func setsUnsafeVariables(c *Command) bool {
	for _, a := range c.Assigns {
		if !ruleSafeVariables[a.Name] {
			return true
		}
	}
	switch c.Name {
	case "export", "declare", "typeset", "readonly", "local":
		for _, a := range c.Args {
			if name, _, ok := strings.Cut(a.Value, "="); ok && !ruleSafeVariables[name] {
				return true
			}
		}
	}
	return false
}

// ruleSafeVariables may be set in front of a command an allow rule
// covers: none of them chooses a program to run or a configuration to
// read (EDITOR, PAGER, HOME, SHELL, GIT_*, LD_*, NODE_OPTIONS, PYTHON*
// all do, and are not here).
var ruleSafeVariables = setOf("NODE_ENV", "RUST_LOG", "RUST_BACKTRACE", "LANG", "LANGUAGE", "TERM", "NO_COLOR", "FORCE_COLOR", "DEBUG",
	"VERBOSE", "CI", "USER", "TZ", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "COLUMNS", "LINES", "CLICOLOR", "CLICOLOR_FORCE")

func allHarmlessWrappers(ws []string) bool {
	for _, w := range ws {
		switch w {
		case "timeout", "nice", "nohup", "time", "stdbuf", "command", "builtin", "env":
		default:
			return false
		}
	}
	return true
}

// WordPath returns the path a word names before resolution, with ~ and
// $HOME expanded; ok is false when it depends on something else known
// only at run time.
func (a *Analyzer) WordPath(w Word) (string, bool) { return a.wordPath(w) }

// Resolve returns the absolute path an argument names, as the path checks
// see it (symbolic links followed as far as the path exists); ok is false
// when it cannot be known statically.
func (a *Analyzer) Resolve(w Word, cwd string, afterCd bool) (string, bool) {
	return a.resolve(w, cwd, afterCd)
}

// hasGlobalConfig reports git's -c or --config-env before the subcommand.
func hasGlobalConfig(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return false
		}
		if a == "-c" || strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "--config-env") {
			return true
		}
	}
	return false
}

// Opaque reports whether the script runs code the analysis cannot see:
// then no list of what it reads or writes is complete. A construct that
// cannot be judged (a loop, a substitution) is not opaque by itself: the
// commands inside it are collected.
func Opaque(s *Script) bool {
	if s.Incomplete || changesLookup(s) {
		return true
	}
	for _, c := range s.Commands {
		if c.Name != "" && opaque(c) {
			return true
		}
	}
	return false
}

// writesNothing reports a command of the read-only list used with no
// option that writes: it reads whatever its words name (a variable
// included) and writes nothing.
func writesNothing(c *Command) bool {
	return readOnlyCommands[c.Name] && c.NameWord.Literal() && !c.PathQualified() && runsCode(c) == "" && readOnlyFlags(c.Name, c.Values())
}

// textArguments are commands whose arguments are never files they open.
var textArguments = setOf("echo", "printf", "true", "false", ":", "test", "[", "expr", "seq", "sleep", "kill", "exit", "return",
	"shift", "set", "unset", "export", "declare", "local", "readonly", "typeset", "wait", "let", "type", "which", "whereis",
	"printenv", "id", "uname", "whoami", "date", "nproc", "pwd", "cd", "pushd", "popd", "umask", "ulimit", "getopts", "break", "continue")

// ArgumentPaths returns every word of the script's commands that may
// name a file (arguments, option values, git's rev:path), of every
// command or, with changing, of the commands that are not read-only: a
// program not known to read or write still opens what it is given
// (sort -o FILE, uniq IN OUT, gcc -o FILE, xxd -r IN OUT).
func ArgumentPaths(s *Script, changing bool) []PathTarget {
	var out []PathTarget
	for _, c := range s.Commands {
		if c.Name == "" || changing && (readOnly(c) || writesNothing(c)) || textArguments[c.Name] {
			continue
		}
		for _, w := range pathCandidates(c) {
			out = append(out, PathTarget{Word: w, AfterCd: c.AfterCd})
		}
	}
	return out
}

// gitCommands are git's own subcommands; any other word in their place
// is an alias, which may run a shell command ("!cmd").
var gitCommands = setOf(
	"add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file", "check-attr", "check-ignore",
	"check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry", "cherry-pick", "citool", "clean", "clone",
	"column", "commit", "commit-graph", "commit-tree", "config", "count-objects", "credential", "daemon", "describe", "diff",
	"diff-files", "diff-index", "diff-tree", "difftool", "fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch",
	"fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch", "fsck", "gc", "get-tar-commit-id", "grep", "gui",
	"hash-object", "help", "hook", "http-backend", "index-pack", "init", "instaweb", "interpret-trailers", "log", "ls-files",
	"ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file", "merge-index",
	"merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes", "pack-objects", "pack-redundant",
	"pack-refs", "patch-id", "prune", "prune-packed", "pull", "push", "range-diff", "read-tree", "rebase", "reflog", "remote",
	"repack", "replace", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "send-email",
	"shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout", "stage", "stash", "status", "stripspace",
	"submodule", "switch", "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index", "update-ref",
	"update-server-info", "var", "verify-commit", "verify-pack", "verify-tag", "version", "whatchanged", "worktree", "write-tree",
	"lfs", "p4", "svn", "cvsimport", "quiltimport", "request-pull", "scalar",
)
