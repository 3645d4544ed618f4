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
}

// Offsets in struct seccomp_data (little endian: the low half of args[0]).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
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

// socketFilter returns the program that lets a process create Unix and
// netlink sockets only, and never set up io_uring (whose socket and
// connect operations do not pass through the socket system call). A
// denied call fails with EACCES. System calls of an architecture the
// filter does not know all fail.
func socketFilter(native archTable, compat *archTable) ([]unix.SockFilter, error) {
	ops := []bpfOp{
		ld(offArch),
		jeq(native.arch, "", "compat"),
		ld(offNr),
	}
	if native.x32 {
		ops = append(ops, jge(0x40000000, "deny", ""))
	}
	ops = append(ops,
		jeq(native.socket, "domain", ""),
		jeq(native.ioUringSetup, "deny", ""),
		ret(retAllow),
		label("compat"),
	)
	if compat == nil {
		ops = append(ops, ret(retDeny))
	} else {
		ops = append(ops,
			jeq(compat.arch, "", "deny"),
			ld(offNr),
			jeq(compat.socket, "domain", ""),
			jeq(compat.ioUringSetup, "deny", ""),
		)
		if compat.socketcall != 0 {
			// socketcall(SYS_SOCKET, args): the domain is in memory,
			// out of the filter's reach, so every socket it would create
			// is refused.
			ops = append(ops,
				jeq(compat.socketcall, "", "allow"),
				ld(offArg0),
				jeq(sysSocket, "deny", "allow"),
			)
		} else {
			ops = append(ops, ret(retAllow))
		}
	}
	ops = append(ops,
		label("domain"),
		ld(offArg0),
		jeq(unix.AF_UNIX, "allow", ""),
		jeq(unix.AF_NETLINK, "allow", ""),
		label("deny"),
		ret(retDeny),
		label("allow"),
		ret(retAllow),
	)
	return assemble(ops)
}

// denySockets installs the socket filter on the calling thread (which
// must have no_new_privs set); what it executes next inherits it.
func denySockets() error {
	prog, err := socketFilter(nativeArch, compatArch)
	if err != nil {
		return err
	}
	fprog := &unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall6(unix.SYS_PRCTL, unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(fprog)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
