package builtin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// BenchmarkGrepModCache compares the pure-Go engine with rg on a large
// real tree, the Go module cache (go env GOMODCACHE): source files of all
// sizes, zip archives (binary), a few .gitignore files. The target is the
// pure-Go engine within 2x of rg on the first query; the others show
// how the engines compare on other shapes of query.
//
//	go test ./toolkit/builtin -run '^$' -bench GrepModCache -benchtime 20x
func BenchmarkGrepModCache(b *testing.B) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	root := strings.TrimSpace(string(out))
	if err != nil || root == "" {
		b.Skip("no Go module cache")
	}
	if _, err := os.Stat(root); err != nil {
		b.Skip("no Go module cache: ", err)
	}
	_, rgErr := exec.LookPath("rg")
	queries := []struct {
		name  string
		input map[string]any
	}{
		{"files/func_main", map[string]any{"pattern": "func main", "output_mode": "files_with_matches"}},
		{"count/fold_literal", map[string]any{"pattern": "return nil", "-i": true, "output_mode": "count"}},
		{"content/regexp_with_literal", map[string]any{"pattern": `[A-Z]\w*Error\b`, "output_mode": "content", "head_limit": 0}},
		{"count/regexp_one_byte_literal", map[string]any{"pattern": `\d{4}-\d{2}-\d{2}`, "output_mode": "count"}},
		// No literal at all: every line goes through Go's regexp, which
		// has no lazy DFA like rg's; this is the worst case (about 6x).
		{"count/regexp_without_literal", map[string]any{"pattern": `[A-Z][a-z]+[0-9]`, "output_mode": "count"}},
	}
	for _, q := range queries {
		var texts [2]string
		for i, engine := range []string{EngineGo, EngineRg} {
			b.Run(q.name+"/"+engine, func(b *testing.B) {
				if engine == EngineRg && rgErr != nil {
					b.Skip("rg is not installed")
				}
				g := NewGrep(GrepOptions{Cwd: root, Engine: engine})
				b.ResetTimer()
				for n := 0; n < b.N; n++ {
					r := callTool(b, context.Background(), g, q.input)
					if r.err != nil {
						b.Fatal(r.err)
					}
					texts[i] = r.text
				}
			})
		}
		// The engines must agree here too, or the comparison is moot.
		if texts[0] != "" && texts[1] != "" && texts[0] != texts[1] {
			b.Errorf("%s: the engines disagree:\ngo: %.300s\nrg: %.300s", q.name, texts[0], texts[1])
		}
	}
}

// gorootSrc returns $(go env GOROOT)/src, the tree the search benchmarks
// share with the shell commands they are compared against.
func gorootSrc(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	root := strings.TrimSpace(string(out))
	if err != nil || root == "" {
		b.Skip("no GOROOT")
	}
	src := root + "/src"
	if _, err := os.Stat(src); err != nil {
		b.Skip("no GOROOT/src: ", err)
	}
	return src
}

// reportCPU starts counting the processor time of a benchmark, its own
// and its children's; the returned function reports it per iteration as
// cpu-ms/op. On 2 shared cores the wall time of a parallel search depends
// on what else runs; the processor time says how much work it did.
func reportCPU(b *testing.B) func() {
	b.Helper()
	start, ok := processCPU()
	return func() {
		if end, ok2 := processCPU(); ok && ok2 {
			b.ReportMetric(float64(end-start)/float64(b.N)/1e6, "cpu-ms/op")
		}
	}
}

// benchShell runs a shell pipeline as one benchmark iteration, for the
// side-by-side figures (bench/README.md lists the same commands).
func benchShell(b *testing.B, script string) {
	b.Helper()
	defer reportCPU(b)()
	for n := 0; n < b.N; n++ {
		if out, err := exec.Command("sh", "-c", script).CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
}

// BenchmarkGrepLimit measures the Grep tool's rg engine on the first
// DefaultGrepHeadLimit matching lines of a literal over GOROOT/src:
// "tool", in the default order (rg on every core, stopped at the limit),
// next to `rg -n LITERAL | head -250` (the target is at most 1.2x), and
// "tool_sorted", with sort "path" (stable pages: rg walks sorted, on one
// thread), next to `rg --sort path` piped the same way, which gives the
// same lines. The literals go from dense (the limit is reached in a few
// files) to absent (the whole tree is searched, nothing stops early).
// Each sub-benchmark also reports its processor time (cpu-ms/op): the
// first lines in path order can take more work to find than the first
// lines rg's threads happen to reach, whatever the cores.
//
//	go test ./toolkit/builtin -run '^$' -bench GrepLimit -benchtime 40x
func BenchmarkGrepLimit(b *testing.B) {
	src := gorootSrc(b)
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg is not installed")
	}
	for _, lit := range []string{"func", "return nil", "errors.New", "xyzzy_absent"} {
		name := strings.ReplaceAll(lit, " ", "_")
		head := fmt.Sprintf("| head -%d >/dev/null", DefaultGrepHeadLimit)
		b.Run(name+"/tool", func(b *testing.B) {
			g := NewGrep(GrepOptions{Cwd: src, Engine: EngineRg})
			in := map[string]any{"pattern": regexp.QuoteMeta(lit), "output_mode": "content"}
			defer reportCPU(b)()
			for n := 0; n < b.N; n++ {
				if r := callTool(b, context.Background(), g, in); r.err != nil {
					b.Fatal(r.err)
				}
			}
		})
		b.Run(name+"/tool_sorted", func(b *testing.B) {
			g := NewGrep(GrepOptions{Cwd: src, Engine: EngineRg})
			in := map[string]any{"pattern": regexp.QuoteMeta(lit), "output_mode": "content", "sort": "path"}
			defer reportCPU(b)()
			for n := 0; n < b.N; n++ {
				if r := callTool(b, context.Background(), g, in); r.err != nil {
					b.Fatal(r.err)
				}
			}
		})
		b.Run(name+"/rg_head", func(b *testing.B) {
			benchShell(b, fmt.Sprintf("%s -n -F %s %s %s; true", rg, ShellQuote(lit), ShellQuote(src), head))
		})
		b.Run(name+"/rg_sorted_head", func(b *testing.B) {
			benchShell(b, fmt.Sprintf("%s -n -F --sort path %s %s %s; true", rg, ShellQuote(lit), ShellQuote(src), head))
		})
	}
}

// BenchmarkGlobGoroot measures the Glob tool on **/*.go over GOROOT/src
// next to fd (Debian's fdfind; the target is at most 1.5x) and find,
// which list the same files unsorted.
//
//	go test ./toolkit/builtin -run '^$' -bench GlobGoroot -benchtime 20x
func BenchmarkGlobGoroot(b *testing.B) {
	src := gorootSrc(b)
	b.Run("tool", func(b *testing.B) {
		g := NewGlob(GlobOptions{Cwd: src})
		in := map[string]any{"pattern": "**/*.go"}
		defer reportCPU(b)()
		for n := 0; n < b.N; n++ {
			if r := callTool(b, context.Background(), g, in); r.err != nil {
				b.Fatal(r.err)
			}
		}
	})
	for _, fd := range []string{"fdfind", "fd"} {
		if p, err := exec.LookPath(fd); err == nil {
			b.Run("fd", func(b *testing.B) {
				benchShell(b, fmt.Sprintf("%s -u -t f -g '*.go' . %s >/dev/null", p, ShellQuote(src)))
			})
			break
		}
	}
	b.Run("find", func(b *testing.B) {
		benchShell(b, fmt.Sprintf("find %s -name '*.go' -type f >/dev/null", ShellQuote(src)))
	})
}
