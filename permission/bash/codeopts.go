package bash

import "strings"

// Options that make a program run another program or load code: an
// allow rule for the program does not vouch for them unless it names
// them. Facts from each program's manual.

// codeOption is an option by spelling: a long name ("--eval") matched
// with its GNU abbreviations and =value, a short letter matched inside a
// cluster, or a word prefix (vim's "+cmd").
type codeOption struct {
	long   []string
	short  string
	prefix string
}

var codeOptions = map[string]codeOption{
	"make":  {long: []string{"--eval", "--file", "--makefile", "--directory", "--include-dir"}, short: "EfCI"},
	"gmake": {long: []string{"--eval", "--file", "--makefile", "--directory", "--include-dir"}, short: "EfCI"},
	"npm":   {long: []string{"--script-shell", "--node-options", "--userconfig", "--globalconfig", "--call", "--prefix"}, short: "cC"},
	"pnpm":  {long: []string{"--script-shell", "--node-options", "--userconfig", "--globalconfig", "--config"}},
	"yarn":  {long: []string{"--script-shell", "--node-options", "--use-yarnrc", "--rcfile"}},
	"npx":   {long: []string{"--call", "--node-options", "--script-shell", "--package"}, short: "cp"},
	"cargo": {long: []string{"--config", "--manifest-path", "--target-dir", "--config-file"}, short: "Z"},
	"pytest": {long: []string{"--override-ini", "--confcutdir", "--rootdir", "--pyargs", "--basetemp", "--junitxml", "--junit-xml",
		"--log-file", "--debug", "--resultlog", "--cov-report", "--import-mode"}, short: "pcoW"},
	"py.test": {long: []string{"--override-ini", "--confcutdir", "--rootdir", "--pyargs", "--basetemp", "--junitxml", "--junit-xml",
		"--log-file", "--debug"}, short: "pcoW"},
	"kubectl": {long: []string{"--kubeconfig", "--server", "--token", "--kustomize", "--cache-dir", "--insecure-skip-tls-verify",
		"--certificate-authority", "--client-certificate", "--client-key", "--username", "--password", "--as", "--as-group", "--tls-server-name"}, short: "sk"},
	"helm":   {long: []string{"--kubeconfig", "--kube-apiserver", "--kube-token", "--post-renderer", "--repo", "--plugins"}},
	"man":    {long: []string{"--pager", "--html", "--config-file", "--preprocessor"}, short: "PHCp"},
	"scp":    {short: "oFSJ"},
	"sftp":   {short: "oFSDJ"},
	"gh":     {long: []string{"--web", "--hostname"}, short: "w"},
	"ssh":    {long: nil, short: "oFES"},
	"rsync":  {long: []string{"--rsh", "--rsync-path"}, short: "e"},
	"tar":    {long: []string{"--to-command", "--checkpoint-action", "--use-compress-program", "--rsh-command", "--info-script", "--new-volume-script"}, short: "IF"},
	"zip":    {long: []string{"--unzip-command"}, short: "T"},
	"less":   {long: []string{"--lesskey-src", "--lesskey-file", "--lesskey-content", "--log-file", "--LOG-FILE"}, short: "koO", prefix: "+"},
	"more":   {long: []string{"--lesskey-src", "--lesskey-file"}, short: "k", prefix: "+"},
	"sort":   {long: []string{"--compress-program"}},
	"vim":    {long: []string{"--cmd"}, short: "cSesu", prefix: "+"},
	"vi":     {long: []string{"--cmd"}, short: "cSesu", prefix: "+"},
	"nvim":   {long: []string{"--cmd", "--headless"}, short: "cSesu", prefix: "+"},
	"view":   {long: []string{"--cmd"}, short: "cSesu", prefix: "+"},
	"emacs":  {long: []string{"--eval", "--load", "--funcall", "--execute"}, short: "lf"},
	"gdb":    {long: []string{"--eval-command", "--command", "--init-command", "--init-eval-command"}, short: "x"},
	"docker": {long: []string{"--config"}},
	// ag runs its pager with popen whether or not output is a terminal;
	// ack too, and reads .ackrc files (the working directory's
	// included) unless --noenv.
	"ag":  {long: []string{"--pager"}},
	"ack": {long: []string{"--pager", "--env", "--ackrc"}},
}

// gitCodeOptions are, per git subcommand, the options that run programs.
var gitCodeOptions = map[string]codeOption{
	"clone":         {long: []string{"--upload-pack", "--template", "--config"}, short: "uc"},
	"fetch":         {long: []string{"--upload-pack"}},
	"pull":          {long: []string{"--upload-pack"}},
	"ls-remote":     {long: []string{"--upload-pack"}},
	"archive":       {long: []string{"--exec", "--remote"}},
	"push":          {long: []string{"--receive-pack", "--exec"}},
	"rebase":        {long: []string{"--exec"}, short: "x"},
	"difftool":      {long: []string{"--extcmd", "--tool"}, short: "xt"},
	"mergetool":     {long: []string{"--tool"}, short: "t"},
	"grep":          {long: []string{"--open-files-in-pager"}, short: "O"},
	"send-email":    {long: []string{"--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd", "--smtp-server"}},
	"log":           {long: []string{"--ext-diff", "--textconv"}},
	"show":          {long: []string{"--ext-diff", "--textconv"}},
	"diff":          {long: []string{"--ext-diff", "--textconv"}},
	"commit":        {long: []string{"--template"}},
	"submodule":     {prefix: "foreach"},
	"bisect":        {prefix: "run"},
	"filter-branch": {prefix: "--"},
	"config":        {long: []string{"--file", "--blob"}, short: "f"},
}

