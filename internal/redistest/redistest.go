// Package redistest starts a real redis-server for tests.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wasmtools/wasmtools/internal/testproc"
)

// Start runs a redis-server of its own, on a free loopback port with no
// persistence, for the duration of the test, and returns its address.
// Without redis-server on PATH the test is skipped, unless CI=true: then
// it fails (.ci/run installs the Debian package).
func Start(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed (apt-get install redis-server); CI must run the Redis tests")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server): Redis tests skipped")
	}
	port := testproc.FreePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--loglevel", "warning")
	testproc.Start(t, "redis-server", cmd)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s does not answer: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// URL is the redis:// URL of database db at addr.
func URL(addr string, db int) string { return fmt.Sprintf("redis://%s/%d", addr, db) }
