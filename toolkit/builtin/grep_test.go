package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// treeFile is one entry of a test tree: a file with contents, or a
// symbolic link when link is set.
type treeFile struct {
	path    string
	content string
	link    string
}

// testEpoch is the base modification time of test trees; files get
// increasing times in the order they are listed, so "newest first" is
// the reverse of that order.
var testEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// buildTree creates the files under a new temporary directory and returns
// its path.
func buildTree(t testing.TB, files []treeFile) string {
	t.Helper()
	root := t.TempDir()
	for i, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if f.link != "" {
			if err := os.Symlink(f.link, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(f.path, "/") {
			continue // a directory, created above
		}
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := testEpoch.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// grepEngines lists the engines to test. Without rg the rg engine can't
// be compared, which must not pass unnoticed: the tests fail unless
// WASMTOOLS_NO_RG=1 says that is intended.
func grepEngines(t testing.TB) []string {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		if os.Getenv("WASMTOOLS_NO_RG") == "1" {
			t.Log("rg is not installed and WASMTOOLS_NO_RG=1: testing the pure-Go engine only")
			return []string{EngineGo}
		}
		t.Fatal("rg (ripgrep) is not installed, so the rg engine can't be tested: install it " +
			"(apt-get install -y ripgrep) or set WASMTOOLS_NO_RG=1 to test the pure-Go engine alone")
	}
	return []string{EngineGo, EngineRg}
}

// callResult is a tool call's outcome, read straight from its stream.
type callResult struct {
	text string
	meta map[string]any
	err  error
}

func callTool(t testing.TB, ctx context.Context, tool toolkit.Caller, input map[string]any) callResult {
	t.Helper()
	// Go through JSON, as the toolkit does, so numbers are json.Number.
	raw, _ := json.Marshal(input)
	in := toolkit.Input{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		t.Fatal(err)
	}
	var r callResult
	for c, err := range tool.Call(ctx, in) {
		if err != nil {
			r.err = err
			break
		}
		for _, b := range c.Content {
			r.text += b.Text
		}
		if c.Metadata != nil {
			r.meta = c.Metadata
		}
	}
	return r
}

// grepTree is the shared test tree: ignore rules at two levels, hidden
// files, VCS folders, a binary file, a symbolic link, long and CRLF lines.
var grepTree = []treeFile{
	{path: ".gitignore", content: "*.log\nbuild/\n/only_root.txt\n!keep.log\n# a comment\n\n"},
	{path: ".rgignore", content: "rgonly.txt\n"},
	{path: ".git/config", content: "hello git\n"},
	{path: ".git/HEAD", content: "ref: refs/heads/main\n"},
	{path: ".svn/entries", content: "hello svn\n"},
	{path: ".hg/store", content: "hello hg\n"},
	{path: "main.go", content: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"},
	{path: "util.go", content: "package main\n\n// Helper does things.\nfunc Helper() int {\n\treturn 42\n}\n"},
	{path: "app.log", content: "hello log\n"},
	{path: "keep.log", content: "hello kept\n"},
	{path: "only_root.txt", content: "hello root\n"},
	{path: "rgonly.txt", content: "hello rgignore\n"},
	{path: "build/out.txt", content: "hello build\n"},
	{path: ".hidden/secret.txt", content: "hello hidden\n"},
	{path: ".env", content: "HELLO=1\n"},
	{path: "docs/readme.md", content: "# Hello\nhello docs\n"},
	{path: "docs/only_root.txt", content: "hello nested, not anchored here\n"},
	{path: "src/.gitignore", content: "generated.go\n!important.log\n*.tmp\n"},
	{path: "src/lib.py", content: "def hello():\n    return 'HELLO'\n"},
	{path: "src/app.ts", content: "export const hello = 1;\n"},
	{path: "src/view.tsx", content: "export const Hello = () => null;\n"},
	{path: "src/generated.go", content: "package src // hello generated\n"},
	{path: "src/important.log", content: "hello important\n"},
	{path: "src/x.tmp", content: "hello tmp\n"},
	{path: "src/deep/more.go", content: "package deep\n\nfunc hello() {}\n"},
	{path: "src/deep/trace.log", content: "hello trace\n"},
	{path: "nested/.git/HEAD", content: "ref: x\n"},
	{path: "nested/inner.log", content: "hello from a nested repository\n"},
	{path: "bin/data.bin", content: "hello\x00binary\n"},
	{path: "bin/late.bin", content: strings.Repeat("filler line\n", 2000) + "\x00hello\n"},
	{path: "link.go", link: "main.go"},
	{path: "linkdir", link: "src"},
	{path: "multi.txt", content: "start\nfoo\nbar\nend\nfoo bar\n"},
	{path: "ctx.txt", content: numberedLines(20)},
	{path: "long.txt", content: "hello " + strings.Repeat("x", 600) + "\nshort hello\n"},
	{path: "crlf.txt", content: "hello crlf\r\nnext\r\n"},
	{path: "empty.txt", content: ""},
	{path: "noeol.txt", content: "first\nhello at the end"},
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestGrep(t *testing.T) {
	root := buildTree(t, grepTree)
	long := "hello " + strings.Repeat("x", MaxGrepColumns-6) + " [... 106 more characters cut]"
	tests := []struct {
		name  string
		input map[string]any
		want  string // with R/ standing for the tree's root
		err   string // a part of the expected error
	}{
		{name: "files newest first; ignores, hidden, VCS, binary, link",
			input: map[string]any{"pattern": "hello"},
			want: "Found 13 files\nR/noeol.txt\nR/crlf.txt\nR/long.txt\nR/nested/inner.log\nR/src/deep/more.go\nR/src/important.log\n" +
				"R/src/app.ts\nR/src/lib.py\nR/docs/only_root.txt\nR/docs/readme.md\nR/.hidden/secret.txt\nR/keep.log\nR/main.go",
		},
		{name: "case-insensitive",
			input: map[string]any{"pattern": "HELLO", "-i": true, "type": "ts"},
			want:  "Found 2 files\nR/src/view.tsx\nR/src/app.ts",
		},
		{name: "content with line numbers in path order",
			input: map[string]any{"pattern": `func \w+`, "output_mode": "content", "type": "go"},
			want:  "R/main.go:3:func main() {\nR/src/deep/more.go:3:func hello() {}\nR/util.go:4:func Helper() int {",
		},
		{name: "content without line numbers",
			input: map[string]any{"pattern": "^line 1[89]$", "output_mode": "content", "-n": false},
			want:  "R/ctx.txt:line 18\nR/ctx.txt:line 19",
		},
		{name: "context lines and separators",
			input: map[string]any{"pattern": "^line (5|7|15)$", "output_mode": "content", "-C": 1},
			want: "R/ctx.txt-4-line 4\nR/ctx.txt:5:line 5\nR/ctx.txt-6-line 6\nR/ctx.txt:7:line 7\nR/ctx.txt-8-line 8\n--\n" +
				"R/ctx.txt-14-line 14\nR/ctx.txt:15:line 15\nR/ctx.txt-16-line 16",
		},
		{name: "after and before context",
			input: map[string]any{"pattern": "^line (1|20)$", "output_mode": "content", "-A": 2, "-B": 1},
			want:  "R/ctx.txt:1:line 1\nR/ctx.txt-2-line 2\nR/ctx.txt-3-line 3\n--\nR/ctx.txt-19-line 19\nR/ctx.txt:20:line 20",
		},
		{name: "-A overrides -C",
			input: map[string]any{"pattern": "^line 10$", "output_mode": "content", "-C": 2, "-A": 0},
			want:  "R/ctx.txt-8-line 8\nR/ctx.txt-9-line 9\nR/ctx.txt:10:line 10",
		},
		{name: "count",
			input: map[string]any{"pattern": "line 1", "output_mode": "count"},
			want:  "R/ctx.txt:11\n\nFound 11 matching lines in 1 file.",
		},
		{name: "count with glob",
			input: map[string]any{"pattern": "o", "output_mode": "count", "glob": "*.txt", "path": "docs"},
			want:  "R/docs/only_root.txt:1\n\nFound 1 matching line in 1 file.",
		},
		{name: "glob with braces",
			input: map[string]any{"pattern": "hello", "-i": true, "glob": "**/*.{ts,tsx}"},
			want:  "Found 2 files\nR/src/view.tsx\nR/src/app.ts",
		},
		{name: "glob overrides .gitignore as rg --glob does",
			input: map[string]any{"pattern": "hello", "glob": "*.go"},
			want:  "Found 3 files\nR/src/deep/more.go\nR/src/generated.go\nR/main.go",
		},
		{name: "negated glob",
			input: map[string]any{"pattern": "hello", "glob": "!*.log !*.txt"},
			want:  "Found 5 files\nR/src/deep/more.go\nR/src/app.ts\nR/src/lib.py\nR/docs/readme.md\nR/main.go",
		},
		{name: "anchored glob",
			input: map[string]any{"pattern": "hello", "glob": "src/*.py"},
			want:  "Found 1 file\nR/src/lib.py",
		},
		{name: "type filter",
			input: map[string]any{"pattern": "hello", "type": "py"},
			want:  "Found 1 file\nR/src/lib.py",
		},
		{name: "subdirectory: parent .gitignore applies",
			input: map[string]any{"pattern": "hello", "path": "src", "output_mode": "count"},
			want: "R/src/app.ts:1\nR/src/deep/more.go:1\nR/src/important.log:1\nR/src/lib.py:1\n\n" +
				"Found 4 matching lines in 4 files.",
		},
		{name: "explicit file is searched even when ignored",
			input: map[string]any{"pattern": "hello", "path": "app.log", "output_mode": "content"},
			want:  "R/app.log:1:hello log",
		},
		{name: "explicit link is followed",
			input: map[string]any{"pattern": "hello", "path": "link.go"},
			want:  "Found 1 file\nR/link.go",
		},
		{name: "linked directory as the search root is followed",
			input: map[string]any{"pattern": "hello", "path": "linkdir", "output_mode": "count"},
			want: "R/linkdir/app.ts:1\nR/linkdir/deep/more.go:1\nR/linkdir/important.log:1\nR/linkdir/lib.py:1\n\n" +
				"Found 4 matching lines in 4 files.",
		},
		{name: "explicit binary file is skipped",
			input: map[string]any{"pattern": "hello", "path": "bin/data.bin"},
			want:  "No files found",
		},
		{name: "multiline",
			input: map[string]any{"pattern": `foo\nbar`, "multiline": true, "output_mode": "content"},
			want:  "R/multi.txt:2:foo\nR/multi.txt:3:bar",
		},
		{name: "multiline dot matches newline",
			input: map[string]any{"pattern": "start.*end", "multiline": true, "output_mode": "count"},
			want:  "R/multi.txt:4\n\nFound 4 matching lines in 1 file.",
		},
		{name: "multiline anchors at lines",
			input: map[string]any{"pattern": `^bar$`, "multiline": true, "output_mode": "content"},
			want:  "R/multi.txt:3:bar",
		},
		{name: "no multiline: dot stops at line end",
			input: map[string]any{"pattern": "start.*end", "output_mode": "count"},
			want:  "No matches found",
		},
		{name: "no multiline: a class never matches the newline",
			input: map[string]any{"pattern": `foo\sbar`, "output_mode": "content"},
			want:  "R/multi.txt:5:foo bar",
		},
		{name: "long line cut",
			input: map[string]any{"pattern": "hello", "path": "long.txt", "output_mode": "content"},
			want:  "R/long.txt:1:" + long + "\nR/long.txt:2:short hello",
		},
		{name: "CRLF and no final newline",
			input: map[string]any{"pattern": "crlf|end$", "output_mode": "content"},
			want:  "R/crlf.txt:1:hello crlf\nR/multi.txt:4:end\nR/noeol.txt:2:hello at the end",
		},
		{name: "VCS folders are not searched",
			input: map[string]any{"pattern": "hello (git|svn|hg)"},
			want:  "No files found",
		},
		{name: "empty-matching pattern matches every line, not past the end",
			input: map[string]any{"pattern": "x*", "path": "crlf.txt", "output_mode": "count"},
			want:  "R/crlf.txt:2\n\nFound 2 matching lines in 1 file.",
		},
		{name: "head_limit and offset on lines",
			input: map[string]any{"pattern": "^line", "path": "ctx.txt", "output_mode": "content", "head_limit": 2, "offset": 3},
			want:  "R/ctx.txt:4:line 4\nR/ctx.txt:5:line 5\n\n[Showing lines 4-5 of 20. Use offset 5 to see the next ones, or narrow the search with path, glob or type.]",
		},
		{name: "offset past the end",
			input: map[string]any{"pattern": "^line", "path": "ctx.txt", "offset": 5},
			want:  "Found 1 file\n[offset 5 is past the end: there is 1 file in all.]",
		},
		{name: "bad regex", input: map[string]any{"pattern": "foo("}, err: "not a valid regular expression"},
		{name: "newline without multiline", input: map[string]any{"pattern": `foo\nbar`}, err: "multiline: true"},
		{name: "missing path", input: map[string]any{"pattern": "x", "path": "nope"}, err: "does not exist"},
		{name: "unknown type", input: map[string]any{"pattern": "x", "type": "klingon"}, err: "unknown file type"},
		{name: "unknown mode", input: map[string]any{"pattern": "x", "output_mode": "lines"}, err: "unknown output_mode"},
	}
	for _, engine := range grepEngines(t) {
		g := NewGrep(GrepOptions{Cwd: root, Engine: engine})
		for _, tt := range tests {
			t.Run(engine+"/"+tt.name, func(t *testing.T) {
				r := callTool(t, context.Background(), g, tt.input)
				if tt.err != "" {
					if r.err == nil || !strings.Contains(r.err.Error(), tt.err) {
						t.Fatalf("error %v, want one containing %q (text %q)", r.err, tt.err, r.text)
					}
					return
				}
				if r.err != nil {
					t.Fatal(r.err)
				}
				want := strings.ReplaceAll(tt.want, "R/", root+"/")
				if r.text != want {
					t.Errorf("got\n%s\nwant\n%s", r.text, want)
				}
				if r.meta["engine"] != engine {
					t.Errorf("engine %v, want %s", r.meta["engine"], engine)
				}
			})
		}
	}
}

// TestGrepEnginesAgree runs a spread of queries through both engines on
// the same trees and compares everything they return.
func TestGrepEnginesAgree(t *testing.T) {
	engines := grepEngines(t)
	if len(engines) < 2 {
		t.Skip("only one engine available (WASMTOOLS_NO_RG=1)")
	}
	root := buildTree(t, grepTree)
	queries := []map[string]any{}
	for _, mode := range []string{"files_with_matches", "content", "count"} {
		for _, base := range []map[string]any{
			{"pattern": "hello"},
			{"pattern": "HeLLo", "-i": true},
			{"pattern": `\bline \d+$`},
			{"pattern": "^$"},
			{"pattern": "o", "glob": "**/*.txt"},
			{"pattern": "e", "type": "go"},
			{"pattern": "[a-z]+\\.", "path": "src"},
			{"pattern": "foo\\s*bar", "multiline": true},
			{"pattern": "line 2$", "-C": 3},
			{"pattern": "line 1.", "-B": 2, "-A": 1, "head_limit": 5, "offset": 2},
			{"pattern": ".", "head_limit": 0},
			{"pattern": "x{3}", "path": "long.txt"},
		} {
			q := map[string]any{"output_mode": mode}
			for k, v := range base {
				q[k] = v
			}
			queries = append(queries, q)
		}
	}
	goTool := NewGrep(GrepOptions{Cwd: root, Engine: EngineGo})
	rgTool := NewGrep(GrepOptions{Cwd: root, Engine: EngineRg})
	for _, q := range queries {
		// In path order the engines agree on everything. In the default
		// order they agree wherever the search did not stop at the limit
		// (complete results are in path order); where rg stopped, it
		// shows as many lines, the first its threads found.
		a := callTool(t, context.Background(), goTool, q)
		b := callTool(t, context.Background(), rgTool, q)
		if b.meta["order"] == "found" {
			if b.err != nil || a.err != nil || a.meta["shown_entries"] != b.meta["shown_entries"] || b.meta["stopped_at_limit"] != true {
				t.Errorf("%v: found order: go %v, rg %v", q, a.meta, b.meta)
			}
			q["sort"] = "path"
			b = callTool(t, context.Background(), rgTool, q)
		}
		if (a.err == nil) != (b.err == nil) || a.text != b.text {
			t.Errorf("%v:\ngo (%v):\n%s\nrg (%v):\n%s", q, a.err, a.text, b.err, b.text)
			continue
		}
		delete(a.meta, "engine")
		delete(b.meta, "engine")
		if !reflect.DeepEqual(a.meta, b.meta) {
			t.Errorf("%v: metadata differ: go %v, rg %v", q, a.meta, b.meta)
		}
	}
}

// TestGrepHeadLimit checks the default cap and paging over many files.
func TestGrepHeadLimit(t *testing.T) {
	var files []treeFile
	for i := 0; i < 300; i++ {
		files = append(files, treeFile{path: fmt.Sprintf("d%d/f%03d.txt", i%7, i), content: "needle\n"})
	}
	root := buildTree(t, files)
	for _, engine := range grepEngines(t) {
		g := NewGrep(GrepOptions{Cwd: root, Engine: engine})
		r := callTool(t, context.Background(), g, map[string]any{"pattern": "needle"})
		lines := strings.Split(r.text, "\n")
		if r.err != nil || lines[0] != "Found 300 files" || len(lines) != 1+DefaultGrepHeadLimit+2 {
			t.Fatalf("%s: %v %d lines:\n%s", engine, r.err, len(lines), r.text)
		}
		// Newest first: the last file written comes first.
		if lines[1] != filepath.Join(root, "d5/f299.txt") {
			t.Errorf("%s: first file %s", engine, lines[1])
		}
		if !strings.Contains(r.text, "[Showing files 1-250 of 300. Use offset 250") || r.meta["truncated"] != true {
			t.Errorf("%s: note missing: %s", engine, lines[len(lines)-1])
		}
		r = callTool(t, context.Background(), g, map[string]any{"pattern": "needle", "offset": 250})
		lines = strings.Split(r.text, "\n")
		if len(lines) != 1+50+2 || lines[50] != filepath.Join(root, "d0/f000.txt") || !strings.Contains(r.text, "[Showing files 251-300 of 300.]") {
			t.Errorf("%s: offset 250: %d lines, %q", engine, len(lines), lines[len(lines)-1])
		}
		r = callTool(t, context.Background(), g, map[string]any{"pattern": "needle", "head_limit": 0, "output_mode": "count"})
		if strings.Count(r.text, "\n") != 300+1 || !strings.HasSuffix(r.text, "Found 300 matching lines in 300 files.") {
			t.Errorf("%s: unlimited count: %q", engine, r.text[len(r.text)-80:])
		}
	}
}

// TestGrepParentIgnore checks that .gitignore files above the searched
// directory apply up to the repository root, and not beyond it.
func TestGrepParentIgnore(t *testing.T) {
	root := buildTree(t, []treeFile{
		{path: ".gitignore", content: "*.out\n"},
		{path: "repo/.git/HEAD", content: "x\n"},
		{path: "repo/.gitignore", content: "*.tmp\n"},
		{path: "repo/sub/a.tmp", content: "hit\n"},
		{path: "repo/sub/b.out", content: "hit\n"},
		{path: "repo/sub/c.txt", content: "hit\n"},
		{path: "plain/sub/d.out", content: "hit\n"},
		{path: "plain/sub/e.txt", content: "hit\n"},
	})
	for _, engine := range grepEngines(t) {
		g := NewGrep(GrepOptions{Cwd: root, Engine: engine})
		for path, want := range map[string]string{
			// The outer *.out stops at the repository root.
			"repo/sub": "R/repo/sub/b.out:1\nR/repo/sub/c.txt:1",
			// Without a repository every .gitignore above applies.
			"plain/sub": "R/plain/sub/e.txt:1",
		} {
			r := callTool(t, context.Background(), g, map[string]any{"pattern": "hit", "path": path, "output_mode": "count"})
			if got := strings.SplitN(r.text, "\n\n", 2)[0]; got != strings.ReplaceAll(want, "R/", root+"/") {
				t.Errorf("%s %s: got\n%s", engine, path, r.text)
			}
		}
	}
}

// TestGrepThroughToolkit runs Grep through the pipeline: allowed in the
// default mode without asking, relative paths against the permission
// context's directory.
func TestGrepThroughToolkit(t *testing.T) {
	root := buildTree(t, grepTree)
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeExplore, permission.ModeDontAsk} {
		tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: mode, WorkingDirs: []string{root}}})
		if err := tk.Register(NewGrep(GrepOptions{})); err != nil {
			t.Fatal(err)
		}
		if err := tk.Register(NewGlob(GlobOptions{})); err != nil {
			t.Fatal(err)
		}
		turn, err := tk.NewTurn(context.Background(), "s", []toolkit.Call{
			{ID: "1", Name: "Grep", Arguments: `{"pattern": "func main", "path": ".", "output_mode": "content"}`},
			{ID: "2", Name: "Glob", Arguments: `{"pattern": "src/**/*.go"}`},
		}, toolkit.TurnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Run(context.Background()); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
			t.Fatal(err)
		}
		resps := turn.Responses()
		if len(resps) != 2 || resps[0] == nil || resps[1] == nil {
			t.Fatalf("%s: responses %v (the calls should run without confirmation)", mode, resps)
		}
		if resps[0].State != toolkit.StateSuccess || resps[0].Text() != root+"/main.go:3:func main() {" {
			t.Errorf("%s: Grep %s %q", mode, resps[0].State, resps[0].Text())
		}
		if resps[1].State != toolkit.StateSuccess || resps[1].Text() != root+"/src/deep/more.go\n"+root+"/src/generated.go" {
			t.Errorf("%s: Glob %s %q", mode, resps[1].State, resps[1].Text())
		}
	}
}

