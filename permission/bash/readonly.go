package bash

import "strings"

// readOnly reports whether a simple command only reads: its name is a
// bare literal on the read-only list (with the per-command flag checks),
// its assignments and variables are harmless, and nothing is added to its
// arguments at run time. Redirects and sensitive paths are judged
// separately.
func readOnly(c *Command) bool {
	switch c.readOnly {
	case 1:
		return true
	case 2:
		return false
	}
	return readOnlyUncached(c)
}

// markReadOnly records each command's read-only verdict once its script
// is complete (the analysis asks for it about ten times per command).
// Parsed commands are never changed after Parse, so the verdict cannot go
// stale; a Command made otherwise has none and is judged each time.
func markReadOnly(s *Script) {
	for _, c := range s.Commands {
		c.readOnly = 2
		if readOnlyUncached(c) {
			c.readOnly = 1
		}
	}
}

// readOnlyUncached is readOnly without the recorded verdict.
func readOnlyUncached(c *Command) bool {
	for _, as := range c.Assigns {
		if !harmlessAssignments[as.Name] || !harmlessWord(as.Value) {
			return false
		}
	}
	if c.Name == "" {
		// A bare assignment of harmless variables.
		return len(c.Assigns) > 0
	}
	if !c.NameWord.Literal() || c.NameWord.Glob || c.PathQualified() || c.MoreArgs {
		return false
	}
	for _, a := range c.Args {
		if !harmlessWord(a) {
			return false
		}
	}
	if _, ok := wrappers[c.Name]; ok {
		return readOnlyWrapper(c)
	}
	args := c.Values()
	if runsCodeIn(c, args) != "" {
		return false // less -k, sort --compress-program, git grep -O ...
	}
	if c.Name == "sort" || c.Name == "wc" || c.Name == "du" {
		for _, a := range args {
			if strings.HasPrefix(a, "--files") {
				return false // --files0-from=-: reads the files named on standard input
			}
		}
	}
	if namesHost(c.Name, args) {
		return false // a URL or host: network, in explore too
	}
	switch c.Name {
	case "git":
		// After a cd the repository (and its config, which can run
		// programs) is unknown.
		return !c.AfterCd && gitReadOnlyArgs(args)
	case "docker":
		return len(args) > 0 && dockerReadOnly[args[0]]
	case "gh":
		return ghReadOnly(args)
	case "python", "python3", "node":
		return len(args) == 1 && (args[0] == "--version" || args[0] == "-V" && c.Name != "node" || args[0] == "-v" && c.Name == "node")
	case "go", "cargo", "rustc", "java", "javac", "ruby", "deno", "bun", "gcc", "clang", "make", "cmake":
		// Asking a toolchain its version runs nothing else.
		return len(args) == 1 && (args[0] == "--version" || args[0] == "-V" || c.Name == "go" && args[0] == "version")
	case "npm":
		return len(args) > 0 && (args[0] == "list" || args[0] == "ls") || len(args) == 1 && (args[0] == "--version" || args[0] == "-v")
	case "pip", "pip3":
		return pipReadOnly(args)
	}
	if !readOnlyCommands[c.Name] {
		return false
	}
	return readOnlyFlags(c.Name, args)
}

// harmlessWord: no dynamic parts, and only harmless variables.
func harmlessWord(w Word) bool {
	if w.Dynamic {
		return false
	}
	for _, v := range w.Vars {
		if !harmlessVariables[v] {
			return false
		}
	}
	return true
}

// readOnlyWrapper: a wrapper is read-only when it changes nothing by
// itself; the command it runs is judged on its own.
func readOnlyWrapper(c *Command) bool {
	switch c.Name {
	case "timeout", "nice", "nohup", "stdbuf", "command", "builtin":
		return true
	case "time":
		// GNU time -o FILE (and -a) writes a file.
		for _, a := range c.Values() {
			if !strings.HasPrefix(a, "-") {
				break
			}
			if a != "-p" && a != "-v" && a != "--portability" && a != "--verbose" {
				return false
			}
		}
		return true
	case "env":
		for _, a := range c.Args {
			v := a.Value
			if strings.HasPrefix(v, "-") {
				return false // -i, -u, -C, -S: changes more than it shows
			}
			if name, _, ok := strings.Cut(v, "="); ok {
				if !harmlessAssignments[name] {
					return false
				}
				continue
			}
			return true // a command follows
		}
		return false // a bare env prints every variable, secrets included
	}
	return false
}

// shortFlags reports whether an argument is a cluster of short flags
// containing any of letters.
func shortFlagHas(arg, letters string) bool {
	return len(arg) > 1 && arg[0] == '-' && arg[1] != '-' && strings.ContainsAny(arg[1:], letters)
}

// hasLong reports whether args hold one of the long options, spelled in
// full or abbreviated as GNU getopt accepts (--out for --output).
func hasLong(args []string, names ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "--") || len(a) < 3 {
			continue
		}
		opt, _, _ := strings.Cut(a, "=")
		for _, n := range names {
			if strings.HasPrefix(n, opt) {
				return true
			}
		}
	}
	return false
}

