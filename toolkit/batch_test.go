package toolkit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBatch: a batch applies its removals and registrations as one change
// (one OnChange), all or nothing.
func TestBatch(t *testing.T) {
	var changes []Change
	tk := New(Options{OnChange: func(c Change) { changes = append(changes, c) }})
	mustRegister(t, tk, cmdTool("A", true, nil))
	mustRegister(t, tk, cmdTool("B", true, nil))
	changes = nil

	var b Batch
	b.Unregister("A")
	b.Unregister("missing") // skipped
	b.Register(cmdTool("C", true, nil))
	b.Register(cmdTool("B", false, nil), Replacing())
	if err := tk.Apply(&b); err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || strings.Join(changes[0].Removed, ",") != "A" || strings.Join(changes[0].Added, ",") != "C" || strings.Join(changes[0].Replaced, ",") != "B" {
		t.Fatalf("changes: %+v", changes)
	}
	var names []string
	for _, ti := range tk.Tools() {
		names = append(names, ti.Spec.Name)
	}
	if strings.Join(names, ",") != "B,C" {
		t.Errorf("tools: %v", names)
	}

	// One bad registration: nothing changes.
	var bad Batch
	bad.Unregister("B")
	bad.Register(cmdTool("D", true, nil))
	bad.Register(cmdTool("C", true, nil)) // taken, not Replacing
	if err := tk.Apply(&bad); err == nil || !strings.Contains(err.Error(), "C is already registered") {
		t.Fatalf("apply: %v", err)
	}
	if _, ok := tk.Tool("B"); !ok {
		t.Error("a failed batch removed B")
	}
	if _, ok := tk.Tool("D"); ok {
		t.Error("a failed batch registered D")
	}
	var twice Batch
	twice.Register(cmdTool("E", true, nil))
	twice.Register(cmdTool("E", true, nil))
	if err := tk.Apply(&twice); err == nil {
		t.Error("a batch registered one name twice")
	}
}

// TestBatchLinear: registering many tools in a batch takes time linear in
// their number (Register one by one is quadratic: each copies the
// registry).
func TestBatchLinear(t *testing.T) {
	timeIt := func(n int) time.Duration {
		tk := New(Options{})
		var b Batch
		for i := range n {
			b.Register(cmdTool(fmt.Sprintf("t%d", i), true, nil))
		}
		start := time.Now()
		if err := tk.Apply(&b); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	small, big := timeIt(2000), timeIt(20000)
	t.Logf("batch of 2000 tools: %s; of 20000: %s", small, big)
	if big > 30*small+time.Second {
		t.Errorf("20000 tools took %s, 2000 took %s: not linear", big, small)
	}
}
