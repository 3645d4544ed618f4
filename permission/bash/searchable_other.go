//go:build !unix

package bash

import (
	"io"
	"os"
)

// searchable has no access(2) to ask outside Unix: a folder counts.
func searchable(string) bool { return true }

// readRegularPrefix returns up to n bytes from the start of name, which
// the caller found to be a regular file.
func readRegularPrefix(name string, n int) (string, bool) {
	f, err := os.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, n)
	got, _ := io.ReadFull(f, buf)
	return string(buf[:got]), true
}
