package search

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// TestMatcher covers the pattern rewriting and literal prefilter
// directly.
func TestMatcher(t *testing.T) {
	tests := []struct {
		pattern   string
		fold      bool
		lit       string
		pure      bool
		input     string
		wantLines []string
	}{
		{"func main", false, "func main", true, "a\nfunc main() {\nfunc mainly\n", []string{"func main() {", "func mainly"}},
		{`foo\d+bar`, false, "foo", false, "foo1bar\nfoobar\nfoo22bar x\n", []string{"foo1bar", "foo22bar x"}},
		{"(?i)hello", true, "HELLO", true, "HeLLo\nhello\nhell\n", []string{"HeLLo", "hello"}},
		{"(?i)kelvin", true, "ELVIN", false, "\u212Aelvin\nKELVIN\n", []string{"\u212Aelvin", "KELVIN"}},
		{`[^a]+`, false, "", false, "aaa\nab\n\n", []string{"ab"}},
		{`^\s*$`, false, "", false, "x\n\n  \ny", []string{"", "  "}},
		{`a.c`, false, "a", false, "a\nc\nabc\n", []string{"abc"}},
		{`\Aabc\z`, false, "abc", false, "abc\nxabc\nabc\n", []string{"abc", "abc"}},
		{`(?i:a)B`, true, "AB", false, "ab\naB\nAB\n", []string{"aB", "AB"}},
		{`(?i)func main`, true, "FUNC MAIN", true, "Func Main\nfunc_main\nFUNC MAIN()\n", []string{"Func Main", "FUNC MAIN()"}},
	}
	for _, tt := range tests {
		m, err := CompileMatcher(tt.pattern, false, false)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		if string(m.lit) != tt.lit || m.fold != tt.fold || m.pure != tt.pure {
			t.Errorf("%s: literal %q fold %v pure %v, want %q %v %v", tt.pattern, m.lit, m.fold, m.pure, tt.lit, tt.fold, tt.pure)
		}
		var got []string
		buf := []byte(tt.input)
		m.eachLine(buf, func(s, e int) bool {
			got = append(got, string(buf[s:e]))
			return true
		})
		if !reflect.DeepEqual(got, tt.wantLines) {
			t.Errorf("%s on %q: %q, want %q", tt.pattern, tt.input, got, tt.wantLines)
		}
	}
}

func TestGlobRules(t *testing.T) {
	tests := []struct {
		line   string
		path   string
		isDir  bool
		match  bool
		parsed bool
	}{
		{"*.log", "a/b/c.log", false, true, true},
		{"/root.txt", "root.txt", false, true, true},
		{"/root.txt", "a/root.txt", false, false, true},
		{"build/", "x/build", true, true, true},
		{"build/", "x/build", false, false, true},
		{"a/**", "a", true, false, true},
		{"a/**", "a/b/c", false, true, true},
		{"a/**/z", "a/z", false, true, true},
		{"doc/*.md", "doc/x.md", false, true, true},
		{"doc/*.md", "y/doc/x.md", false, false, true},
		{`\#hash`, "#hash", false, true, true},
		{"trailing   ", "trailing", false, true, true},
		{"# comment", "", false, false, false},
		{"   ", "", false, false, false},
	}
	for _, tt := range tests {
		r, ok := parseSearchGlobRule(tt.line)
		if ok != tt.parsed {
			t.Errorf("%q: parsed %v", tt.line, ok)
			continue
		}
		if ok && r.match(tt.path, tt.isDir) != tt.match {
			t.Errorf("%q on %q (dir %v): %v, want %v", tt.line, tt.path, tt.isDir, !tt.match, tt.match)
		}
	}
	if got := SplitGlobs("*.ts,*.tsx  **/*.{js,jsx} !vendor/**"); !reflect.DeepEqual(got, []string{"*.ts", "*.tsx", "**/*.{js,jsx}", "!vendor/**"}) {
		t.Errorf("split %q", got)
	}
}

// TestRgStreamOrder checks that rg --sort path reports files in
// PathLess order on names where a byte sorts before the separator, so
// Stream never needs its fallback, and that stopping early kills rg and
// returns what was read.
func TestRgStreamOrder(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed")
	}
	root := t.TempDir()
	names := []string{"a b", "a-b", "a/x", "a/b/c", "a.go", "A", "_", "ab", "a!/y", "b/a", "z"}
	for _, n := range names {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("needle\nneedle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := &RgEngine{Path: rg}
	q := &Query{Pattern: "needle", Mode: ModeContent}
	var got []string
	stopped, err := e.Stream(context.Background(), q, Target{Root: root}, func(f FileResult) bool {
		got = append(got, f.Path)
		return true
	})
	if err != nil || stopped || len(got) != len(names) {
		t.Fatalf("stopped %v, err %v, %d files", stopped, err, len(got))
	}
	if !sort.SliceIsSorted(got, func(i, j int) bool { return PathLess(got[i], got[j]) }) {
		t.Errorf("not in path order: %q", got)
	}
	n := 0
	stopped, err = e.Stream(context.Background(), q, Target{Root: root}, func(f FileResult) bool {
		n++
		return n < 3
	})
	if err != nil || !stopped || n != 3 {
		t.Errorf("early stop: stopped %v, err %v, %d files", stopped, err, n)
	}
}
