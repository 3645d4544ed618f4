//go:build !unix

package builtin

import "os"

// tryLock: without flock, writers are not serialised across processes;
// the stamp comparison before the rename still applies.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) {}
