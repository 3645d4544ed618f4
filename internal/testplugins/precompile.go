package testplugins

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
)

// Under -race, wazero's compiler (instrumented like everything else) takes
// over ten seconds per standard-Go module. Test binaries built with -race
// therefore compile each module once in a separate, uninstrumented process
// (plugins/testdata/precompile) into the shared CompileCache, and the test
// loads the compiled code from there.

// precompiler is built once per test process; the state is this test
// helper's only, never a library's.
var precompiler struct {
	once sync.Once
	path string
	err  error
	done sync.Map
}

// wazeroVersion is the version wazero files its cache under in this
// process: "dev" in a test binary, the go.mod version in a command.
func wazeroVersion() string {
	v := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.Contains(dep.Path, "github.com/tetratelabs/wazero") {
				v = dep.Version
			}
		}
		if v == "" || v == "(devel)" {
			v = info.Main.Version
		}
	}
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	return v
}

// precompile compiles path into CompileCache when the race detector is on.
func precompile(t testing.TB, path string) {
	t.Helper()
	if !raceEnabled {
		return
	}
	if _, ok := precompiler.done.Load(path); ok {
		return
	}
	root := Root(t)
	precompiler.once.Do(func() {
		dir := filepath.Join(SharedDir(t), "precompile")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			precompiler.err = err
			return
		}
		// One binary per version of its sources and of wazero, built to a
		// temporary name and renamed, so that parallel test processes
		// and later runs share it.
		sum, err := hashInputs([]string{
			filepath.Join(root, "plugins", "testdata", "precompile"),
			filepath.Join(root, "internal", "wasmbin"),
			filepath.Join(root, "go.sum"),
		})
		if err != nil {
			precompiler.err = err
			return
		}
		precompiler.path = filepath.Join(dir, "precompile-"+wazeroVersion()+"-"+sum[:16])
		if _, err := os.Stat(precompiler.path); err == nil {
			now := time.Now()
			_ = os.Chtimes(precompiler.path, now, now) // in use: not trimmed
			return
		}
		tmp := fmt.Sprintf("%s.%d.tmp", precompiler.path, os.Getpid())
		ldflags := "-X github.com/tetratelabs/wazero/internal/version.version=" + wazeroVersion()
		cmd := exec.Command("go", "build", "-ldflags="+ldflags, "-o", tmp, "./plugins/testdata/precompile")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			precompiler.err = fmt.Errorf("build the precompiler: %v\n%s", err, out)
			return
		}
		precompiler.err = os.Rename(tmp, precompiler.path)
	})
	if precompiler.err != nil {
		t.Fatal(precompiler.err)
	}
	// One process at a time per module: the host and plugins packages'
	// tests ask for the same modules at once, and the second then loads
	// what the first compiled instead of compiling it too.
	defer lock(t, path+".lock")()
	if out, err := exec.Command(precompiler.path, "-cache", CompileCache(t), path).CombinedOutput(); err != nil {
		t.Fatalf("precompile %s: %v\n%s", path, err, out)
	}
	precompiler.done.Store(path, true)
}
