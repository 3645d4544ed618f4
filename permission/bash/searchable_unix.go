//go:build unix

package bash

import "golang.org/x/sys/unix"

// searchable is access(name, X_OK), as git asks of a repository's
// objects/ and refs/.
func searchable(name string) bool { return unix.Access(name, unix.X_OK) == nil }
