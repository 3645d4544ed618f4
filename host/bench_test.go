package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"

	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// BenchmarkCountVowels compares one call of the same third-party Extism
// module (count_vowels, Rust PDK) through this package's kernel and
// through the extism go-sdk: the numbers behind implementing the kernel
// here (see doc.go).
func BenchmarkCountVowels(b *testing.B) {
	path := extismWasm(b, "count_vowels.wasm")
	wasm, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	input := []byte("Hello World, this is a test of counting vowels")

	b.Run("wasmtools", func(b *testing.B) {
		h := newTestHost(b)
		p, err := h.Load(ctx, wasm, Config{Name: "v", Manifest: &Manifest{Tools: []ManifestTool{{Export: "count_vowels"}}}})
		if err != nil {
			b.Fatal(err)
		}
		warmUp(b, p)
		defer p.Close(ctx)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.callExport(ctx, "count_vowels", input, nil, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("extism-go-sdk", func(b *testing.B) {
		cp, err := extism.NewCompiledPlugin(ctx, extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: wasm}}}, extism.PluginConfig{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cp.Close(ctx)
		inst, err := cp.Instance(ctx, extism.PluginInstanceConfig{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := inst.Call("count_vowels", input); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWasmVsNative is the warm cost of one call of the hash tool
// through the whole pipeline (toolkit turn, permission engine, plugin
// call), as a Wasm plugin and as the same tool written in Go; the
// difference is the Wasm overhead.
func BenchmarkWasmVsNative(b *testing.B) {
	ctx := context.Background()
	args := `{"text":"the quick brown fox jumps over the lazy dog"}`
	run := func(b *testing.B, tk *toolkit.Toolkit) {
		calls := []toolkit.Call{{ID: "c", Name: "hash", Arguments: args}}
		b.ReportAllocs()
		for b.Loop() {
			turn, _ := tk.NewTurn(ctx, "s", calls, toolkit.TurnOptions{})
			_ = turn.Run(ctx)
			if r := turn.Responses()[0]; r.State != toolkit.StateSuccess {
				b.Fatal(r.Text())
			}
		}
	}
	b.Run("wasm", func(b *testing.B) {
		h := newTestHost(b)
		p := loadPlugin(b, h, testplugins.Go(b, "hash"), Config{})
		warmUp(b, p)
		run(b, kit(b, permission.Context{}, p))
	})
	b.Run("wasm-no-timeout-checks", func(b *testing.B) {
		h := newTestHost(b)
		h.noTimeout = true
		p := loadPlugin(b, h, testplugins.Go(b, "hash"), Config{})
		warmUp(b, p)
		run(b, kit(b, permission.Context{}, p))
	})
	b.Run("native", func(b *testing.B) { run(b, nativeHashKit(b)) })
}

// BenchmarkConcurrentCallers reports the throughput of 8 callers of a
// concurrency-safe plugin tool against one caller (metric "speedup").
func BenchmarkConcurrentCallers(b *testing.B) {
	h := newTestHost(b)
	p := loadPlugin(b, h, testplugins.Go(b, "hash"), Config{})
	warmUp(b, p)
	tk := kit(b, permission.Context{}, p)
	ctx := context.Background()
	calls := []toolkit.Call{{ID: "c", Name: "hash", Arguments: `{"text":"abc"}`}}
	one := func() {
		turn, _ := tk.NewTurn(ctx, "s", calls, toolkit.TurnOptions{})
		_ = turn.Run(ctx)
	}
	// Warm every instance the pool may use.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); one() }()
	}
	wg.Wait()
	const n = 400
	measure := func(callers int) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range n / callers {
					one()
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	var single, eight time.Duration
	for b.Loop() {
		single += measure(1)
		eight += measure(8)
	}
	b.ReportMetric(float64(single)/float64(eight), "speedup")
	b.ReportMetric(float64(single.Nanoseconds())/float64(b.N*n)/1000, "µs/call-1")
	b.ReportMetric(float64(eight.Nanoseconds())/float64(b.N*n)/1000, "µs/call-8")
}

// startupPlugins are ten standard-Go modules: the first-party plugins and
// fixtures that load cleanly.
func startupPlugins(b *testing.B) []string {
	root := testplugins.Root(b)
	paths := []string{}
	for _, name := range []string{"hash", "jsonquery", "regex", "httpfetch", "deploy"} {
		paths = append(paths, testplugins.Go(b, name))
	}
	for _, name := range []string{"loop", "membomb", "trap", "fsescape", "netescape"} {
		paths = append(paths, testplugins.Source(b, filepath.Join(root, "plugins", "testdata", "hostile", name)))
	}
	return paths
}

// BenchmarkStartup loads ten standard-Go plugins (compiled in parallel)
// with an empty compilation cache and with a warm one.
func BenchmarkStartup(b *testing.B) {
	paths := startupPlugins(b)
	ctx := context.Background()
	load := func(b *testing.B, dir string) {
		h, err := New(Options{CacheDir: dir, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		plugins, errs := h.LoadFiles(ctx, paths, nil)
		for i, err := range errs {
			if err != nil {
				b.Fatalf("%s: %v", paths[i], err)
			}
		}
		for _, p := range plugins {
			p.Close(ctx)
		}
		h.Close(ctx)
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			load(b, b.TempDir())
		}
	})
	b.Run("warm", func(b *testing.B) {
		dir := b.TempDir()
		load(b, dir) // fill the cache
		for b.Loop() {
			load(b, dir)
		}
	})
}

// BenchmarkIdleInstance reports the memory one idle warm instance of a
// standard-Go plugin holds: its linear memory and the host's share.
func BenchmarkIdleInstance(b *testing.B) {
	h := newTestHost(b)
	p := loadPlugin(b, h, testplugins.Go(b, "hash"), Config{})
	warmUp(b, p)
	ctx := context.Background()
	const n = 8
	c, err := p.acquireCode(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer p.releaseCode()
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		insts := make([]*instance, n)
		linear := uint64(0)
		for i := range insts {
			inst, err := p.newInstance(ctx, c)
			if err != nil {
				b.Fatal(err)
			}
			insts[i] = inst
			linear += uint64(inst.mod.Memory().Size())
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(linear)/n/(1<<20), "MiB-linear/instance")
		b.ReportMetric(float64(after.Sys-before.Sys+after.HeapInuse-before.HeapInuse)/n/(1<<20), "MiB-host/instance")
		for _, inst := range insts {
			inst.close()
		}
	}
}

// BenchmarkHostFloor is one export call of a small AssemblyScript plugin
// (textstats-as, check_read_only): the host's own per-call cost (pool,
// kernel, input and output) plus a guest that does almost nothing.
func BenchmarkHostFloor(b *testing.B) {
	ctx := context.Background()
	req := []byte(`{"abi":1,"tool":"slugify","input":{"text":"Hello World"}}`)
	for _, timeouts := range []bool{true, false} {
		name := "with-timeout-checks"
		if !timeouts {
			name = "no-timeout-checks"
		}
		b.Run(name, func(b *testing.B) {
			h := newTestHost(b)
			h.noTimeout = !timeouts
			p := loadPlugin(b, h, testplugins.AssemblyScript(b, "textstats-as"), Config{})
			warmUp(b, p)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.callExport(ctx, "check_read_only", req, nil, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("pipeline-slugify", func(b *testing.B) {
		h := newTestHost(b)
		p := loadPlugin(b, h, testplugins.AssemblyScript(b, "textstats-as"), Config{})
		warmUp(b, p)
		tk := kit(b, permission.Context{}, p)
		calls := []toolkit.Call{{ID: "c", Name: "slugify", Arguments: `{"text":"Hello World"}`}}
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

// warmUp loads a plugin's code and starts an instance before a timed
// loop: a loaded plugin holds neither until its first call, which would
// otherwise count the load from the compilation cache (tens of
// milliseconds) into the per-call figure.
func warmUp(b *testing.B, p *Plugin) {
	b.Helper()
	ctx := context.Background()
	c, err := p.acquireCode(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer p.releaseCode()
	inst, err := p.pool.get(ctx, c)
	if err != nil {
		b.Fatal(err)
	}
	p.pool.put(inst, true)
}

// nativeHashKit is a toolkit with the hash tool written in Go, the
// reference the Wasm plugin's figures are read against.
func nativeHashKit(b *testing.B) *toolkit.Toolkit {
	type in struct {
		Text string `json:"text"`
	}
	tool, err := toolkit.NewFunc("hash", "sha256 of text", func(_ context.Context, i in) (string, error) {
		sum := sha256.Sum256([]byte(i.Text))
		return hex.EncodeToString(sum[:]), nil
	}, toolkit.FuncOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	tk := toolkit.New(toolkit.Options{})
	if err := tk.Register(tool); err != nil {
		b.Fatal(err)
	}
	return tk
}
