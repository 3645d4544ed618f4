package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/internal/testdata"
)

// decisionKeys are the fields of every decision check prints as JSON.
var decisionKeys = []string{"behavior", "bypass_immune", "message", "reason", "suggestions"}

// decision is a decision as check prints it.
type decision struct {
	Behavior     string   `json:"behavior"`
	BypassImmune bool     `json:"bypass_immune"`
	Message      string   `json:"message"`
	Reason       string   `json:"reason"`
	Suggestions  []string `json:"suggestions"`
	Error        string   `json:"error"`
}

// decodeDecision decodes one answer of check, checking its exact fields:
// the decision's, or only "error".
func decodeDecision(t *testing.T, text string) decision {
	t.Helper()
	var d decision
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	if d.Error != "" {
		decodeObject(t, text, "error")
		return d
	}
	m := decodeObject(t, text, decisionKeys...)
	if _, ok := m["suggestions"].([]any); !ok {
		t.Fatalf("suggestions must be an array, got %#v in %s", m["suggestions"], text)
	}
	return d
}

// checkDecision compares a decision with the behaviour, the
// bypass-immunity and the suggestions expected; asks and denials must
// carry a message, every decision a reason.
func checkDecision(t *testing.T, got decision, behavior string, bypassImmune bool, suggestions []string) {
	t.Helper()
	if got.Error != "" {
		t.Fatalf("error %q, want behavior %s", got.Error, behavior)
	}
	if got.Behavior != behavior || got.BypassImmune != bypassImmune || !slices.Equal(got.Suggestions, suggestions) {
		t.Errorf("got %s bypass_immune=%v suggestions=%q, want %s %v %q (%+v)",
			got.Behavior, got.BypassImmune, got.Suggestions, behavior, bypassImmune, suggestions, got)
	}
	if got.Reason == "" || (behavior != "allow" && got.Message == "") {
		t.Errorf("decision without a reason or message: %+v", got)
	}
}

func TestCheckJSON(t *testing.T) {
	const hi = `{"text": "hi"}`
	tests := []struct {
		name         string
		args         []string
		behavior     string
		bypassImmune bool
		suggestions  []string
	}{
		{"read-only tool", []string{"echo", hi}, "allow", false, []string{}},
		{"asking tool", []string{"upper", hi}, "ask", false, []string{"upper"}},
		{"allow rule", []string{"upper", hi, "--allow", "upper"}, "allow", false, []string{}},
		{"deny rule", []string{"upper", hi, "--deny", "upper"}, "deny", false, []string{}},
		{"deny rule beats read-only", []string{"echo", hi, "--deny", "echo"}, "deny", false, []string{}},
		// No allow rule can silence an ask rule: nothing is suggested.
		{"ask rule on a read-only tool", []string{"echo", hi, "--ask", "echo"}, "ask", false, []string{}},
		{"allow rule of another tool", []string{"upper", hi, "--allow", "echo"}, "ask", false, []string{"upper"}},
		{"mode explore", []string{"upper", hi, "--mode", "explore"}, "deny", false, []string{}},
		{"mode explore, read-only", []string{"echo", hi, "--mode", "explore"}, "allow", false, []string{}},
		{"mode explore ignores allow rules", []string{"upper", hi, "--mode", "explore", "--allow", "upper"}, "deny", false, []string{}},
		{"mode bypass", []string{"upper", hi, "--mode", "bypass"}, "allow", false, []string{}},
		{"mode dont_ask", []string{"upper", hi, "--mode", "dont_ask"}, "deny", false, []string{}},
		{"arguments from stdin", []string{"upper", "-"}, "ask", false, []string{"upper"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := wasmtools(t, hi, append([]string{"check", "--json"}, tt.args...)...)
			if r.code != exitOK {
				t.Fatalf("exit code %d\n%s", r.code, r)
			}
			checkDecision(t, decodeDecision(t, r.stdout), tt.behavior, tt.bypassImmune, tt.suggestions)
		})
	}
}

func TestCheckText(t *testing.T) {
	r := wasmtools(t, "", "check", "upper", `{"text": "hi"}`)
	if r.code != exitOK {
		t.Fatalf("exit code %d\n%s", r.code, r)
	}
	for _, want := range []string{"behavior:      ask\n", "bypass_immune: false\n", "message:       Run upper?\n", "reason:", "suggestions:   upper\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q\n%s", want, r)
		}
	}
	r = wasmtools(t, "", "check", "echo", `{"text": "hi"}`)
	if !strings.Contains(r.stdout, "behavior:      allow\n") || !strings.Contains(r.stdout, "suggestions:   (none)\n") {
		t.Errorf("echo should be allowed without suggestions\n%s", r)
	}
}

func TestCheckErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring of the {"error"} answer (--json only)
		stderr string // substring
	}{
		{name: "unknown tool, JSON", args: []string{"--json", "nosuch", "{}"}, code: exitToolError, stdout: "nosuch"},
		{name: "unknown tool", args: []string{"nosuch", "{}"}, code: exitToolError, stderr: "nosuch does not exist"},
		{name: "schema violation, JSON", args: []string{"--json", "echo", `{"text": 1}`}, code: exitToolError, stdout: "/text"},
		{name: "not an object, JSON", args: []string{"--json", "echo", `"text"`}, code: exitToolError, stdout: "JSON object"},
		{name: "no tool", args: nil, code: exitUsage, stderr: "--batch"},
		{name: "too many arguments", args: []string{"echo", "{}", "x"}, code: exitUsage, stderr: "too many arguments"},
		{name: "batch with a tool", args: []string{"--batch", "echo"}, code: exitUsage, stderr: "standard input"},
		{name: "malformed rule", args: []string{"echo", "{}", "--deny", "Bash()"}, code: exitUsage, stderr: "empty content"},
		{name: "unknown mode", args: []string{"--mode", "fast", "echo", "{}"}, code: exitUsage, stderr: "unknown permission mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := wasmtools(t, "", append([]string{"check"}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit code %d, want %d\n%s", r.code, tt.code, r)
			}
			if tt.stdout != "" {
				if d := decodeDecision(t, r.stdout); !strings.Contains(d.Error, tt.stdout) {
					t.Errorf("error %q lacks %q", d.Error, tt.stdout)
				}
			} else if r.stdout != "" {
				t.Errorf("stdout should be empty\n%s", r)
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr lacks %q\n%s", tt.stderr, r)
			}
		})
	}
}

// batchCase is one request of a batch and what its answer must be:
// an error containing errText, or a decision.
type batchCase struct {
	line         string
	errText      string
	behavior     string
	bypassImmune bool
	suggestions  []string
}

// runBatch sends the requests (blank lines among them are skipped) and
// checks that each is answered as expected, on exactly one line.
func runBatch(t *testing.T, cases []batchCase, flags ...string) {
	t.Helper()
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(c.line + "\n")
		in.WriteString("\n   \n") // blank lines: skipped, not answered
	}
	r := wasmtools(t, in.String(), append([]string{"check", "--batch"}, flags...)...)
	if r.code != exitOK {
		t.Fatalf("exit code %d\n%s", r.code, r)
	}
	answers := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(answers) != len(cases) {
		t.Fatalf("%d answers for %d requests\n%s", len(answers), len(cases), r)
	}
	for i, c := range cases {
		got := decodeDecision(t, answers[i])
		if c.errText != "" {
			if !strings.Contains(got.Error, c.errText) {
				t.Errorf("line %d %s: got %s, want an error containing %q", i+1, c.line, answers[i], c.errText)
			}
			continue
		}
		checkDecision(t, got, c.behavior, c.bypassImmune, c.suggestions)
	}
}

func TestCheckBatch(t *testing.T) {
	none := []string{}
	runBatch(t, []batchCase{
		{line: `{"tool": "echo", "input": {"text": "hi"}}`, behavior: "allow", suggestions: none},
		{line: `{"tool": "upper", "input": {"text": "hi"}}`, behavior: "ask", suggestions: []string{"upper"}},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "allow": ["upper"]}`, behavior: "allow", suggestions: none},
		// Nothing carries over from one line to the next.
		{line: `{"tool": "upper", "input": {"text": "hi"}, "mode": "default"}`, behavior: "ask", suggestions: []string{"upper"}},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "deny": ["upper"], "allow": ["upper"]}`, behavior: "deny", suggestions: none},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "ask": ["upper"], "allow": ["upper"]}`, behavior: "ask", suggestions: []string{}},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "mode": "explore"}`, behavior: "deny", suggestions: none},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "mode": "bypass"}`, behavior: "allow", suggestions: none},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "mode": "dont_ask", "working_dirs": ["/tmp/p"], "cwd": "/tmp/p"}`, behavior: "deny", suggestions: none},
		{line: `{"tool": "reset_tools", "input": {"text": true}, "mode": "explore"}`, behavior: "allow", suggestions: none},
		{line: `{"tool": "echo", "input": {"text": "<a & b>"}, "comment": "unknown fields are ignored"}`, behavior: "allow", suggestions: none},

		{line: `{"tool": "upper", "input": {"text": "hi"}, "mode": "yolo"}`, errText: `unknown permission mode "yolo"`},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "allow": ["upper("]}`, errText: "allow: permission rule"},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "deny": [""]}`, errText: "deny: empty permission rule"},
		{line: `{"tool": "nosuch", "input": {}}`, errText: "nosuch"},
		{line: `{"tool": "echo", "input": {"path": "/tmp/x"}}`, errText: "input schema"},
		{line: `{"tool": "echo", "input": "hi"}`, errText: "JSON object"},
		{line: `{"tool": "echo"}`, errText: "missing property 'text'"},
		{line: `{"input": {"text": "hi"}}`, errText: `missing "tool"`},
		{line: `{"tool": "echo", "input": {"text": "hi"}`, errText: "not a request"},
		{line: `not JSON at all`, errText: "not a request"},
		{line: `["echo"]`, errText: "not a request"},
		{line: `{"tool": "echo", "mode": 3}`, errText: "not a request"},
		{line: `{"tool": "upper", "input": {"text": "still going"}}`, behavior: "ask", suggestions: []string{"upper"}},
	})
}

