package builtin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// globTree has files in the order of their modification times (oldest
// first), dotfiles, a VCS folder and symbolic links.
var globTree = []treeFile{
	{path: "README.md", content: "x"},
	{path: "main.go", content: "x"},
	{path: "go.mod", content: "x"},
	{path: ".env", content: "x"},
	{path: ".config/settings.json", content: "x"},
	{path: ".git/config", content: "x"},
	{path: ".git/objects/ab/cdef", content: "x"},
	{path: "src/a.go", content: "x"},
	{path: "src/b_test.go", content: "x"},
	{path: "src/ui/app.ts", content: "x"},
	{path: "src/ui/view.tsx", content: "x"},
	{path: "src/deep/er/c.go", content: "x"},
	{path: "docs/guide.md", content: "x"},
	{path: "empty/", content: ""},
	{path: "link.go", link: "main.go"},
	{path: "linkdir", link: "src"},
	{path: "dangling.go", link: "nowhere.go"},
	{path: "weird [name].txt", content: "x"},
}

func TestGlob(t *testing.T) {
	root := buildTree(t, globTree)
	tests := []struct {
		name    string
		input   map[string]any
		want    string // R/ stands for the root
		err     string
		options GlobOptions
	}{
		{name: "any depth, newest first, link to a file listed",
			input: map[string]any{"pattern": "**/*.go"},
			// The link has its target's time: the tie goes by path.
			want: "R/src/deep/er/c.go\nR/src/b_test.go\nR/src/a.go\nR/link.go\nR/main.go"},
		{name: "one level",
			input: map[string]any{"pattern": "*.go"},
			want:  "R/link.go\nR/main.go"},
		{name: "dotfiles included",
			input: map[string]any{"pattern": "**/.*"},
			want:  "R/.env"},
		{name: "inside a dot directory",
			input: map[string]any{"pattern": ".config/*"},
			want:  "R/.config/settings.json"},
		{name: "braces",
			input: map[string]any{"pattern": "src/**/*.{ts,tsx}"},
			want:  "R/src/ui/view.tsx\nR/src/ui/app.ts"},
		{name: "character class and ?",
			input: map[string]any{"pattern": "src/[ab]?*"},
			want:  "R/src/b_test.go\nR/src/a.go"},
		{name: "? needs one character",
			input: map[string]any{"pattern": "src/?.go"},
			want:  "R/src/a.go"},
		{name: "relative path",
			input: map[string]any{"pattern": "**/*.go", "path": "src/deep"},
			want:  "R/src/deep/er/c.go"},
		{name: "absolute path",
			input: map[string]any{"pattern": "*.md", "path": filepath.Join(root, "docs")},
			want:  "R/docs/guide.md"},
		{name: "absolute pattern",
			input: map[string]any{"pattern": filepath.Join(root, "src", "*.go"), "path": "ignored/when/absolute"},
			want:  "R/src/b_test.go\nR/src/a.go"},
		{name: "leading ./",
			input: map[string]any{"pattern": "./docs/*.md"},
			want:  "R/docs/guide.md"},
		{name: "VCS folder skipped",
			input: map[string]any{"pattern": "**/config"},
			want:  "No files found"},
		{name: "VCS folder when named",
			input: map[string]any{"pattern": ".git/**"},
			want:  "R/.git/objects/ab/cdef\nR/.git/config"},
		{name: "escaped metacharacters",
			input: map[string]any{"pattern": `weird \[name\].txt`},
			want:  "R/weird [name].txt"},
		{name: "no match",
			input: map[string]any{"pattern": "**/*.rs"},
			want:  "No files found"},
		{name: "literal directory that does not exist",
			input: map[string]any{"pattern": "nope/**/*.go"},
			want:  "No files found"},
		{name: "cap with a note",
			input:   map[string]any{"pattern": "**/*.go"},
			options: GlobOptions{MaxResults: 2},
			want:    "R/src/deep/er/c.go\nR/src/b_test.go\n(Results are truncated: 3 more files not shown. Use a more specific pattern or path.)"},
		{name: "missing directory", input: map[string]any{"pattern": "*", "path": "nope"}, err: "does not exist"},
		{name: "path is a file", input: map[string]any{"pattern": "*", "path": "main.go"}, err: "is a file"},
		{name: "bad pattern", input: map[string]any{"pattern": "src/[a"}, err: "not a valid glob"},
		{name: "empty pattern", input: map[string]any{"pattern": ""}, err: "pattern is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.options
			opts.Cwd = root
			r := callTool(t, context.Background(), NewGlob(opts), tt.input)
			if tt.err != "" {
				if r.err == nil || !strings.Contains(r.err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q (text %q)", r.err, tt.err, r.text)
				}
				return
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			if want := strings.ReplaceAll(tt.want, "R/", root+"/"); r.text != want {
				t.Errorf("got\n%s\nwant\n%s", r.text, want)
			}
		})
	}
}

