package host

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/toolkit"
)

// namedModule is a module serving tools (name: input_schema) whose calls
// answer with who, so that a test sees which module served a call.
func namedModule(who string, tools ...string) []byte {
	var specs []string
	for _, t := range tools {
		name, schema, ok := strings.Cut(t, ":")
		if !ok {
			schema = `{"type":"object"}`
		}
		specs = append(specs, fmt.Sprintf(`{"name":%q,"description":"A tool of %s.","input_schema":%s}`, name, who, schema))
	}
	schema := `{"abi":1,"name":"` + who + `","version":"1.0.0","tools":[` + strings.Join(specs, ",") + `]}`
	return pluginModule(schema, func(m *built) []byte {
		return code(m.output(`{"content":[{"type":"text","text":"`+who+`"}]}`), i32c(0))
	}).bytes()
}

// serves returns who served a call of tool, or "" when it is not served.
func serves(t *testing.T, tk *toolkit.Toolkit, tool string) string {
	t.Helper()
	if _, ok := tk.Tool(tool); !ok {
		return ""
	}
	r, _ := call(t, tk, tool, `{}`)
	if r.State != toolkit.StateSuccess {
		return "ERROR: " + r.Text()
	}
	return r.Text()
}

func writeModule(t *testing.T, path string, wasm []byte) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	writeAtomic(t, path, wasm)
}