// TestGrepBackendWithoutFastPaths runs the pure-Go engine on a backend
// that has only the three required methods, so walking goes through find
// and reading through ReadFile.
func TestGrepBackendWithoutFastPaths(t *testing.T) {
	if _, err := exec.LookPath("find"); err != nil {
		t.Skip("find is not installed")
	}
	// The fallback walk (find -L) follows symbolic links, so this tree
	// has none.
	var files []treeFile
	for _, f := range grepTree {
		if f.link == "" {
			files = append(files, f)
		}
	}
	root := buildTree(t, files)
	b := minimalBackend{&LocalBackend{}}
	g := NewGrep(GrepOptions{Cwd: root, Backend: b, Engine: EngineAuto})
	r := callTool(t, context.Background(), g, map[string]any{"pattern": "func", "type": "go", "output_mode": "content"})
	want := strings.ReplaceAll("R/main.go:3:func main() {\nR/src/deep/more.go:3:func hello() {}\nR/util.go:4:func Helper() int {", "R/", root+"/")
	if r.err != nil || r.text != want || r.meta["engine"] != EngineGo {
		t.Errorf("%v %v\n%s", r.err, r.meta, r.text)
	}
	g = NewGrep(GrepOptions{Cwd: root, Backend: b, Engine: EngineRg})
	if r := callTool(t, context.Background(), g, map[string]any{"pattern": "x"}); r.err == nil {
		t.Error("the rg engine accepted a backend that is not local")
	}
}

