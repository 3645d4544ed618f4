//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
)

// selfExecutable is this program.
func selfExecutable() string {
	exe, _ := os.Executable()
	return exe
}

// landlockABI: Landlock is a Linux feature.
func landlockABI() (int, string) {
	return 0, fmt.Sprintf("the OS sandbox uses Landlock, a Linux feature, and this system is %s", runtime.GOOS)
}

// networkMechanisms: none outside Linux.
func networkMechanisms(int) []string { return []string{} }

// runHelper cannot confine anything here.
func runHelper([]string) int {
	fmt.Fprintf(os.Stderr, "wasmtools sandbox helper: no sandbox on %s; nothing was run\n", runtime.GOOS)
	return 126
}
