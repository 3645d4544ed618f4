package mcp

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/internal/redistest"
	"github.com/wasmtools/wasmtools/internal/testproc"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/redisstore"
)

type bumpIn struct {
	N int `json:"n"`
}

// sharedServer is a server of its own toolkit over a Redis store, as one
// replica is; runs counts the calls of its "bump" tool, which asks.
func sharedServer(t *testing.T, redisAddr string, runs *atomic.Int32, log *slog.Logger) *Server {
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
	return NewServer(tk, ServerOptions{SharedSessions: true, Logger: log})
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
	a, b := sharedServer(t, addr, &runs, nil), sharedServer(t, addr, &runs, nil)
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

// TestSharedSessionsRoundRobin serves one MCP session from two servers
// sharing Redis, every request going to the other server than the one
// before (a round-robin proxy): the session is taken up by the second
// server, its active groups hold on both, and every call that asks runs
// once after its elicitation, whose answer reaches the server that asked
// through the store's bus when it lands on the other one.
func TestSharedSessionsRoundRobin(t *testing.T) {
	addr := redistest.Start(t)
	var runs atomic.Int32
	var backends []*url.URL
	var logs testproc.Output
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for range 2 {
		srv := sharedServer(t, addr, &runs, log)
		if err := srv.tk.AddGroup(toolkit.Group{Name: "extra", Description: "More."}); err != nil {
			t.Fatal(err)
		}
		extra, err := toolkit.NewFunc("extra_tool", "In a group.", func(context.Context, bumpIn) (string, error) { return "ok", nil },
			toolkit.FuncOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.tk.Register(extra, toolkit.InGroup("extra")); err != nil {
			t.Fatal(err)
		}
		if err := srv.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv.HTTPHandler(&sdk.StreamableHTTPOptions{SessionTimeout: time.Minute}))
		t.Cleanup(hs.Close)
		t.Cleanup(func() { srv.Shutdown(time.Second) })
		u, _ := url.Parse(hs.URL)
		backends = append(backends, u)
	}
	var next atomic.Int32
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(backends[int(next.Add(1))%len(backends)])
		},
		FlushInterval: -1, // stream events as they come
	}
	lb := httptest.NewServer(proxy)
	t.Cleanup(lb.Close)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var asked atomic.Int32
	client := sdk.NewClient(&sdk.Implementation{Name: "rr", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}, nil
		},
	})
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: lb.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	listed := func() bool {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name == "extra_tool" {
				return true
			}
		}
		return false
	}
	if listed() {
		t.Fatal("a tool of an inactive group is listed")
	}
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: toolkit.ResetToolsName, Arguments: map[string]any{"extra": true}}); err != nil || res.IsError {
		t.Fatalf("reset_tools: %v %v", err, res)
	}
	for range 3 {
		if !listed() {
			t.Fatal("the group activated through one server is not active on the other")
		}
	}
	for i := 1; i <= 4; i++ {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "bump", Arguments: map[string]any{"n": i}})
		if err != nil || res.IsError {
			t.Fatalf("bump %d: %v %v", i, err, res)
		}
		if runs.Load() != int32(i) || asked.Load() != int32(i) {
			t.Fatalf("after %d calls: %d runs, %d confirmations", i, runs.Load(), asked.Load())
		}
		listed() // shifts the round-robin: the next call runs on the other server
	}
	for _, want := range []string{"took up a session begun on another server", "a client's answer came through another server"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the servers never logged %q", want)
		}
	}
}

// TestSharedStdioSessionsDoNotMeet: sessions without an MCP session id
// (stdio) of two processes sharing a store get different ids, so one
// client's grants and groups never reach another's.
func TestSharedStdioSessionsDoNotMeet(t *testing.T) {
	addr := redistest.Start(t)
	var runs atomic.Int32
	ctx := context.Background()
	var ids []string
	for range 2 {
		srv := sharedServer(t, addr, &runs, nil)
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.SDK().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
		ids = append(ids, srv.sessionID(ss))
	}
	if ids[0] == ids[1] || ids[0] == "" {
		t.Fatalf("two processes' stdio sessions share the id %q", ids[0])
	}
}
