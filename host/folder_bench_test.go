package host

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"
)

// withCustomSection returns wasm with a custom section appended: a valid
// module with another digest, so the host must compile it afresh.
func withCustomSection(wasm []byte, tag string) []byte {
	name := "wasmtools-bench"
	payload := append([]byte{byte(len(name))}, name...)
	payload = append(payload, tag...)
	out := append([]byte{}, wasm...)
	out = append(out, 0) // custom section id
	for n := len(payload); ; {
		b := byte(n & 0x7f)
		n >>= 7
		if n != 0 {
			out = append(out, b|0x80)
			continue
		}
		out = append(out, b)
		break
	}
	return append(out, payload...)
}

// BenchmarkFolderReload measures the time from a plugin file landing in a
// watched folder to its new version serving calls (target: compile time
// + 100 ms). "grants" changes only the sidecar (the compiled module is
// reused); "new-module" drops a module never seen before, so the time
// includes a full compilation, reported alone as compile-ms.
func BenchmarkFolderReload(b *testing.B) {
	wasm := versionedWasm(b)
	for _, fresh := range []bool{false, true} {
		b.Run(map[bool]string{false: "grants", true: "new-module"}[fresh], func(b *testing.B) {
			h, err := New(Options{CacheDir: b.TempDir(), Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close(context.Background())
			dir := b.TempDir()
			install(b, dir, "v", wasm, "0")
			tk, _, stop := watchFolder(b, h, dir, FolderOptions{})
			defer stop()
			var reload, compile time.Duration
			for i := 0; b.Loop(); i++ {
				want := fmt.Sprint("version ", i+1)
				module := wasm
				if fresh {
					module = withCustomSection(wasm, want)
					// The compile time alone, on a host of its own.
					h2, err := New(Options{CacheDir: b.TempDir(), Logger: slog.New(slog.DiscardHandler)})
					if err != nil {
						b.Fatal(err)
					}
					start := time.Now()
					p, err := h2.Load(context.Background(), module, Config{Name: "v"})
					if err != nil {
						b.Fatal(err)
					}
					compile += time.Since(start)
					p.Close(context.Background())
					h2.Close(context.Background())
				}
				start := time.Now()
				install(b, dir, "v", module, fmt.Sprint(i+1))
				for callVersion(tk, "bench") != want {
					time.Sleep(200 * time.Microsecond)
				}
				reload += time.Since(start)
			}
			b.ReportMetric(float64(reload.Microseconds())/1000/float64(b.N), "reload-ms")
			if fresh {
				b.ReportMetric(float64(compile.Microseconds())/1000/float64(b.N), "compile-ms")
			}
		})
	}
}
