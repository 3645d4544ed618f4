package wasmbin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Hand-assembled modules: each section is its ID and its content.
func sec(id byte, content ...byte) []byte {
	return append(appendU32([]byte{id}, uint32(len(content))), content...)
}

func module(sections ...[]byte) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		m = append(m, s...)
	}
	return m
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func name(s string) []byte { return appendName(nil, s) }

// code is a code section of the given bodies (each without its size).
func code(bodies ...[]byte) []byte {
	c := appendU32(nil, uint32(len(bodies)))
	for _, b := range bodies {
		c = append(appendU32(c, uint32(len(b))), b...)
	}
	return sec(secCode, c...)
}

var (
	typeVoid    = sec(1, 1, 0x60, 0, 0)                      // type 0: () -> ()
	oneMemory   = sec(secMemory, 1, 0, 1)                    // one page
	loopForever = []byte{0, 0x03, 0x40, 0x0c, 0, 0x0b, 0x0b} // loop br 0 end
)

// compile checks that wazero accepts wasm, and returns a runtime holding
// it instantiated (with a WASI host, for real modules).
func instantiate(t *testing.T, wasm []byte) (api.Module, wazero.Runtime) {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	mod, err := rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	return mod, rt
}

// TestInterruptStopsLoop: a guest looping for ever stops with a trap once
// the host sets the flag from another goroutine, and the Go runtime can
// collect garbage while the guest loops (the budget's visits to Go): with
// a check that never left the machine code, runtime.GC would wait for the
// guest, and the guest for the flag, for ever. The loops count down a
// local of their function (see LoopChunk), which the test's functions
// declare after parameters and locals of their own, and the loop that
// calls a function with a short loop of its own spends the budget by its
// calls; with the budget left as it is (a host whose store to it the
// guest overwrote), the flag is read when the budget runs out.
func TestInterruptStopsLoop(t *testing.T) {
	typeParams := sec(1, 2, 0x60, 0, 0, 0x60, 2, 0x7f, 0x7e, 0) // type 1: (i32, i64) -> ()
	spinExport := sec(secExport, concat([]byte{1}, name("spin"), []byte{0, 0})...)
	// Function 1 (type 1): a local i32 counts 3 iterations of its loop.
	shortLoop := []byte{1, 1, 0x7f, 0x03, 0x40, 0x20, 2, 0x41, 1, 0x6a, 0x22, 2, 0x41, 3, 0x48, 0x0d, 0, 0x0b, 0x0b}
	tests := []struct {
		name        string
		wasm        []byte
		checks      int
		spendBudget bool
	}{
		{"loop", module(typeVoid, sec(3, 1, 0), oneMemory, spinExport, code(loopForever)), 2, true},
		{"loop, budget left as it is", module(typeVoid, sec(3, 1, 0), oneMemory, spinExport, code(loopForever)), 2, false},
		{
			// spin: (local f64 i32) loop (local.get 1, local.set 1, br 0)
			"loop among locals", module(typeVoid, sec(3, 1, 0), oneMemory, spinExport,
				code([]byte{2, 1, 0x7c, 1, 0x7f, 0x03, 0x40, 0x20, 1, 0x21, 1, 0x0c, 0, 0x0b, 0x0b})), 2, true,
		},
		{
			// spin: loop (i32.const 0, i64.const 0, call 1, br 0)
			"loop calling a short loop", module(typeParams, sec(3, 2, 0, 1), oneMemory, spinExport,
				code([]byte{0, 0x03, 0x40, 0x41, 0, 0x42, 0, 0x10, 1, 0x0c, 0, 0x0b, 0x0b}, shortLoop)), 4, false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins, err := Instrument(tt.wasm)
			if err != nil {
				t.Fatal(err)
			}
			if ins.Checks != tt.checks { // each function's entry and each loop
				t.Errorf("Checks = %d, want %d", ins.Checks, tt.checks)
			}
			mod, _ := instantiate(t, ins.Wasm)
			flag, ok := mod.ExportedGlobal(InterruptExport).(api.MutableGlobal)
			if !ok {
				t.Fatalf("no mutable global %s", InterruptExport)
			}
			done := make(chan error, 1)
			go func() { _, err := mod.ExportedFunction("spin").Call(context.Background()); done <- err }()

			gcDone := make(chan struct{})
			go func() { runtime.GC(); close(gcDone) }()
			select {
			case <-gcDone:
			case err := <-done:
				t.Fatalf("the loop ended before it was interrupted: %v", err)
			case <-time.After(time.Minute):
				t.Fatal("the garbage collector waited a minute for the looping guest")
			}
			select {
			case err := <-done:
				t.Fatalf("the loop ended before it was interrupted: %v", err)
			default:
			}
			flag.Set(1)
			if tt.spendBudget {
				mod.ExportedGlobal(BudgetExport).(api.MutableGlobal).Set(0) // what the host does, to be heard at once
			}
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "unreachable") {
					t.Errorf("interrupted call: err = %v, want the unreachable trap", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the guest ran on a minute after the flag was set")
			}
		})
	}
}

