//go:build linux

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// archTable holds the system call numbers the socket filter looks at,
// for one architecture (AUDIT_ARCH_* value).
type archTable struct {
	arch         uint32
	socket       uint32
	socketcall   uint32 // 0: none (the multiplexer of 32-bit x86)
	ioUringSetup uint32
	x32          bool // numbers from 0x40000000 are another ABI: deny them
	// The calls whose arguments can open a TCP connection without
	// connect(2): a send with MSG_FASTOPEN, TCP_FASTOPEN_CONNECT.
	sendto, sendmsg, sendmmsg, setsockopt uint32
}

// Offsets in struct seccomp_data (little endian: the low half of args[0]).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32
	offArg3 = 40
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retDeny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	// sysSocket is socketcall's number for socket(2).
	sysSocket = 1
)

// bpfOp is an instruction of the socket filter, or a label (name set,
// no instruction). Conditional jumps name their targets; "" is the next
// instruction.
type bpfOp struct {
	label  string
	ins    unix.SockFilter
	jt, jf string
}

func ld(off uint32) bpfOp {
	return bpfOp{ins: unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}}
}

func ret(v uint32) bpfOp { return bpfOp{ins: unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: v}} }

func jeq(k uint32, jt, jf string) bpfOp {
	return bpfOp{ins: unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k}, jt: jt, jf: jf}
}

func jge(k uint32, jt, jf string) bpfOp {
	return bpfOp{ins: unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: k}, jt: jt, jf: jf}
}

func jset(k uint32, jt, jf string) bpfOp {
	return bpfOp{ins: unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: k}, jt: jt, jf: jf}
}

func label(name string) bpfOp { return bpfOp{label: name} }

// assemble resolves the labels of ops into a program.
func assemble(ops []bpfOp) ([]unix.SockFilter, error) {
	at := map[string]int{}
	n := 0
	for _, o := range ops {
		if o.label != "" {
			at[o.label] = n
			continue
		}
		n++
	}
	prog := make([]unix.SockFilter, 0, n)
	for _, o := range ops {
		if o.label != "" {
			continue
		}
		ins := o.ins
		for _, j := range []struct {
			name string
			off  *uint8
		}{{o.jt, &ins.Jt}, {o.jf, &ins.Jf}} {
			if j.name == "" {
				continue
			}
			target, ok := at[j.name]
			d := target - (len(prog) + 1)
			if !ok || d < 0 || d > 255 {
				return nil, fmt.Errorf("bad jump to %q", j.name)
			}
			*j.off = uint8(d)
		}
		prog = append(prog, ins)
	}
	return prog, nil
}

// archFilter assembles a filter program: for the native architecture and,
// when there is one, the compat one, the system call number is loaded and
// body's instructions decide (body jumps to "allow" or "deny", or
// returns; a label of its own carries the prefix it is given); a system
// call of any other architecture, or of x32, is denied. tail may define
// more labels body jumps to.
func archFilter(native archTable, compat *archTable, body func(a archTable, prefix string) []bpfOp, tail ...bpfOp) ([]unix.SockFilter, error) {
	ops := []bpfOp{
		ld(offArch),
		jeq(native.arch, "", "compat"),
		ld(offNr),
	}
	if native.x32 {
		ops = append(ops, jge(0x40000000, "deny", ""))
	}
	ops = append(ops, body(native, "n")...)
	ops = append(ops, label("compat"))
	if compat == nil {
		ops = append(ops, ret(retDeny))
	} else {
		ops = append(ops, jeq(compat.arch, "", "deny"), ld(offNr))
		ops = append(ops, body(*compat, "c")...)
	}
	ops = append(ops, tail...)
	ops = append(ops,
		label("deny"),
		ret(retDeny),
		label("allow"),
		ret(retAllow),
	)
	return assemble(ops)
}

