//go:build unix

package wasmtools

import (
	"os"
	"path/filepath"
	"syscall"
)

// othersMayHaveWritten reports whether path, or the folder holding it,
// belongs to a user other than this process's and root, or that folder
// is one everyone may write.
func othersMayHaveWritten(path string) bool {
	me := uint32(os.Getuid())
	for i, p := range []string{path, filepath.Dir(path)} {
		info, err := os.Lstat(p)
		if err != nil {
			continue // absent: nothing there to trust or distrust
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid != me && st.Uid != 0 {
			return true
		}
		if i == 1 && info.Mode().Perm()&0o002 != 0 {
			return true
		}
	}
	return false
}