// runsCode returns the option (as the rule would spell it) by which the
// command runs a program or loads code of the caller's choosing, or "".
func runsCode(c *Command) string { return runsCodeIn(c, c.Values()) }

// runsCodeIn is runsCode for a caller that has the argument values
// (c.Values()) already; it does not change them.
func runsCodeIn(c *Command, args []string) string {
	switch c.Name {
	case "git":
		sub, rest, _ := gitSubcommand(args)
		if repo := localRepository(sub, rest); repo != "" {
			return repo
		}
		if opt, ok := gitCodeOptions[sub]; ok {
			if sub == "filter-branch" {
				for _, a := range rest {
					if strings.HasPrefix(a, "--") && strings.Contains(a, "-filter") {
						return a
					}
				}
				return ""
			}
			return findCodeOption(opt, rest)
		}
		return ""
	case "go":
		// go's flags take one dash or two: -exec, --toolexec=x.
		for _, a := range args {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			switch {
			case !strings.HasPrefix(a, "-"):
			case name == "exec" || name == "toolexec" || name == "overlay" || name == "vettool" || name == "modfile" || name == "C":
				return "-" + name
			case (name == "ldflags" || name == "gccgoflags") && strings.Contains(a, "extld"):
				return "-" + name // -extld names the linker program to run
			}
		}
		return ""
	case "make", "gmake":
		// make VAR=VALUE overrides variables, whose values make expands:
		// CFLAGS='$(shell cmd)' runs cmd.
		for _, a := range positionals(args, makeValued) {
			if strings.Contains(a, "=") {
				return a
			}
		}
	case "python", "python3", "python2":
		// python -m pytest -p plugin: the module's own code options.
		if i := indexOf(args, "-m"); i >= 0 && i+1 < len(args) && args[i+1] == "pytest" {
			return findCodeOption(codeOptions["pytest"], args[i+2:])
		}
	}
	if opt, ok := codeOptions[c.Name]; ok {
		return findCodeOption(opt, args)
	}
	return ""
}

// findCodeOption finds one of the options in args, before "--".
func findCodeOption(opt codeOption, args []string) string {
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if opt.prefix != "" && strings.HasPrefix(a, opt.prefix) && (opt.prefix != "--" || len(a) > 2) {
			return a
		}
		if strings.HasPrefix(a, "--") {
			if hasLong([]string{a}, opt.long...) {
				name, _, _ := strings.Cut(a, "=")
				return name
			}
			continue
		}
		if opt.short != "" && len(a) > 1 && a[0] == '-' {
			// The first letter of a cluster that takes a value ends it
			// (-ofile): only letters up to there count.
			for i := 1; i < len(a); i++ {
				if strings.IndexByte(opt.short, a[i]) >= 0 {
					return "-" + string(a[i])
				}
			}
		}
	}
	return ""
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// localRepository returns the repository operand of a transport command
// (push, fetch, pull, clone, ls-remote, archive --remote) when it names a
// local path: git then runs the other side (receive-pack, upload-pack)
// in that repository, with its hooks and its configuration, which are
// files an agent may have written (a push to ./planted runs
// planted/hooks/pre-receive and core.alternateRefsCommand).
// gitTransportValued are the options of git's transport commands (push,
// fetch, pull, clone, ...) that take the next argument.
var gitTransportValued = setOf("-o", "--push-option", "--receive-pack", "--upload-pack", "--exec", "--repo", "-b", "--branch",
	"--origin", "--depth", "--reference", "--separate-git-dir", "-c", "--config", "--template", "-j", "--jobs", "--shallow-since", "--shallow-exclude")

// makeValued are make's options that take the next argument.
var makeValued = setOf("-f", "-C", "-I", "-o", "-W", "--file", "--directory", "--include-dir")

func localRepository(sub string, rest []string) string {
	switch sub {
	case "push", "fetch", "pull", "clone", "ls-remote", "submodule", "remote":
	default:
		return ""
	}
	ops := positionals(rest, gitTransportValued)
	if sub == "remote" {
		// git remote add NAME URL: the URL is the operand that matters.
		if len(ops) < 3 || ops[0] != "add" && ops[0] != "set-url" {
			return ""
		}
		ops = ops[2:]
	}
	if sub == "submodule" {
		if len(ops) < 2 || ops[0] != "add" {
			return ""
		}
		ops = ops[1:]
	}
	for i, a := range rest {
		if v, ok := strings.CutPrefix(a, "--repo="); ok {
			return localPath(v)
		}
		if a == "--repo" && i+1 < len(rest) {
			return localPath(rest[i+1])
		}
	}
	if len(ops) == 0 {
		return ""
	}
	return localPath(ops[0])
}

// localPath returns repo when it names a local path rather than a remote
// (a URL or host:path); "" otherwise. A bare name may be either a remote
// or a folder: the analyzer checks the folder (localRemoteFolders).
func localPath(repo string) string {
	switch {
	case strings.HasPrefix(repo, "file:"), strings.HasPrefix(repo, "/"), strings.HasPrefix(repo, "."), strings.HasPrefix(repo, "~"):
		return repo
	case strings.Contains(repo, "://"), strings.Contains(repo, "@"), strings.Contains(repo, ":"):
		return "" // a remote URL or scp-like host:path
	case strings.Contains(repo, "/"):
		return repo // a relative path
	}
	return ""
}
