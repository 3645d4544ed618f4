package bash

import (
	"path"
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

// ruleWords are the words a rule sees for a command: the name, then the
// arguments; git's global options are skipped so that
// `git -C /p reset --hard` reads as `git reset --hard`.
func ruleWords(c *Command) []string {
	words := append([]string{c.Name}, c.Values()...)
	if c.Name == "git" {
		sub, rest, _ := gitSubcommand(c.Values())
		if sub != "" {
			words = append([]string{"git", sub}, rest...)
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
// positionals kept in order.
func splitWords(cmd string, words []string) (flags map[string]bool, pos []string) {
	flags = map[string]bool{}
	endOfFlags := false
	for _, w := range words {
		switch {
		case endOfFlags || w == "-" || !strings.HasPrefix(w, "-"):
			pos = append(pos, w)
		case w == "--":
			endOfFlags = true
		case strings.HasPrefix(w, "--"):
			flags[normalizeFlag(cmd, w)] = true
		default:
			for i := 1; i < len(w); i++ {
				flags[normalizeFlag(cmd, string(w[i]))] = true
			}
		}
	}
	return flags, pos
}

// ruleText parses a rule's command text into words the way the shell
// would.
func ruleText(text string) []string {
	s := Parse(text)
	if !s.Analysable() || len(s.Commands) == 0 {
		return strings.Fields(text)
	}
	c := s.Commands[0]
	return append([]string{c.NameWord.Value}, c.Values()...)
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
	words := ruleWords(c)
	if prefix, ok := strings.CutSuffix(content, ":*"); ok {
		return matchPrefix(words, ruleText(prefix), kind)
	}
	if strings.Contains(content, "*") {
		return wildcard(content, strings.Join(words, " "))
	}
	return matchExact(words, ruleText(content))
}

func matchPrefix(words, prefix []string, kind MatchKind) bool {
	if len(prefix) == 0 || len(words) == 0 || words[0] != baseName(prefix[0]) {
		return false
	}
	cmd := words[0]
	pf, pp := splitWords(cmd, prefix[1:])
	cf, cp := splitWords(cmd, words[1:])
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
	wf, wp := splitWords(cmd, want[1:])
	cf, cp := splitWords(cmd, words[1:])
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

// MatchAny reports whether the rule hits any command of the script (deny
// and ask rules). A command that runs code the analysis cannot see (a
// name known only at run time, eval, source, trap, a shell reading its
// standard input) could be anything, so it matches.
func MatchAny(s *Script, content string) bool {
	for _, c := range s.Commands {
		if c.Name == "" {
			continue
		}
		if opaque(c) || MatchRule(c, content, MatchLoose) {
			return true
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

// opaqueRunners run code given as data.
var opaqueRunners = setOf("eval", "source", ".", "trap", "busybox", "coproc", "watch")

// opaque reports a command that runs code the analysis cannot see.
func opaque(c *Command) bool {
	if !c.NameWord.Literal() || c.NameWord.Glob || opaqueRunners[c.Name] {
		return true
	}
	if interpreters[c.Name] {
		// A shell with -c had its string parsed: its commands are in the
		// script. Otherwise an interpreter with inline code (python -c,
		// node -e, perl -e) or no operand (reading its program from
		// standard input: echo 'rm x' | sh) runs what no rule can see.
		if _, ok := shellCommandString(c); ok {
			return false
		}
		if len(operands(c)) == 0 {
			return true
		}
		if !shells[c.Name] && hasShortOrLong(c.Values(), "ceEp", "--eval", "--print", "--command") {
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
	seen := map[string]bool{}
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
		words := ruleWords(c)
		rule := words[0]
		if c.PathQualified() {
			rule = c.NameWord.Value // ./deploy.sh, not any deploy.sh
		}
		if len(words) > 1 && !fileOperands[words[0]] && plainWord(words[1]) {
			rule += " " + words[1]
		}
		rule += ":*"
		if !seen[rule] {
			seen[rule] = true
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
		if !harmlessVariables[a.Name] {
			return true
		}
	}
	switch c.Name {
	case "export", "declare", "typeset", "readonly", "local":
		for _, a := range c.Args {
			if name, _, ok := strings.Cut(a.Value, "="); ok && !harmlessVariables[name] {
				return true
			}
		}
	}
	return false
}

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

// ReadTarget is something a command reads the contents of.
type ReadTarget struct {
	Word    Word
	AfterCd bool
	// Recursive targets are directories read with everything below them
	// (grep -r, rg).
	Recursive bool
}

// ReadTargets returns what known readers (cat, grep, head, ...) read: their
// file operands, files of input redirects, git's rev:path, and the
// directories of recursive searches. unknown reports a reader whose
// operands are not all known statically.
func ReadTargets(s *Script) (targets []ReadTarget, unknown bool) {
	for _, c := range s.Commands {
		switch {
		case readers[c.Name]:
		case c.Name == "git":
			sub, rest, _ := gitSubcommand(c.Values())
			readsPaths := sub == "diff" || sub == "blame" || sub == "show" || sub == "cat-file" || sub == "log" || sub == "grep"
			for i, w := range c.Args {
				if strings.HasPrefix(w.Value, "-") {
					continue
				}
				if _, p, ok := strings.Cut(w.Value, ":"); ok && p != "" {
					w.Value = p // HEAD:.env
					targets = append(targets, ReadTarget{Word: w, AfterCd: c.AfterCd})
				} else if readsPaths && i >= len(c.Args)-len(rest) {
					targets = append(targets, ReadTarget{Word: w, AfterCd: c.AfterCd})
				}
			}
			continue
		default:
			continue
		}
		if c.MoreArgs {
			unknown = true
		}
		recursive := recursiveReader(c)
		ops := pathCandidates(c)
		if !readOnly(c) {
			ops = operands(c)
		}
		if recursive && len(ops) == 0 {
			// A recursive search without a directory searches the
			// current one.
			ops = append(ops, Word{Raw: ".", Value: "."})
		}
		for _, w := range ops {
			if !w.Literal() {
				unknown = true
			}
			targets = append(targets, ReadTarget{Word: w, AfterCd: c.AfterCd, Recursive: recursive})
		}
	}
	for _, r := range s.Redirects {
		if r.Input() {
			targets = append(targets, ReadTarget{Word: r.Target, AfterCd: anyAfterCd(s)})
		}
	}
	return targets, unknown
}

// Resolve returns the absolute path an argument names, as the path checks
// see it (symbolic links followed as far as the path exists); ok is false
// when it cannot be known statically.
func (a *Analyzer) Resolve(w Word, cwd string, afterCd bool) (string, bool) {
	return a.resolve(w, cwd, afterCd)
}