// readOnlyFlags applies the per-command flag checks.
func readOnlyFlags(name string, args []string) bool {
	switch name {
	case "find":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case findMutating[a]:
				return false
			case findValued[a] || strings.HasPrefix(a, "-newer"):
				i++ // its argument is a value, whatever it looks like
			}
		}
	case "rg":
		if hasLong(args, "--pre", "--hostname-bin", "--search-zip") {
			return false
		}
		for _, a := range args {
			if a == "--" {
				break
			}
			if shortFlagHas(a, "z") && !strings.Contains(a, "=") {
				return false
			}
		}
	case "sort":
		if hasLong(args, "--output", "--compress-program") {
			return false
		}
		for _, a := range args {
			if a == "--" {
				break
			}
			if shortFlagHas(a, "o") {
				return false
			}
		}
	case "tree":
		// -o FILE writes a file (even inside a cluster: tree -fo x);
		// -R with -H writes an index per directory.
		if hasLong(args, "--output") {
			return false
		}
		for _, a := range args {
			if shortFlagHas(a, "oR") {
				return false
			}
		}
	case "base64":
		if hasLong(args, "--output") {
			return false
		}
		for _, a := range args {
			if a == "-o" || strings.HasPrefix(a, "-o") {
				return false
			}
		}
	case "sed":
		return sedReadOnly(args)
	case "printf":
		for _, a := range args {
			if a == "-v" || strings.HasPrefix(a, "-v") {
				return false // printf -v NAME assigns a variable
			}
		}
	case "date":
		// date -s/--set sets the clock.
		if hasShortOrLong(args, "s", "--set") {
			return false
		}
	case "ack":
		// ack reads .ackrc files, the working directory's included, which
		// can set --pager: only with --noenv does it read nothing planted.
		return hasLong(args, "--noenv")
	case "less", "more":
		// +CMD runs a pager command at start-up (less +!cmd runs a shell).
		for _, a := range args {
			if strings.HasPrefix(a, "+") {
				return false
			}
		}
	case "uniq":
		// uniq IN OUT writes OUT.
		if len(positionals(args, nil)) > 1 {
			return false
		}
	case "file":
		if hasLong(args, "--compile") {
			return false
		}
		for _, a := range args {
			if shortFlagHas(a, "C") {
				return false
			}
		}
	}
	return true
}

// positionals returns the non-flag arguments; valued lists the options
// that take the next argument as their value.
func positionals(args []string, valued map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			if valued[a] && !strings.Contains(a, "=") {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// gitBranchListing and gitTagListing are the options that keep git
// branch and git tag listing; gitListingValued are the listing options
// that take the next argument.
var (
	gitBranchListing = setOf("-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current", "-i", "--ignore-case", "--no-color", "--color", "--no-column", "--column", "--omit-empty", "-q", "--quiet")
	gitTagListing    = setOf("-i", "--ignore-case", "--no-column", "--column", "--color", "--no-color", "--omit-empty")
	gitListingValued = setOf("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format")
)

// gitGlobalValued are git's global options that take the next argument.
var gitGlobalValued = setOf("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--exec-path", "--list-cmds", "--attr-source")

// gitSubcommand splits git's arguments at the subcommand, skipping global
// options. It reports whether any global option was present.
func gitSubcommand(args []string) (sub string, rest []string, hadGlobal bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			hadGlobal = true
			if gitGlobalValued[a] {
				i++
			}
			continue
		}
		return a, args[i+1:], hadGlobal
	}
	return "", nil, hadGlobal
}

func gitReadOnlyArgs(args []string) bool {
	sub, rest, hadGlobal := gitSubcommand(args)
	if hadGlobal || !gitReadOnly[sub] {
		return false
	}
	if hasLong(rest, "--output", "--ext-diff", "--textconv", "--filters", "--open-files-in-pager", "--exec") {
		return false
	}
	if sub == "grep" && hasLong(rest, "--open-files-in-pager") {
		return false
	}
	for _, a := range rest {
		if a == "--" {
			break
		}
		if sub == "grep" && shortFlagHas(a, "O") {
			return false // git grep -O runs a pager program
		}
	}
	switch sub {
	case "branch":
		return listingOnly(rest, gitBranchListing, gitListingValued)
	case "tag":
		return listingOnly(rest, gitTagListing, gitListingValued)
	case "remote":
		if len(rest) == 0 {
			return true
		}
		// Listing only: git remote show contacts the remote (and may run
		// core.sshCommand).
		switch rest[0] {
		case "-v", "--verbose":
			return len(rest) == 1 || rest[1] == "get-url"
		case "get-url":
			return true
		}
		return false
	case "reflog":
		// git reflog [show] lists; expire and delete rewrite the log.
		return len(rest) == 0 || rest[0] == "show" || strings.HasPrefix(rest[0], "-")
	case "config":
		// Reading needs --get*/--list, or get/list as the first operand
		// (git config NAME VALUE list writes: list is a value pattern).
		// Listing everything, or a key that may hold a credential (a token
		// in a URL, an extra header, a helper), prints secrets kept in
		// ~/.gitconfig and .git/config: not read-only.
		read, firstOperand, operandsSeen := false, true, 0
		for _, a := range rest {
			if !strings.HasPrefix(a, "-") {
				operandsSeen++
				if firstOperand && (a == "get" || a == "list") {
					read = true
				}
				if firstOperand && a == "list" || credentialKey(a) {
					return false
				}
				firstOperand = false
				continue
			}
			if a == "--list" || a == "-l" || strings.HasPrefix(a, "--get-regexp") || strings.HasPrefix(a, "--get-urlmatch") ||
				a == "--all" || strings.HasPrefix(a, "--regexp") || a == "--show-names" || strings.HasPrefix(a, "--url") {
				return false // many keys at once (git config get --all --regexp .)
			}
			switch {
			case a == "--get" || a == "--get-all" || a == "--get-regexp" || a == "--list" || a == "-l" || a == "--get-urlmatch" || a == "--get-color" || a == "--get-colorbool":
				read = true
			case a == "-e" || hasLong([]string{a}, "--edit", "--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section"):
				return false
			}
		}
		// git config NAME (one operand, nothing else) reads the key.
		return read || operandsSeen == 1 && len(rest) == 1
	}
	return true
}

