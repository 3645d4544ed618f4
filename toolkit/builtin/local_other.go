//go:build !unix

package builtin

import "os/exec"

// setProcessGroup: without process groups, cancellation kills the shell.
func setProcessGroup(cmd *exec.Cmd) {}
