//go:build linux

package pathpolicy

import "golang.org/x/sys/unix"

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
	return probe(name, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, probeDirOK)
}

// probePath asks the same of any clean absolute path, without asking for
// a directory:
//
//   - probeFound: every component exists and none is a link, the last
//     one included (without O_NOFOLLOW, RESOLVE_NO_SYMLINKS refuses a
//     trailing link too);
//   - probeMissing: the lookup stopped at a missing component (ENOENT) or
//     at one that is not a directory with more to look up (ENOTDIR), and
//     every component before it was a directory and not a link: Lstat of
//     the path fails, as it does of every path below it;
//   - probeUnknown: anything else.
func probePath(name string) probeResult {
	r := probe(name, unix.O_PATH|unix.O_CLOEXEC, probeFound)
	if r == probeNotDir {
		// Without O_DIRECTORY, ENOTDIR comes only from a component
		// before the last one: the path does not exist.
		r = probeMissing
	}
	return r
}

func probe(name string, flags uint64, found probeResult) probeResult {
	how := unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_NO_SYMLINKS}
	for {
		// Openat2 returns a bare unix.Errno on failure: compared as a
		// value, without errors.Is walking a chain there is not.
		fd, err := unix.Openat2(unix.AT_FDCWD, name, &how)
		switch err {
		case nil:
			unix.Close(fd)
			return found
		case unix.EINTR:
			continue
		case unix.ENOENT:
			return probeMissing
		case unix.ENOTDIR:
			return probeNotDir
		}
		return probeUnknown
	}
}
