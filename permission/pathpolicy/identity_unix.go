//go:build unix

package pathpolicy

import (
	"io/fs"
	"syscall"
)

// identity returns a file's device and inode, and its number of names.
func identity(info fs.FileInfo) (fileID, uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, 0, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, uint64(st.Nlink), true
}