func TestCheckBatchFlagDefaults(t *testing.T) {
	none := []string{}
	runBatch(t, []batchCase{
		// The flags fill in what a line leaves out...
		{line: `{"tool": "upper", "input": {"text": "hi"}}`, behavior: "allow", suggestions: none},
		{line: `{"tool": "echo", "input": {"text": "hi"}}`, behavior: "deny", suggestions: none},
		// ...and a line's own fields replace them, even when empty.
		{line: `{"tool": "upper", "input": {"text": "hi"}, "allow": []}`, behavior: "ask", suggestions: []string{"upper"}},
		{line: `{"tool": "echo", "input": {"text": "hi"}, "deny": []}`, behavior: "allow", suggestions: none},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "mode": "explore"}`, behavior: "deny", suggestions: none},
	}, "--allow", "upper", "--deny", "echo")

	runBatch(t, []batchCase{
		{line: `{"tool": "upper", "input": {"text": "hi"}}`, behavior: "deny", suggestions: none},
		{line: `{"tool": "upper", "input": {"text": "hi"}, "mode": "default"}`, behavior: "ask", suggestions: []string{"upper"}},
	}, "--mode", "explore")
}

func TestCheckBatchLongLine(t *testing.T) {
	long := `{"tool": "echo", "input": {"text": "` + strings.Repeat("x", maxBatchLine) + `"}}`
	fits := `{"tool": "echo", "input": {"text": "` + strings.Repeat("y", maxBatchLine-40) + `"}}`
	in := long + "\n" + `{"tool": "upper", "input": {"text": "hi"}}` + "\n" + fits + "\n" + long // the last line without "\n"
	r := wasmtools(t, in, "check", "--batch")
	if r.code != exitOK {
		t.Fatalf("exit code %d\n%s", r.code, r.stderr)
	}
	answers := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(answers) != 4 {
		t.Fatalf("%d answers, want 4:\n%s", len(answers), r.stdout)
	}
	if d := decodeDecision(t, answers[0]); !strings.Contains(d.Error, "16 MiB") {
		t.Errorf("too long a line: got %s", answers[0])
	}
	checkDecision(t, decodeDecision(t, answers[1]), "ask", false, []string{"upper"})
	checkDecision(t, decodeDecision(t, answers[2]), "allow", false, []string{})
	if d := decodeDecision(t, answers[3]); !strings.Contains(d.Error, "16 MiB") {
		t.Errorf("too long a last line: got %s", answers[3])
	}
}

// TestCheckBatchExamples runs the shared examples. Their tools are the
// built-in tools: until a tool is registered, its requests must get an
// error naming it; once it is, the answer must carry the expected fields.
func TestCheckBatchExamples(t *testing.T) {
	f, err := os.Open(testdata.Path(t, "check-batch-examples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	var list struct{ Tools []struct{ Name string } }
	r := wasmtools(t, "", "list", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r)
	}
	registered := map[string]bool{}
	for _, tool := range list.Tools {
		registered[tool.Name] = true
	}

	type example struct {
		In  json.RawMessage
		Out struct {
			Behavior     string   `json:"behavior"`
			BypassImmune *bool    `json:"bypass_immune"`
			Suggestions  []string `json:"suggestions"`
			Error        string   `json:"error"`
		}
		tool string
	}
	var examples []example
	var in strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ex example
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatalf("example %q: %v", sc.Text(), err)
		}
		var req struct{ Tool string }
		if err := json.Unmarshal(ex.In, &req); err != nil {
			t.Fatalf("example %q: %v", sc.Text(), err)
		}
		ex.tool = req.Tool
		examples = append(examples, ex)
		in.Write(ex.In)
		in.WriteString("\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	r = wasmtools(t, in.String(), "check", "--batch")
	if r.code != exitOK {
		t.Fatalf("exit code %d\n%s", r.code, r)
	}
	answers := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(answers) != len(examples) {
		t.Fatalf("%d answers for %d examples\n%s", len(answers), len(examples), r.stdout)
	}
	for i, ex := range examples {
		got := decodeDecision(t, answers[i])
		switch {
		case ex.Out.Error != "":
			if got.Error == "" {
				t.Errorf("example %d (%s): got %s, want an error", i+1, ex.In, answers[i])
			}
		case !registered[ex.tool]:
			if !strings.Contains(got.Error, ex.tool) {
				t.Errorf("example %d: %s is not registered: got %s, want an error naming it", i+1, ex.tool, answers[i])
			}
		default:
			if got.Behavior != ex.Out.Behavior || (ex.Out.BypassImmune != nil && got.BypassImmune != *ex.Out.BypassImmune) {
				t.Errorf("example %d (%s): got %s, want %+v", i+1, ex.In, answers[i], ex.Out)
			}
			for _, s := range ex.Out.Suggestions {
				if !slices.Contains(got.Suggestions, s) {
					t.Errorf("example %d (%s): suggestions %q lack %q", i+1, ex.In, got.Suggestions, s)
				}
			}
		}
	}
}

// TestProtectedHostFiles: writes to the host's own configuration (the
// configuration file, wasmtools.yaml of a working directory, served
// plugin and skill folders, --mcp-config files) ask in every mode,
// bypass included, whichever tool writes; a request's own ask rules do
// not drop them.
func TestProtectedHostFiles(t *testing.T) {
	dir := t.TempDir()
	wd, plugins, skillDir := filepath.Join(dir, "w"), filepath.Join(dir, "plugins"), filepath.Join(dir, "skills")
	for _, d := range []string{wd, plugins, skillDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mcpConfig := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(mcpConfig, []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"tool": "Write", "input": {"file_path": "` + wd + `/wasmtools.yaml", "content": "mode: bypass"}, "mode": "bypass", "ask": []}`,
		`{"tool": "Bash", "input": {"command": "echo 'mode: bypass' >> wasmtools.yaml"}, "mode": "bypass", "cwd": "` + wd + `"}`,
		`{"tool": "Write", "input": {"file_path": "` + plugins + `/evil.json", "content": "{}"}, "mode": "accept_edits"}`,
		`{"tool": "Bash", "input": {"command": "cp /bin/true ` + plugins + `/x.wasm"}, "mode": "bypass"}`,
		`{"tool": "Edit", "input": {"file_path": "` + skillDir + `/s/SKILL.md", "old_string": "a", "new_string": "b"}, "mode": "bypass"}`,
		`{"tool": "Bash", "input": {"command": "tee ` + mcpConfig + `"}, "mode": "bypass"}`,
		`{"tool": "Write", "input": {"file_path": "` + wd + `/other/wasmtools.yaml", "content": "x"}, "mode": "bypass", "working_dirs": ["` + wd + `/other"]}`,
	}
	r := runBinary(t, nil, strings.Join(lines, "\n")+"\n", "check", "--batch", "--workdir", wd, "--plugins", plugins, "--skills", skillDir, "--mcp-config", mcpConfig)
	answers := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(answers) != len(lines) {
		t.Fatalf("%d answers for %d requests:\n%s", len(answers), len(lines), r)
	}
	for i, a := range answers {
		d := decodeDecision(t, a)
		if d.Behavior != "ask" || !d.BypassImmune || len(d.Suggestions) != 0 {
			t.Errorf("request %d: %s\nwant a bypass-immune ask with no suggestion", i+1, a)
		}
	}
	// dont_ask denies instead of asking.
	r = runBinary(t, nil, `{"tool": "Write", "input": {"file_path": "`+wd+`/wasmtools.yaml", "content": "x"}, "mode": "dont_ask"}`+"\n", "check", "--batch", "--workdir", wd)
	if d := decodeDecision(t, strings.TrimSpace(r.stdout)); d.Behavior != "deny" {
		t.Errorf("dont_ask: %s, want deny", r.stdout)
	}
}
