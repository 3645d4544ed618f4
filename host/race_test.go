//go:build race

package host

// raceEnabled makes the hot-reload stress test smaller: the race detector
// slows the host's Go code about tenfold. `make test-long` runs the full
// stress test without it.
const raceEnabled = true
