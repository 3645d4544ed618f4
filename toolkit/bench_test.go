package toolkit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
)

// BenchmarkPipeline measures the toolkit's own cost per call: one allowed
// call of a trivial Go tool through all five gates (availability, parse
// and validation, permission, execution, finish).
func BenchmarkPipeline(b *testing.B) {
	tk := New(Options{})
	mustRegister(b, tk, cmdTool("echo", true, allowAll))
	ctx := context.Background()
	calls := []Call{{ID: "c", Name: "echo", Arguments: `{"cmd":"hello"}`}}
	b.ReportAllocs()
	for b.Loop() {
		turn, err := tk.NewTurn(ctx, "s", calls, TurnOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := turn.Run(ctx); err != nil && !errors.Is(err, ErrWaiting) {
			b.Fatal(err)
		}
		if r := turn.Responses()[0]; r.State != StateSuccess {
			b.Fatal(r.Text())
		}
	}
}

// BenchmarkPipelineFunc is BenchmarkPipeline for a NewFunc tool, whose
// input is decoded into a struct.
func BenchmarkPipelineFunc(b *testing.B) {
	type in struct {
		Cmd string `json:"cmd"`
	}
	tool, err := NewFunc("echo", "echoes", func(_ context.Context, i in) (string, error) { return i.Cmd, nil },
		FuncOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	tk := New(Options{})
	mustRegister(b, tk, tool)
	ctx := context.Background()
	calls := []Call{{ID: "c", Name: "echo", Arguments: `{"cmd":"hello"}`}}
	b.ReportAllocs()
	for b.Loop() {
		turn, _ := tk.NewTurn(ctx, "s", calls, TurnOptions{})
		_ = turn.Run(ctx)
	}
}

// BenchmarkParallelBatch runs eight concurrency-safe calls in one turn.
func BenchmarkParallelBatch(b *testing.B) {
	tk := New(Options{})
	mustRegister(b, tk, cmdTool("echo", true, allowAll))
	ctx := context.Background()
	var calls []Call
	for i := range 8 {
		calls = append(calls, Call{ID: strconv.Itoa(i), Name: "echo", Arguments: `{"cmd":"hello"}`})
	}
	b.ReportAllocs()
	for b.Loop() {
		turn, _ := tk.NewTurn(ctx, "s", calls, TurnOptions{})
		_ = turn.Run(ctx)
	}
}

// exportIn is a typical tool input, for the export benchmarks.
type exportIn struct {
	Path    string   `json:"path" jsonschema:"the file to work on"`
	Pattern string   `json:"pattern,omitempty" jsonschema:"a glob"`
	Limit   int      `json:"limit,omitempty" jsonschema:"how many lines at most"`
	Tags    []string `json:"tags,omitempty" enum:"a,b,c"`
	Deep    struct {
		On    bool   `json:"on"`
		Title string `json:"title,omitempty" jsonschema:"a property named title"`
	} `json:"deep"`
}

// exportDefs are the definitions of 25 tools, as a model step exports.
func exportDefs(b *testing.B) []Definition {
	defs, err := exportToolkit(b).Definitions(context.Background(), "s", nil)
	if err != nil {
		b.Fatal(err)
	}
	return defs
}

// exportToolkit holds 25 tools.
func exportToolkit(b *testing.B) *Toolkit {
	tk := New(Options{})
	for i := range 25 {
		tool, err := NewFunc(fmt.Sprintf("tool_%02d", i), "A tool of the export benchmark.",
			func(context.Context, exportIn) (string, error) { return "", nil }, FuncOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := tk.Register(tool); err != nil {
			b.Fatal(err)
		}
	}
	return tk
}

// BenchmarkExport is the cost of turning one model step's 25 tool
// definitions into each provider's format.
func BenchmarkExport(b *testing.B) {
	defs := exportDefs(b)
	b.Run("OpenAI", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = OpenAI(defs)
		}
	})
	b.Run("Anthropic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Anthropic(defs)
		}
	})
	b.Run("MCP", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = MCP(defs)
		}
	})
}

// BenchmarkModelStep is what a model step pays for its tool list: the
// session's definitions (schemas copied) and their export.
func BenchmarkModelStep(b *testing.B) {
	tk := exportToolkit(b)
	ctx := context.Background()
	for _, f := range []struct {
		name   string
		export func([]Definition)
	}{
		{"OpenAI", func(d []Definition) { _ = OpenAI(d) }},
		{"Anthropic", func(d []Definition) { _ = Anthropic(d) }},
	} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				defs, err := tk.Definitions(ctx, "s", nil)
				if err != nil {
					b.Fatal(err)
				}
				f.export(defs)
			}
		})
	}
}

// BenchmarkCheckFresh is the toolkit's own share of a permission check
// on a toolkit that has decided nothing yet (a fresh session, no lazy
// state warmed), as the side-by-side with AgentScope measures Bash: a
// trivial tool that asks, in the default mode (suggestions and their
// rule coverage included). The toolkits are made outside the timer.
func BenchmarkCheckFresh(b *testing.B) {
	ctx := context.Background()
	const batch = 256
	kits := make([]*Toolkit, batch)
	call := Call{ID: "c", Name: "echo", Arguments: `{"cmd":"hello world"}`}
	pc := &permission.Context{WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project"}
	b.ReportAllocs()
	i := batch
	for b.Loop() {
		if i == batch {
			b.StopTimer()
			for j := range kits {
				kits[j] = New(Options{})
				mustRegister(b, kits[j], cmdTool("echo", true, nil))
			}
			i = 0
			b.StartTimer()
		}
		if _, err := kits[i].Check(ctx, "s", call, CheckOptions{Permission: pc}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
