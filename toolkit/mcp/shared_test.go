package mcp

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/internal/redistest"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/redisstore"
)

type bumpIn struct {
	N int `json:"n"`
}

// sharedServer is a server of its own toolkit over a Redis store, as one
// replica is; runs counts the calls of its "bump" tool, which asks.
func sharedServer(t *testing.T, redisAddr string, runs *atomic.Int32) *Server {
	t.Helper()
	st, err := redisstore.Open(context.Background(), redistest.URL(redisAddr, 0), redisstore.Options{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	tk := toolkit.New(toolkit.Options{Store: st, Permission: permission.Context{Mode: permission.ModeDefault}})
	bump, err := toolkit.NewFunc("bump", "Counts.", func(_ context.Context, in bumpIn) (string, error) {
		runs.Add(1)
		return "bumped", nil
	}, toolkit.FuncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tk.Register(bump); err != nil {
		t.Fatal(err)
	}
	return NewServer(tk, ServerOptions{SharedSessions: true})
}

// TestParkedCallResumesOnAnotherServer: a call parked for confirmation
// on server A (a client on the multi-round-trip protocol gets its
// request state) is answered through server B, which resumes it from
// the store and runs it; A, which still holds the live turn, can no
// longer claim it: the call runs once.
func TestParkedCallResumesOnAnotherServer(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	var runs atomic.Int32
	a, b := sharedServer(t, addr, &runs), sharedServer(t, addr, &runs)
	const sid = "shared-session"

	turn, err := a.tk.NewTurn(ctx, sid, []toolkit.Call{{Name: "bump", Arguments: `{"n":1}`}}, toolkit.TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Run(ctx); !errors.Is(err, toolkit.ErrWaiting) {
		t.Fatalf("Run = %v, want a confirmation", err)
	}
	out := turn.Outcomes()[0]
	token, err := a.putPending(ctx, sid, out.Call.ID, turn, out.Confirmation.Decision, nil, &progress{})
	if err != nil {
		t.Fatal(err)
	}

	if p, err := b.takePending(ctx, token, "another-session"); err != nil || p != nil {
		t.Fatalf("another session claimed the call: %v %v", p, err)
	}
	p, err := b.takePending(ctx, token, sid)
	if err != nil || p == nil {
		t.Fatalf("B cannot claim the call A parked: %v", err)
	}
	if err := p.turn.Confirm(p.callID, approvalFrom(&sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}, p.decision)); err != nil {
		t.Fatal(err)
	}
	if err := p.turn.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := p.turn.Outcomes()[0]; got.Status != toolkit.StatusDone || got.Response.State != toolkit.StateSuccess {
		t.Fatalf("resumed call: %+v", got)
	}
	if again, err := a.takePending(ctx, token, sid); err != nil || again != nil {
		t.Fatalf("A claimed a call B already took: %v %v", again, err)
	}
	if runs.Load() != 1 {
		t.Fatalf("the call ran %d times", runs.Load())
	}
}
