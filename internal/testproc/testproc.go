// Package testproc runs the helper processes of tests (redis-server,
// haproxy, wasmtools serve): started for the length of a test, killed
// when it ends, their output shown only when it fails.
package testproc

import (
	"bytes"
	"net"
	"os/exec"
	"sync"
	"testing"
)

// Start starts cmd for the duration of the test, its standard output and
// error (those not set already) going to the returned Output, which the
// test log shows under name when the test fails. The process is killed
// and waited for at cleanup.
func Start(t testing.TB, name string, cmd *exec.Cmd) *Output {
	t.Helper()
	out := &Output{}
	if cmd.Stdout == nil {
		cmd.Stdout = out
	}
	if cmd.Stderr == nil {
		cmd.Stderr = out
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out.String())
		}
	})
	return out
}

// Output collects a process's output (or a logger's): it is safe to
// write from the process and read from the test at once.
type Output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements io.Writer.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

// String returns what was written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// FreePort returns a loopback port nothing listened on a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
