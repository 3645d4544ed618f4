package builtin

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wasmtools/wasmtools/toolkit"
)

// TestStreamKeepsCharactersWhole: a character split across two reads of
// the pipe reaches the caller in one piece.
func TestStreamKeepsCharactersWhole(t *testing.T) {
	euro := []byte("€") // 3 bytes
	reads := [][]byte{append([]byte("price: 5"), euro[:1]...), euro[1:2], append(euro[2:], []byte(" total")...)}
	var chunks []string
	streamCommand(context.Background(), func(c *toolkit.Chunk, err error) bool {
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range c.Content {
			chunks = append(chunks, b.Text)
		}
		return true
	}, 1000, time.Second, "killed", func(_ context.Context, output func([]byte)) (ExecResult, error) {
		for _, r := range reads {
			output(r)
		}
		return ExecResult{}, nil
	})
	for _, c := range chunks {
		if !utf8.ValidString(c) {
			t.Errorf("chunk %q is not valid UTF-8", c)
		}
	}
	if got := strings.Join(chunks, ""); got != "price: 5€ total" {
		t.Errorf("streamed %q", got)
	}
}
