// Package testdata finds the repository's top-level testdata folder for
// tests in any package, so fixtures live in one place and a clone with
// nothing beside it passes its tests.
package testdata

import (
	"fmt"
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

// npmInstall is the command that installs the npm peers the tests use
// (what .ci/run runs).
const npmInstall = "npm install --prefix build/npm @modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/inspector@2.12.0 @modelcontextprotocol/sdk@1.32.2"

// NPMPeer returns the path of a file of an npm package installed under
// the repository's build/npm (parts below node_modules, e.g.
// "@modelcontextprotocol", "server-everything", "dist", "index.js").
// When it is missing the test is skipped with the command that installs
// it, unless CI=true (as .ci/run sets): there a missing peer fails the
// test, so CI never passes on a skip.
func NPMPeer(tb testing.TB, parts ...string) string {
	tb.Helper()
	root := filepath.Dir(Dir(tb))
	p := filepath.Join(append([]string{root, "build", "npm", "node_modules"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("%s is not installed: run `%s` (as .ci/run does)", filepath.Join(parts...), npmInstall)
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip("SKIPPED: " + msg)
	}
	return p
}
