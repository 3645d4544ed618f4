// Package toolkittest runs tool calls in tests the way a host does:
// through a toolkit's whole pipeline (argument repair and validation, the
// permission check, the call, the folding of its chunks into a
// response).
package toolkittest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/wasmtools/wasmtools/toolkit"
)

// Result is what one call came to.
type Result struct {
	// Outcome is the call's outcome: its response when it finished,
	// the confirmation it waits for otherwise.
	Outcome toolkit.Outcome
	// Chunks are the chunks the call streamed, in order.
	Chunks []*toolkit.Chunk
}

// Run runs one call of tool with args in a turn of session and returns
// its outcome. args is the call's JSON text when it is a string (broken
// JSON included, for tests of argument repair), else it is marshalled.
// opts.OnEvent, if set, still receives every event. Run returns an error
// only when the turn cannot be built or run; it is safe to call from any
// goroutine.
func Run(ctx context.Context, tk *toolkit.Toolkit, session, tool string, args any, opts toolkit.TurnOptions) (Result, error) {
	text, ok := args.(string)
	if !ok {
		raw, err := json.Marshal(args)
		if err != nil {
			return Result{}, fmt.Errorf("toolkittest: the arguments of %s: %w", tool, err)
		}
		text = string(raw)
	}
	var res Result
	onEvent := opts.OnEvent
	opts.OnEvent = func(ev toolkit.Event) {
		if ev.Kind == toolkit.EventChunk && ev.Chunk != nil {
			res.Chunks = append(res.Chunks, ev.Chunk)
		}
		if onEvent != nil {
			onEvent(ev)
		}
	}
	turn, err := tk.NewTurn(ctx, session, []toolkit.Call{{ID: "1", Name: tool, Arguments: text}}, opts)
	if err != nil {
		return Result{}, err
	}
	if err := turn.Run(ctx); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
		return Result{}, err
	}
	res.Outcome = turn.Outcomes()[0]
	return res, nil
}

// Call runs one call (see Run) that must finish, and returns its
// response. It stops the test when the call cannot run or waits for
// confirmation: call it from the test's goroutine.
func Call(tb testing.TB, tk *toolkit.Toolkit, session, tool string, args any) *toolkit.Response {
	tb.Helper()
	res, err := Run(context.Background(), tk, session, tool, args, toolkit.TurnOptions{})
	if err != nil {
		tb.Fatalf("%s %v: %v", tool, args, err)
	}
	if res.Outcome.Response == nil {
		tb.Fatalf("%s %v did not finish: %s", tool, args, res.Outcome.Status)
	}
	return res.Outcome.Response
}
