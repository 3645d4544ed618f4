//go:build unix

package builtin

import (
	"syscall"
	"time"
)

// processCPU is the processor time, user and system, used so far by this
// process and by the children it has waited for (rg, a shell pipeline
// and what it ran): the work a benchmark did, which a busy machine
// changes far less than the time it took.
func processCPU() (time.Duration, bool) {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0, false
	}
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano()), true
}
