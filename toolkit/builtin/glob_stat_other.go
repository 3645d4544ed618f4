//go:build !(linux || darwin)

package builtin

import (
	"os"
	"time"
)

// lstatTimeAt returns the modification time of the entry e of the open
// directory dir, not following a link.
func lstatTimeAt(_ *os.File, e os.DirEntry) (time.Time, error) {
	fi, err := e.Info()
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
