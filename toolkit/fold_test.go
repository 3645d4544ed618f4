package toolkit

import (
	"strings"
	"testing"
	"time"
)

// TestFoldLinear: folding many chunks into one text block costs time
// linear in the text (appending to a string each time would copy it
// whole per chunk), and the result is the same.
func TestFoldLinear(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	timeIt := func(n int) time.Duration {
		r := &Response{}
		start := time.Now()
		for range n {
			r.Fold(TextChunk(line))
			r.Fold(&Chunk{Content: []Block{{Type: BlockText, ID: "log", Text: "."}, DataBlock("image/png", []byte{1})}})
		}
		took := time.Since(start)
		if len(r.Content) != 2+n || len(r.Content[0].Text) != n*len(line) || r.Content[1].Text != strings.Repeat(".", n) {
			t.Fatalf("%d chunks folded into %d blocks", n, len(r.Content))
		}
		return took
	}
	small, big := timeIt(10_000), timeIt(100_000)
	t.Logf("10,000 chunks: %s; 100,000: %s", small, big)
	if big > 40*small+time.Second {
		t.Errorf("100,000 chunks took %s, 10,000 took %s: not linear", big, small)
	}

	// Content changed between folds is honoured.
	r := &Response{}
	r.Fold(TextChunk("a"))
	r.Content[0].Text = "b"
	r.Fold(TextChunk("c"))
	r.Content = append([]Block{{Type: BlockText, ID: "x", Text: "1"}}, r.Content...)
	r.Fold(&Chunk{Content: []Block{{Type: BlockText, ID: "x", Text: "2"}, TextBlock("d")}})
	if len(r.Content) != 2 || r.Content[0].Text != "12" || r.Content[1].Text != "bcd" {
		t.Errorf("content: %+v", r.Content)
	}
}