// TestLoopCountdown: a loop takes LoopChunk from the budget every
// LoopChunk iterations, and the function's entry one.
func TestLoopCountdown(t *testing.T) {
	// count: (local i32) loop (local.get 0, i32.const 1, i32.add,
	// local.tee 0, i32.const n, i32.lt_s, br_if 0)
	count := func(n byte) []byte {
		return []byte{1, 1, 0x7f, 0x03, 0x40, 0x20, 0, 0x41, 1, 0x6a, 0x22, 0, 0x41, n, 0x48, 0x0d, 0, 0x0b, 0x0b}
	}
	for _, n := range []byte{1, LoopChunk - 1, LoopChunk, LoopChunk + 1, 50} {
		wasm := module(typeVoid, sec(3, 1, 0), oneMemory, sec(secExport, concat([]byte{1}, name("count"), []byte{0, 0})...), code(count(n)))
		ins, err := Instrument(wasm)
		if err != nil {
			t.Fatal(err)
		}
		mod, _ := instantiate(t, ins.Wasm)
		if _, err := mod.ExportedFunction("count").Call(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := Budget - 1 - LoopChunk*(int(n)/LoopChunk)
		if got := int32(mod.ExportedGlobal(BudgetExport).Get()); int(got) != want {
			t.Errorf("%d iterations: budget %d, want %d", n, got, want)
		}
	}
}

// TestInstrumentSections: the flag and the checks are added whatever
// sections the module has; global indices account for imported globals;
// a start function moves to an export; positional custom sections go.
func TestInstrumentSections(t *testing.T) {
	importGlobal := sec(secImport, concat([]byte{1}, name("env"), name("g"), []byte{0x03, 0x7f, 0x00})...)
	ownGlobal := sec(secGlobal, 1, 0x7e, 0x01, 0x42, 0x07, 0x0b) // mut i64 = 7
	// Function 0 reads global 0 (the import) and drops it, in a loop
	// that runs once, after a nop (so that the entry has a check of its
	// own).
	readGlobal := []byte{0, 0x01, 0x03, 0x40, 0x23, 0, 0x1a, 0x0b, 0x0b}
	debug := sec(secCustom, concat(name(".debug_info"), []byte{1, 2, 3})...)
	keep := sec(secCustom, concat(name("producers"), []byte{0})...)
	env := func(rt wazero.Runtime) {
		// A module exporting the global env.g that importGlobal needs.
		envMod := module(sec(secGlobal, 1, 0x7f, 0x00, 0x41, 0x05, 0x0b), sec(secExport, concat([]byte{1}, name("g"), []byte{0x03, 0})...))
		if _, err := rt.InstantiateWithConfig(context.Background(), envMod, wazero.NewModuleConfig().WithName("env")); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		wasm   []byte
		env    bool
		start  bool
		checks int
	}{
		{"bare", module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{0, 0x0b})), false, false, 1},
		{"own global and export", module(typeVoid, sec(3, 1, 0), oneMemory, ownGlobal, sec(secExport, concat([]byte{1}, name("f"), []byte{0, 0})...), code([]byte{0, 0x0b})), false, false, 1},
		{"imported global", module(typeVoid, importGlobal, sec(3, 1, 0), oneMemory, code(readGlobal)), true, false, 2},
		{"imported and own globals", module(typeVoid, importGlobal, sec(3, 1, 0), oneMemory, ownGlobal, code(readGlobal)), true, false, 2},
		{"start", module(typeVoid, sec(3, 1, 0), oneMemory, sec(secStart, 0), code([]byte{0, 0x0b})), false, true, 1},
		{"custom sections", module(keep, typeVoid, sec(3, 1, 0), oneMemory, code([]byte{0, 0x0b}), debug), false, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins, err := Instrument(tt.wasm)
			if err != nil {
				t.Fatal(err)
			}
			if ins.Checks != tt.checks || ins.Start != tt.start {
				t.Errorf("Checks, Start = %d, %v; want %d, %v", ins.Checks, ins.Start, tt.checks, tt.start)
			}
			ctx := context.Background()
			rt := wazero.NewRuntime(ctx)
			defer rt.Close(ctx)
			if tt.env {
				env(rt)
			}
			mod, err := rt.InstantiateWithConfig(ctx, ins.Wasm, wazero.NewModuleConfig().WithStartFunctions())
			if err != nil {
				t.Fatalf("instantiate: %v", err)
			}
			g := mod.ExportedGlobal(InterruptExport)
			if g == nil || g.Get() != 0 {
				t.Fatalf("flag %v: want an exported global holding 0", g)
			}
			if got := mod.ExportedFunction(StartExport) != nil; got != tt.start {
				t.Errorf("start export present = %v, want %v", got, tt.start)
			}
			for _, f := range mod.ExportedFunctionDefinitions() {
				if _, err := mod.ExportedFunction(f.ExportNames()[0]).Call(ctx); err != nil {
					t.Errorf("%s: %v", f.ExportNames()[0], err)
				}
			}
			secs, err := sections(ins.Wasm)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range secs {
				if s.id == secCustom && positional(customName(s.body)) {
					t.Errorf("custom section %q kept", customName(s.body))
				}
				if s.id == secStart {
					t.Error("start section kept")
				}
			}
			if strings.Contains(tt.name, "custom") && !strings.Contains(string(ins.Wasm), "producers") {
				t.Error("the producers section was dropped")
			}
		})
	}
}

