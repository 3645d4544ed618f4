package testplugins

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// What the tests build and compile outlives a run: Go builds of plugins,
// the race-free precompiler and wazero's compiled code are kept in one
// folder per user (SharedDir), by content, so that a fresh clone, a
// second `make test` and the race and non-race passes all compile each
// module once. Only what a test may want fresh (the host's schema cache)
// stays in the clone's build/compile-cache.

// SharedDir returns the folder kept across runs and clones:
// $WASMTOOLS_TEST_CACHE, or wasmtools-tests in the user's cache folder
// (~/.cache on Linux), or build/shared in the repository when there is
// no user cache folder.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("WASMTOOLS_TEST_CACHE")
	if dir == "" {
		if startCacheErr == nil {
			dir = filepath.Join(startCacheDir, "wasmtools-tests")
		} else {
			dir = filepath.Join(Root(t), "build", "shared")
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	trimOnce.Do(func() { trim(dir, 14*24*time.Hour) })
	return dir
}

// startCacheDir is the user's cache folder as the test process found it
// when it started: a test that points HOME elsewhere for its own sake
// must not move the shared cache (the links of build/compile-cache would
// follow it into a folder deleted when that test ends, under the feet of
// every other test process).
// It is read at package initialisation, before any test runs.
var startCacheDir, startCacheErr = os.UserCacheDir()

// trimOnce: one test process a run looks for stale entries.
var trimOnce sync.Once

// trim removes the files under dir (two levels: the build and compiled
// code folders) not modified for age: builds of old sources and code of
// old modules. A build in use has its time refreshed on every hit.
func trim(dir string, age time.Duration) {
	cutoff := time.Now().Add(-age)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().Before(cutoff) {
			os.Remove(p)
		}
		return nil
	})
}

// CompileCache returns the host's cache folder for tests,
// build/compile-cache: compiled code is read from and written to the
// shared folder (see CompiledCodeDir), the schema cache stays in the
// clone. Compiled code is keyed by the module's hash and the compiler's
// flags, and wazero writes entries atomically, so parallel test
// processes share it safely.
func CompileCache(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(Root(t), "build", "compile-cache")
	linkCompiledCode(t, dir)
	return dir
}

// FreshCache returns a new, empty host cache folder for one test (no
// cached schemas) whose compiled code is still the shared one: a test of
// the schema cache need not compile a module again, which under the race
// detector takes ten seconds.
func FreshCache(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	linkCompiledCode(t, dir)
	return dir
}

// linkCompiledCode makes wazero's code folders in cacheDir, named
// wazero-VERSION-GOARCH-GOOS, links to CompiledCodeDir. VERSION is "dev"
// in a test binary (which has no module versions) and the go.mod version
// in a built wasmtools: both are the same wazero, so both names share
// the code.
func linkCompiledCode(t testing.TB, cacheDir string) {
	t.Helper()
	target := CompiledCodeDir(t)
	version, err := wazeroModuleVersion(Root(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"dev", version} {
		link := filepath.Join(cacheDir, "wazero-"+v+"-"+runtime.GOARCH+"-"+runtime.GOOS)
		if cur, err := os.Readlink(link); err == nil && cur == target {
			continue
		}
		// A folder of an older layout, or a link to the code of another
		// wazero: replace it with the link. The link is made aside and
		// renamed over the old one, so that a test process starting at
		// the same moment never finds the name missing; a real folder is
		// only moved aside, as another test process may be writing into
		// it.
		if info, err := os.Lstat(link); err == nil && info.IsDir() {
			_ = os.Rename(link, fmt.Sprintf("%s.old-%d", link, os.Getpid()))
		}
		tmp := fmt.Sprintf("%s.new-%d", link, os.Getpid())
		_ = os.Remove(tmp)
		if err := os.Symlink(target, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, link); err != nil {
			_ = os.Remove(tmp)
			t.Fatal(err)
		}
	}
}

// CompiledCodeDir returns the shared folder of wazero's compiled code
// for the wazero this repository requires, named by its go.sum hash: a
// change of wazero never reads another version's code.
func CompiledCodeDir(t testing.TB) string {
	t.Helper()
	sum, err := wazeroSum(Root(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(SharedDir(t), "compiled-"+sum)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

const wazeroModule = "github.com/tetratelabs/wazero"

// wazeroModuleVersion reads wazero's version from go.mod.
func wazeroModuleVersion(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == wazeroModule {
			return fields[1], nil
		}
		if len(fields) >= 3 && fields[0] == "require" && fields[1] == wazeroModule {
			return fields[2], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("testplugins: go.mod does not require %s", wazeroModule)
}

// wazeroSum returns a file-name-safe form of wazero's go.sum hash.
func wazeroSum(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == wazeroModule && !strings.HasSuffix(f[1], "/go.mod") {
			h := strings.TrimPrefix(f[2], "h1:")
			return f[1] + "-" + strings.NewReplacer("/", "_", "+", "-", "=", "").Replace(h), nil
		}
	}
	return "", fmt.Errorf("testplugins: go.sum has no hash of %s", wazeroModule)
}
