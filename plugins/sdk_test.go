//go:build !wasip1

package plugins_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/testplugins"
)

// TestSDKErrors checks the SDK's failure paths through Wasm: an unknown
// tool, input that does not fit the tool's type, a request that is not
// JSON, and a tool whose input is wrong at call time.
func TestSDKErrors(t *testing.T) {
	p := load(t, "deploy", options{})
	tests := []struct {
		export string
		req    string
		want   string
	}{
		{abi.ExportCall, `{"abi":1,"tool":"nosuch","input":{}}`, `unknown tool "nosuch": this plugin provides deploy`},
		{abi.ExportCheckPermissions, `{"abi":1,"tool":"deploy","input":{"target":7}}`, "does not fit the tool's input type"},
		{abi.ExportMatchRule, `{"abi":1,"tool":"deploy","content":"x","input":[1]}`, "does not fit"},
		{abi.ExportSchema, `not json`, ""}, // the schema ignores its input
		{abi.ExportCall, `{"abi":1,`, "not valid JSON"},
	}
	for _, tt := range tests {
		r := p.call(tt.export, []byte(tt.req))
		if tt.want == "" {
			if r.rc != 0 || r.err != nil {
				t.Errorf("%s %s: rc %d, err %v", tt.export, tt.req, r.rc, r.err)
			}
			continue
		}
		if r.rc == 0 || r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
			t.Errorf("%s %s: rc %d, err %v, want an error with %q", tt.export, tt.req, r.rc, r.err, tt.want)
		}
	}
	// A wrong input type at call time is a result the model reads.
	var res abi.CallResult
	p.ok(abi.ExportCall, []byte(`{"abi":1,"tool":"deploy","input":{"target":["x"]}}`), &res)
	if res.State != abi.StateError || !strings.Contains(text(res), "invalid input for deploy") {
		t.Errorf("bad call input: %+v", res)
	}
	// The instance still works after all that.
	if d := p.check("deploy", map[string]any{"target": "dev-2"}); d.Behavior != abi.Allow {
		t.Errorf("after errors: %+v", d)
	}
}

// ---- the guest's garbage collector ----

// trackingAllocator backs linear memories with plain slices and records
// how large each grows (a wazero experimental hook).
type trackingAllocator struct {
	mu   sync.Mutex
	mems []*trackedMemory
}

func (a *trackingAllocator) Allocate(capacity, max uint64) experimental.LinearMemory {
	m := &trackedMemory{buf: make([]byte, 0, capacity), max: max}
	a.mu.Lock()
	a.mems = append(a.mems, m)
	a.mu.Unlock()
	return m
}

// largest returns the size of the largest memory: the plugin's, not the
// Extism kernel's.
func (a *trackingAllocator) largest() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var n uint64
	for _, m := range a.mems {
		n = max(n, m.size.Load())
	}
	return n
}

type trackedMemory struct {
	buf  []byte
	max  uint64
	size atomic.Uint64
}

func (m *trackedMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
	} else {
		b := make([]byte, size, min(m.max, size+size/2))
		copy(b, m.buf)
		m.buf = b
	}
	m.size.Store(size)
	return m.buf
}

func (m *trackedMemory) Free() { m.buf = nil }

// TestGuestGCRuns calls a tool that allocates 1 MiB of garbage 2000
// times on one instance (2 GiB in all). The SDK yields to the Go
// scheduler before each export returns, so the guest's garbage collector
// runs and linear memory stays small; without that, the heap only grows
// (the module would need 2 GiB).
func TestGuestGCRuns(t *testing.T) {
	alloc := &trackingAllocator{}
	ctx := experimental.WithMemoryAllocator(context.Background(), alloc)
	p := instance(t, ctx, compile(t, testplugins.Source(t, "testdata/alloc"), options{}))
	const calls, bound = 2000, 64 << 20
	var first uint64
	for i := range calls {
		res, _ := p.callTool("alloc", map[string]any{"kib": 1024})
		if res.State != abi.StateSuccess {
			t.Fatalf("call %d: %+v", i, res)
		}
		if i == 0 {
			first = alloc.largest()
		}
	}
	peak := alloc.largest()
	t.Logf("linear memory after 1 call: %d MiB; after %d calls of 1 MiB of garbage: %d MiB", first>>20, calls, peak>>20)
	if peak > bound {
		t.Errorf("linear memory grew to %d MiB after %d calls; want at most %d MiB: the guest's GC does not run", peak>>20, calls, bound>>20)
	}
}

// ---- hostile fixtures, as seen by a third-party Extism host ----