// TestInstrumentRefuses: what Instrument cannot do safely, it refuses,
// saying why (the host then keeps wazero's own checks).
func TestInstrumentRefuses(t *testing.T) {
	tests := []struct {
		name, want string
		wasm       []byte
	}{
		{"not wasm", "header", []byte("hello world")},
		{"truncated", "truncated", module(typeVoid, sec(3, 1, 0), oneMemory)[:20]},
		{"no memory", "no linear memory", module(typeVoid, sec(3, 1, 0), code([]byte{0, 0x0b}))},
		{"reserved export", "reserved", module(typeVoid, sec(3, 1, 0), oneMemory, sec(secExport, concat([]byte{1}, name(InterruptExport), []byte{0, 0})...), code([]byte{0, 0x0b}))},
		{"unknown opcode", "0x06", module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{0, 0x06, 0x40, 0x0b, 0x0b}))},
		{"threads", "not a WebAssembly 2.0", module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{0, 0xfe, 0x03, 0x00, 0x0b}))},
		{"element vector beyond the section", "claims 4294967295 entries", module(typeVoid, sec(3, 1, 0), oneMemory, sec(9, 1, 1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f), code([]byte{0, 0x0b}))},
		{"data beyond the section", "truncated", module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{0, 0x0b}), sec(11, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x0f))},
		{"too many locals", "more than 50000 locals", module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f, 0x0b}))},
		// wazero reads 0x63 as a typed reference and one byte more: a
		// rewriter reading it as a type index would put the check out of
		// step with the compiler (a check it then runs as other code).
		{"typed reference block type", "block type 0x63", module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{0, 0x03, 0x63, 0x70, 0x0c, 0, 0x0b, 0x0b}))},
		{"long SIMD opcode", "not the shortest form", module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{0, 0xfd, 0x8c, 0x00, 0x0b}))},
		// A function-names subsection claiming 2³²-1 entries: wazero
		// would allocate them (96 GiB) before reading one.
		{"name section bomb", "claims 4294967295 entries", module(sec(secCustom, concat(name("name"), []byte{1, 5, 0xff, 0xff, 0xff, 0xff, 0x0f})...))},
		{"table too large", "more than the 1048576 allowed", module(typeVoid, sec(3, 1, 0), sec(secTable, 1, 0x70, 0x00, 0x80, 0x80, 0x80, 0x01), oneMemory, code([]byte{0, 0x0b}))},
		// Reference types beyond 2.0 (0x63: a typed reference, which
		// wazero reads with a heap type after it) would put the reader
		// and the compiler out of step.
		{"typed reference element segment", "beyond WebAssembly 2.0", module(typeVoid, sec(3, 1, 0), oneMemory, sec(9, 1, 5, 0x63, 0x70, 0x01, 0xd0, 0x70, 0x0b), code([]byte{0, 0x0b}))},
		{"typed reference table", "reference type 0x63", module(typeVoid, sec(3, 1, 0), sec(secTable, 1, 0x63, 0x01, 0x00, 0x01), oneMemory, code([]byte{0, 0x0b}))},
		{"typed reference global import", "unknown value type 0x63", module(typeVoid, sec(secImport, concat([]byte{1}, name("env"), name("g"), []byte{0x03, 0x63, 0x70, 0x00})...), sec(3, 1, 0), oneMemory, code([]byte{0, 0x0b}))},
		{"shared memory", "memory limits flags 0x03", module(typeVoid, sec(3, 1, 0), sec(secMemory, 1, 0x03, 1, 1), code([]byte{0, 0x0b}))},
		{"many tables", "together", module(typeVoid, sec(3, 1, 0), sec(secTable, 2, 0x70, 0x00, 0x80, 0x80, 0x30, 0x70, 0x00, 0x80, 0x80, 0x30), oneMemory, code([]byte{0, 0x0b}))},
		{"count beyond the section", "claims 4294967295 entries", module(sec(4, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x70, 0, 0))},
		// Invalid as they are, valid once the budget (global 0) and the
		// flag (global 1) are added: a guest that refills its budget or
		// clears the flag would never stop.
		{"refills the budget", "global.set of global 0", module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{0, 0x03, 0x40, 0x41, 0x7f, 0x24, 0x00, 0x0c, 0x00, 0x0b, 0x0b}))},
		{"reads the flag", "global.get of global 1", module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{0, 0x23, 0x01, 0x1a, 0x0b}))},
		{"exports the flag", "names global 1", module(typeVoid, sec(3, 1, 0), oneMemory, sec(secExport, concat([]byte{1}, name("f"), []byte{0x03, 0x01})...), code([]byte{0, 0x0b}))},
		{"out of order", "out of order", module(sec(3, 1, 0), typeVoid, oneMemory, code([]byte{0, 0x0b}))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Instrument(tt.wasm)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// TestInstrumentRealModules: third-party modules (the Rust, Haskell, C,
// Zig, TinyGo and Go modules the extism go-sdk ships) instrumented
// compile, and keep every export.
func TestInstrumentRealModules(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/extism/go-sdk").Output()
	if err != nil {
		t.Fatalf("the extism go-sdk module is not in the module cache (go mod download github.com/extism/go-sdk): %v", err)
	}
	files, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "wasm", "*.wasm"))
	if err != nil || len(files) < 10 {
		t.Fatalf("the go-sdk's modules: %v %v", files, err)
	}
	// The interpreter validates as the compiler does, in a fraction of
	// the time (the race detector slows the compiler tenfold).
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	instrumented := 0
	for _, f := range files {
		wasm, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		orig, err := rt.CompileModule(ctx, wasm)
		if err != nil {
			continue // a module wazero refuses as it is (features off by default)
		}
		ins, err := Instrument(wasm)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		m, err := rt.CompileModule(ctx, ins.Wasm)
		if err != nil {
			t.Errorf("%s: the instrumented module does not compile: %v", filepath.Base(f), err)
			continue
		}
		for n := range orig.ExportedFunctions() {
			if _, ok := m.ExportedFunctions()[n]; !ok {
				t.Errorf("%s: export %s lost", filepath.Base(f), n)
			}
		}
		if ins.Checks == 0 {
			t.Errorf("%s: no checks added", filepath.Base(f))
		}
		instrumented++
	}
	if instrumented < 10 {
		t.Errorf("only %d modules instrumented", instrumented)
	}
}