// minimalBackend hides LocalBackend's optional fast paths.
type minimalBackend struct{ b *LocalBackend }

func (m minimalBackend) Exec(ctx context.Context, req ExecRequest, out func(Stream, []byte)) (ExecResult, error) {
	return m.b.Exec(ctx, req, out)
}

func (m minimalBackend) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return m.b.ReadFile(ctx, p)
}

func (m minimalBackend) WriteFile(ctx context.Context, p string, data []byte, perm os.FileMode) error {
	return m.b.WriteFile(ctx, p, data, perm)
}

func TestGrepSpec(t *testing.T) {
	g := NewGrep(GrepOptions{})
	s := g.Spec()
	if s.Name != "Grep" || !s.ReadOnly || !s.ConcurrencySafe || s.Source.Kind != toolkit.SourceBuiltin {
		t.Errorf("spec %+v", s)
	}
	if !g.IsReadOnly(nil) {
		t.Error("not read-only")
	}
	d, err := g.CheckPermissions(context.Background(), toolkit.Input{"pattern": "x"}, &permission.Context{})
	if err != nil || d.Behavior != permission.Allow {
		t.Errorf("decision %+v %v", d, err)
	}
	var schema map[string]any
	if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
}

func TestGrepCancel(t *testing.T) {
	root := buildTree(t, grepTree)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, engine := range grepEngines(t) {
		r := callTool(t, ctx, NewGrep(GrepOptions{Cwd: root, Engine: engine}), map[string]any{"pattern": "hello"})
		if r.err == nil {
			t.Errorf("%s: no error after cancellation: %q", engine, r.text)
		}
	}
}

