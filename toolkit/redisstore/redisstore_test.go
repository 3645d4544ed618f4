package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/internal/redistest"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/redisstore"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// open returns a store connected to the Redis at addr; closed with the test.
func open(t testing.TB, addr string, opts redisstore.Options) *redisstore.Store {
	t.Helper()
	s, err := redisstore.Open(context.Background(), redistest.URL(addr, 0), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestContract runs the toolkit's store contract with two clients (two
// connections, as two replicas have) of one real redis-server.
func TestContract(t *testing.T) {
	addr := redistest.Start(t)
	toolkittest.StoreContract(t, func(t *testing.T, limits toolkit.ReadCacheLimits) (toolkit.SessionStore, toolkit.SessionStore) {
		opts := redisstore.Options{Limits: limits, TTL: time.Minute}
		return open(t, addr, opts), open(t, addr, opts)
	})
}

// TestIdleSessionExpires: a session unused for the TTL is gone; a used
// one is kept past its TTL because each use refreshes it.
func TestIdleSessionExpires(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	st := open(t, addr, redisstore.Options{TTL: 300 * time.Millisecond})
	for _, id := range []string{"idle", "busy"} {
		s, err := st.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetActiveGroups(ctx, []string{"g"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Tasks().Create(ctx, toolkit.Task{Subject: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	for range 6 {
		time.Sleep(100 * time.Millisecond)
		if _, err := st.Session(ctx, "busy"); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]bool{"idle": false, "busy": true} {
		s, _ := st.Session(ctx, id)
		_, set, err := s.ActiveGroups(ctx)
		tasks, err2 := s.Tasks().List(ctx)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		if set != want || (len(tasks) == 1) != want {
			t.Errorf("session %s: groups set %v, %d tasks; want kept=%v", id, set, len(tasks), want)
		}
	}
	if n, err := st.Client().Keys(ctx, redisstore.DefaultPrefix+"{idle}*").Result(); err != nil || len(n) != 0 {
		t.Errorf("keys of the idle session left: %v %v", n, err)
	}
}

// TestOpenFails: a server that does not answer is an error at Open, not
// at the first call.
func TestOpenFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := redisstore.Open(ctx, "redis://127.0.0.1:1/0", redisstore.Options{}); err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	if _, err := redisstore.Open(ctx, "http://x", redisstore.Options{}); err == nil {
		t.Fatal("Open of a non-redis URL succeeded")
	}
}
