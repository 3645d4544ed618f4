package host

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/toolkit"
)

// schemaWith returns a module schema whose one tool t has inputSchema.
func schemaWith(inputSchema string) string {
	return `{"abi":1,"tools":[{"name":"t","description":"d","input_schema":` + inputSchema + `}]}`
}

// nestedSchema nests object properties levels deep: its JSON nests
// 2*levels+1 deep.
func nestedSchema(levels int) string {
	s := `{"type":"string"}`
	for range levels {
		s = `{"type":"object","properties":{"a":` + s + `}}`
	}
	return s
}

// TestSchemaLimits: an input_schema past MaxSchemaDepth or MaxSchemaBytes
// is refused before anything compiles it, in moments (a schema nested
// 2000 deep took 30-40 s and 200 MB to compile); one within both
// compiles quickly, whatever its shape; a schema that names a file or URL
// outside itself is refused without the host reading it (here: a FIFO,
// which would block the reader forever).
func TestSchemaLimits(t *testing.T) {
	h := newTestHost(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	wide := func(size int) string {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for i := 0; b.Len() < size-100; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"p%d":{"type":"string","maxLength":%d}`, i, i)
		}
		b.WriteString(`}}`)
		return b.String()
	}
	// Many branches, each as deep as allowed, up to the size limit: the
	// costliest shape within the limits.
	branches := func() string {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		branch := nestedSchema(30) // 61 deep, 63 inside the root
		for i := 0; b.Len()+len(branch)+20 < MaxSchemaBytes; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"b%d":%s`, i, branch)
		}
		b.WriteString(`}}`)
		return b.String()
	}
	cases := []struct {
		name, schema, want string // want: "" = loads
	}{
		{"nested 2000 deep", nestedSchema(1000), "nests 2001 levels deep, more than the 64 allowed"},
		{"nested 65 deep", nestedSchema(32), "nests 65 levels deep"},
		{"nested 63 deep", nestedSchema(31), ""},
		{"300 KiB", wide(300 << 10), "more than the 262144 allowed"},
		{"256 KiB wide", wide(MaxSchemaBytes), ""},
		{"256 KiB of deep branches", branches(), ""},
		{"$ref to a local file (a FIFO)", `{"type":"object","properties":{"x":{"$ref":"file://` + fifo + `"}}}`, "outside the schema"},
		{"$schema naming a file", `{"$schema":"file:///etc/hostname","type":"object"}`, "outside the schema"},
		{"$ref over HTTP", `{"type":"object","$ref":"http://127.0.0.1:9/schema.json"}`, "outside the schema"},
		{"a standard $schema", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, ""},
		{"not a JSON Schema", `{"type":"object","properties":{"x":{"type":"nonsense"}}}`, "not a valid JSON Schema"},
		{"not an object schema", `{"type":["string"]}`, `must have "type": "object", not ["string"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			p, err := h.Load(context.Background(), pluginModule(schemaWith(c.schema), nil).bytes(), Config{Name: "s"})
			took := time.Since(start)
			t.Logf("%d bytes of schema: load took %s", len(c.schema), took)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				defer p.Close(context.Background())
				// The toolkit compiles it again at registration.
				start = time.Now()
				if err := toolkit.New(toolkit.Options{}).Register(p.Tools()[0]); err != nil {
					t.Fatal(err)
				}
				t.Logf("registration took %s", time.Since(start))
			} else if err == nil {
				p.Close(context.Background())
				t.Fatalf("loaded, want %q", c.want)
			} else if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `tool "t"`) {
				t.Errorf("error %q, want %q and the tool's name", err, c.want)
			}
		})
	}
}

// manyTools returns a schema of n tools named prefix0, prefix1, ...
func manyTools(prefix string, n int) string {
	var b strings.Builder
	b.WriteString(`{"abi":1,"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"%s%d","description":"Tool %d.","input_schema":{"type":"object","properties":{"x":{"type":"string"}}}}`, prefix, i, i)
	}
	b.WriteString("]}")
	return b.String()
}

// TestToolsPerModule: a module may provide MaxToolsPerModule tools; one
// with 20,000 is refused at once (its registration took 28-37 s), and a
// folder of modules holding 20,000 tools between them registers them in
// time linear in their number (one toolkit batch per sync).
func TestToolsPerModule(t *testing.T) {
	h := newTestHost(t)
	ctx := context.Background()
	start := time.Now()
	_, err := h.Load(ctx, pluginModule(manyTools("t", 20_000), nil).bytes(), Config{Name: "many"})
	t.Logf("a module of 20,000 tools refused in %s", time.Since(start))
	if err == nil || !strings.Contains(err.Error(), "lists 20000 tools, more than the 256 a module may provide") {
		t.Fatalf("20,000 tools: %v", err)
	}
	p := loadBuilt(t, h, pluginModule(manyTools("t", MaxToolsPerModule), nil), Config{})
	if len(p.Tools()) != MaxToolsPerModule {
		t.Fatalf("%d tools", len(p.Tools()))
	}

	modules, per := 80, 250
	if raceEnabled {
		modules = 20 // the race detector slows registration tenfold
	}
	dir := t.TempDir()
	for i := range modules {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%02d.wasm", i)), pluginModule(manyTools(fmt.Sprintf("m%d_", i), per), nil).bytes(), 0o644))
	}
	changes := 0
	tk := toolkit.New(toolkit.Options{OnChange: func(toolkit.Change) { changes++ }})
	start = time.Now()
	f, err := h.OpenFolder(ctx, tk, dir, FolderOptions{})
	must(t, err)
	t.Cleanup(func() { f.Close(ctx) })
	t.Logf("a folder of %d modules with %d tools each (%d tools) loaded and registered in %s, %d toolkit change(s)", modules, per, modules*per, time.Since(start), changes)
	if n := len(tk.Tools()); n != modules*per || len(f.Failed()) != 0 || changes != 1 {
		t.Errorf("%d tools registered, %d changes, failed %v", n, changes, f.Failed())
	}
}

// logCounter is a slog handler that counts records and keeps their
// messages' total size and the warnings.
type logCounter struct {
	mu       sync.Mutex
	n, bytes int
	warnings []string
}

// Enabled leaves out the host's own debug records (code released or
// loaded again), which are not the plugin's.
func (c *logCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }
func (c *logCounter) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	c.bytes += len(r.Message)
	if r.Level == slog.LevelWarn && strings.Contains(r.Message, "dropped") {
		c.warnings = append(c.warnings, r.Message)
	}
	return nil
}
func (c *logCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *logCounter) WithGroup(string) slog.Handler      { return c }