// TestGrepHonoursReadDenyRules: a deny on Read(path) keeps those files'
// contents out of Grep too, and denies a Grep aimed at them.
func TestGrepHonoursReadDenyRules(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "secrets", "key.txt"), "token=hunter2\n")
	writeFile(t, filepath.Join(dir, "src", "main.go"), "token := os.Getenv(\"X\")\n")
	deny := []permission.Rule{permission.MustParseRule("Read(secrets/**)")}
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeDefault, WorkingDirs: []string{dir}, Deny: deny}})
	if err := tk.Register(NewGrep(GrepOptions{Engine: "go"})); err != nil {
		t.Fatal(err)
	}
	run := func(args string) *toolkit.Response { return toolkittest.Call(t, tk, "s", "Grep", args) }
	r := run(`{"pattern": "token", "output_mode": "content"}`)
	if r.State != toolkit.StateSuccess || strings.Contains(r.Text(), "hunter2") || !strings.Contains(r.Text(), "main.go") {
		t.Errorf("directory search: %s %q", r.State, r.Text())
	}
	r = run(`{"pattern": "token", "path": "secrets"}`)
	if r.State != toolkit.StateDenied {
		t.Errorf("search of a denied path: %s %q", r.State, r.Text())
	}
}

// TestGrepContentStopsAtLimit checks content mode past its limit: the
// search stops at a file's end once it holds more lines than
// offset+head_limit, the lines shown are those of a full search in path
// order, withheld files do not count toward the limit, and the note
// gives the lines read as a lower bound. Both engines say the same.
func TestGrepContentStopsAtLimit(t *testing.T) {
	files := []treeFile{{path: "a/.env", content: "needle 1\nneedle 2\n"}} // withheld, sorts first
	for i := 0; i < 40; i++ {
		files = append(files, treeFile{path: fmt.Sprintf("d%d/f%02d.txt", i%3, i), content: "needle 1\nhay\nneedle 2\n"})
	}
	root := buildTree(t, files)
	var texts []string
	for _, engine := range grepEngines(t) {
		g := NewGrep(GrepOptions{Cwd: root, Engine: engine})
		r := callTool(t, context.Background(), g, map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 4, "offset": 3, "sort": "path"})
		if r.err != nil {
			t.Fatal(r.err)
		}
		// d0 holds f00, f03, ...: lines 4-7 are f03:3, f06:1, f06:3, f09:1;
		// the search stops after f09, with 8 lines read.
		want := strings.Join([]string{
			root + "/d0/f03.txt:3:needle 2", root + "/d0/f06.txt:1:needle 1", root + "/d0/f06.txt:3:needle 2", root + "/d0/f09.txt:1:needle 1",
		}, "\n") + "\n\n[Showing lines 4-7 of at least 8 (the search stopped there). Use offset 7 to see the next ones, or narrow the search with path, glob or type.]" +
			withheldNote(1)
		if r.text != want {
			t.Errorf("%s: got\n%s\nwant\n%s", engine, r.text, want)
		}
		if r.meta["stopped_at_limit"] != true || r.meta["truncated"] != true || r.meta["num_lines"] != 8 || r.meta["withheld"] != 1 {
			t.Errorf("%s: metadata %v", engine, r.meta)
		}
		if _, ok := r.meta["total_entries"]; ok {
			t.Errorf("%s: total_entries given for a search stopped early: %v", engine, r.meta)
		}
		// Without a limit every line comes back, with the exact total.
		r = callTool(t, context.Background(), g, map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 0})
		if n := strings.Count(r.text, root+"/d"); n != 80 || r.meta["total_entries"] != 80 || r.meta["stopped_at_limit"] != nil {
			t.Errorf("%s: unlimited: %d lines, %v", engine, n, r.meta)
		}
		texts = append(texts, r.text)
	}
	if len(texts) == 2 && texts[0] != texts[1] {
		t.Errorf("the engines disagree without a limit")
	}
}