// FuzzInstrument: whatever the input, what Check accepts compiles without
// exhausting memory; Instrument returns an error or a module, and the
// module compiles exactly when the input does: a valid
// module stays valid, and an invalid one never becomes valid (it could
// reach the added globals: see TestInstrumentRefuses).
func FuzzInstrument(f *testing.F) {
	f.Add(module(typeVoid, sec(3, 1, 0), oneMemory, code(loopForever)))
	f.Add(module(typeVoid, sec(3, 1, 0), oneMemory, sec(secStart, 0), code([]byte{0, 0x02, 0x40, 0x41, 0x7f, 0x0d, 0, 0x0b, 0x0b})))
	f.Add(module(typeVoid, sec(3, 1, 0), oneMemory, code([]byte{1, 2, 0x7f, 0x03, 0x40, 0x20, 0, 0x0e, 1, 0, 1, 0x0b, 0x0b})))
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, wasm []byte) {
		// What Check lets through, the compiler reads without
		// exhausting memory (the host compiles it as it is when it
		// cannot be instrumented).
		if Check(wasm) != nil {
			return
		}
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
		defer rt.Close(ctx)
		_, origErr := rt.CompileModule(ctx, wasm)
		ins, err := Instrument(wasm)
		if err != nil {
			return
		}
		_, insErr := rt.CompileModule(ctx, ins.Wasm)
		switch {
		case origErr == nil && insErr != nil:
			t.Fatalf("the module compiles, instrumented it does not: %v", insErr)
		case origErr != nil && insErr == nil && !strings.Contains(origErr.Error(), "custom section"):
			// (wazero misreads some custom sections at the very end of a
			// binary, which instrumenting moves away from the end; custom
			// sections carry no code.)
			t.Fatalf("the module does not compile (%v), instrumented it does", origErr)
		}
	})
}