// socketFilter returns the program that lets a process create Unix and
// netlink sockets only, and never set up io_uring (whose socket and
// connect operations do not pass through the socket system call). A
// denied call fails with EACCES. System calls of an architecture the
// filter does not know all fail.
func socketFilter(native archTable, compat *archTable) ([]unix.SockFilter, error) {
	body := func(a archTable, _ string) []bpfOp {
		ops := []bpfOp{
			jeq(a.socket, "domain", ""),
			jeq(a.ioUringSetup, "deny", ""),
		}
		if a.socketcall != 0 {
			// socketcall(SYS_SOCKET, args): the domain is in memory,
			// out of the filter's reach, so every socket it would create
			// is refused.
			return append(ops,
				jeq(a.socketcall, "", "allow"),
				ld(offArg0),
				jeq(sysSocket, "deny", "allow"),
			)
		}
		return append(ops, ret(retAllow))
	}
	return archFilter(native, compat, body,
		label("domain"),
		ld(offArg0),
		jeq(unix.AF_UNIX, "allow", ""),
		jeq(unix.AF_NETLINK, "allow", "deny"),
	)
}

// denySockets installs the socket filter on the calling thread (which
// must have no_new_privs set); what it executes next inherits it.
func denySockets() error {
	prog, err := socketFilter(nativeArch, compatArch)
	if err != nil {
		return err
	}
	return installFilter(prog)
}

// mountAPI are the system calls of the new mount API (the same numbers
// on every architecture since Linux 5.2). Landlock refuses mount,
// umount, remount, move_mount and pivot_root to a sandboxed process, but
// not mount_setattr or open_tree: a process with capabilities over its
// mount namespace could clear a read-only flag or clone a tree from
// under a mask with them. None has a use in a confined command.
var mountAPI = [...]uint32{
	428, // open_tree
	429, // move_mount
	430, // fsopen
	431, // fsconfig
	432, // fsmount
	433, // fspick
	442, // mount_setattr
	467, // open_tree_attr
}

// Values the hardening filter looks for.
const (
	msgFastOpen        = 0x20000000 // MSG_FASTOPEN
	tcpFastOpenConnect = 30         // TCP_FASTOPEN_CONNECT
	// socketcall's numbers for the calls the filter checks.
	sysSetsockopt = 14
	sysSendto     = 11
	sysSendmsg    = 16
	sysSendmmsg   = 20
)

// hardenFilter returns the program every confined command runs under:
// the new mount API refused, and, where TCP connections are restricted
// (tcp), every way to connect that bypasses connect(2) and so Landlock's
// check of it (a send with MSG_FASTOPEN, TCP_FASTOPEN_CONNECT, io_uring)
// refused too.
func hardenFilter(native archTable, compat *archTable, tcp bool) ([]unix.SockFilter, error) {
	table := func(a archTable, prefix string) []bpfOp {
		var ops []bpfOp
		for _, nr := range mountAPI {
			ops = append(ops, jeq(nr, "deny", ""))
		}
		if tcp {
			ops = append(ops,
				jeq(a.ioUringSetup, "deny", ""),
				jeq(a.sendto, prefix+"flags3", ""),
				jeq(a.sendmmsg, prefix+"flags3", ""),
				jeq(a.sendmsg, prefix+"flags2", ""),
				jeq(a.setsockopt, prefix+"sockopt", ""),
			)
			if a.socketcall != 0 {
				// socketcall's arguments are in memory: the calls that
				// could carry the flags are refused whole.
				ops = append(ops,
					jeq(a.socketcall, "", "allow"),
					ld(offArg0),
					jeq(sysSetsockopt, "deny", ""),
					jeq(sysSendto, "deny", ""),
					jeq(sysSendmsg, "deny", ""),
					jeq(sysSendmmsg, "deny", "allow"),
				)
			}
		}
		ops = append(ops, ret(retAllow))
		if tcp {
			ops = append(ops,
				label(prefix+"flags3"), ld(offArg3), jset(msgFastOpen, "deny", "allow"),
				label(prefix+"flags2"), ld(offArg2), jset(msgFastOpen, "deny", "allow"),
				label(prefix+"sockopt"), ld(offArg1), jeq(unix.IPPROTO_TCP, "", "allow"),
				ld(offArg2), jeq(tcpFastOpenConnect, "deny", "allow"),
			)
		}
		return ops
	}
	return archFilter(native, compat, table)
}

// harden installs hardenFilter on the calling thread (which must have
// no_new_privs set); what it executes next inherits it.
func harden(tcp bool) error {
	prog, err := hardenFilter(nativeArch, compatArch, tcp)
	if err != nil {
		return err
	}
	return installFilter(prog)
}

// installFilter installs a seccomp filter program on the calling thread.
func installFilter(prog []unix.SockFilter) error {
	fprog := &unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall6(unix.SYS_PRCTL, unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(fprog)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
