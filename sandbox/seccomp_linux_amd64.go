//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

// haveSocketFilter says the network-off socket filter exists here.
const haveSocketFilter = true

// The system calls of x86-64 and of 32-bit x86 programs running on it.
var (
	nativeArch = archTable{arch: unix.AUDIT_ARCH_X86_64, socket: 41, ioUringSetup: 425, x32: true, sendto: 44, sendmsg: 46, sendmmsg: 307, setsockopt: 54}
	compatArch = &archTable{arch: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUringSetup: 425, sendto: 369, sendmsg: 370, sendmmsg: 345, setsockopt: 366}
)