// credentialKey reports a git configuration key (or a pattern of keys)
// that may hold a secret.
func credentialKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"url.", "credential", "extraheader", "token", "password", "secret", "auth", "http.", "remote.", "insteadof", "signingkey", "sendemail.smtppass"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// listingOnly accepts the listing forms of git branch and git tag: known
// flags, -l/--list with patterns, -n<num> for tags, and valued filters.
func listingOnly(args []string, flags, valued map[string]bool) bool {
	list := false
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, attached := strings.Cut(a, "=")
		switch {
		case a == "-l" || a == "--list":
			list = true
		case flags[a] || flags[name] || strings.HasPrefix(a, "--sort=") || strings.HasPrefix(a, "--format=") || strings.HasPrefix(a, "--color=") || strings.HasPrefix(a, "--column=") || strings.HasPrefix(a, "--abbrev="):
			// --abbrev takes its value only attached: in git branch
			// --abbrev NAME, NAME is a branch to create.
		case valued[name]:
			if !attached {
				i++
			}
		case strings.HasPrefix(a, "-n") && isNumber(a[2:]):
		case strings.HasPrefix(a, "-"):
			return false
		default:
			pos = append(pos, a)
		}
	}
	return len(pos) == 0 || list
}

func ghReadOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if args[0] == "status" {
		return true
	}
	if len(args) < 2 {
		return false
	}
	switch args[0] + " " + args[1] {
	case "repo view", "issue list", "pr list", "issue view", "pr view", "pr status", "issue status", "pr diff", "pr checks", "run list", "run view", "release list", "release view":
		return true
	}
	return false
}

// namesHost reports an argument naming a URL, or an option naming a host,
// index or registry, of a read-only command that can reach the network:
// pip list --index-url URL sent a request per package (data included) to
// whatever URL it was given.
func namesHost(name string, args []string) bool {
	switch name {
	case "pip", "pip3", "npm", "docker", "gh", "git":
	default:
		return false
	}
	for _, a := range args {
		if strings.Contains(a, "://") {
			return true
		}
	}
	if name == "gh" {
		// gh takes [HOST/]OWNER/REPO: a host of the caller's choosing
		// receives the request (and the user's enterprise token).
		for i, a := range args {
			v := a
			if (a == "-R" || a == "--repo") && i+1 < len(args) {
				v = args[i+1]
			} else if r, ok := strings.CutPrefix(a, "--repo="); ok {
				v = r
			} else if strings.HasPrefix(a, "-") {
				continue
			}
			if strings.Count(v, "/") >= 2 {
				return true
			}
		}
	}
	return hasLong(args, "--index-url", "--extra-index-url", "--find-links", "--trusted-host", "--proxy", "--registry", "--host", "--hostname", "--server")
}

// pipListSafe and pipShowSafe are the options of pip list and pip show
// that stay local.
var (
	pipListSafe = setOf("-l", "--local", "--user", "-e", "--editable", "--not-required", "--exclude-editable", "--include-editable",
		"--format", "--format=columns", "--format=freeze", "--format=json", "-v", "--verbose", "-q", "--quiet", "--no-color", "--disable-pip-version-check")
	pipShowSafe = setOf("-f", "--files", "-v", "--verbose", "-q", "--quiet", "--no-color", "--disable-pip-version-check")
)

// pipReadOnly accepts pip list and pip show with options that stay local:
// --outdated and --uptodate ask the index, -i and -f name one.
func pipReadOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	var safe map[string]bool
	switch args[0] {
	case "list":
		safe = pipListSafe
	case "show":
		safe = pipShowSafe
	default:
		return false
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		if !safe[a] {
			return false
		}
		if a == "--format" {
			i++
		}
	}
	return true
}
