package mcp

import (
	"context"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// BenchmarkSessionSoak opens b.N sessions over streamable HTTP, makes a
// call in each and closes it (half of them) or abandons it (the other
// half, left to the idle timeout), then reports what the server holds
// afterwards: sessions, goroutines and heap growth. Figures, not limits:
//
//	go test ./toolkit/mcp -run '^$' -bench SessionSoak -benchtime 2000x
func BenchmarkSessionSoak(b *testing.B) {
	store := toolkit.NewMemoryStore()
	srv := taskServer(b, toolkit.Options{Store: store, Permission: permission.Context{Mode: permission.ModeDefault}})
	hs := httptest.NewServer(srv.HTTPHandler(&sdk.StreamableHTTPOptions{SessionTimeout: 200 * time.Millisecond}))
	defer hs.Close()
	ctx := context.Background()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()
	b.ResetTimer()
	for i := range b.N {
		client := sdk.NewClient(&sdk.Implementation{Name: "soak", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": "s", "description": "d"}}); err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			_ = cs.Close()
		}
	}
	b.StopTimer()
	for deadline := time.Now().Add(10 * time.Second); srv.Sessions() > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	http := hs.Client()
	http.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(srv.Sessions()), "sessions-left")
	b.ReportMetric(float64(store.Len()), "stored-left")
	b.ReportMetric(float64(runtime.NumGoroutine()-goroutines), "goroutines-added")
	b.ReportMetric((float64(after.HeapInuse)-float64(before.HeapInuse))/(1<<20), "heap-MiB-added")
}
