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
//   - reads and executes everywhere (what the user may read);
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
// What stays open: with the network off, pathname Unix sockets created
// outside the sandbox (the Docker or D-Bus socket, nscd) on kernels
// before Landlock ABI 9; signals to other processes of the user; its
// standard streams (the helper closes every other descriptor the host
// inherited, since Landlock checks files when they are opened); and
// everything Landlock cannot
// restrict yet (chmod, chown, utime and extended attributes on existing
// files, see the kernel's Landlock documentation). Landlock grants whole
// trees: a .git folder or a host configuration file inside a writable
// working directory stays writable, so those protections come from the
// permission engine alone.
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
