package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// fileKit is a toolkit with Read, Write and Edit in bypass mode, so the
// tests exercise the tools themselves; permission tests use Check.
type fileKit struct {
	t      *testing.T
	tk     *toolkit.Toolkit
	accept []string
}

func newFileKit(t *testing.T, mode permission.Mode, workdirs ...string) *fileKit {
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: mode, WorkingDirs: workdirs}})
	for _, tool := range []toolkit.Tool{NewRead(FileOptions{}), NewWrite(FileOptions{}), NewEdit(FileOptions{})} {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	return &fileKit{t: t, tk: tk}
}

func (k *fileKit) call(name string, input map[string]any) *toolkit.Response {
	k.t.Helper()
	res, err := toolkittest.Run(context.Background(), k.tk, "s", name, input, toolkit.TurnOptions{Accept: k.accept})
	if err != nil {
		k.t.Fatal(err)
	}
	out := res.Outcome
	if out.Status != toolkit.StatusDone {
		k.t.Fatalf("%s: status %s (%+v)", name, out.Status, out.Confirmation)
	}
	return out.Response
}

func writeFile(t *testing.T, path string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	k := newFileKit(t, permission.ModeBypass)
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	writeFile(t, filepath.Join(dir, "crlf.txt"), "one\r\ntwo\r\n")
	writeFile(t, filepath.Join(dir, "empty.txt"), "")
	writeFile(t, filepath.Join(dir, "long.txt"), strings.Repeat("x", 2500)+"\n")
	writeFile(t, filepath.Join(dir, "bin"), "\x00\x01\x02binary")
	var many strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	writeFile(t, filepath.Join(dir, "many.txt"), many.String())
	tests := []struct {
		name  string
		input map[string]any
		state toolkit.State
		want  []string
		not   []string
	}{
		{"numbered", map[string]any{"file_path": dir + "/a.txt"}, toolkit.StateSuccess, []string{"     1\tone\n     2\ttwo\n     3\tthree\n"}, nil},
		{"offset and limit", map[string]any{"file_path": dir + "/a.txt", "offset": 2, "limit": 1}, toolkit.StateSuccess, []string{"     2\ttwo\n", "offset 3"}, []string{"one", "three"}},
		{"crlf", map[string]any{"file_path": dir + "/crlf.txt"}, toolkit.StateSuccess, []string{"     1\tone\n     2\ttwo\n"}, []string{"\r"}},
		{"empty", map[string]any{"file_path": dir + "/empty.txt"}, toolkit.StateSuccess, nil, []string{"1"}},
		{"offset past end", map[string]any{"file_path": dir + "/a.txt", "offset": 10}, toolkit.StateSuccess, nil, []string{"one"}},
		{"long line cut", map[string]any{"file_path": dir + "/long.txt"}, toolkit.StateSuccess, []string{"[line cut: 2500 characters]"}, []string{strings.Repeat("x", 2001)}},
		{"default limit", map[string]any{"file_path": dir + "/many.txt"}, toolkit.StateSuccess, []string{"  2000\tline 2000\n", "500 more lines", "offset 2001"}, []string{"line 2001\n"}},
		{"binary", map[string]any{"file_path": dir + "/bin"}, toolkit.StateSuccess, []string{"binary file"}, nil},
		{"relative path", map[string]any{"file_path": "a.txt"}, toolkit.StateError, []string{"absolute"}, nil},
		{"missing", map[string]any{"file_path": dir + "/nope"}, toolkit.StateError, []string{"cannot read"}, nil},
		{"directory", map[string]any{"file_path": dir}, toolkit.StateError, []string{"is a directory"}, nil},
	}
	for _, tt := range tests {
		r := k.call("Read", tt.input)
		if r.State != tt.state {
			t.Errorf("%s: state %s, want %s (%q)", tt.name, r.State, tt.state, r.Text())
		}
		for _, w := range tt.want {
			if !strings.Contains(r.Text(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, r.Text(), w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(r.Text(), w) {
				t.Errorf("%s: %q has %q", tt.name, r.Text(), w)
			}
		}
	}
}

// pngBytes is a 1x1 PNG.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

func TestReadImage(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "dot.png"), string(pngBytes))
	k := newFileKit(t, permission.ModeBypass)
	r := k.call("Read", map[string]any{"file_path": dir + "/dot.png"})
	if len(r.Content) != 1 || r.Content[0].Type != toolkit.BlockText || !strings.Contains(r.Text(), "does not accept images") {
		t.Errorf("image to a text-only client: %+v", r.Content)
	}
	k.accept = []string{"image/png"}
	r = k.call("Read", map[string]any{"file_path": dir + "/dot.png"})
	if len(r.Content) != 1 || r.Content[0].Type != toolkit.BlockData || r.Content[0].MediaType != "image/png" || !bytes.Equal(r.Content[0].Data, pngBytes) {
		t.Errorf("image to an image client: %+v", r.Content)
	}
}

