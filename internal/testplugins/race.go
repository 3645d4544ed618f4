//go:build race

package testplugins

const raceEnabled = true
