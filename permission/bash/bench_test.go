package bash

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/internal/testdata"
)

// corpusCommands reads the commands of the public corpus, when it is
// beside the checkout.
func corpusCommands(b testing.TB) []string {
	f, err := os.Open(testdata.Path(b, "bash-permission-cases.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		cmd, _, _ := strings.Cut(line, "\t")
		out = append(out, cmd)
	}
	return out
}

// BenchmarkAnalyzeCorpus parses and analyses every command of the public
// corpus, bypassing the Analyzer's cache. ns/op and allocs/op are per pass
// over the corpus; the metrics give the median, p90 and p99, over the
// commands, of each command's median time.
func BenchmarkAnalyzeCorpus(b *testing.B) {
	cmds := corpusCommands(b)
	a := New(Options{Home: "/home/user"})
	env := Env{WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project"}
	per := make([][]time.Duration, len(cmds))
	b.ReportAllocs()
	for b.Loop() {
		for i, c := range cmds {
			start := time.Now()
			a.AnalyzeScript(Parse(c), env) // uncached: parse and judge
			per[i] = append(per[i], time.Since(start))
		}
	}
	var medians []time.Duration
	for _, d := range per {
		slices.Sort(d)
		medians = append(medians, d[len(d)/2])
	}
	slices.Sort(medians)
	b.ReportMetric(float64(medians[len(medians)/2].Nanoseconds())/1000, "median-µs/cmd")
	b.ReportMetric(float64(medians[len(medians)*9/10].Nanoseconds())/1000, "p90-µs/cmd")
	b.ReportMetric(float64(medians[len(medians)*99/100].Nanoseconds())/1000, "p99-µs/cmd")
}
