package bash

// The lists below are facts taken from the reference (AgentScope's values)
// and hardened as DESIGN.md says.

// DefaultDangerousFiles are files whose modification is a safety ask and
// whose reading is never auto-allowed: shell and tool configuration and
// credential stores. Entries with a slash match a path suffix.
var DefaultDangerousFiles = []string{
	".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile",
	".ssh/config", ".ssh/authorized_keys", ".netrc", ".npmrc", ".pypirc",
	".env", ".envrc", ".env.local", ".env.development", ".env.development.local", ".env.test",
	".env.test.local", ".env.staging", ".env.production", ".env.production.local",
	".git-credentials", ".pgpass",
}

// DefaultDangerousDirs are directories with the same treatment for
// everything inside them. Entries with a slash match consecutive path
// segments.
var DefaultDangerousDirs = []string{
	".git", ".vscode", ".idea", ".ssh",
	".aws", ".azure", ".gnupg", ".kube", ".docker", ".config/gcloud",
}

// readOnlyCommands are read-only whatever their arguments (apart from the
// flag checks in readOnlyFlags and the generic checks on redirects,
// variables and sensitive paths).
var readOnlyCommands = setOf(
	// the reference's read-only and always-safe lists, tee removed
	"ls", "cat", "head", "tail", "less", "more", "file", "stat", "wc", "grep", "rg", "ag", "ack",
	"find", "tree", "pwd", "which", "whereis", "type", "echo", "cd", "true", "false", "printf", ":",
	// added by DESIGN
	"cut", "expr", "id", "nl", "paste", "rev", "seq", "tr", "uname", "uniq", "whoami", "numfmt", "tac",
	"base64", "sort", "sed",
	// information about the system and checksums
	"date", "df", "du", "sha256sum", "sha1sum", "sha512sum", "sha224sum", "sha384sum", "md5sum", "cksum", "b2sum", "sum", "diff",
)

// harmlessVariables may be set in an assignment prefix, or expanded in an
// argument, of a read-only command. PATH is not among them: it changes
// which program runs.
var harmlessVariables = setOf(
	"NODE_ENV", "PYTHONUNBUFFERED", "RUST_LOG", "LANG", "TERM", "NO_COLOR", "FORCE_COLOR", "DEBUG",
	"VERBOSE", "CI", "HOME", "USER", "SHELL", "EDITOR", "PAGER", "TZ", "LC_ALL", "LC_CTYPE", "COLUMNS",
	"LINES", "CLICOLOR", "CLICOLOR_FORCE",
	// shown, not run: the last exit status, the argument count, where
	// programs are looked up, the current folder
	"?", "#", "PATH", "PWD",
)

// harmlessAssignments may be set in an assignment prefix of a read-only
// command: the harmless variables less HOME and SHELL, which point
// programs at configuration files and shells (HOME=. git status reads a
// .gitconfig that may run commands).
var harmlessAssignments = func() map[string]bool {
	m := map[string]bool{}
	for k := range harmlessVariables {
		// An assignment to a variable the environment already exports
		// changes it for later commands: EDITOR=cmd; git commit runs cmd.
		if k != "HOME" && k != "SHELL" && k != "EDITOR" && k != "PAGER" && k != "PATH" && k != "PWD" && k != "?" && k != "#" {
			m[k] = true
		}
	}
	return m
}()

// gitReadOnly are the git subcommands that only read.
var gitReadOnly = setOf(
	"status", "log", "diff", "show", "branch", "tag", "remote", "ls-files", "ls-tree", "cat-file",
	"rev-parse", "rev-list", "describe", "shortlog", "blame", "grep", "reflog", "config",
)

// dockerReadOnly are the docker subcommands that only read.
var dockerReadOnly = setOf("ps", "images", "inspect", "logs", "version", "info")

// findMutating are find's predicates that write, delete or run commands.
var findMutating = setOf("-delete", "-exec", "-execdir", "-fls", "-fprint", "-fprint0", "-fprintf", "-ok", "-okdir")

// findValued are find's predicates and options that take the next word as
// their argument: that word is never a predicate itself.
var findValued = setOf(
	"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname",
	"-newer", "-anewer", "-cnewer", "-perm", "-type", "-xtype", "-user", "-group", "-uid", "-gid", "-size",
	"-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-links", "-inum", "-samefile", "-used",
	"-maxdepth", "-mindepth", "-fstype", "-context", "-regextype", "-printf", "-files0-from", "-D", "-O",
)

// editCommands may be auto-allowed in accept_edits when every target is
// inside a working directory.
var editCommands = setOf("mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed")

// readers are the commands a deny rule on Read(path) also stops.
var readers = setOf("cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "strings", "xxd", "od", "base64", "diff", "sort", "uniq", "wc",
	"tac", "nl", "rev", "cut", "paste", "tr", "cmp", "hexdump", "file", "jq", "yq", "iconv", "fold", "fmt", "column", "comm", "join", "split", "md5sum", "sha1sum", "sha256sum",
	// commands that copy contents somewhere they can be read
	"cp", "ln", "tar", "zip", "gzip", "bzip2", "xz", "rsync", "scp", "install")

// noSuggestion are commands never offered as a prefix rule: interpreters,
// shells and wrappers, whose "prefix" says nothing about what runs.
var noSuggestion = setOf(
	"python", "python2", "python3", "node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "Rscript",
	"bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "ash", "csh", "tcsh", "pwsh", "powershell",
	"env", "sudo", "doas", "su", "xargs", "eval", "exec", "command", "builtin", "source", ".", "trap", "coproc", "busybox",
	"timeout", "nice", "nohup", "stdbuf", "time", "ionice", "setsid", "watch", "ssh", "osascript", "awk", "gawk",
)

// fileOperands are commands whose second word is an operand (a file, a
// process), not a subcommand: their suggested rule is the command alone,
// so that "always allow" covers the next file too.
var fileOperands = setOf(
	"rm", "rmdir", "touch", "mkdir", "cp", "mv", "ln", "chmod", "chown", "chgrp", "cat", "head", "tail", "less",
	"more", "grep", "rg", "sed", "awk", "sort", "uniq", "wc", "diff", "tee", "echo", "printf", "ls", "cd", "find",
	"kill", "pkill", "killall", "open", "xdg-open", "curl", "wget", "tar", "zip", "unzip", "gzip", "gunzip",
)

// downloaders and shellsAndInterpreters make "download piped into a shell".
var downloaders = setOf("curl", "wget", "fetch", "aria2c", "http", "https", "xh")

var interpreters = setOf(
	"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "csh", "tcsh", "rbash", "yash", "posh", "ksh93", "oksh", "elvish", "nu", "xonsh",
	"python", "python2", "python3", "perl", "ruby", "node", "php", "lua", "pwsh", "powershell", "osascript",
)

// diskCommands are dangerous by name.
var diskCommands = setOf("dd", "fdisk", "sfdisk", "cfdisk", "format", "shred", "wipefs", "mke2fs", "mkswap", "parted", "sgdisk", "blkdiscard")

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}
