package host

import (
	"context"
	"os"
	"testing"

	extism "github.com/extism/go-sdk"
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
