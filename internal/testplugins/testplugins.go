// Package testplugins builds the repository's Wasm plugins for tests, once:
// a build is kept in the shared test cache (SharedDir), named by a hash of
// everything it is built from, so test packages (which go test runs in
// parallel processes), later runs and other clones share it, and only a
// change to the sources rebuilds it.
package testplugins

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// Root returns the repository root (the directory holding go.mod).
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testplugins: no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Go returns the path of plugins/NAME built as a Go wasip1 reactor
// (GOOS=wasip1 GOARCH=wasm -buildmode=c-shared).
func Go(t testing.TB, name string) string {
	t.Helper()
	return goModule(t, name, filepath.Join(Root(t), "plugins", name), true)
}

// GoCommand returns plugins/NAME built as a plain wasip1 command (no
// -buildmode): a module that runs once and exits, for the tests of what
// the host does with one.
func GoCommand(t testing.TB, name string) string {
	t.Helper()
	return goModule(t, name+"-command", filepath.Join(Root(t), "plugins", name), false)
}

// Source returns the path of a Go plugin whose source lives outside
// plugins/ (hostile test modules under testdata), built like Go.
func Source(t testing.TB, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(Root(t), abs)
	return goModule(t, strings.NewReplacer("/", "_", ".", "_").Replace(rel), abs, true)
}

// goLDFlags are the linker flags of Go plugins, as the Makefile's: no
// symbol table (the name section, which only wazero's stack traces of a
// trap read; the Go runtime's own traces keep their names), no DWARF.
const goLDFlags = "-ldflags=-s -w"

// goModule builds the Go package in src for wasip1, as a reactor or as a
// command.
func goModule(t testing.TB, name, src string, reactor bool) string {
	t.Helper()
	root := Root(t)
	inputs := []string{src, filepath.Join(root, "sdk-guest"), filepath.Join(root, "abi"), filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum")}
	// The flags are part of the name, so that a change of them is a new
	// build rather than a stale one found in the cache.
	return cached(t, root, name+"-"+strings.Trim(goLDFlags, "-= "), inputs, func(out string) *exec.Cmd {
		args := []string{"build", goLDFlags, "-o", out, "."}
		if reactor {
			args = []string{"build", "-buildmode=c-shared", goLDFlags, "-o", out, "."}
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		return cmd
	})
}

// AssemblyScript returns the path of plugins/NAME built with npm: the
// folder holds a package.json whose "build" script writes build/NAME.wasm.
// NAME may be a path below plugins (testdata/servlet-as).
func AssemblyScript(t testing.TB, name string) string {
	t.Helper()
	root := Root(t)
	src := filepath.Join(root, "plugins", name)
	name = filepath.Base(name)
	inputs := []string{filepath.Join(src, "package.json"), filepath.Join(src, "package-lock.json"), filepath.Join(src, "assembly"), filepath.Join(src, "asconfig.json")}
	return cached(t, root, name, inputs, func(out string) *exec.Cmd {
		script := fmt.Sprintf("(npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error) && npm run --silent build && cp build/%s.wasm %q", name, out)
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = src
		return cmd
	})
}

// cached builds into plugins/NAME-HASH.wasm in the shared test cache
// unless it exists. The hash covers the inputs and the Go toolchain. A
// file lock serialises builds across test processes.
func cached(t testing.TB, root, name string, inputs []string, build func(out string) *exec.Cmd) string {
	t.Helper()
	dir := filepath.Join(SharedDir(t), "plugins")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := hashInputs(inputs)
	if err != nil {
		t.Fatalf("testplugins: hash the sources of %s: %v", name, err)
	}
	out := filepath.Join(dir, name+"-"+sum[:16]+".wasm")
	if _, err := os.Stat(out); err == nil {
		now := time.Now()
		_ = os.Chtimes(out, now, now) // in use: not trimmed
		precompile(t, out)
		return out
	}
	defer lock(t, filepath.Join(dir, ".lock"))()
	if _, err := os.Stat(out); err == nil {
		return out // built by another process while we waited
	}
	tmp := out + ".tmp"
	cmd := build(tmp)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testplugins: build %s: %v\n%s", name, err, b)
	}
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	precompile(t, out)
	return out
}

// hashInputs hashes the names and contents of the files under inputs
// (files or directories), skipping build output and node_modules.
func hashInputs(inputs []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", runtime.Version())
	for _, in := range inputs {
		var files []string
		err := filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "build") {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		sort.Strings(files)
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "%s\x00", filepath.ToSlash(f[len(filepath.Dir(in)):]))
			_, err = io.Copy(h, fh)
			fh.Close()
			if err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// lock takes the file lock at path (made if missing), waiting for it,
// and returns its release: test binaries of several packages run at once.
func lock(t testing.TB, path string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}
}
