package pathpolicy

import (
	"path/filepath"
	"strings"
)

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

// CredentialStores are the files and folders, relative to the user's
// home folder unless absolute, that hold credentials a command has no
// business reading: the OS sandbox hides those that exist from every
// confined command (see Credentials). It is the credential part of
// DefaultDangerousFiles and DefaultDangerousDirs as concrete places, plus
// the agent CLIs' own tokens and the stores of cloud, container and
// database tools.
var CredentialStores = []string{
	// keys, agents and password stores
	".ssh", ".gnupg", ".password-store", ".local/share/keyrings", ".pki",
	// cloud, cluster and container tools
	".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".config/containers/auth.json", ".oci", ".boto", ".s3cfg",
	".config/doctl", ".config/hcloud", ".config/scw", ".terraform.d/credentials.tfrc.json", ".terraformrc", ".vault-token",
	// forges, registries and package managers
	".git-credentials", ".config/git/credentials", ".config/gh", ".config/hub", ".config/glab-cli", ".netrc", ".npmrc", ".pypirc",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".m2/settings-security.xml", ".gradle/gradle.properties",
	".nuget/NuGet/NuGet.Config", ".composer/auth.json", ".config/composer/auth.json",
	// databases
	".pgpass", ".my.cnf", ".mylogin.cnf", ".dbshell", ".mongorc.js", ".rediscli_auth",
	// the agent CLIs' own tokens
	".claude/.credentials.json", ".codex/auth.json", ".config/github-copilot", ".gemini/oauth_creds.json",
	// secrets tools, sessions and browsers
	".config/sops", ".config/op", ".config/rclone/rclone.conf", ".Xauthority", ".ICEauthority",
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
	// the system's
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_dsa_key",
	"/run/secrets", "/var/run/secrets",
}

// Credentials returns the CredentialStores as absolute paths (home
// relative to home; none of those when home is empty), whether they
// exist or not: a store made after a host started (a later "aws
// configure") must be hidden too, and the sandbox skips those missing
// when a command starts.
func Credentials(home string) []string {
	var out []string
	for _, c := range CredentialStores {
		switch {
		case filepath.IsAbs(c):
			out = append(out, c)
		case home != "":
			out = append(out, filepath.Join(home, c))
		}
	}
	return out
}

// ControlSockets are the Unix sockets, by path, through which a process
// can start programs outside any sandbox of its own: the container
// engines' and the init system's, and the user's D-Bus session bus
// (systemd-run --user, a desktop's launcher). "$XDG_RUNTIME_DIR" stands
// for the user's runtime folder (/run/user/UID). The OS sandbox hides
// them from every confined command (Landlock scopes pathname Unix sockets
// only from ABI 9).
var ControlSockets = []string{
	"/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman/podman.sock",
	"/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket", "/run/systemd/private",
	"$XDG_RUNTIME_DIR/bus", "$XDG_RUNTIME_DIR/systemd/private", "$XDG_RUNTIME_DIR/docker.sock", "$XDG_RUNTIME_DIR/podman/podman.sock",
}

// Sockets returns ControlSockets with "$XDG_RUNTIME_DIR" replaced by
// runtimeDir (those are left out when it is empty).
func Sockets(runtimeDir string) []string {
	var out []string
	for _, s := range ControlSockets {
		if rest, ok := strings.CutPrefix(s, "$XDG_RUNTIME_DIR"); ok {
			if runtimeDir == "" {
				continue
			}
			s = runtimeDir + rest
		}
		out = append(out, s)
	}
	return out
}
