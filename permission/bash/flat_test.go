package bash

import (
	"context"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
)

// sameTree checks that the flat tree of command answers every question
// the walker asks as go-tree-sitter's Node API does: the C helper
// declares tree-sitter's value types itself, and its cursor walk must
// see the children, fields and byte ranges Node.Child and
// Node.FieldNameForChild see.
func sameTree(t *testing.T, command string) {
	t.Helper()
	src := asciiOnly(command)
	sp := sitter.NewParser()
	sp.SetLanguage(bash.GetLanguage())
	want, err := sp.ParseCtx(context.Background(), nil, src)
	got, hasError, ok := parseFlat(src)
	if err != nil || want == nil {
		if ok {
			t.Fatalf("%q: go-tree-sitter failed (%v), the flat parse did not", command, err)
		}
		return
	}
	defer want.Close()
	if !ok {
		t.Fatalf("%q: the flat parse failed", command)
	}
	if hasError != want.RootNode().HasError() {
		t.Fatalf("%q: has error %v, go-tree-sitter says %v", command, hasError, !hasError)
	}
	if hasError {
		return
	}
	defer got.release()
	var walk func(path string, w *sitter.Node, g *node)
	walk = func(path string, w *sitter.Node, g *node) {
		if g == nil {
			t.Fatalf("%q %s: missing node", command, path)
		}
		if w.Type() != g.Type() || w.IsNamed() != g.IsNamed() || w.StartByte() != g.StartByte() || w.EndByte() != g.EndByte() ||
			w.ChildCount() != g.ChildCount() || w.NamedChildCount() != g.NamedChildCount() ||
			w.Content(src) != string(src[g.StartByte():g.EndByte()]) {
			t.Fatalf("%q %s: flat node %+v, go-tree-sitter %s %v [%d,%d) %d/%d children", command, path, *g,
				w.Type(), w.IsNamed(), w.StartByte(), w.EndByte(), w.ChildCount(), w.NamedChildCount())
		}
		for i := 0; i < int(w.ChildCount()); i++ {
			if w.FieldNameForChild(i) != g.FieldNameForChild(i) {
				t.Fatalf("%q %s: child %d field %q, go-tree-sitter %q", command, path, i, g.FieldNameForChild(i), w.FieldNameForChild(i))
			}
			walk(path+"/"+w.Child(i).Type(), w.Child(i), g.Child(i))
		}
		for i := 0; i < int(w.NamedChildCount()); i++ {
			wn, gn := w.NamedChild(i), g.NamedChild(i)
			if gn == nil || wn.Type() != gn.Type() || wn.StartByte() != gn.StartByte() || wn.EndByte() != gn.EndByte() {
				t.Fatalf("%q %s: named child %d differs", command, path, i)
			}
		}
		if g.Child(int(w.ChildCount())) != nil || g.NamedChild(int(w.NamedChildCount())) != nil {
			t.Fatalf("%q %s: a child past the count", command, path)
		}
	}
	walk(got.root().Type(), want.RootNode(), got.root())
}

func TestFlatTreeMatchesSitter(t *testing.T) {
	cmds := corpusCommands(t)
	cmds = append(cmds, "", "ls", "a=1 b=(x y) env", "cat <<-EOF | sh\n\tx $y\n\tEOF\n", "f() { ls; }",
		strings.Repeat("(", 100)+"ls"+strings.Repeat(")", 100), strings.Repeat("echo a; ", 400))
	for _, c := range cmds {
		sameTree(t, c)
	}
}

// TestParseConcurrent: parsers and flat trees come from pools shared by
// every goroutine (run with -race).
func TestParseConcurrent(t *testing.T) {
	cmds := corpusCommands(t)
	want := make([]*Script, len(cmds))
	for i, c := range cmds {
		want[i] = Parse(c)
	}
	done := make(chan bool)
	for g := range 4 {
		go func() {
			defer func() { done <- true }()
			for i := range cmds {
				j := (i + g*97) % len(cmds)
				if got := Parse(cmds[j]); len(got.Commands) != len(want[j].Commands) || len(got.Unsafe) != len(want[j].Unsafe) {
					t.Errorf("%q parsed differently under concurrency", cmds[j])
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}
