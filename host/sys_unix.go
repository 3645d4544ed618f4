//go:build unix

package host

import (
	"io/fs"
	"syscall"
)

// oDirectory makes an open fail unless the path is a directory.
const oDirectory = syscall.O_DIRECTORY

// inode returns the inode number of a file stat described, so that a
// module replaced by another of the same size and time is still seen.
func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// oNonblock keeps an open of a FIFO planted under a plugin's name from
// blocking; the file's type is checked after the open.
const oNonblock = syscall.O_NONBLOCK
