package builtin

import (
	"context"
	"os"
	"os/exec"
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
