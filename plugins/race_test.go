//go:build race

package plugins_test

// raceEnabled: the tests compile modules in a separate process (see
// precompile) and make the heaviest workloads smaller.
const raceEnabled = true
