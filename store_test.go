package wasmtools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools"
	"github.com/wasmtools/wasmtools/internal/redistest"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/redisstore"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// TestOpenStore: Config.Store picks the session store; two hosts on one
// Redis share a session's state.
func TestOpenStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tests := []struct {
		name, store, errText string
	}{
		{name: "memory by default"},
		{name: "memory", store: "memory"},
		{name: "unknown scheme", store: "mysql://db/x", errText: "not a store"},
		{name: "redis that does not answer", store: "redis://127.0.0.1:1/0", errText: "store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := wasmtools.Open(ctx, wasmtools.Config{Store: tt.store, WorkingDirs: []string{dir}})
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("Open = %v, want an error with %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if _, ok := h.Toolkit().Store().(*toolkit.MemoryStore); !ok {
				t.Errorf("store %T, want memory", h.Toolkit().Store())
			}
		})
	}

	addr := redistest.Start(t)
	var hosts []*wasmtools.Host
	for range 2 {
		h, err := wasmtools.Open(ctx, wasmtools.Config{Store: redistest.URL(addr, 0), WorkingDirs: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if _, ok := h.Toolkit().Store().(*redisstore.Store); !ok {
			t.Fatalf("store %T, want Redis", h.Toolkit().Store())
		}
		hosts = append(hosts, h)
	}
	if resp := toolkittest.Call(t, hosts[0].Toolkit(), "shared", "TaskCreate", map[string]any{"subject": "from host 0", "description": "d"}); resp.State != toolkit.StateSuccess {
		t.Fatalf("TaskCreate: %s", resp.Text())
	}
	if resp := toolkittest.Call(t, hosts[1].Toolkit(), "shared", "TaskList", map[string]any{}); !strings.Contains(resp.Text(), "from host 0") {
		t.Fatalf("the other host's TaskList: %s", resp.Text())
	}
}