func (c *logCounter) take() (n, bytes int, warnings []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, bytes, warnings = c.n, c.bytes, c.warnings
	c.n, c.bytes, c.warnings = 0, 0, nil
	return
}

// TestResourceCaps: what one call may take is bounded, and each bound
// fails clearly or, for logs, drops the rest and says so: log volume
// (a plugin wrote 99.8 MB to stderr in 1 s), the error message and the
// output (MaxOutputBytes, not the 256 MiB of kernel memory), the chunks
// streamed (200,000 hit the 30 s timeout), and what an instance keeps
// after a call that needed much memory.
func TestResourceCaps(t *testing.T) {
	logs := &logCounter{}
	h, err := New(Options{CacheDir: testplugins.CompileCache(t), Logger: slog.New(logs)})
	must(t, err)
	t.Cleanup(func() { h.Close(context.Background()) })

	t.Run("log volume", func(t *testing.T) {
		line := strings.Repeat("log line ", 100) // 900 bytes
		p := loadBuilt(t, h, pluginModule(oneTool, func(m *built) []byte {
			return code(
				loop(0, 100_000, m.block(line), callf(fLogInfo), m.stderr(line+"\n")),
				m.block(strings.Repeat("x", 1<<20)), callf(fLogInfo), // one message of 1 MiB: dropped, over the budget
				m.output(okResult), i32c(0))
		}), Config{})
		logs.take()
		start := time.Now()
		r, _ := call(t, kit(t, bypass, p), "t", `{}`)
		n, bytes, warnings := logs.take()
		t.Logf("a call logging 200,000 messages (%d MB) took %s; %d records (%d bytes) reached the log", 200_000*len(line)/1e6, time.Since(start), n, bytes)
		if r.State != toolkit.StateSuccess {
			t.Fatalf("%s %q", r.State, r.Text())
		}
		if n > MaxLogMessages+5 || bytes > MaxLogBytes+4096 {
			t.Errorf("%d log records, %d bytes", n, bytes)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], "were dropped") {
			t.Errorf("warnings: %q", warnings)
		}
	})

	t.Run("long message cut", func(t *testing.T) {
		p := loadBuilt(t, h, pluginModule(oneTool, func(m *built) []byte {
			return code(m.block(strings.Repeat("y", 100_000)), callf(fLogInfo), m.output(okResult), i32c(0))
		}), Config{})
		logs.take()
		call(t, kit(t, bypass, p), "t", `{}`)
		if n, bytes, _ := logs.take(); n != 1 || bytes != MaxLogMessage+len("…") {
			t.Errorf("%d records, %d bytes", n, bytes)
		}
	})

	t.Run("error message", func(t *testing.T) {
		r := callBuilt(t, h, func(m *built) []byte {
			return code(i64c(MaxOutputBytes+1), callf(fAlloc), callf(fErrorSet), i32c(1))
		})
		if r.State != toolkit.StateError || !strings.Contains(r.Text(), "error_set: the message is 33554433 bytes, more than the 33554432 an error message may hold") || len(r.Text()) > 1000 {
			t.Errorf("%s %.300q (%d bytes)", r.State, r.Text(), len(r.Text()))
		}
	})

	t.Run("output", func(t *testing.T) {
		r := callBuilt(t, h, func(m *built) []byte {
			return code(i64c(MaxOutputBytes+1), callf(fAlloc), i64c(MaxOutputBytes+1), callf(fOutputSet), i32c(0))
		})
		if r.State != toolkit.StateError || !strings.Contains(r.Text(), "output_set: the output is 33554433 bytes, more than the 33554432 allowed") {
			t.Errorf("%s %.300q", r.State, r.Text())
		}
	})

	// Short chunks, so that the streamed text stays under the toolkit's
	// cut (MaxResultChars) and the error after it is seen.
	chunk := `{"content":[{"type":"text","text":"."}]}`
	t.Run("chunk count", func(t *testing.T) {
		for _, n := range []int32{MaxChunks, 200_000} {
			start := time.Now()
			r := callBuilt(t, h, func(m *built) []byte {
				return code(loop(0, n, m.block(chunk), callf(fEmit)), m.output(okResult), i32c(0))
			})
			t.Logf("%d chunks: %s after %s", n, r.State, time.Since(start))
			switch {
			case n <= MaxChunks && r.State != toolkit.StateSuccess:
				t.Errorf("%d chunks: %s %q", n, r.State, r.Text())
			case n > MaxChunks && (r.State != toolkit.StateError || !strings.Contains(r.Text(), "more than 10000 chunks in one call")):
				t.Errorf("%d chunks: %s %.300q", n, r.State, r.Text())
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("%d chunks took %s", n, took)
			}
		}
	})

	t.Run("chunk bytes", func(t *testing.T) {
		r := callBuilt(t, h, func(m *built) []byte {
			return code(i64c(MaxOutputBytes+1), callf(fAlloc), callf(fEmit), m.output(okResult), i32c(0))
		})
		if r.State != toolkit.StateError || !strings.Contains(r.Text(), "the call's chunks are more than 33554432 bytes together") {
			t.Errorf("%s %.300q", r.State, r.Text())
		}
	})

	t.Run("kernel blocks", func(t *testing.T) {
		r := callBuilt(t, h, func(m *built) []byte {
			return code(loop(0, MaxBlocks+1, i64c(1), callf(fAlloc), []byte{opDrop}), m.output(okResult), i32c(0))
		})
		if r.State != toolkit.StateError || !strings.Contains(r.Text(), "more than 1048576 blocks allocated in one call") {
			t.Errorf("%s %.300q", r.State, r.Text())
		}
	})

	t.Run("instances that grew are not kept", func(t *testing.T) {
		p := loadBuilt(t, h, pluginModule(oneTool, func(m *built) []byte {
			// A long input (over 200 bytes) grows linear memory by 25
			// MiB; every call uses 200 MiB of kernel memory.
			return code(
				callf(fInputLength), i64c(200), []byte{0x56 /* i64.gt_u */, opIf, opBlockVoid}, grow(400), []byte{opEnd},
				i64c(200<<20), callf(fAlloc), []byte{opDrop},
				m.output(okResult), i32c(0))
		}), Config{})
		tk := kit(t, bypass, p)
		for _, c := range []struct {
			pad  int
			keep bool
		}{{0, true}, {400, false}, {0, true}} {
			r, _ := call(t, tk, "t", fmt.Sprintf(`{"pad":%q}`, strings.Repeat("x", c.pad)))
			if r.State != toolkit.StateSuccess {
				t.Fatalf("%s %q", r.State, r.Text())
			}
			idle := p.Idle()
			if (idle == 1) != c.keep {
				t.Errorf("input of %d bytes: %d idle instances", c.pad, idle)
			}
			if idle == 1 {
				if k := p.pool.idle[0].kernel; cap(k.arena) > keepBuffer {
					t.Errorf("an idle instance keeps a kernel arena of %d bytes", cap(k.arena))
				}
			}
		}
	})
}

