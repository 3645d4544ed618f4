// Package sandbox confines the processes tools start: the second wall
// behind the static analysis of package permission/bash. What the
// analysis wrongly allows, the kernel still stops.
//
// On Linux the confinement is Landlock (through
// github.com/landlock-lsm/go-landlock), plus a seccomp filter on socket
// creation when the network is off. It is applied in a helper process,
// never in the host: the command is started as this program (or
// [Options.Helper]) with a hidden first argument; the helper restricts
// itself, tells the host the confinement holds, and execs the command,
// which inherits the restrictions. The host process stays unrestricted.
//
// A confined command
//
//   - reads and executes everywhere (what the user may read), except the
//     paths of [Options.Hidden] (credential stores, token files, the
//     sockets that start programs outside the sandbox), which read as
//     empty;
//   - cannot change the paths of [Options.ReadOnly] (the host's own
//     files), even inside a writable path: they can be neither written,
//     replaced nor removed;
//   - cannot connect to the TCP ports of [Sandbox.DenyConnect] (the
//     host's own server), by connect(2), TCP Fast Open or io_uring;
//   - cannot signal processes outside its sandbox (Landlock ABI 6);
//   - writes only below the working directories of the call, the paths
//     of [Options.Writable], a private temporary directory (TMPDIR points
//     to it; it is removed when the command ends), and the character
//     devices /dev/null, /dev/zero, /dev/full and /dev/tty;
//   - in a read-only call ([Policy].ReadOnly, the explore mode) writes
//     only in its private temporary directory (bash here-documents and
//     sort spill there; it is gone when the command ends) and has no
//     network;
//   - with the network off ([Options.NoNetwork], or a read-only call),
//     cannot bind or connect TCP sockets (Landlock ABI 4 and later), nor
//     create any socket other than a Unix or netlink one, nor set up
//     io_uring (seccomp, on amd64 and arm64), nor reach abstract Unix
//     sockets outside its own domain (Landlock ABI 6 and later), nor
//     pathname Unix sockets created outside it (ABI 9 and later).
//
// Hidden and ReadOnly are enforced in the command's own user and mount
// namespaces: the helper, root in a new user namespace, covers each
// hidden path with an empty read-only one, binds each read-only path
// read-only onto itself, and pins every folder above them that lies in a
// writable path (a mount point cannot be renamed); then it starts itself
// again in a nested user namespace mapped back to the user, which holds
// no power over those mounts, confines itself (Landlock forbids mounting
// and unmounting; a seccomp filter refuses the new mount API) and runs
// the command. Where the kernel refuses unprivileged user namespaces,
// ModeAuto runs commands without them (logged once) and ModeRequired
// runs none.
//
// What stays open: with the network off, pathname Unix sockets created
// outside the sandbox and not hidden, on kernels before Landlock ABI 9;
// its standard streams (the helper closes every other descriptor the
// host inherited, since Landlock checks files when they are opened);
// a read-only path that does not exist when the command starts (it can
// be created); and everything Landlock cannot restrict yet (chmod,
// chown, utime and extended attributes on existing files, see the
// kernel's Landlock documentation). Landlock grants whole trees: a .git
// folder inside a writable working directory stays writable, so that
// protection comes from the permission engine alone.
//
// # Using it
//
// A program that confines commands calls [Main] first thing in main (the
// wasmtools command does): when the process was started as the helper,
// Main confines it and runs the command, and never returns.
//
//	func main() {
//		sandbox.Main()
//		// ... the program
//	}
//
// Then it builds a [Sandbox] with [New] and hands it to the backend that
// starts the commands (builtin.LocalBackend.Sandbox). A program that
// cannot call Main early (a test binary, a plugin) sets [Options.Helper]
// to another executable that does, such as an installed wasmtools
// binary. A helper that does not confine itself is noticed: the command
// does not run, and the error says what to do.
//
// Test binaries call Main from TestMain:
//
//	func TestMain(m *testing.M) {
//		sandbox.Main()
//		os.Exit(m.Run())
//	}
//
// # Modes
//
// [ModeAuto] confines where the kernel supports it and runs commands
// unconfined elsewhere, saying so once in the log; [ModeRequired] never
// starts a command unconfined on its own (an error says why instead);
// [ModeOff] does not confine. In every mode a backend may run one
// command unconfined when the user approved exactly that (the Bash
// tool's "sandbox": "off", a bypass-immune question of the permission
// engine).
package sandbox
