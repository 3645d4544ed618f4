//go:build !unix

package builtin

import (
	"os"
	"os/exec"
)

// setProcessGroup: without process groups, cancellation kills the shell.
func setProcessGroup(cmd *exec.Cmd) {}

// setSession: without sessions, as setProcessGroup.
func setSession(cmd *exec.Cmd) {}

// openNonBlocking opens a file for reading.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
