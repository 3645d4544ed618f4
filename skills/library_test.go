package skills

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// writeFile writes text to dir/rel, creating folders.
func writeFile(t testing.TB, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

func names(ss []Skill) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return strings.Join(out, ",")
}

func TestLoadDir(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "pdf/SKILL.md", skillMD("pdf", "PDF files.", "Use pdftotext."))
	writeFile(t, root, "pdf/forms.md", "forms")
	writeFile(t, root, "broken/SKILL.md", "no front matter")
	writeFile(t, root, "nested/deep/SKILL.md", skillMD("deep", "Deep.", ""))
	writeFile(t, root, ".hidden/SKILL.md", skillMD("hidden", "Hidden.", ""))

	lib := NewLibrary(Options{Logger: quietLogger()})
	if err := lib.LoadDir(root, DirOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := names(lib.Skills()); got != "pdf" {
		t.Errorf("skills = %s, want pdf (not nested without Recursive, never hidden)", got)
	}
	broken := lib.Broken()
	if len(broken) != 1 || broken[0].Path != filepath.Join(root, "broken", FileName) || !strings.Contains(broken[0].Err, "no front matter") {
		t.Errorf("broken = %+v", broken)
	}

	if err := lib.LoadDir(root, DirOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	if got := names(lib.Skills()); got != "deep,pdf" {
		t.Errorf("recursive skills = %s, want deep,pdf", got)
	}

	// A folder that is itself a skill.
	one := NewLibrary(Options{Logger: quietLogger()})
	if err := one.LoadDir(filepath.Join(root, "pdf"), DirOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := names(one.Skills()); got != "pdf" {
		t.Errorf("single-skill folder = %s", got)
	}
}

func TestLoadDirKeepsLastGoodVersion(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "pdf/SKILL.md", skillMD("pdf", "v1", "one"))
	lib := NewLibrary(Options{Logger: quietLogger()})
	mustLoad := func() {
		t.Helper()
		if err := lib.LoadDir(root, DirOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mustLoad()
	writeFile(t, root, "pdf/SKILL.md", "---\nname: pdf\n---\n") // description lost mid-edit
	mustLoad()
	if s, ok := lib.Skill("pdf"); !ok || s.Description != "v1" {
		t.Fatalf("after a broken edit: %+v %v, want v1 still serving", s, ok)
	}
	if b := lib.Broken(); len(b) != 1 || b[0].Serving != "pdf" {
		t.Errorf("broken = %+v, want one record saying pdf still serves", b)
	}
	writeFile(t, root, "pdf/SKILL.md", skillMD("portable-doc", "v2", "two")) // fixed and renamed
	mustLoad()
	if got := names(lib.Skills()); got != "portable-doc" || len(lib.Broken()) != 0 {
		t.Errorf("after rename: skills %s, broken %+v", got, lib.Broken())
	}
	if err := os.RemoveAll(filepath.Join(root, "pdf")); err != nil {
		t.Fatal(err)
	}
	mustLoad()
	if got := names(lib.Skills()); got != "" {
		t.Errorf("after delete: %s", got)
	}
}

func TestLoadDirLayers(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // path below the test's folder -> SKILL.md text
		load  []string          // roots, in load order (a root may repeat)
		// want: description of x that serves, the overrides as
		// "dir>shadowed" (folders relative to the test's folder) and the
		// broken SKILL.md files, relative too.
		want      string
		overrides []string
		broken    []string
	}{
		{
			name:      "later root overrides",
			files:     map[string]string{"a/x": "from a", "b/x": "from b"},
			load:      []string{"a", "b"},
			want:      "from b",
			overrides: []string{"b/x>a/x"},
		},
		{
			name:      "reloading an earlier root keeps its place",
			files:     map[string]string{"a/x": "from a", "b/x": "from b"},
			load:      []string{"a", "b", "a", "a"},
			want:      "from b",
			overrides: []string{"b/x>a/x"},
		},
		{
			name:      "order is the order given",
			files:     map[string]string{"a/x": "from a", "b/x": "from b"},
			load:      []string{"b", "a"},
			want:      "from a",
			overrides: []string{"a/x>b/x"},
		},
		{
			name:      "three roots, nearest shadowed first",
			files:     map[string]string{"a/x": "from a", "b/x": "from b", "c/x": "from c"},
			load:      []string{"a", "b", "c"},
			want:      "from c",
			overrides: []string{"c/x>b/x", "c/x>a/x"},
		},
		{
			name:      "root without the name leaves the earlier one serving",
			files:     map[string]string{"a/x": "from a", "b/y": "other"},
			load:      []string{"a", "b"},
			want:      "from a",
			overrides: nil,
		},
		{
			name:      "two of one name in one root conflict, the root still overrides",
			files:     map[string]string{"a/x": "from a", "b/x1": "from b/x1", "b/x2": "from b/x2"},
			load:      []string{"a", "b"},
			want:      "from b/x1",
			overrides: []string{"b/x1>a/x"},
			broken:    []string{"b/x2/SKILL.md"},
		},
		{
			name:      "a root inside another is no override",
			files:     map[string]string{"a/team/x": "nested"},
			load:      []string{"a", "a/team"},
			want:      "nested",
			overrides: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, desc := range tt.files {
				// A skill's name is its folder's, without digits: b/x1 and
				// b/x2 are both x.
				name := strings.TrimRight(path.Base(rel), "0123456789")
				writeFile(t, dir, rel+"/SKILL.md", skillMD(name, desc, ""))
			}
			lib := NewLibrary(Options{Logger: quietLogger()})
			for _, root := range tt.load {
				if err := lib.LoadDir(filepath.Join(dir, root), DirOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if s, _ := lib.Skill("x"); s.Description != tt.want {
				t.Errorf("x = %q, want %q", s.Description, tt.want)
			}
			rel := func(p string) string {
				r, err := filepath.Rel(dir, p)
				if err != nil {
					t.Fatal(err)
				}
				return filepath.ToSlash(r)
			}
			var overrides []string
			for _, o := range lib.Overridden() {
				if o.Name != "x" {
					t.Errorf("override of %q, want only x", o.Name)
				}
				overrides = append(overrides, rel(o.Dir)+">"+rel(o.Shadowed))
			}
			if strings.Join(overrides, " ") != strings.Join(tt.overrides, " ") {
				t.Errorf("overrides = %q, want %q", overrides, tt.overrides)
			}
			var broken []string
			for _, b := range lib.Broken() {
				broken = append(broken, rel(b.Path))
				if !strings.Contains(b.Err, "same skills folder") {
					t.Errorf("broken %s: %q, want it to name the conflict in one folder", b.Path, b.Err)
				}
			}
			if strings.Join(broken, " ") != strings.Join(tt.broken, " ") {
				t.Errorf("broken = %q, want %q", broken, tt.broken)
			}
		})
	}
}

func TestLayersChangeAndMemory(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeFile(t, a, "x/SKILL.md", skillMD("x", "from a", ""))
	writeFile(t, b, "x/SKILL.md", skillMD("x", "from b", ""))
	changes := 0
	lib := NewLibrary(Options{Logger: quietLogger(), OnChange: func() { changes++ }})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	description := func() string { s, _ := lib.Skill("x"); return s.Description }
	must(lib.LoadDir(a, DirOptions{}))
	must(lib.LoadDir(b, DirOptions{}))

	// An edit of the shadowed skill changes nothing a reader sees.
	before := changes
	writeFile(t, a, "x/SKILL.md", skillMD("x", "from a, edited", ""))
	must(lib.LoadDir(a, DirOptions{}))
	if description() != "from b" || changes != before {
		t.Errorf("after editing the shadowed skill: x = %q, %d change(s); want from b, none", description(), changes-before)
	}

	// An in-memory skill overrides every folder.
	must(lib.Add(Skill{Name: "x", Description: "in memory"}))
	if o := lib.Overridden(); description() != "in memory" || len(o) != 2 || o[0].Dir != "" || o[0].Shadowed != filepath.Join(b, "x") {
		t.Errorf("after Add: x = %q, overrides %+v", description(), o)
	}

	// Remove takes the name out of every layer; a reload of a folder
	// brings its own back.
	if !lib.Remove("x") {
		t.Error("Remove(x) = false, want true")
	}
	if _, ok := lib.Skill("x"); ok || len(lib.Overridden()) != 0 {
		t.Errorf("after Remove: %v, overrides %+v", names(lib.Skills()), lib.Overridden())
	}
	must(lib.LoadDir(a, DirOptions{}))
	if description() != "from a, edited" {
		t.Errorf("after reloading a: x = %q", description())
	}
	must(lib.LoadDir(b, DirOptions{}))
	if description() != "from b" {
		t.Errorf("after reloading b: x = %q", description())
	}

	// The winner's folder goes: the earlier root's skill serves again.
	must(os.RemoveAll(filepath.Join(b, "x")))
	must(lib.LoadDir(b, DirOptions{}))
	if description() != "from a, edited" || len(lib.Overridden()) != 0 {
		t.Errorf("after removing b/x: x = %q, overrides %+v", description(), lib.Overridden())
	}
}

func TestViewer(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeFile(t, outside, "secret.txt", "top secret")
	writeFile(t, root, "pdf/SKILL.md", "---\nname: pdf\ndescription: PDF files.\nmetadata:\n  tool-group: pdftools\n---\nRead forms.md.\n")
	writeFile(t, root, "pdf/forms.md", "fill the form")
	writeFile(t, root, "pdf/scripts/fill.py", "print(1)")
	writeFile(t, root, "internal/SKILL.md", skillMD("internal", "Only with admin tools.", "admin body"))
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "pdf", "leak.txt")); err != nil {
		t.Fatal(err)
	}

	tk := toolkit.New(toolkit.Options{Logger: quietLogger()})
	for _, g := range []toolkit.Group{
		{Name: "pdftools", Description: "PDF tools.", Instructions: "Prefer fill_form."},
		{Name: "admin", Description: "Admin tools."},
	} {
		if err := tk.AddGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	lib := NewLibrary(Options{Logger: quietLogger()})
	if _, err := Attach(tk, lib); err != nil {
		t.Fatal(err)
	}
	if _, ok := tk.Tool(ViewerName); ok {
		t.Fatal("viewer registered with no skills")
	}
	if err := lib.LoadDir(root, DirOptions{}); err != nil {
		t.Fatal(err)
	}
	// The admin-only skill: reload the internal folder into group admin.
	lib.Remove("internal")
	if err := lib.Add(Skill{Name: "internal", Description: "Only with admin tools.", Body: "admin body", Group: "admin",
		Files: map[string]string{"notes/a.md": "note a"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := tk.Tool(ViewerName); !ok {
		t.Fatal("viewer not registered once skills exist")
	}

	tests := []struct {
		name      string
		args      map[string]any
		wantError bool
		want      string
	}{
		{"body", map[string]any{"skill": "pdf"}, false, "Read forms.md."},
		{"resource", map[string]any{"skill": "pdf", "path": "forms.md"}, false, "fill the form"},
		{"nested resource", map[string]any{"skill": "pdf", "path": "scripts/fill.py"}, false, "print(1)"},
		{"unknown skill", map[string]any{"skill": "nope"}, true, "available skills: pdf"},
		{"invisible skill", map[string]any{"skill": "internal"}, true, "available skills: pdf"},
		{"unknown path lists SKILL.md first", map[string]any{"skill": "pdf", "path": "x.md"}, true, "its files: SKILL.md, forms.md, scripts/fill.py"},
		{"dot-dot", map[string]any{"skill": "pdf", "path": "../internal/SKILL.md"}, true, `must not contain ".."`},
		{"absolute", map[string]any{"skill": "pdf", "path": filepath.Join(outside, "secret.txt")}, true, "must be relative"},
		{"symlink out", map[string]any{"skill": "pdf", "path": "leak.txt"}, true, "outside"},
		{"missing skill field", map[string]any{"path": "x"}, true, "skill"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := toolkittest.Call(t, tk, "s1", ViewerName, tt.args)
			if r.IsError() != tt.wantError || !strings.Contains(r.Text(), tt.want) {
				t.Errorf("%v: state %s, text %q; want error=%v containing %q", tt.args, r.State, r.Text(), tt.wantError, tt.want)
			}
			if strings.Contains(r.Text(), "top secret") {
				t.Errorf("file outside the skill leaked: %q", r.Text())
			}
		})
	}

	// Reading pdf activated its bound group for s1 only.
	if got, _ := tk.ActiveGroups(context.Background(), "s1"); strings.Join(got, ",") != "pdftools" {
		t.Errorf("s1 active groups = %v, want pdftools", got)
	}
	if r := toolkittest.Call(t, tk, "s1", ViewerName, map[string]any{"skill": "pdf"}); strings.Contains(r.Text(), "now active") {
		t.Errorf("second read announced the activation again: %q", r.Text())
	}
	if got, _ := tk.ActiveGroups(context.Background(), "s2"); len(got) != 0 {
		t.Errorf("s2 active groups = %v, want none", got)
	}
	first := toolkittest.Call(t, tk, "s3", ViewerName, map[string]any{"skill": "pdf"})
	if !strings.Contains(first.Text(), `Tool group "pdftools" is now active`) || !strings.Contains(first.Text(), "Prefer fill_form.") {
		t.Errorf("first read did not announce the group: %q", first.Text())
	}

	// Activating admin makes the in-memory skill and its files visible.
	if r := toolkittest.Call(t, tk, "s1", toolkit.ResetToolsName, map[string]any{"admin": true}); r.IsError() {
		t.Fatal(r.Text())
	}
	if r := toolkittest.Call(t, tk, "s1", ViewerName, map[string]any{"skill": "internal", "path": "notes/a.md"}); r.IsError() || r.Text() != "note a" {
		t.Errorf("in-memory file: %s %q", r.State, r.Text())
	}

	// An edit shows on the next call, without any reload.
	writeFile(t, root, "pdf/SKILL.md", "---\nname: pdf\ndescription: PDF files.\n---\nEdited.\n")
	if r := toolkittest.Call(t, tk, "s2", ViewerName, map[string]any{"skill": "pdf"}); !strings.HasPrefix(r.Text(), "Edited.\n") {
		t.Errorf("after edit: %q", r.Text())
	}

	// The viewer goes away with the last skill.
	lib.Remove("pdf")
	lib.Remove("internal")
	if _, ok := tk.Tool(ViewerName); ok {
		t.Error("viewer still registered with no skills")
	}
}

func TestViewerAllowedInEveryMode(t *testing.T) {
	lib := NewLibrary(Options{Logger: quietLogger()})
	_ = lib.Add(Skill{Name: "a", Description: "A.", Body: "body"})
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeExplore, permission.ModeDontAsk,
		permission.ModeAcceptEdits, permission.ModeBypass} {
		t.Run(string(mode), func(t *testing.T) {
			tk := toolkit.New(toolkit.Options{Logger: quietLogger(), Permission: permission.Context{Mode: mode}})
			if _, err := Attach(tk, lib); err != nil {
				t.Fatal(err)
			}
			if r := toolkittest.Call(t, tk, "s", ViewerName, map[string]any{"skill": "a"}); r.IsError() || r.Text() != "body" {
				t.Errorf("mode %s: %s %q", mode, r.State, r.Text())
			}
		})
	}
}

func TestPrompt(t *testing.T) {
	if Prompt(nil) != "" {
		t.Error("Prompt(nil) is not empty")
	}
	p := Prompt([]Skill{{Name: "pdf", Description: "PDF\n  files.", Dir: "/skills/pdf"}, {Name: "mem", Description: "In memory."}})
	for _, want := range []string{"not tools", "Skill tool", "- **pdf**: PDF files. (folder: /skills/pdf)\n", "- **mem**: In memory.\n"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}

// TestViewerFailsClosed pins the ways a file outside a skill could be
// served after loading: the skill folder or its SKILL.md swapped for a
// link, and special files that would block the call.
func TestViewerFailsClosed(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeFile(t, root, "foo/SKILL.md", skillMD("foo", "Foo.", "inside"))
	writeFile(t, outside, "SKILL.md", skillMD("foo", "Foo.", "OUTSIDE"))
	writeFile(t, outside, "id_rsa", "SECRET KEY")
	lib := NewLibrary(Options{Logger: quietLogger()})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(lib.LoadDir(root, DirOptions{}))
	v := NewViewer(lib, nil)
	ctx := context.Background()

	must(syscall.Mkfifo(filepath.Join(root, "foo", "pipe"), 0o644))
	done := make(chan error, 1)
	go func() { _, err := v.Read(ctx, "foo", "pipe"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked the viewer")
	}

	// SKILL.md replaced by a link to a file outside that parses.
	skillFile := filepath.Join(root, "foo", FileName)
	must(os.Remove(skillFile))
	must(os.Symlink(filepath.Join(outside, FileName), skillFile))
	if text, err := v.Read(ctx, "foo", ""); err != nil || strings.Contains(text, "OUTSIDE") {
		t.Errorf("linked SKILL.md: %q %v, want the last good version", text, err)
	}

	// The whole skill folder swapped for a link.
	must(os.RemoveAll(filepath.Join(root, "foo")))
	must(os.Symlink(outside, filepath.Join(root, "foo")))
	if text, err := v.Read(ctx, "foo", "id_rsa"); err == nil || strings.Contains(text, "SECRET") {
		t.Errorf("linked skill folder: %q %v", text, err)
	}
	if text, _ := v.Read(ctx, "foo", ""); strings.Contains(text, "OUTSIDE") {
		t.Errorf("linked skill folder served its SKILL.md: %q", text)
	}
}

func TestLoadDirSymlinkedRootAndDuplicates(t *testing.T) {
	real, links := t.TempDir(), t.TempDir()
	writeFile(t, real, "a/SKILL.md", skillMD("same", "from a", ""))
	writeFile(t, real, "b/SKILL.md", skillMD("same", "from b", ""))
	link := filepath.Join(links, "skills")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	lib := NewLibrary(Options{Logger: quietLogger()})
	if err := lib.LoadDir(link, DirOptions{}); err != nil {
		t.Fatal(err)
	}
	if s, ok := lib.Skill("same"); !ok || s.Description != "from a" {
		t.Errorf("symlinked root: %+v %v, want the skill from a", s, ok)
	}
	if b := lib.Broken(); len(b) != 1 || !strings.Contains(b[0].Err, "already used") || !strings.Contains(b[0].Path, filepath.Join("b", FileName)) {
		t.Errorf("duplicate name in one folder: broken = %+v", b)
	}
}

// TestViewerReadsAsRead: a file of a skill's folder is judged as Read
// would judge it: a sensitive file is not read-only (denied in explore,
// asked elsewhere) and Read's deny rules apply.
func TestViewerReadsAsRead(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "ops/SKILL.md", skillMD("ops", "Ops.", "See notes."))
	writeFile(t, root, "ops/.env", "API_KEY=hunter2")
	writeFile(t, root, "ops/notes/private.md", "private notes")
	writeFile(t, root, "ops/notes/public.md", "public notes")
	lib := NewLibrary(Options{Logger: quietLogger()})
	if err := lib.LoadDir(root, DirOptions{}); err != nil {
		t.Fatal(err)
	}
	deny := permission.MustParseRule("Read(" + filepath.Join(root, "ops", "notes", "private.md") + ")")
	tests := []struct {
		mode    permission.Mode
		deny    []permission.Rule
		path    string
		allowed bool
	}{
		{permission.ModeExplore, nil, "notes/public.md", true},
		{permission.ModeExplore, nil, "SKILL.md", true},
		{permission.ModeExplore, nil, ".env", false},
		{permission.ModeDefault, nil, ".env", false}, // asked; no one answers
		{permission.ModeDefault, []permission.Rule{deny}, "notes/private.md", false},
		{permission.ModeBypass, []permission.Rule{deny}, "notes/private.md", false},
		{permission.ModeDefault, []permission.Rule{deny}, "notes/public.md", true},
	}
	for _, tt := range tests {
		tk := toolkit.New(toolkit.Options{Logger: quietLogger(), Permission: permission.Context{Mode: tt.mode, Deny: tt.deny}})
		if _, err := Attach(tk, lib); err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(map[string]any{"skill": "ops", "path": tt.path})
		d, err := tk.Check(context.Background(), "s", toolkit.Call{Name: ViewerName, Arguments: string(args)}, toolkit.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if allowed := d.Behavior == permission.Allow; allowed != tt.allowed {
			t.Errorf("%s, deny %v, %s: %s (%s), want allowed %v", tt.mode, tt.deny, tt.path, d.Behavior, d.Message, tt.allowed)
		}
	}
	// Denied in explore, the call returns nothing of the file.
	tk := toolkit.New(toolkit.Options{Logger: quietLogger(), Permission: permission.Context{Mode: permission.ModeExplore}})
	if _, err := Attach(tk, lib); err != nil {
		t.Fatal(err)
	}
	if r := toolkittest.Call(t, tk, "s", ViewerName, map[string]any{"skill": "ops", "path": ".env"}); !r.IsError() || strings.Contains(r.Text(), "hunter2") {
		t.Errorf("explore, .env: %s %q", r.State, r.Text())
	}
}

// TestViewerActivatesOnlyWhereTheModelMay: with reset_tools off, only the
// program activates groups; a skill bound to a group does not.
func TestViewerActivatesOnlyWhereTheModelMay(t *testing.T) {
	lib := NewLibrary(Options{Logger: quietLogger()})
	if err := lib.Add(Skill{Name: "deploy", Description: "Deploys.", Body: "body", Activates: "prod"}); err != nil {
		t.Fatal(err)
	}
	tk := toolkit.New(toolkit.Options{Logger: quietLogger(), NoResetTools: true})
	if err := tk.AddGroup(toolkit.Group{Name: "prod", Description: "Production tools."}); err != nil {
		t.Fatal(err)
	}
	if _, err := Attach(tk, lib); err != nil {
		t.Fatal(err)
	}
	r := toolkittest.Call(t, tk, "s", ViewerName, map[string]any{"skill": "deploy"})
	if r.IsError() || !strings.Contains(r.Text(), "only the program activates tool groups") {
		t.Errorf("%s %q", r.State, r.Text())
	}
	if got, _ := tk.ActiveGroups(context.Background(), "s"); len(got) != 0 {
		t.Errorf("active groups %v, want none", got)
	}
}
