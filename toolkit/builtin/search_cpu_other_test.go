//go:build !unix

package builtin

import "time"

// processCPU is not measured here: the benchmarks report wall time only.
func processCPU() (time.Duration, bool) { return 0, false }