// makePDF writes a minimal PDF whose page i reads "Page i".
func makePDF(pages int) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(s string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), s)
	}
	b.WriteString("%PDF-1.4\n")
	kids := ""
	for i := range pages {
		kids += fmt.Sprintf("%d 0 R ", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, pages))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i := 1; i <= pages; i++ {
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (Page %d) Tj ET", i)
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*(i-1)))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

func TestReadPDF(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "short.pdf"), string(makePDF(3)))
	writeFile(t, filepath.Join(dir, "long.pdf"), string(makePDF(25)))
	k := newFileKit(t, permission.ModeBypass)
	tests := []struct {
		name   string
		input  map[string]any
		accept []string
		state  toolkit.State
		want   []string
		not    []string
	}{
		{"text", map[string]any{"file_path": dir + "/short.pdf"}, nil, toolkit.StateSuccess, []string{"3 pages", "Page 1", "Page 3"}, nil},
		{"range", map[string]any{"file_path": dir + "/long.pdf", "pages": "12-13"}, nil, toolkit.StateSuccess, []string{"Page 12", "Page 13"}, []string{"Page 11", "Page 14"}},
		{"long needs a range", map[string]any{"file_path": dir + "/long.pdf"}, nil, toolkit.StateError, []string{"25 pages", "page range"}, nil},
		{"at most 20 pages", map[string]any{"file_path": dir + "/long.pdf", "pages": "1-21"}, nil, toolkit.StateError, []string{"at most 20"}, nil},
		{"bad range", map[string]any{"file_path": dir + "/long.pdf", "pages": "x"}, nil, toolkit.StateError, []string{"range like"}, nil},
	}
	for _, tt := range tests {
		k.accept = tt.accept
		r := k.call("Read", tt.input)
		if r.State != tt.state {
			t.Errorf("%s: state %s, want %s (%q)", tt.name, r.State, tt.state, r.Text())
		}
		for _, w := range tt.want {
			if !strings.Contains(r.Text(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, r.Text(), w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(r.Text(), w) {
				t.Errorf("%s: %q has %q", tt.name, r.Text(), w)
			}
		}
	}
	k.accept = []string{"application/pdf"}
	r := k.call("Read", map[string]any{"file_path": dir + "/short.pdf"})
	if len(r.Content) != 1 || r.Content[0].MediaType != "application/pdf" {
		t.Errorf("PDF to a PDF client: %+v", r.Content)
	}
}

func TestWriteAndEdit(t *testing.T) {
	dir := t.TempDir()
	k := newFileKit(t, permission.ModeBypass)
	p := filepath.Join(dir, "new", "deep", "f.txt")

	// Creating needs no Read; parents are created.
	r := k.call("Write", map[string]any{"file_path": p, "content": "alpha\nbeta\n"})
	if r.State != toolkit.StateSuccess || !strings.Contains(r.Text(), "Created") || r.Metadata["lines"] != 2 {
		t.Fatalf("create: %s %q %v", r.State, r.Text(), r.Metadata)
	}
	// Our own write counts as read: consecutive edits need no Read.
	r = k.call("Edit", map[string]any{"file_path": p, "old_string": "alpha", "new_string": "ALPHA"})
	if r.State != toolkit.StateSuccess {
		t.Fatalf("edit after write: %q", r.Text())
	}
	r = k.call("Edit", map[string]any{"file_path": p, "old_string": "beta", "new_string": "BETA"})
	if r.State != toolkit.StateSuccess || !strings.Contains(r.Metadata["diff"].(string), "+BETA") {
		t.Fatalf("second edit: %q %v", r.Text(), r.Metadata)
	}
	if got, _ := os.ReadFile(p); string(got) != "ALPHA\nBETA\n" {
		t.Fatalf("contents %q", got)
	}

	// A change behind the session's back needs a new Read.
	writeFile(t, p, "changed elsewhere, longer\n")
	for _, tool := range []string{"Edit", "Write"} {
		in := map[string]any{"file_path": p, "old_string": "changed", "new_string": "x", "content": "x"}
		if tool == "Write" {
			delete(in, "old_string")
			delete(in, "new_string")
		} else {
			delete(in, "content")
		}
		if r := k.call(tool, in); r.State != toolkit.StateError || !strings.Contains(r.Text(), "changed since") {
			t.Errorf("%s after an outside change: %s %q", tool, r.State, r.Text())
		}
	}
	other := filepath.Join(dir, "other.txt")
	writeFile(t, other, "x\n")
	if r := k.call("Write", map[string]any{"file_path": other, "content": "y"}); r.State != toolkit.StateError || !strings.Contains(r.Text(), "has not been read") {
		t.Errorf("write without read: %s %q", r.State, r.Text())
	}
	k.call("Read", map[string]any{"file_path": other})
	if r := k.call("Write", map[string]any{"file_path": other, "content": "y"}); r.State != toolkit.StateSuccess || !strings.Contains(r.Text(), "Updated") {
		t.Errorf("write after read: %s %q", r.State, r.Text())
	}
}

func TestEditRules(t *testing.T) {
	dir := t.TempDir()
	k := newFileKit(t, permission.ModeBypass)
	p := filepath.Join(dir, "f.txt")
	writeFile(t, p, "a b a b a\n")
	k.call("Read", map[string]any{"file_path": p})
	tests := []struct {
		name  string
		input map[string]any
		state toolkit.State
		want  string
	}{
		{"not unique", map[string]any{"old_string": "a", "new_string": "x"}, toolkit.StateError, "occurs 3 times"},
		{"not found", map[string]any{"old_string": "zzz", "new_string": "x"}, toolkit.StateError, "not found"},
		{"same", map[string]any{"old_string": "a", "new_string": "a"}, toolkit.StateError, "the same"},
		{"replace all", map[string]any{"old_string": "a", "new_string": "x", "replace_all": true}, toolkit.StateSuccess, "3 occurrence"},
		{"missing file", map[string]any{"file_path": dir + "/missing", "old_string": "a", "new_string": "x"}, toolkit.StateError, "does not exist"},
	}
	for _, tt := range tests {
		if _, ok := tt.input["file_path"]; !ok {
			tt.input["file_path"] = p
		}
		r := k.call("Edit", tt.input)
		if r.State != tt.state || !strings.Contains(r.Text(), tt.want) {
			t.Errorf("%s: %s %q, want %s containing %q", tt.name, r.State, r.Text(), tt.state, tt.want)
		}
	}
	if got, _ := os.ReadFile(p); string(got) != "x b x b x\n" {
		t.Errorf("contents %q", got)
	}
}

func TestEditKeepsBytes(t *testing.T) {
	dir := t.TempDir()
	k := newFileKit(t, permission.ModeBypass)
	// CRLF line ends, invalid UTF-8 and a mode to keep.
	p := filepath.Join(dir, "f.txt")
	orig := "first\r\nsecond \xff\xfe\r\nthird\r\n"
	writeFile(t, p, orig)
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	k.call("Read", map[string]any{"file_path": p})
	r := k.call("Edit", map[string]any{"file_path": p, "old_string": "first\nsecond", "new_string": "1st\n2nd"})
	if r.State != toolkit.StateSuccess {
		t.Fatalf("edit: %q", r.Text())
	}
	got, _ := os.ReadFile(p)
	if string(got) != "1st\r\n2nd \xff\xfe\r\nthird\r\n" {
		t.Errorf("contents %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want 0750 kept", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestFilePermissions(t *testing.T) {
	wd := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(wd, "escape")); err != nil {
		t.Fatal(err)
	}
	tk := toolkit.New(toolkit.Options{})
	for _, tool := range []toolkit.Tool{NewRead(FileOptions{}), NewWrite(FileOptions{}), NewEdit(FileOptions{})} {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		tool, path string
		mode       permission.Mode
		allow      []string
		deny       []string
		behavior   permission.Behavior
		immune     bool
		suggestion string
	}{
		{"Write", wd + "/src/main.go", permission.ModeDefault, nil, nil, permission.Ask, false, "Write(" + wd + "/src/**)"},
		{"Write", wd + "/src/main.go", permission.ModeAcceptEdits, nil, nil, permission.Allow, false, ""},
		{"Write", wd + "/../x", permission.ModeAcceptEdits, nil, nil, permission.Ask, false, ""},
		{"Write", wd + "/escape/x", permission.ModeAcceptEdits, nil, nil, permission.Ask, false, ""},
		{"Write", "/etc/passwd", permission.ModeAcceptEdits, nil, nil, permission.Ask, false, ""},
		{"Write", wd + "/.env", permission.ModeAcceptEdits, nil, nil, permission.Ask, true, ""},
		{"Edit", wd + "/.git/config", permission.ModeBypass, nil, nil, permission.Allow, false, ""},
		{"Edit", wd + "/.git/config", permission.ModeDefault, []string{"Edit"}, nil, permission.Ask, true, ""},
		{"Edit", wd + "/src/a.go", permission.ModeDefault, []string{"Edit(src/**)"}, nil, permission.Allow, false, ""},
		{"Edit", wd + "/lib/a.go", permission.ModeDefault, []string{"Edit(src/**)"}, nil, permission.Ask, false, ""},
		{"Edit", wd + "/src/a.go", permission.ModeDefault, []string{"Edit(" + wd + "/**/*.go)"}, nil, permission.Allow, false, ""},
		{"Read", wd + "/README.md", permission.ModeExplore, nil, nil, permission.Allow, false, ""},
		{"Read", wd + "/secret/key", permission.ModeDefault, nil, []string{"Read(secret/**)"}, permission.Deny, false, ""},
		{"Write", wd + "/a", permission.ModeDontAsk, nil, nil, permission.Allow, false, ""},
		{"Write", "/etc/a", permission.ModeDontAsk, nil, nil, permission.Deny, false, ""},
	}
	for _, tt := range tests {
		allow, _ := permission.ParseRules(tt.allow)
		deny, _ := permission.ParseRules(tt.deny)
		pc := &permission.Context{Mode: tt.mode, WorkingDirs: []string{wd}, Allow: allow, Deny: deny}
		input := map[string]any{"file_path": tt.path}
		switch tt.tool {
		case "Write":
			input["content"] = "x"
		case "Edit":
			input["old_string"], input["new_string"] = "a", "b"
		}
		args, _ := json.Marshal(input)
		d, err := tk.Check(context.Background(), "s", toolkit.Call{Name: tt.tool, Arguments: string(args)}, toolkit.CheckOptions{Permission: pc})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != tt.behavior || d.BypassImmune != tt.immune {
			t.Errorf("%s %s in %s: %s (immune %v), want %s (immune %v): %s", tt.tool, tt.path, tt.mode, d.Behavior, d.BypassImmune, tt.behavior, tt.immune, d.Reason)
		}
		if tt.suggestion != "" && (len(d.Suggestions) != 1 || d.Suggestions[0].String() != tt.suggestion) {
			t.Errorf("%s %s: suggestions %v, want %s", tt.tool, tt.path, d.Suggestions, tt.suggestion)
		}
	}
}

func TestReadDenyRuleStopsBashReaders(t *testing.T) {
	tk := toolkit.New(toolkit.Options{})
	if err := tk.Register(NewBash(BashOptions{})); err != nil {
		t.Fatal(err)
	}
	deny := []permission.Rule{permission.MustParseRule("Read(/tmp/project/secrets/**)")}
	tests := map[string]permission.Behavior{
		"cat secrets/key":                  permission.Deny,
		"grep -r x /tmp/project/secrets/":  permission.Deny, // ** matches the directory too: grep -r reads below it
		"head -1 secrets/a/b":              permission.Deny,
		"cd /tmp && cat project/secrets/k": permission.Ask,  // unknown after cd: may match, asks in every mode
		"ls secrets":                       permission.Deny, // a listing reads names, as Glob does
		"sort < secrets/k":                 permission.Deny,
		"cat $F":                           permission.Ask,
		"cat README.md":                    permission.Allow,
	}
	for cmd, want := range tests {
		pc := &permission.Context{Mode: permission.ModeDefault, WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project", Deny: deny}
		args, _ := json.Marshal(map[string]string{"command": cmd})
		d, err := tk.Check(context.Background(), "s", toolkit.Call{Name: "Bash", Arguments: string(args)}, toolkit.CheckOptions{Permission: pc})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != want {
			t.Errorf("%q: %s, want %s (%s)", cmd, d.Behavior, want, d.Reason)
		}
	}
}
