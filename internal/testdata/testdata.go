// Package testdata finds the repository's top-level testdata folder for
// tests in any package, so fixtures live in one place and a clone with
// nothing beside it passes its tests.
package testdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the absolute path of the repository's testdata folder: the
// one beside the go.mod found by walking up from the test's working
// directory (a package directory, as go test sets it).
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("testdata: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("testdata: no go.mod above the working directory; run the tests from inside the repository")
		}
		dir = parent
	}
}

// Path returns the absolute path of a file in the repository's testdata
// folder, failing the test when it is missing.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("testdata: %v", err)
	}
	return p
}
