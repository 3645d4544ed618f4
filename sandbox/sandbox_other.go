//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
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

// useNamespaces: no namespaces here.
func useNamespaces(*exec.Cmd) {}

// maskSupport: paths are masked in Linux mount namespaces only.
func (s *Sandbox) maskSupport() string {
	return fmt.Sprintf("paths are hidden in Linux mount namespaces, and this system is %s", runtime.GOOS)
}

// portLayer: Landlock is a Linux feature.
func portLayer(int, []int) (*os.File, error) {
	return nil, fmt.Errorf("refusing connections to ports needs Landlock, a Linux feature, and this system is %s", runtime.GOOS)
}

// dupFile is never reached without a port layer.
func dupFile(f *os.File) (*os.File, error) {
	return nil, fmt.Errorf("no port layer on %s", runtime.GOOS)
}
