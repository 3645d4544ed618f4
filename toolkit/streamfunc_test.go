package toolkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

type countIn struct {
	To   int    `json:"to" jsonschema:"the last number"`
	Fail string `json:"fail,omitempty" jsonschema:"an error to end with"`
}

// counter streams "1 ", "2 ", ... up to in.To, then fails if asked to.
func counter(_ context.Context, in countIn, emit func(*toolkit.Chunk) error) error {
	for i := 1; i <= in.To; i++ {
		c := toolkit.TextChunk(fmt.Sprintf("%d ", i))
		c.Metadata = map[string]any{"last": i}
		if err := emit(c); err != nil {
			return err
		}
	}
	if in.Fail != "" {
		return errors.New(in.Fail)
	}
	return nil
}

func streamKit(t *testing.T, tools ...toolkit.Tool) *toolkit.Toolkit {
	t.Helper()
	tk := toolkit.New(toolkit.Options{})
	for _, tool := range tools {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	return tk
}

func chunkTexts(cs []*toolkit.Chunk) []string {
	var out []string
	for _, c := range cs {
		for _, b := range c.Content {
			out = append(out, b.Text)
		}
	}
	return out
}

// TestStreamFunc: a stream function's chunks reach the turn as EventChunk
// events, in order, and fold into one response; its schema is inferred
// as NewFunc's is; an error it returns ends the call in error after what
// it streamed; arguments it cannot decode are an error the model can fix.
func TestStreamFunc(t *testing.T) {
	count, err := toolkit.NewStreamFunc("count", "Counts.", counter, toolkit.FuncOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	// A schema that lets anything through, so that decoding is what fails.
	loose, err := toolkit.NewStreamFunc("loose", "Counts, loosely.", counter,
		toolkit.FuncOptions{ReadOnly: true, InputSchema: json.RawMessage(`{"type":"object"}`)})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := toolkit.InferSchema[countIn]()
	if got := count.Spec().InputSchema; string(got) != string(want) {
		t.Errorf("schema %s, want NewFunc's %s", got, want)
	}
	tk := streamKit(t, count, loose)

	tests := []struct {
		name, tool, args string
		chunks           []string // the EventChunk texts, in order
		state            toolkit.State
		text             string // the folded response's text
		last             any    // its metadata "last"
	}{
		{"chunks in order", "count", `{"to":3}`, []string{"1 ", "2 ", "3 "}, toolkit.StateSuccess, "1 2 3 ", 3},
		{"no chunks", "count", `{"to":0}`, nil, toolkit.StateSuccess, "", nil},
		{"error after chunks", "count", `{"to":2,"fail":"out of numbers"}`, []string{"1 ", "2 "}, toolkit.StateError, "1 2 out of numbers", 2},
		{"arguments the schema refuses", "count", `{"to":"three"}`, nil, toolkit.StateError, "", nil},
		{"arguments that do not decode", "loose", `{"to":"three"}`, nil, toolkit.StateError,
			"invalid arguments: to cannot be a JSON string (it is a Go int); correct it and call again", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kinds []toolkit.EventKind
			res, err := toolkittest.Run(context.Background(), tk, "s", tt.tool, tt.args, toolkit.TurnOptions{
				OnEvent: func(ev toolkit.Event) { kinds = append(kinds, ev.Kind) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := chunkTexts(res.Chunks); !slices.Equal(got, tt.chunks) {
				t.Errorf("chunks %q, want %q", got, tt.chunks)
			}
			wantKinds := append(slices.Repeat([]toolkit.EventKind{toolkit.EventChunk}, len(tt.chunks)), toolkit.EventResult)
			if !slices.Equal(kinds, wantKinds) {
				t.Errorf("events %v, want %v", kinds, wantKinds)
			}
			r := res.Outcome.Response
			if r == nil {
				t.Fatalf("no response: %s", res.Outcome.Status)
			}
			if r.State != tt.state {
				t.Errorf("state %s, want %s (%q)", r.State, tt.state, r.Text())
			}
			if tt.text != "" && r.Text() != tt.text {
				t.Errorf("text %q, want %q", r.Text(), tt.text)
			}
			if tt.text == "" && tt.state == toolkit.StateError && !strings.Contains(r.Text(), "to") {
				t.Errorf("the error %q does not name the field", r.Text())
			}
			if got := r.Metadata["last"]; got != tt.last {
				t.Errorf("metadata last = %v, want %v", got, tt.last)
			}
		})
	}
}

// TestStreamFuncStops: emit refuses chunks once the reader stopped, the
// context is done or the function returned; it never panics, even when
// called from several goroutines.
func TestStreamFuncStops(t *testing.T) {
	var (
		mu    sync.Mutex
		errs  []error
		saved func(*toolkit.Chunk) error
	)
	record := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	tool, err := toolkit.NewStreamFunc("emitter", "Emits.", func(ctx context.Context, in struct {
		N        int  `json:"n"`
		Parallel bool `json:"parallel,omitempty"`
	}, emit func(*toolkit.Chunk) error) error {
		saved = emit
		if in.Parallel {
			var wg sync.WaitGroup
			for range in.N {
				wg.Go(func() { record(emit(toolkit.TextChunk("x"))) })
			}
			wg.Wait()
			return nil
		}
		for range in.N {
			record(emit(toolkit.TextChunk("x")))
		}
		return nil
	}, toolkit.FuncOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	caller := tool.(toolkit.Caller)

	t.Run("reader stops", func(t *testing.T) {
		errs = nil
		n := 0
		for _, err := range caller.Call(context.Background(), toolkit.Input{"n": json.Number("3")}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			break
		}
		// The first chunk was read, and emit says the reader wants no more.
		if n != 1 || len(errs) != 3 || !errors.Is(errs[0], toolkit.ErrStopped) || !errors.Is(errs[1], toolkit.ErrStopped) || !errors.Is(errs[2], toolkit.ErrStopped) {
			t.Errorf("read %d; emit returned %v, want ErrStopped thrice", n, errs)
		}
		if err := saved(toolkit.TextChunk("late")); err == nil {
			t.Error("emit after the function returned took the chunk")
		}
	})

	t.Run("context done", func(t *testing.T) {
		errs = nil
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		for c, err := range caller.Call(ctx, toolkit.Input{"n": json.Number("3")}) {
			if err != nil || c == nil {
				t.Fatalf("chunk %v, err %v", c, err)
			}
			n++
			cancel()
		}
		if n != 1 || len(errs) != 3 || errs[0] != nil || !errors.Is(errs[1], context.Canceled) || !errors.Is(errs[2], context.Canceled) {
			t.Errorf("read %d; emit returned %v, want nil then context.Canceled twice", n, errs)
		}
	})

	t.Run("parallel emits", func(t *testing.T) {
		errs = nil
		tk := streamKit(t, tool)
		res, err := toolkittest.Run(context.Background(), tk, "s", "emitter", `{"n":20,"parallel":true}`, toolkit.TurnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Chunks) != 20 || res.Outcome.Response.Text() != strings.Repeat("x", 20) {
			t.Errorf("%d chunks, text %q", len(res.Chunks), res.Outcome.Response.Text())
		}
		for _, err := range errs {
			if err != nil {
				t.Errorf("emit: %v", err)
			}
		}
	})
}

// TestStreamFuncCancel: cancelling the turn's context stops the function
// (emit says why) and ends the call interrupted, keeping what it
// streamed.
func TestStreamFuncCancel(t *testing.T) {
	stopped := make(chan error, 1)
	tool, err := toolkit.NewStreamFunc("waiter", "Waits.", func(ctx context.Context, _ struct{}, emit func(*toolkit.Chunk) error) error {
		err := emit(toolkit.TextChunk("started"))
		if err == nil {
			<-ctx.Done()
			err = emit(toolkit.TextChunk("never"))
		}
		stopped <- err
		return err
	}, toolkit.FuncOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	tk := streamKit(t, tool)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := toolkittest.Run(ctx, tk, "s", "waiter", `{}`, toolkit.TurnOptions{
		OnEvent: func(ev toolkit.Event) {
			if ev.Kind == toolkit.EventChunk {
				go cancel() // the user interrupts once the call has started
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("emit after cancel: %v, want context.Canceled", err)
	}
	r := res.Outcome.Response
	if r == nil || r.State != toolkit.StateInterrupted || !strings.HasPrefix(r.Text(), "started") || strings.Contains(r.Text(), "never") {
		t.Errorf("response %+v", r)
	}
	if got := chunkTexts(res.Chunks); !slices.Equal(got, []string{"started"}) {
		t.Errorf("chunks %q", got)
	}
}

// TestFuncSpecIsACopy: changing the schema a function tool's Spec
// returns, or the one its options gave, changes nothing in the tool.
func TestFuncSpecIsACopy(t *testing.T) {
	given := json.RawMessage(`{"type":"object"}`)
	tools := map[string]func() (toolkit.Tool, error){
		"NewFunc inferred": func() (toolkit.Tool, error) {
			return toolkit.NewFunc("f", "", func(context.Context, countIn) (string, error) { return "", nil }, toolkit.FuncOptions{})
		},
		"NewStreamFunc given": func() (toolkit.Tool, error) {
			return toolkit.NewStreamFunc("f", "", counter, toolkit.FuncOptions{InputSchema: given})
		},
	}
	for name, mk := range tools {
		t.Run(name, func(t *testing.T) {
			tool, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			before := string(tool.Spec().InputSchema)
			given[0] = 'X'
			s := tool.Spec().InputSchema
			s[0] = 'X'
			if after := string(tool.Spec().InputSchema); after != before || after[0] != '{' {
				t.Errorf("the schema changed: %s, was %s", after, before)
			}
			given[0] = '{'
		})
	}
}
