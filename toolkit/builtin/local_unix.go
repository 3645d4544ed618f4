//go:build unix

package builtin

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in a new process group and makes
// cancellation kill the whole group.
func setProcessGroup(cmd *exec.Cmd) { setGroup(cmd, false) }

// setSession starts the command in a new session, which has no
// controlling terminal, and makes cancellation kill its process group.
func setSession(cmd *exec.Cmd) { setGroup(cmd, true) }

func setGroup(cmd *exec.Cmd, session bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// Kept: what the sandbox set (the namespaces of a confined command).
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Setsid = !session, session
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// openNonBlocking opens a file without waiting on it: opening a FIFO
// with no writer would block forever.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
