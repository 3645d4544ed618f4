package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/internal/redistest"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/redisstore"
)

type echoIn struct {
	Text string `json:"text"`
}

// BenchmarkCall is the cost of one call of a Go function tool through
// the whole pipeline with the session in memory and in Redis (a local
// redis-server over loopback): the difference is what the Redis store
// adds per call (the session's refresh, its active groups, its granted
// rules: three round trips). TaskCreate adds an optimistic transaction
// (WATCH, GET, MULTI/SET/EXEC).
func BenchmarkCall(b *testing.B) {
	addr := redistest.Start(b)
	stores := []struct {
		name string
		open func(b *testing.B) toolkit.SessionStore
	}{
		{"memory", func(*testing.B) toolkit.SessionStore { return toolkit.NewMemoryStore() }},
		{"redis", func(b *testing.B) toolkit.SessionStore {
			return open(b, addr, redisstore.Options{TTL: time.Minute})
		}},
	}
	for _, st := range stores {
		tk := toolkit.New(toolkit.Options{Store: st.open(b), Permission: permission.Context{Mode: permission.ModeDefault}})
		echo, err := toolkit.NewFunc("echo", "Echoes.", func(_ context.Context, in echoIn) (string, error) { return in.Text, nil },
			toolkit.FuncOptions{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := tk.Register(echo); err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.Run(st.name+"/echo", func(b *testing.B) {
			sid := fmt.Sprintf("bench-echo-%d", time.Now().UnixNano())
			b.ReportAllocs()
			for b.Loop() {
				resp, err := tk.Call(ctx, sid, toolkit.Call{Name: "echo", Arguments: `{"text":"hi"}`}, toolkit.TurnOptions{})
				if err != nil || resp.State != toolkit.StateSuccess {
					b.Fatal(err, resp)
				}
			}
		})
		b.Run(st.name+"/task-create", func(b *testing.B) {
			sid := fmt.Sprintf("bench-task-%d", time.Now().UnixNano())
			s, err := tk.Store().Session(ctx, sid)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Tasks().Create(ctx, toolkit.Task{Subject: "t"}); err != nil {
					b.Fatal(err)
				}
				// Keep the list short: the cost is the transaction, not the size.
				if _, err := s.Tasks().Replace(ctx, func([]toolkit.Task) ([]toolkit.Task, error) { return nil, nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
