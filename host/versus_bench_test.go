package host

import (
	"context"
	"os"
	"testing"

	extism "github.com/extism/go-sdk"

	"github.com/wasmtools/wasmtools/internal/testplugins"
)

// BenchmarkVersusExtism is one warm call of the same module and export
// with the same input, through this package (PLUGIN/wasmtools) and
// through the stock Extism host, the extism go-sdk (PLUGIN/extism).
//
// The two are not equally safe: wasmtools runs every call with its
// termination guarantee on (a guest that loops is stopped at its
// timeout: see internal/wasmbin), while the go-sdk, as configured by
// default (no timeout in the manifest), lets a looping guest run for
// ever. The modules are the third-party ones the go-sdk ships (Rust,
// Haskell and C PDKs) and the first-party hash plugin (Go guest SDK),
// called at its call export as the toolkit would.
func BenchmarkVersusExtism(b *testing.B) {
	ctx := context.Background()
	type plugin struct {
		name, export string
		input        []byte
		wasm         func(testing.TB) string
	}
	sdk := func(name string) func(testing.TB) string {
		return func(t testing.TB) string { return extismWasm(t, name) }
	}
	plugins := []plugin{
		{"count_vowels", "count_vowels", []byte("Hello World, this is a test of counting vowels"), sdk("count_vowels.wasm")},
		{"hello_haskell", "testing", []byte("Haskell"), sdk("hello_haskell.wasm")},
		{"hello_c", "run_test", nil, sdk("hello.wasm")},
		{"hash", "call", []byte(`{"abi":1,"tool":"hash","input":{"text":"the quick brown fox jumps over the lazy dog"}}`),
			func(t testing.TB) string { return testplugins.Go(t, "hash") }},
	}
	for _, pl := range plugins {
		b.Run(pl.name, func(b *testing.B) {
			wasm, err := os.ReadFile(pl.wasm(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Run("wasmtools", func(b *testing.B) {
				h := newTestHost(b)
				cfg := Config{Name: pl.name}
				if pl.export != "call" {
					cfg.Manifest = &Manifest{Tools: []ManifestTool{{Export: pl.export}}}
				}
				p, err := h.Load(ctx, wasm, cfg)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close(ctx)
				warmUp(b, p)
				if !p.interruptible {
					b.Fatal("the module was not instrumented: calls would use wazero's own termination checks")
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.callExport(ctx, pl.export, pl.input, nil, false); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("extism", func(b *testing.B) {
				cp, err := extism.NewCompiledPlugin(ctx, extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: wasm}}}, extism.PluginConfig{EnableWasi: true}, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer cp.Close(ctx)
				inst, err := cp.Instance(ctx, extism.PluginInstanceConfig{})
				if err != nil {
					b.Fatal(err)
				}
				defer inst.Close(ctx)
				b.ReportAllocs()
				for b.Loop() {
					if rc, _, err := inst.Call(pl.export, pl.input); err != nil || rc != 0 {
						b.Fatalf("rc %d: %v", rc, err)
					}
				}
			})
		})
	}
}