// rssBytes returns the process's resident set size.
func rssBytes(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// TestMemoryReturned: after a series of hostile calls, each using 200 MiB
// of kernel memory and growing its instance's memory by 40 MiB, in
// parallel so that every pooled instance is touched, the host's resident
// memory comes back near where it was (serve stayed at 450-780 MiB):
// instances that grew are closed, kernel buffers released, and no closed
// instance is kept reachable (the pool used to leave pointers past the
// end of its idle list).
func TestMemoryReturned(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes RSS meaningless")
	}
	h := newTestHost(t)
	p := loadBuilt(t, h, pluginModule(oneTool, func(m *built) []byte {
		return code(
			grow(640), // 40 MiB
			i64c(200<<20), callf(fAlloc), lset(1),
			// Touch every page of the kernel block and linear memory.
			loop(0, (200<<20)/4096, lget(1), lget(0), []byte{opI64ExtendU}, i64c(4096), []byte{0x7e /* i64.mul */, opI64Add}, i32c(1), callf(fStoreU8)),
			loop(0, 640*16, lget(0), i32c(4096), []byte{0x6c /* i32.mul */}, i32c(65536), []byte{opI32Add}, i32c(1), []byte{opI32Store8, 0, 0}),
			m.output(okResult), i32c(0))
	}), Config{})
	tk := kit(t, bypass, p)
	settle := func() int64 {
		// Twice, with a pause: wazero releases some memory in finalizers,
		// which run after a collection and free at the next.
		for range 3 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		debug.FreeOSMemory()
		return rssBytes(t)
	}
	before := settle()
	const rounds, parallel = 5, 4
	var peak int64
	for range rounds {
		var wg sync.WaitGroup
		for range parallel {
			wg.Go(func() {
				if r, _ := call(t, tk, "t", `{}`); r.State != toolkit.StateSuccess {
					t.Errorf("%s %q", r.State, r.Text())
				}
			})
		}
		wg.Wait()
		peak = max(peak, rssBytes(t))
	}
	after := settle()
	t.Logf("RSS before %d MiB, peak %d MiB, after %d hostile calls %d MiB; %d idle instances", before>>20, peak>>20, rounds*parallel, after>>20, p.Idle())
	if after-before > 40<<20 {
		t.Errorf("the host kept %d MiB after the calls", (after-before)>>20)
	}
}
