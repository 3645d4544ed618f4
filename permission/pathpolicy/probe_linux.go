//go:build linux

package pathpolicy

import (
	"errors"

	"golang.org/x/sys/unix"
)

// probeDir asks the kernel, in one openat2 call refusing every symbolic
// link (RESOLVE_NO_SYMLINKS, which also refuses /proc's magic links),
// about a clean absolute path that should be a directory:
//
//   - probeDirOK: every component exists and none is a link, and the
//     path is a directory;
//   - probeMissing (ENOENT) and probeNotDir (ENOTDIR): the lookup
//     stopped at a missing component, or at one that is not a
//     directory, and every component before it was a directory and not
//     a link (a link fails the lookup with ELOOP before anything past
//     it is looked at);
//   - probeUnknown: anything else (a link on the way, no permission,
//     openat2 missing or filtered): the caller walks the path as before.
func probeDir(name string) probeResult {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, name, &how)
		switch {
		case err == nil:
			unix.Close(fd)
			return probeDirOK
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ENOENT):
			return probeMissing
		case errors.Is(err, unix.ENOTDIR):
			return probeNotDir
		}
		return probeUnknown
	}
}