// TestGlobCap checks the default cap on a tree with more files than it.
func TestGlobCap(t *testing.T) {
	var files []treeFile
	for i := 0; i < 130; i++ {
		files = append(files, treeFile{path: fmt.Sprintf("p%d/f%03d.txt", i%4, i), content: "x"})
	}
	root := buildTree(t, files)
	r := callTool(t, context.Background(), NewGlob(GlobOptions{Cwd: root}), map[string]any{"pattern": "**/*.txt"})
	lines := strings.Split(r.text, "\n")
	if r.err != nil || len(lines) != DefaultGlobLimit+1 {
		t.Fatalf("%v: %d lines", r.err, len(lines))
	}
	if lines[0] != filepath.Join(root, "p1/f129.txt") || lines[99] != filepath.Join(root, "p2/f030.txt") {
		t.Errorf("order: first %s, last %s", lines[0], lines[99])
	}
	if lines[100] != "(Results are truncated: 30 more files not shown. Use a more specific pattern or path.)" {
		t.Errorf("note %q", lines[100])
	}
	if r.meta["num_files"] != 130 || r.meta["truncated"] != true {
		t.Errorf("metadata %v", r.meta)
	}
}

// TestGlobTiesByPath checks that files with the same time come in path
// order.
func TestGlobTiesByPath(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"b.txt", "a.txt", "c/a.txt", "c.txt"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, testEpoch, testEpoch); err != nil {
			t.Fatal(err)
		}
	}
	r := callTool(t, context.Background(), NewGlob(GlobOptions{Cwd: root}), map[string]any{"pattern": "**/*.txt"})
	want := strings.ReplaceAll("R/a.txt\nR/b.txt\nR/c/a.txt\nR/c.txt", "R/", root+"/")
	if r.text != want {
		t.Errorf("got\n%s\nwant\n%s", r.text, want)
	}
}

func TestGlobSpecAndPermissions(t *testing.T) {
	g := NewGlob(GlobOptions{})
	s := g.Spec()
	if s.Name != "Glob" || !s.ReadOnly || !s.ConcurrencySafe || s.Source.Kind != toolkit.SourceBuiltin {
		t.Errorf("spec %+v", s)
	}
	if !g.IsReadOnly(nil) {
		t.Error("not read-only")
	}
	d, err := g.CheckPermissions(context.Background(), toolkit.Input{"pattern": "*"}, &permission.Context{})
	if err != nil || d.Behavior != permission.Allow {
		t.Errorf("decision %+v %v", d, err)
	}
}

// TestGlobRuntimeCwd checks that without a Cwd option the call's
// permission context gives the directory.
func TestGlobRuntimeCwd(t *testing.T) {
	root := buildTree(t, globTree)
	ctx := toolkit.WithRuntime(context.Background(), &toolkit.Runtime{Permission: &permission.Context{Cwd: filepath.Join(root, "docs")}})
	r := callTool(t, ctx, NewGlob(GlobOptions{}), map[string]any{"pattern": "*"})
	if r.err != nil || r.text != filepath.Join(root, "docs/guide.md") {
		t.Errorf("%v %q", r.err, r.text)
	}
	// Without a directory anywhere, a relative search can't be resolved.
	r = callTool(t, context.Background(), NewGlob(GlobOptions{}), map[string]any{"pattern": "*"})
	if r.err == nil || !strings.Contains(r.err.Error(), "absolute") {
		t.Errorf("no directory: %v %q", r.err, r.text)
	}
}

