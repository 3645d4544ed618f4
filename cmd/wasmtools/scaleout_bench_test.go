package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/internal/redistest"
	"github.com/wasmtools/wasmtools/internal/testproc"
)

// BenchmarkThroughBalancer measures tools/call through haproxy in
// round-robin over 1, 2 and 3 `serve --http` replicas sharing Redis, and
// over one replica with the memory store, with 4 client sessions calling
// at once (TaskList: one store read besides the call's own). It reports
// calls/s and the p50 and p99 latency. On 2 cores this shows the cost of
// the shared store and of the extra processes, not scaling.
func BenchmarkThroughBalancer(b *testing.B) {
	redisAddr := redistest.Start(b)
	setups := []struct {
		name     string
		replicas int
		store    string
	}{
		{"memory-1", 1, "memory"},
		{"redis-1", 1, redistest.URL(redisAddr, 0)},
		{"redis-2", 2, redistest.URL(redisAddr, 0)},
		{"redis-3", 3, redistest.URL(redisAddr, 0)},
	}
	for _, st := range setups {
		b.Run(st.name, func(b *testing.B) {
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "wasmtools.yaml"), []byte("store: "+st.store+"\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			lbAddr := fmt.Sprintf("127.0.0.1:%d", testproc.FreePort(b))
			var reps []*replica
			for i := range st.replicas {
				reps = append(reps, startReplica(b, fmt.Sprintf("r%d", i), dir, lbAddr))
			}
			startBalancer(b, lbAddr, reps...)
			ctx := context.Background()
			const clients = 4
			var sessions []*sdk.ClientSession
			for range clients {
				client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
				cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + lbAddr}, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				// Warm up: every replica has taken the session up.
				for range 2 * st.replicas {
					if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskList", Arguments: map[string]any{}}); err != nil {
						b.Fatal(err)
					}
				}
				sessions = append(sessions, cs)
			}
			var mu sync.Mutex
			var lat []time.Duration
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for c, cs := range sessions {
				n := b.N / clients
				if c < b.N%clients {
					n++
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					mine := make([]time.Duration, 0, n)
					for range n {
						t0 := time.Now()
						res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskList", Arguments: map[string]any{}})
						if err != nil || res.IsError {
							b.Error(err, res)
							return
						}
						mine = append(mine, time.Since(t0))
					}
					mu.Lock()
					lat = append(lat, mine...)
					mu.Unlock()
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if len(lat) == 0 {
				return
			}
			slices.Sort(lat)
			b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "calls/s")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
