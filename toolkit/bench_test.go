package toolkit

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkPipeline measures the toolkit's own cost per call: one allowed
// call of a trivial Go tool through all five gates (availability, parse
// and validation, permission, execution, finish).
func BenchmarkPipeline(b *testing.B) {
	tk := New(Options{})
	mustRegister(b, tk, cmdTool("echo", true, allowAll))
	ctx := context.Background()
	calls := []Call{{ID: "c", Name: "echo", Arguments: `{"cmd":"hello"}`}}
	b.ReportAllocs()
	for b.Loop() {
		turn, err := tk.NewTurn(ctx, "s", calls, TurnOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := turn.Run(ctx); err != nil {
			b.Fatal(err)
		}
		if r := turn.Responses()[0]; r.State != StateSuccess {
			b.Fatal(r.Text())
		}
	}
}

// BenchmarkPipelineFunc is BenchmarkPipeline for a NewFunc tool, whose
// input is decoded into a struct.
func BenchmarkPipelineFunc(b *testing.B) {
	type in struct {
		Cmd string `json:"cmd"`
	}
	tool, err := NewFunc("echo", "echoes", func(_ context.Context, i in) (string, error) { return i.Cmd, nil },
		FuncOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	tk := New(Options{})
	mustRegister(b, tk, tool)
	ctx := context.Background()
	calls := []Call{{ID: "c", Name: "echo", Arguments: `{"cmd":"hello"}`}}
	b.ReportAllocs()
	for b.Loop() {
		turn, _ := tk.NewTurn(ctx, "s", calls, TurnOptions{})
		_ = turn.Run(ctx)
	}
}

// BenchmarkParallelBatch runs eight concurrency-safe calls in one turn.
func BenchmarkParallelBatch(b *testing.B) {
	tk := New(Options{})
	mustRegister(b, tk, cmdTool("echo", true, allowAll))
	ctx := context.Background()
	var calls []Call
	for i := range 8 {
		calls = append(calls, Call{ID: strconv.Itoa(i), Name: "echo", Arguments: `{"cmd":"hello"}`})
	}
	b.ReportAllocs()
	for b.Loop() {
		turn, _ := tk.NewTurn(ctx, "s", calls, TurnOptions{})
		_ = turn.Run(ctx)
	}
}
