package toolkit

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The behaviour every store shares is checked by toolkittest.StoreContract
// (store_contract_test.go); this checks the memory cache's byte count.

func TestReadCacheLRU(t *testing.T) {
	ctx := context.Background()
	c := newMemoryReadCache(ReadCacheLimits{Files: 3, Bytes: 100})
	st := func(n int) FileStamp { return FileStamp{ModTime: time.Unix(int64(n), 0), Size: int64(n)} }
	for i := range 3 {
		_ = c.Remember(ctx, fmt.Sprint(i), st(i), 10)
	}
	_, _, _ = c.Lookup(ctx, "0") // 0 is now the most recent; 1 is the oldest
	_ = c.Remember(ctx, "3", st(3), 10)
	if _, ok, _ := c.Lookup(ctx, "1"); ok {
		t.Error("the least recently used entry survived")
	}
	for _, p := range []string{"0", "2", "3"} {
		if _, ok, _ := c.Lookup(ctx, p); !ok {
			t.Errorf("%s evicted", p)
		}
	}
	// The byte limit evicts too, but never the entry just added.
	_ = c.Remember(ctx, "big", st(9), 95)
	if got, ok, _ := c.Lookup(ctx, "big"); !ok || got != st(9) {
		t.Error("the newest entry was evicted")
	}
	if c.lru.Len() != 1 || c.bytes != 95 {
		t.Errorf("after a big entry: %d entries, %d bytes", c.lru.Len(), c.bytes)
	}
	_ = c.Remember(ctx, "big", st(10), 5) // update in place
	if got, _, _ := c.Lookup(ctx, "big"); got != st(10) || c.bytes != 5 {
		t.Errorf("update: %+v, %d bytes", got, c.bytes)
	}
	_ = c.Forget(ctx, "big")
	if _, ok, _ := c.Lookup(ctx, "big"); ok || c.bytes != 0 {
		t.Error("Forget")
	}
}

// TestMemoryStoreSessions: sessions are kept apart, counted and dropped
// whichever is made first (the first lives outside the map).
func TestMemoryStoreSessions(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore()
	get := func(id string) SessionState {
		t.Helper()
		s, err := m.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b, c := get("a"), get("b"), get("c")
	if get("a") != a || get("b") != b || get("c") != c || a == b || b == c {
		t.Fatal("a session id does not give the same state each time, or two ids share one")
	}
	if m.Len() != 3 {
		t.Fatalf("Len = %d, want 3", m.Len())
	}
	for _, tc := range []struct {
		drop string
		left int
	}{{"a", 2}, {"missing", 2}, {"c", 1}, {"b", 0}, {"b", 0}} {
		if err := m.Drop(ctx, tc.drop); err != nil {
			t.Fatal(err)
		}
		if m.Len() != tc.left {
			t.Fatalf("after dropping %s: Len = %d, want %d", tc.drop, m.Len(), tc.left)
		}
	}
	if get("a") == a {
		t.Fatal("a dropped session came back")
	}
	d := get("d")
	if get("a") == d || m.Len() != 2 {
		t.Fatalf("after a drop, new sessions are mixed up (Len %d)", m.Len())
	}
}
