// Command precompile compiles Wasm modules with wazero's compiler into a
// compilation cache directory. The plugin tests run it (built without
// the race detector) when they run under -race: wazero's compiler,
// instrumented by the race detector, takes over ten seconds per
// standard-Go module; uninstrumented it takes about one, and the test
// process then loads the compiled code from the cache.
//
// Usage: precompile -cache DIR MODULE.wasm...
//
// Modules are compiled as the plugin host compiles them (wazero keys its
// cache on the binary and on the termination checks): instrumented with
// an interrupt flag and without wazero's checks, or, for a module that
// cannot be instrumented, with its tables capped and wazero's checks.
// Each is also compiled as it is, with wazero's checks: how the Extism
// SDK, which the plugins package's tests load modules with, compiles a
// module with a timeout.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/wasmtools/wasmtools/internal/wasmbin"
)

func main() {
	dir := flag.String("cache", "", "the compilation cache directory")
	flag.Parse()
	if *dir == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: precompile -cache DIR MODULE.wasm...")
		os.Exit(2)
	}
	cache, err := wazero.NewCompilationCacheWithDir(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "precompile:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	config := wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache)
	interruptible := wazero.NewRuntimeWithConfig(ctx, config.WithCloseOnContextDone(false))
	defer interruptible.Close(ctx)
	checked := wazero.NewRuntimeWithConfig(ctx, config.WithCloseOnContextDone(true))
	defer checked.Close(ctx)
	for _, path := range flag.Args() {
		start := time.Now()
		b, err := os.ReadFile(path)
		if err == nil {
			if ins, ierr := wasmbin.Instrument(b); ierr == nil {
				_, err = interruptible.CompileModule(ctx, ins.Wasm)
			} else if capped, cerr := wasmbin.CapTables(b); cerr == nil {
				_, err = checked.CompileModule(ctx, capped)
			} else {
				err = cerr
			}
			// A module the compiler refuses as it is is the test's
			// finding to make, not this program's.
			_, _ = checked.CompileModule(ctx, b)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "precompile %s: %v\n", path, err)
			os.Exit(1)
		}
		fmt.Printf("%s: %v\n", path, time.Since(start).Round(time.Millisecond))
	}
}
