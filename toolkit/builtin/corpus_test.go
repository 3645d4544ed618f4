package builtin

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/internal/testdata"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

type corpusCase struct {
	line    int
	command string
	mode    permission.Mode
	expect  string
	rules   string
}

func readCorpus(t testing.TB) []corpusCase {
	f, err := os.Open(testdata.Path(t, "bash-permission-cases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 {
			t.Fatalf("corpus line %d: %d columns", n, len(cols))
		}
		mode, err := permission.ParseMode(cols[1])
		if err != nil {
			t.Fatalf("corpus line %d: %v", n, err)
		}
		c := corpusCase{line: n, command: cols[0], mode: mode, expect: cols[2]}
		if len(cols) > 3 {
			c.rules = cols[3]
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// parseCorpusRules reads the rules column: space-separated
// "allow:Bash(x:*)" style entries (none in the public corpus today).
func parseCorpusRules(t testing.TB, s string) (allow, deny, ask []permission.Rule) {
	for _, f := range strings.Split(s, ";") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		kind, text, ok := strings.Cut(f, ":")
		r, err := permission.ParseRule(text)
		if !ok || err != nil {
			t.Fatalf("corpus rule %q: %v", f, err)
		}
		switch kind {
		case "allow":
			allow = append(allow, r)
		case "deny":
			deny = append(deny, r)
		case "ask":
			ask = append(ask, r)
		default:
			t.Fatalf("corpus rule %q: unknown kind", f)
		}
	}
	return
}

func corpusToolkit(t testing.TB) *toolkit.Toolkit {
	tk := toolkit.New(toolkit.Options{})
	if err := tk.Register(NewBash(BashOptions{Home: "/home/user"})); err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestBashPermissionCorpus(t *testing.T) {
	cases := readCorpus(t)
	if len(cases) < 600 {
		t.Fatalf("corpus has %d cases; expected the full public corpus", len(cases))
	}
	tk := corpusToolkit(t)
	failed := 0
	for _, c := range cases {
		allow, deny, ask := parseCorpusRules(t, c.rules)
		pc := &permission.Context{Mode: c.mode, WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project", Allow: allow, Deny: deny, Ask: ask}
		args, _ := json.Marshal(map[string]string{"command": c.command})
		d, err := tk.Check(context.Background(), "corpus", toolkit.Call{Name: "Bash", Arguments: string(args)}, toolkit.CheckOptions{Permission: pc})
		if err != nil {
			t.Errorf("line %d %q: %v", c.line, c.command, err)
			failed++
			continue
		}
		if !corpusAgrees(c.expect, d) {
			failed++
			t.Errorf("line %d: %q in %s: got %s (immune %v), want %s; reason %q", c.line, c.command, c.mode, d.Behavior, d.BypassImmune, c.expect, d.Reason)
		}
	}
	t.Logf("%d of %d corpus cases agree", len(cases)-failed, len(cases))
}

func corpusAgrees(expect string, d permission.Decision) bool {
	switch expect {
	case "allow":
		return d.Behavior == permission.Allow
	case "ask":
		return d.Behavior == permission.Ask && !d.BypassImmune
	case "ask!":
		return d.Behavior == permission.Ask && d.BypassImmune
	case "deny":
		return d.Behavior == permission.Deny
	case "not-allow":
		return d.Behavior != permission.Allow
	}
	return false
}

// BenchmarkBashCheckCorpus is the whole permission check of the Bash tool
// through the toolkit (parse, validation, engine, analysis) for every
// command of the public corpus.
func BenchmarkBashCheckCorpus(b *testing.B) {
	cases := readCorpus(b)
	tk := corpusToolkit(b)
	calls := make([]toolkit.Call, len(cases))
	pcs := make([]*permission.Context, len(cases))
	for i, c := range cases {
		args, _ := json.Marshal(map[string]string{"command": c.command})
		calls[i] = toolkit.Call{Name: "Bash", Arguments: string(args)}
		pcs[i] = &permission.Context{Mode: c.mode, WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project"}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for i := range calls {
			if _, err := tk.Check(ctx, "bench", calls[i], toolkit.CheckOptions{Permission: pcs[i]}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(calls))/1000, "µs/check")
}

// BenchmarkBashToolCheckCorpus is the Bash tool's own check
// (CheckPermissions) for every command of the public corpus, each on a
// fresh tool as the side-by-side with AgentScope measures it: no parse
// is cached. ns/op and allocs/op are per pass over the corpus; the
// metrics give the median and p90, over the commands, of each command's
// median time.
func BenchmarkBashToolCheckCorpus(b *testing.B) {
	cases := readCorpus(b)
	ctx := context.Background()
	pcs := make([]*permission.Context, len(cases))
	ins := make([]toolkit.Input, len(cases))
	for i, c := range cases {
		pcs[i] = &permission.Context{Mode: c.mode, WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project"}
		ins[i] = toolkit.Input{"command": c.command}
	}
	per := make([][]time.Duration, len(cases))
	tools := make([]*Bash, len(cases))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for i := range tools {
			tools[i] = NewBash(BashOptions{Home: "/home/user"})
		}
		b.StartTimer()
		for i := range cases {
			start := time.Now()
			if _, err := tools[i].CheckPermissions(ctx, ins[i], pcs[i]); err != nil {
				b.Fatal(err)
			}
			per[i] = append(per[i], time.Since(start))
		}
	}
	reportMedians(b, per)
}

// BenchmarkBashEngineCheckCorpus is the whole decision (toolkit.Check:
// argument decoding, schema, engine, the Bash tool's analysis and
// suggestions) for every command of the public corpus, each on a fresh
// toolkit as the side-by-side with AgentScope measures it: no parse is
// cached. ns/op and allocs/op are per pass over the corpus; the metrics
// give the median and p90, over the commands, of each command's median
// time.
func BenchmarkBashEngineCheckCorpus(b *testing.B) {
	cases := readCorpus(b)
	ctx := context.Background()
	calls := make([]toolkit.Call, len(cases))
	pcs := make([]*permission.Context, len(cases))
	for i, c := range cases {
		args, _ := json.Marshal(map[string]string{"command": c.command})
		calls[i] = toolkit.Call{ID: "c", Name: "Bash", Arguments: string(args)}
		pcs[i] = &permission.Context{Mode: c.mode, WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project"}
	}
	per := make([][]time.Duration, len(cases))
	kits := make([]*toolkit.Toolkit, len(cases))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for i := range kits {
			kits[i] = corpusToolkit(b)
		}
		b.StartTimer()
		for i := range cases {
			start := time.Now()
			if _, err := kits[i].Check(ctx, "s", calls[i], toolkit.CheckOptions{Permission: pcs[i]}); err != nil {
				b.Fatal(err)
			}
			per[i] = append(per[i], time.Since(start))
		}
	}
	reportMedians(b, per)
}

// BenchmarkBashEngineCheckCold is the whole decision for a few commands
// on toolkits made beforehand, in batches: of 16 (the toolkit was made
// a moment ago, its objects still in the processor's caches) and of
// 2,048 (long ago, as in BenchmarkBashEngineCheckCorpus and the
// side-by-side with AgentScope, where a check's first reads of the
// toolkit's objects miss the caches).
func BenchmarkBashEngineCheckCold(b *testing.B) {
	ctx := context.Background()
	for _, batch := range []int{16, 2048} {
		for _, c := range []struct {
			cmd  string
			mode permission.Mode
		}{
			{"ls", permission.ModeDefault},
			{"cat README.md", permission.ModeDefault},
			// The engine median's typical command: one path, a write
			// that asks (bench/README profiles it).
			{"touch file.txt", permission.ModeDefault},
			{"git push", permission.ModeDefault},
			// Asks, with suggestions whose coverage is checked.
			{"npm run build", permission.ModeDefault},
			// Denied from its words alone: no path analysis.
			{"mkdir new_dir", permission.ModeExplore},
		} {
			pc := &permission.Context{Mode: c.mode, WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project"}
			args, _ := json.Marshal(map[string]string{"command": c.cmd})
			call := toolkit.Call{ID: "c", Name: "Bash", Arguments: string(args)}
			b.Run(fmt.Sprintf("batch=%d/%s/%s", batch, c.mode, strings.ReplaceAll(c.cmd, " ", "_")), func(b *testing.B) {
				kits := make([]*toolkit.Toolkit, batch)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if i%batch == 0 {
						b.StopTimer()
						for j := range kits {
							kits[j] = corpusToolkit(b)
						}
						b.StartTimer()
					}
					if _, err := kits[i%batch].Check(ctx, "s", call, toolkit.CheckOptions{Permission: pc}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkNewToolkitBash is what a toolkit with the Bash tool costs to
// make (the side-by-side with AgentScope makes one per check; an
// embedder may make one per request).
func BenchmarkNewToolkitBash(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		corpusToolkit(b)
	}
}

// reportMedians reports the median and p90, over the commands, of each
// command's median time.
func reportMedians(b *testing.B, per [][]time.Duration) {
	var medians []time.Duration
	for _, d := range per {
		slices.Sort(d)
		medians = append(medians, d[len(d)/2])
	}
	slices.Sort(medians)
	b.ReportMetric(float64(medians[len(medians)/2].Nanoseconds())/1000, "median-µs/cmd")
	b.ReportMetric(float64(medians[len(medians)*9/10].Nanoseconds())/1000, "p90-µs/cmd")
}
