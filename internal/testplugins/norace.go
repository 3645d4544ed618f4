//go:build !race

package testplugins

const raceEnabled = false
