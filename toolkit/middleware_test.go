package toolkit

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestMiddleware(t *testing.T) {
	var mu sync.Mutex
	var trace []string
	note := func(s string) { mu.Lock(); trace = append(trace, s); mu.Unlock() }
	layer := func(name string) Middleware {
		return func(ctx context.Context, in Input, next Next) Stream {
			note(name + ">")
			return func(yield func(*Chunk, error) bool) {
				for c, err := range next(ctx, in) {
					if !yield(c, err) {
						return
					}
				}
				note("<" + name)
			}
		}
	}
	rewrite := func(ctx context.Context, in Input, next Next) Stream {
		in2 := Input{"cmd": strings.ToUpper(in.String("cmd"))}
		return next(ctx, in2)
	}
	upperChunks := func(ctx context.Context, in Input, next Next) Stream {
		return MapChunks(next(ctx, in), func(c *Chunk) *Chunk {
			for i := range c.Content {
				c.Content[i].Text = "[" + c.Content[i].Text + "]"
			}
			return c
		})
	}
	shortCircuit := func(ctx context.Context, in Input, next Next) Stream {
		if in.String("cmd") == "cached" {
			return Single(TextChunk("from cache"))
		}
		return next(ctx, in)
	}
	tk := New(Options{})
	tool := cmdTool("run", false, allowAll)
	tool.call = func(_ context.Context, in Input) Stream {
		note("call:" + in.String("cmd"))
		return Single(TextChunk(in.String("cmd")))
	}
	mustRegister(t, tk, tool, WithMiddleware(layer("outer"), layer("inner"), shortCircuit, upperChunks, rewrite))

	r := runTurn(t, tk, TurnOptions{}, Call{Name: "run", Arguments: `{"cmd":"go"}`}).Responses()[0]
	if r.Text() != "[GO]" {
		t.Errorf("rewritten input and transformed chunk: %q, want [GO]", r.Text())
	}
	if got := strings.Join(trace, " "); got != "outer> inner> call:GO <inner <outer" {
		t.Errorf("onion order: %s", got)
	}
	trace = nil
	r = runTurn(t, tk, TurnOptions{}, Call{Name: "run", Arguments: `{"cmd":"cached"}`}).Responses()[0]
	if r.Text() != "from cache" || strings.Contains(strings.Join(trace, " "), "call:") {
		t.Errorf("short circuit: %q, trace %v", r.Text(), trace)
	}
}

func TestMiddlewareRetry(t *testing.T) {
	attempts := 0
	tool := &testTool{spec: Spec{Name: "flaky"}, check: allowAll, call: func(context.Context, Input) Stream {
		attempts++
		if attempts < 3 {
			return Fail(errors.New("temporary"))
		}
		return Single(TextChunk("ok after retries"))
	}}
	retry := func(ctx context.Context, in Input, next Next) Stream {
		return func(yield func(*Chunk, error) bool) {
			for try := 0; ; try++ {
				var chunks []*Chunk
				var failed error
				for c, err := range next(ctx, in) {
					if err != nil {
						failed = err
						break
					}
					chunks = append(chunks, c)
				}
				if failed == nil || try == 4 {
					for _, c := range chunks {
						if !yield(c, nil) {
							return
						}
					}
					if failed != nil {
						yield(nil, failed)
					}
					return
				}
			}
		}
	}
	tk := New(Options{})
	mustRegister(t, tk, tool, WithMiddleware(retry))
	r := runTurn(t, tk, TurnOptions{}, Call{Name: "flaky"}).Responses()[0]
	if r.State != StateSuccess || r.Text() != "ok after retries" || attempts != 3 {
		t.Errorf("retry: %s %q after %d attempts", r.State, r.Text(), attempts)
	}
}

func TestFold(t *testing.T) {
	tests := []struct {
		name   string
		chunks []*Chunk
		state  State
		blocks []Block
		meta   map[string]any
	}{
		{
			name:   "text with the same id concatenates",
			chunks: []*Chunk{TextChunk("a"), TextChunk("b"), {Content: []Block{{Type: BlockText, ID: "x", Text: "1"}}}, {Content: []Block{{Type: BlockText, ID: "x", Text: "2"}}}},
			state:  StateSuccess,
			blocks: []Block{TextBlock("ab"), {Type: BlockText, ID: "x", Text: "12"}},
		},
		{
			name:   "data blocks append",
			chunks: []*Chunk{{Content: []Block{DataBlock("image/png", []byte{1})}}, {Content: []Block{DataBlock("image/png", []byte{2})}}},
			state:  StateSuccess,
			blocks: []Block{DataBlock("image/png", []byte{1}), DataBlock("image/png", []byte{2})},
		},
		{
			name:   "metadata merges, later wins",
			chunks: []*Chunk{{Metadata: map[string]any{"a": 1, "b": 1}}, {Metadata: map[string]any{"b": 2}}},
			state:  StateSuccess,
			meta:   map[string]any{"a": 1, "b": 2},
		},
		{
			name:   "error is sticky",
			chunks: []*Chunk{{State: StateError}, {State: StateInterrupted}, {State: StateSuccess}},
			state:  StateError,
		},
		{
			name:   "interrupted sticks",
			chunks: []*Chunk{{State: StateInterrupted}, {State: StateSuccess}},
			state:  StateInterrupted,
		},
		{
			name:   "denied sticks, error overrides",
			chunks: []*Chunk{{State: StateDenied}, {State: StateError}},
			state:  StateError,
		},
		{
			name:   "denied then interrupted",
			chunks: []*Chunk{{State: StateDenied}, {State: StateInterrupted}},
			state:  StateInterrupted,
		},
	}
	for _, tt := range tests {
		r := &Response{}
		for _, c := range tt.chunks {
			r.Fold(c)
		}
		r.finish()
		if r.State != tt.state {
			t.Errorf("%s: state %s, want %s", tt.name, r.State, tt.state)
		}
		if tt.blocks != nil && !blocksEqual(r.Content, tt.blocks) {
			t.Errorf("%s: blocks %+v, want %+v", tt.name, r.Content, tt.blocks)
		}
		for k, v := range tt.meta {
			if r.Metadata[k] != v {
				t.Errorf("%s: metadata %v, want %v", tt.name, r.Metadata, tt.meta)
			}
		}
	}
}

func blocksEqual(a, b []Block) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || a[i].ID != b[i].ID || a[i].Text != b[i].Text || string(a[i].Data) != string(b[i].Data) || a[i].MediaType != b[i].MediaType {
			return false
		}
	}
	return true
}
