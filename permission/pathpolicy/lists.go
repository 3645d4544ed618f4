package pathpolicy

// The default lists start from the reference's (AgentScope's dangerous
// files and directories) and add credential stores, every shell start-up
// file, shell histories, the system's password and key files, and the
// /proc files that expose a process's environment or memory.
//
// Entry syntax, for files and directories alike: matching is
// case-insensitive and per path segment, and a segment may be a glob
// (*, ?, [...]):
//   - "name" matches the last segment (files) or any segment (directories);
//   - "a/b" matches consecutive segments, ending the path for files;
//   - "/a/b" matches from the root (files: the whole path; directories:
//     the path or anything below it).

// DefaultDangerousFiles are files whose change is a safety question and
// whose reading is never automatic.
var DefaultDangerousFiles = []string{
	// the reference's list
	".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile",
	".ssh/config", ".ssh/authorized_keys", ".netrc", ".npmrc", ".pypirc",
	".env", ".envrc", ".env.local", ".env.development", ".env.development.local", ".env.test",
	".env.test.local", ".env.staging", ".env.production", ".env.production.local",
	// every .env variant (.env.prod, .env.ci, .env-prod, ...)
	".env.*", ".env-*", ".env_*",
	// shell start-up files the reference misses, and shell histories
	".zshenv", ".zlogin", ".zlogout", ".bash_login", ".bash_logout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc",
	".login", ".logout", ".inputrc", ".config/fish/config.fish",
	".bash_history", ".zsh_history", ".sh_history", ".python_history", ".psql_history", ".mysql_history", ".node_repl_history",
	// credential stores and tool configuration that runs programs
	".git-credentials", ".pgpass", ".config/gh/hosts.yml", ".config/git/config", ".config/git/credentials",
	".terraformrc", ".vault-token", ".cargo/credentials", ".cargo/credentials.toml",
	".terraform.d/credentials.tfrc.json", ".gem/credentials", ".m2/settings.xml", ".m2/settings-security.xml",
	".config/rclone/rclone.conf", ".config/hub", ".envrc.local", ".dev.vars", ".env~", ".npmrc.local",
	// raw disks and memory (readable by root)
	"/dev/sd*", "/dev/hd*", "/dev/vd*", "/dev/xvd*", "/dev/nvme*", "/dev/mmcblk*", "/dev/dm-*", "/dev/md*", "/dev/loop*",
	"/dev/mem", "/dev/kmem", "/dev/port", "/dev/sg*",
	// the system's secrets
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/ssh/*_key",
	// a process's environment, memory and command line
	"/proc/*/environ", "/proc/*/mem", "/proc/*/maps", "/proc/*/smaps", "/proc/*/smaps_rollup",
	"/proc/*/pagemap", "/proc/*/auxv", "/proc/*/cmdline", "/proc/*/stack", "/proc/*/syscall",
	"/proc/kcore", "/proc/kallsyms",
}

// DefaultDangerousDirs are directories whose every file is sensitive.
var DefaultDangerousDirs = []string{
	// the reference's list
	".git", ".vscode", ".idea", ".ssh",
	// credential stores
	".aws", ".azure", ".gnupg", ".kube", ".docker", ".config/gcloud", ".config/gh",
	".password-store", ".local/share/keyrings", ".config/sops", ".config/op", ".mozilla", ".config/google-chrome", ".config/chromium",
	"/dev/mapper", "/dev/disk",
	// the system's, and secrets mounted into containers
	"/etc/sudoers.d", "/run/secrets", "/var/run/secrets",
	// a process's open files and mapped files
	"/proc/*/fd", "/proc/*/fdinfo", "/proc/*/map_files",
}
