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

// statID is os.Stat reduced to what linkedCredential asks (a regular
// file? its identity and number of names), without os.Stat's allocation
// of a FileInfo: it runs for every path a command names.
func statID(name string) (id fileID, links uint64, regular bool) {
	var st syscall.Stat_t
	if err := statRetrying(syscall.Stat, name, &st); err != nil {
		return fileID{}, 0, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, uint64(st.Nlink), st.Mode&syscall.S_IFMT == syscall.S_IFREG
}
