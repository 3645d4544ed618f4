package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// binary is the wasmtools binary built once for all tests.
var binary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "wasmtools-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "wasmtools")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build wasmtools: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// result is what a run of the binary left behind.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// wasmtools runs the binary with the demo tools registered, stdin as its
// standard input, in a new temporary directory.
func wasmtools(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runBinary(t, []string{demoToolsEnv + "=1"}, stdin, args...)
}

// runBinary runs the binary with the environment of the test less every
// WASMTOOLS_ variable, plus env.
func runBinary(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WASMTOOLS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run wasmtools %q: %v", args, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// decodeObject decodes one JSON object and checks that it has exactly the
// keys given.
func decodeObject(t *testing.T, text string, keys ...string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, text)
	}
	got := slices.Sorted(maps.Keys(m))
	want := slices.Sorted(slices.Values(keys))
	if !slices.Equal(got, want) {
		t.Fatalf("keys = %q, want %q in %s", got, want, text)
	}
	return m
}

func TestUsage(t *testing.T) {
	commandNames := []string{"list", "call", "check", "serve", "inspect", "plugins", "new", "version"}
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   []string // substrings
		noStdout bool     // stdout must be empty
	}{
		{name: "no arguments", args: nil, code: exitUsage, stderr: commandNames},
		{name: "help", args: []string{"help"}, code: exitOK, stdout: commandNames},
		{name: "--help", args: []string{"--help"}, code: exitOK, stdout: commandNames},
		{name: "help call", args: []string{"help", "call"}, code: exitOK,
			stdout: []string{"Usage: wasmtools call", "Examples", "--yes", "-workdir"}},
		{name: "call --help", args: []string{"call", "--help"}, code: exitOK, stdout: []string{"Usage: wasmtools call"}},
		{name: "check -h", args: []string{"check", "-h"}, code: exitOK, stdout: []string{"Usage: wasmtools check", "--batch"}},
		{name: "list -help", args: []string{"list", "-help"}, code: exitOK, stdout: []string{"Usage: wasmtools list"}},
		{name: "version", args: []string{"version"}, code: exitOK, stdout: []string{"wasmtools ", runtime.Version()}},
		{name: "--version", args: []string{"--version"}, code: exitOK, stdout: []string{"wasmtools "}},
		{name: "unknown command", args: []string{"frobnicate"}, code: exitUsage,
			stderr: []string{`unknown command "frobnicate"`, "wasmtools help"}, noStdout: true},
		{name: "help unknown command", args: []string{"help", "frobnicate"}, code: exitUsage, stderr: []string{"unknown command"}},
		{name: "serve stops when stdin closes", args: []string{"serve"}, code: exitOK, noStdout: true},
		{name: "serve --help", args: []string{"serve", "--help"}, code: exitOK, stdout: []string{"Usage: wasmtools serve", "mcpServers", "--http"}},
		{name: "serve bad flag", args: []string{"serve", "--http"}, code: exitUsage, stderr: []string{"http"}},
		{name: "inspect a missing file", args: []string{"inspect", "x.wasm"}, code: exitToolError, stderr: []string{"x.wasm"}},
		{name: "inspect without a file", args: []string{"inspect"}, code: exitUsage, stderr: []string{"one .wasm file"}},
		{name: "new bad name", args: []string{"new", "plugin", "X"}, code: exitUsage, stderr: []string{"invalid plugin name"}, noStdout: true},
		{name: "unknown flag", args: []string{"list", "--frobnicate"}, code: exitUsage,
			stderr: []string{"frobnicate", "wasmtools list --help"}, noStdout: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := wasmtools(t, "", tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit code %d, want %d\n%s", r.code, tt.code, r)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout lacks %q\n%s", s, r)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q\n%s", s, r)
				}
			}
			if tt.noStdout && r.stdout != "" {
				t.Errorf("stdout should be empty\n%s", r)
			}
		})
	}
}