// TestGlobBackendWithoutFastPaths lists files through a backend with only
// Exec, ReadFile and WriteFile (the walk falls back on find).
func TestGlobBackendWithoutFastPaths(t *testing.T) {
	var files []treeFile
	for _, f := range globTree {
		if f.link == "" {
			files = append(files, f)
		}
	}
	root := buildTree(t, files)
	r := callTool(t, context.Background(), NewGlob(GlobOptions{Cwd: root, Backend: minimalBackend{&LocalBackend{}}}), map[string]any{"pattern": "src/**/*.go"})
	want := strings.ReplaceAll("R/src/deep/er/c.go\nR/src/b_test.go\nR/src/a.go", "R/", root+"/")
	if r.err != nil || r.text != want {
		t.Errorf("%v\n%s", r.err, r.text)
	}
}

// TestGlobNewest checks the bounded selection against a full sort, with
// many ties in time so the path order matters too.
func TestGlobNewest(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 99, 100, 101, 1000} {
		for _, k := range []int{1, 3, 100} {
			var all []globMatch
			for i := 0; i < n; i++ {
				all = append(all, globMatch{
					path:    fmt.Sprintf("/r/d%d/f%d", rnd.IntN(7), rnd.IntN(50)),
					modTime: testEpoch.Add(time.Duration(rnd.IntN(20)) * time.Second),
				})
			}
			want := slices.Clone(all)
			slices.SortStableFunc(want, func(a, b globMatch) int {
				if c := b.modTime.Compare(a.modTime); c != 0 {
					return c
				}
				return searchComparePaths(a.path, b.path)
			})
			want = want[:min(k, n)]
			if got := globNewest(slices.Clone(all), k); !reflect.DeepEqual(got, want) {
				t.Errorf("n=%d k=%d: got %v, want %v", n, k, got, want)
			}
		}
	}
}

// walkOnlyBackend is the local disk without Glob's local fast path: the
// tree is visited through LocalBackend.Walk, as before that path.
type walkOnlyBackend struct{ *LocalBackend }

// TestGlobFastPathAgrees checks that the local walk (types from the
// directory listing, matches stat'ed, patterns matched by name where
// that suffices, directories read in parallel) lists what the generic
// walk lists, in the same order, for patterns of every shape.
func TestGlobFastPathAgrees(t *testing.T) {
	root := buildTree(t, globTree)
	for i := 0; i < 30; i++ {
		p := filepath.Join(root, fmt.Sprintf("gen/d%d/e%d/f%d.go", i%3, i%5, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	patterns := []string{
		"**/*.go", "**/*", "**", "*", "*/*.go", "src/**/*.go", "src/*", "src/**", "**/*.{ts,tsx}",
		".git/**", "**/config", "**/.env", "**/c.go", "linkdir/*", "linkdir/**/*.go", "**/*.md",
		`weird \[name\].txt`, "**/weird*", "src/[ab]*.go", "**/?.go", "**/deep/**/*.go",
		"gen/**/e1/*.go", "gen/*/e2/*", "**/f1*.go", "nope/**", "main.go", filepath.Join(root, "src", "**", "*.go"),
		"src/../src/**/*.go", "../" + filepath.Base(root) + "/src/**/*.go", "src/./**/*.go", "src//**/*.go",
	}
	for _, pat := range patterns {
		in := map[string]any{"pattern": pat}
		fast := callTool(t, context.Background(), NewGlob(GlobOptions{Cwd: root}), in)
		slow := callTool(t, context.Background(), NewGlob(GlobOptions{Cwd: root, Backend: walkOnlyBackend{&LocalBackend{}}}), in)
		if (fast.err == nil) != (slow.err == nil) || fast.text != slow.text || !reflect.DeepEqual(fast.meta, slow.meta) {
			t.Errorf("%s:\nfast (%v, %v):\n%s\nwalk (%v, %v):\n%s", pat, fast.err, fast.meta, fast.text, slow.err, slow.meta, slow.text)
		}
	}
}
