//go:build linux || darwin

package builtin

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lstatTimeAt returns the modification time of the entry e of the open
// directory dir, not following a link. It stats the name relative to the
// directory's descriptor: the kernel resolves one name instead of the
// whole path again, which was most of the cost of stat'ing each match of
// a large tree.
func lstatTimeAt(dir *os.File, e os.DirEntry) (time.Time, error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return time.Time{}, err
	}
	var st unix.Stat_t
	var statErr error
	if err := rc.Control(func(fd uintptr) {
		statErr = unix.Fstatat(int(fd), e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW)
	}); err != nil {
		return time.Time{}, err
	}
	if statErr != nil {
		return time.Time{}, &os.PathError{Op: "lstat", Path: e.Name(), Err: statErr}
	}
	return time.Unix(st.Mtim.Sec, st.Mtim.Nsec), nil
}