// TestFolderRefusedTools: a module with a tool the toolkit would refuse,
// or that cannot have one of its names, serves nothing and is reported
// failed with the reason (it used to load, and the tool vanished
// silently at registration); Inspect says it is not loadable, and why.
func TestFolderRefusedTools(t *testing.T) {
	h := newTestHost(t)
	ctx := context.Background()
	dir := t.TempDir()
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	builtin, err := toolkit.NewFunc("Bash", "The built-in.", func(context.Context, struct{}) (string, error) { return "built-in", nil }, toolkit.FuncOptions{})
	must(t, err)
	must(t, tk.Register(builtin))

	modules := map[string]struct {
		wasm []byte
		want string // the reason it fails; "" = serves
	}{
		"badschema.wasm": {namedModule("badschema", "bs", `bad:{"type":"object","properties":{"x":{"type":"nonsense"}}}`), "input_schema is not a valid JSON Schema"},
		"deep.wasm":      {namedModule("deep", "deep:"+nestedSchema(40)), "nests 81 levels deep, more than the 64 allowed"},
		"reset.wasm":     {namedModule("reset", "reset_tools"), "reserved for the host's tool-group meta tool"},
		"reset2.wasm":    {namedModule("reset2", "Reset_Tools"), "reserved"},
		"bash.wasm":      {namedModule("bash", "bash", "other"), "tool bash differs only by case from Bash, which another source registered"},
		"builtin.wasm":   {namedModule("builtin", "Bash"), "tool Bash is already registered by another source"},
		"dupcase.wasm":   {namedModule("dupcase", "foo", "FOO"), `tools "foo" and "FOO" differ only by case`},
		"a.wasm":         {namedModule("a", "shared", "a_only"), ""},
		"b.wasm":         {namedModule("b", "SHARED", "b_only"), "tool SHARED is served by a.wasm, which comes first in the folder"},
		"good.wasm":      {namedModule("good", "good"), ""},
	}
	for name, m := range modules {
		writeModule(t, filepath.Join(dir, name), m.wasm)
	}
	var rec recorder
	f, err := h.OpenFolder(ctx, tk, dir, FolderOptions{OnEvent: rec.add})
	must(t, err)
	t.Cleanup(func() { f.Close(ctx) })
	failed := f.Failed()
	for name, m := range modules {
		msg, isFailed := failed[filepath.Join(dir, name)]
		if m.want == "" {
			if isFailed {
				t.Errorf("%s failed: %s", name, msg)
			}
			continue
		}
		t.Logf("%s: %s", name, msg)
		if !strings.Contains(msg, m.want) {
			t.Errorf("%s: failure %q, want %q", name, msg, m.want)
		}
		// Inspect, told the toolkit's tools, says it is not loadable, and
		// why (a name clash between two files is the folder's to tell).
		if name == "b.wasm" {
			continue
		}
		r, err := h.Inspect(ctx, filepath.Join(dir, name), Config{}, AgainstToolkit(tk))
		if err != nil || r.Loadable || !strings.Contains(r.Problem, m.want) {
			t.Errorf("inspect %s: loadable %v, problem %q, %v", name, r.Loadable, r.Problem, err)
		}
	}
	events := rec.take()
	slices.Sort(events)
	if len(events) != len(modules) || strings.Count(strings.Join(events, ","), "failed") != len(modules)-2 {
		t.Errorf("events: %q", events)
	}
	var names []string
	for _, ti := range tk.Tools() {
		names = append(names, ti.Spec.Name)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "Bash,a_only,good,shared" {
		t.Errorf("tools served: %v", names)
	}
	if got := serves(t, tk, "Bash"); got != "built-in" {
		t.Errorf("Bash: %q", got)
	}
}

// TestFolderPrecedence: when two module files offer one tool name (or
// names differing by case), the one first in the folder's order serves
// it, whichever was there first, so that a live folder shows what a
// restart gives: files directly in the folder before those of its
// sub-folders, each by name.
func TestFolderPrecedence(t *testing.T) {
	h := newTestHost(t)
	ctx := context.Background()
	dir := t.TempDir()
	writeAtomic(t, filepath.Join(dir, "ops", GroupFileName), []byte("description: Ops.\nactive: true\n"))
	writeModule(t, filepath.Join(dir, "b.wasm"), namedModule("b", "x", "b_only"))
	writeModule(t, filepath.Join(dir, "ops", "a.wasm"), namedModule("ops/a", "Y"))
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	var rec recorder
	f, err := h.OpenFolder(ctx, tk, dir, FolderOptions{OnEvent: rec.add})
	must(t, err)
	t.Cleanup(func() { f.Close(ctx) })
	if got := serves(t, tk, "x"); got != "b" {
		t.Fatalf("x: %q", got)
	}
	rec.take()

	state := func(tk *toolkit.Toolkit, f *Folder) string {
		var out []string
		for _, tool := range []string{"x", "X", "b_only", "y", "Y"} {
			out = append(out, tool+"="+serves(t, tk, tool))
		}
		for _, p := range slices.Sorted(maps.Keys(f.Failed())) {
			out = append(out, "failed "+f.relName(p))
		}
		return strings.Join(out, " ")
	}

	// a.wasm comes before b.wasm: it takes x, and b (all of it) fails.
	writeModule(t, filepath.Join(dir, "a.wasm"), namedModule("a", "X"))
	// z.wasm is in the folder itself: it comes before ops/a.wasm.
	writeModule(t, filepath.Join(dir, "z.wasm"), namedModule("z", "y"))
	f.Sync(ctx)
	want := "x= X=a b_only= y=z Y= failed b.wasm failed ops/a.wasm"
	if got := state(tk, f); got != want {
		t.Errorf("live:    %s\nwant:    %s", got, want)
	}
	if msg := f.Failed()[filepath.Join(dir, "b.wasm")]; !strings.Contains(msg, "tool x is served by a.wasm, which comes first") {
		t.Errorf("b.wasm: %q", msg)
	}
	if ev := rec.take(); !slices.Contains(ev, "loaded a.wasm") || !slices.Contains(ev, "failed b.wasm") || !slices.Contains(ev, "failed a.wasm") {
		t.Errorf("events: %q", ev)
	}

	// A restart (a new folder on a new toolkit) gives the same.
	tk2 := toolkit.New(toolkit.Options{Permission: bypass})
	f2, err := h.OpenFolder(ctx, tk2, dir, FolderOptions{})
	must(t, err)
	if got := state(tk2, f2); got != want {
		t.Errorf("restart: %s\nwant:    %s", got, want)
	}
	f2.Close(ctx)

	// Without a.wasm and z.wasm, b.wasm and ops/a.wasm serve again.
	must(t, os.Remove(filepath.Join(dir, "a.wasm")))
	must(t, os.Remove(filepath.Join(dir, "z.wasm")))
	f.Sync(ctx)
	if got, want := state(tk, f), "x=b X= b_only=b y= Y=ops/a"; got != want {
		t.Errorf("after removal: %s\nwant:          %s", got, want)
	}
}

// TestFoldersPrecedence: across the folders of one host, the folder whose
// path comes first serves a contested name, whichever was opened first;
// the other folder's module fails, and serves again once the name is
// free.
func TestFoldersPrecedence(t *testing.T) {
	h := newTestHost(t)
	ctx := context.Background()
	first, second := t.TempDir(), t.TempDir()
	if first > second {
		first, second = second, first
	}
	writeModule(t, filepath.Join(first, "m.wasm"), namedModule("first", "x"))
	writeModule(t, filepath.Join(second, "m.wasm"), namedModule("second", "x", "only_second"))
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	f2, err := h.OpenFolder(ctx, tk, second, FolderOptions{})
	must(t, err)
	t.Cleanup(func() { f2.Close(ctx) })
	if got := serves(t, tk, "x"); got != "second" {
		t.Fatalf("x: %q", got)
	}
	f1, err := h.OpenFolder(ctx, tk, first, FolderOptions{})
	must(t, err)
	if got := serves(t, tk, "x"); got != "first" {
		t.Errorf("x with both folders open: %q", got)
	}
	if got := serves(t, tk, "only_second"); got != "" {
		t.Errorf("only_second still served by the module that lost x: %q", got)
	}
	if msg := f2.Failed()[filepath.Join(second, "m.wasm")]; !strings.Contains(msg, "served by "+filepath.Join(first, "m.wasm")+", which comes first") {
		t.Errorf("second/m.wasm: %q", msg)
	}
	must(t, f1.Close(ctx))
	if got := serves(t, tk, "x") + "," + serves(t, tk, "only_second"); got != "second,second" {
		t.Errorf("after the first folder closed: %q", got)
	}
	if len(f2.Failed()) != 0 {
		t.Errorf("failed: %v", f2.Failed())
	}
}