// TestInterruptStopsBulkLoop: a loop whose every iteration fills the
// whole memory stops once the flag is set and the budget spent (each
// fill takes BulkCost from the budget, so even without the host's store
// to the budget the flag is read within Budget/BulkCost fills).
func TestInterruptStopsBulkLoop(t *testing.T) {
	// memory of 16 pages; spin: loop (memory.fill 0 0 1 MiB) br 0 end
	fill := []byte{0x41, 0x00, 0x41, 0x00, 0x41, 0x80, 0x80, 0xc0, 0x00, 0xfc, 0x0b, 0x00}
	body := concat([]byte{0, 0x03, 0x40}, fill, []byte{0x0c, 0x00, 0x0b, 0x0b})
	wasm := module(typeVoid, sec(3, 1, 0), sec(secMemory, 1, 0, 16), sec(secExport, concat([]byte{1}, name("spin"), []byte{0, 0})...), code(body))
	ins, err := Instrument(wasm)
	if err != nil {
		t.Fatal(err)
	}
	if ins.Checks != 3 { // the entry, the loop and the fill
		t.Errorf("Checks = %d, want 3", ins.Checks)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	mod, err := rt.InstantiateWithConfig(ctx, ins.Wasm, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := mod.ExportedFunction("spin").Call(ctx); done <- err }()
	time.Sleep(50 * time.Millisecond)
	mod.ExportedGlobal(InterruptExport).(api.MutableGlobal).Set(1)
	mod.ExportedGlobal(BudgetExport).(api.MutableGlobal).Set(0)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "unreachable") {
			t.Errorf("err = %v, want the unreachable trap", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the guest ran on a minute after the flag was set")
	}
}

// TestTablesCapped: a table without a maximum gets MaxTableEntries as
// one, so that table.grow by 2³²-2 entries fails (-1) instead of
// allocating them; CapTables does the same for a module run as it is.
func TestTablesCapped(t *testing.T) {
	// type 1: () -> i32; grow: ref.null func, i32.const -2, table.grow 0
	types := sec(1, 2, 0x60, 0, 0, 0x60, 0, 1, 0x7f)
	grow := []byte{0, 0xd0, 0x70, 0x41, 0x7e, 0xfc, 0x0f, 0x00, 0x0b}
	wasm := module(types, sec(3, 1, 1), sec(secTable, 1, 0x70, 0x00, 0x00), oneMemory, sec(secExport, concat([]byte{1}, name("grow"), []byte{0, 0})...), code(grow))
	ins, err := Instrument(wasm)
	if err != nil {
		t.Fatal(err)
	}
	capped, err := CapTables(wasm)
	if err != nil {
		t.Fatal(err)
	}
	for name, bin := range map[string][]byte{"instrumented": ins.Wasm, "CapTables": capped} {
		ctx := context.Background()
		rt := wazero.NewRuntime(ctx)
		mod, err := rt.InstantiateWithConfig(ctx, bin, wazero.NewModuleConfig().WithStartFunctions())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := mod.ExportedFunction("grow").Call(ctx)
		if err != nil || int32(res[0]) != -1 {
			t.Errorf("%s: table.grow by 2³²-2 = %v, %v; want -1", name, res, err)
		}
		rt.Close(ctx)
	}
}
