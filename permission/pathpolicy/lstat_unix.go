//go:build unix

package pathpolicy

import (
	"io/fs"
	"syscall"
)

// lstatMode is os.Lstat's answer reduced to what resolve asks (a link?
// a directory?), without os.Lstat's allocation of a FileInfo: resolve
// calls it for each component it has not seen in this analysis.
func lstatMode(name string) (fs.FileMode, error) {
	var st syscall.Stat_t
	if err := statRetrying(syscall.Lstat, name, &st); err != nil {
		return 0, err
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		return fs.ModeSymlink, nil
	case syscall.S_IFDIR:
		return fs.ModeDir, nil
	}
	return 0, nil // a file, a device, a pipe: neither
}

// statRetrying calls stat (syscall.Stat or syscall.Lstat) until a signal
// no longer interrupts it.
func statRetrying(stat func(string, *syscall.Stat_t) error, name string, st *syscall.Stat_t) error {
	for {
		if err := stat(name, st); err != syscall.EINTR {
			return err
		}
	}
}
