//go:build !race && !wasip1

package plugins_test

const raceEnabled = false
