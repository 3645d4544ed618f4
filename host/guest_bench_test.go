package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// The benchmarks of this file measure what the Go guest SDK costs: a
// call of a tool that does nothing, the throughput of a tool that works
// on large inputs, and the memory a loaded Go plugin holds. Each runs
// with the termination checks (the host's default) and without them
// (noTimeout): the second is the guest's own cost, apart from the
// per-back-edge checks that wazero's WithCloseOnContextDone compiles in.

// timeoutVariants names the two ways a host runs guest code.
var timeoutVariants = []struct {
	name      string
	noTimeout bool
}{{"with-timeout-checks", false}, {"no-timeout-checks", true}}

// BenchmarkGuestCall is one call export of the noop fixture (a Go tool
// that takes no input and returns an empty text): the guest SDK's
// per-call overhead (reading the request, decoding it, encoding the
// result, the Go runtime's entry and exit) plus the host's floor (see
// BenchmarkHostFloor for the same with a small AssemblyScript guest).
// "pipeline" is the same call through a toolkit turn.
func BenchmarkGuestCall(b *testing.B) {
	ctx := context.Background()
	path := testplugins.Source(b, filepath.Join(testplugins.Root(b), "plugins", "testdata", "noop"))
	req := []byte(`{"abi":1,"tool":"noop","call_id":"c","session_id":"s","input":{}}`)
	for _, v := range timeoutVariants {
		b.Run(v.name, func(b *testing.B) {
			h := newTestHost(b)
			h.noTimeout = v.noTimeout
			p := loadPlugin(b, h, path, Config{})
			warmUp(b, p)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.callExport(ctx, "call", req, nil, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("pipeline-no-timeout-checks", func(b *testing.B) {
		h := newTestHost(b)
		h.noTimeout = true
		p := loadPlugin(b, h, path, Config{})
		warmUp(b, p)
		tk := kit(b, permission.Context{}, p)
		calls := []toolkit.Call{{ID: "c", Name: "noop", Arguments: `{}`}}
		b.ReportAllocs()
		for b.Loop() {
			turn, _ := tk.NewTurn(ctx, "s", calls, toolkit.TurnOptions{})
			_ = turn.Run(ctx)
			if r := turn.Responses()[0]; r.State != toolkit.StateSuccess {
				b.Fatal(r.Text())
			}
		}
	})
}

// BenchmarkHashThroughput hashes texts of 1 KiB, 100 KiB and 10 MiB with
// the first-party hash plugin through the whole pipeline (toolkit turn,
// permission engine, plugin call), and with the same tool written in Go
// ("native"); MB/s is the text's size over the time of one call.
func BenchmarkHashThroughput(b *testing.B) {
	ctx := context.Background()
	const line = "The quick brown fox jumps over the lazy dog; 0123456789.\n"
	for _, size := range []int{1 << 10, 100 << 10, 10 << 20} {
		text := strings.Repeat(line, size/len(line)+1)[:size]
		sum := sha256.Sum256([]byte(text))
		want := hex.EncodeToString(sum[:])
		args := fmt.Sprintf(`{"text":%q}`, text)
		calls := []toolkit.Call{{ID: "c", Name: "hash", Arguments: args}}
		run := func(b *testing.B, tk *toolkit.Toolkit) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				turn, _ := tk.NewTurn(ctx, "s", calls, toolkit.TurnOptions{})
				_ = turn.Run(ctx)
				if r := turn.Responses()[0]; r.State != toolkit.StateSuccess || r.Text() != want {
					b.Fatalf("%s: %.200s", r.State, r.Text())
				}
			}
		}
		name := fmt.Sprintf("%dKiB", size>>10)
		for _, v := range timeoutVariants {
			b.Run(name+"/wasm-"+v.name, func(b *testing.B) {
				h := newTestHost(b)
				h.noTimeout = v.noTimeout
				p := loadPlugin(b, h, testplugins.Go(b, "hash"), Config{})
				warmUp(b, p)
				run(b, kit(b, permission.Context{}, p))
			})
		}
		b.Run(name+"/native", func(b *testing.B) { run(b, nativeHashKit(b)) })
	}
}

// goPlugins are the first-party Go plugins.
var goPlugins = []string{"hash", "jsonquery", "regex", "httpfetch", "deploy"}

// BenchmarkGoPluginMemory loads the five first-party Go plugins (their
// compiled code from a warm compilation cache, as serve does on its
// second start) and reports the process's resident memory per plugin
// that they add: once loaded ("plugin-loaded": a plugin holds neither
// code nor instances until its first call), once each has answered a
// call ("plugin-called": its code and one warm instance), and once they
// have been idle for Options.IdleTimeout ("plugin-idle"). Run it without
// the race detector, whose shadow memory makes RSS meaningless, and with
// -benchtime 1x or a few: each round loads everything again.
func BenchmarkGoPluginMemory(b *testing.B) {
	if raceEnabled {
		b.Skip("the race detector's shadow memory makes RSS meaningless")
	}
	ctx := context.Background()
	paths := make([]string, len(goPlugins))
	for i, name := range goPlugins {
		paths[i] = testplugins.Go(b, name)
	}
	settle := func() int64 {
		for range 3 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		debug.FreeOSMemory()
		return rssBytes(b)
	}
	{
		// Fill the compilation cache, so that what is measured is the
		// loaded plugins and not the compiler's garbage.
		h := newTestHost(b)
		for _, path := range paths {
			loadPlugin(b, h, path, Config{}).Close(ctx)
		}
	}
	var loaded, warm, idle float64
	for b.Loop() {
		b.StopTimer()
		h := newTestHost(b)
		before := settle()
		b.StartTimer()
		plugins := make([]*Plugin, len(paths))
		for i, path := range paths {
			p, err := h.LoadFile(ctx, path, Config{})
			if err != nil {
				b.Fatal(err)
			}
			plugins[i] = p
		}
		b.StopTimer()
		perPlugin := func(rss int64) float64 { return float64(rss-before) / float64(len(paths)) }
		loaded += perPlugin(settle())
		for _, p := range plugins {
			if _, err := p.callExport(ctx, "schema", nil, nil, false); err != nil {
				b.Fatal(err)
			}
		}
		warm += perPlugin(settle())
		for _, p := range plugins {
			p.releaseIdle() // what IdleTimeout without calls does
		}
		idle += perPlugin(settle())
		for _, p := range plugins {
			p.Close(ctx)
		}
		h.Close(ctx)
		b.StartTimer()
	}
	b.ReportMetric(loaded/float64(b.N)/(1<<20), "MiB-RSS/plugin-loaded")
	b.ReportMetric(warm/float64(b.N)/(1<<20), "MiB-RSS/plugin-called")
	b.ReportMetric(idle/float64(b.N)/(1<<20), "MiB-RSS/plugin-idle")
}
