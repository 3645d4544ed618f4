//go:build unix

package testplugins

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f, waiting for it: test binaries of
// several packages build the same plugin at once.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