// TestGrepFoundOrder: without sort "path", rg's search stops at the
// limit on every core: the lines shown are real matches (withheld files
// still left out), as many as asked, with a note and metadata saying the
// order is the search's; results that all came are in path order.
func TestGrepFoundOrder(t *testing.T) {
	if !slices.Contains(grepEngines(t), EngineRg) {
		t.Skip("rg is not installed")
	}
	files := []treeFile{{path: "a/.env", content: "needle 1\nneedle 2\n"}}
	for i := 0; i < 200; i++ {
		files = append(files, treeFile{path: fmt.Sprintf("d%d/f%03d.txt", i%5, i), content: "needle 1\nhay\nneedle 2\n"})
	}
	root := buildTree(t, files)
	g := NewGrep(GrepOptions{Cwd: root, Engine: EngineRg})
	r := callTool(t, context.Background(), g, map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 10, "offset": 5})
	if r.err != nil {
		t.Fatal(r.err)
	}
	line := regexp.MustCompile(`^` + regexp.QuoteMeta(root) + `/d[0-4]/f\d{3}\.txt:(1:needle 1|3:needle 2)$`)
	body, note, _ := strings.Cut(r.text, "\n\n")
	lines := strings.Split(body, "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines shown, want 10:\n%s", len(lines), r.text)
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("not a match of the tree: %q", l)
		}
	}
	if !strings.Contains(note, "in the order the search found them") || !strings.Contains(note, `sort "path"`) ||
		!strings.Contains(note, "may repeat or miss lines of the pages before it") {
		t.Errorf("the note does not say the order is the search's, and what that means for a later page: %q", note)
	}
	first := callTool(t, context.Background(), g, map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 10})
	if strings.Contains(first.text, "pages before it") {
		t.Errorf("a first page warns of pages before it: %q", first.text)
	}
	if r.meta["order"] != "found" || r.meta["stopped_at_limit"] != true || r.meta["shown_entries"] != 10 {
		t.Errorf("metadata %v", r.meta)
	}
	// Every result fits: the default order is path order, the same text
	// as sort "path".
	all := map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 1000}
	found := callTool(t, context.Background(), g, all)
	all["sort"] = "path"
	byPath := callTool(t, context.Background(), g, all)
	if found.err != nil || byPath.err != nil || found.text != byPath.text || found.meta["order"] != "path" {
		t.Errorf("complete results differ by order:\n%s\n---\n%s\n%v", found.text, byPath.text, found.meta)
	}
	if n := strings.Count(found.text, root+"/d"); n != 400 {
		t.Errorf("%d lines, want 400", n)
	}
	// An unknown order is refused, saying which there are.
	if r := callTool(t, context.Background(), g, map[string]any{"pattern": "needle", "output_mode": "content", "sort": "size"}); r.err == nil || !strings.Contains(r.err.Error(), "found") {
		t.Errorf("sort \"size\": %v", r.err)
	}
}
