//go:build !unix

package pathpolicy

import (
	"io/fs"
	"os"
)

// lstatMode is os.Lstat's answer: the type bits are all resolve asks.
func lstatMode(name string) (fs.FileMode, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return 0, err
	}
	return fi.Mode(), nil
}
