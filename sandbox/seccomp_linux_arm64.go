//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

// haveSocketFilter says the network-off socket filter exists here.
const haveSocketFilter = true

// The system calls of arm64 and of 32-bit ARM programs running on it.
var (
	nativeArch = archTable{arch: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUringSetup: 425, sendto: 206, sendmsg: 211, sendmmsg: 269, setsockopt: 208}
	compatArch = &archTable{arch: unix.AUDIT_ARCH_ARM, socket: 281, socketcall: 102, ioUringSetup: 425, sendto: 290, sendmsg: 296, sendmmsg: 374, setsockopt: 294}
)
