package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestListJSON(t *testing.T) {
	r := wasmtools(t, "", "list", "--json")
	if r.code != exitOK {
		t.Fatalf("exit code %d\n%s", r.code, r)
	}
	out := decodeObject(t, r.stdout, "tools", "groups", "skills", "broken_skills", "overridden_skills", "broken_plugins", "pending_plugins", "skills_prompt", "sandbox")

	wantTools := []map[string]any{
		{"name": "Bash", "group": "basic", "active": true, "read_only": false, "concurrency_safe": false, "source": "builtin"},
		{"name": "echo", "group": "basic", "active": true, "read_only": true, "concurrency_safe": true, "source": "function"},
		{"name": "upper", "group": "text", "active": true, "read_only": false, "concurrency_safe": true, "source": "function"},
		{"name": "reset_tools", "group": "basic", "active": true, "read_only": false, "concurrency_safe": false, "source": "meta"},
	}
	tools, _ := out["tools"].([]any)
	// The expected tools appear in this order, with exactly these fields;
	// other built-ins may stand between them.
	next := 0
	for _, got := range tools {
		if next < len(wantTools) && got.(map[string]any)["name"] == wantTools[next]["name"] {
			if !reflect.DeepEqual(got, any(wantTools[next])) {
				t.Errorf("tool %v, want %v", got, wantTools[next])
			}
			next++
		}
	}
	if next != len(wantTools) {
		t.Fatalf("found %d of the %d expected tools in order\n%s", next, len(wantTools), r.stdout)
	}

	wantGroups := []any{map[string]any{"name": "text", "description": "Text transformations", "active": true}}
	if !reflect.DeepEqual(out["groups"], wantGroups) {
		t.Errorf("groups = %v, want %v", out["groups"], wantGroups)
	}
}

func TestListJSONBuiltinsOnly(t *testing.T) {
	r := runBinary(t, nil, "", "list", "--json")
	if r.code != exitOK {
		t.Fatalf("exit code %d\n%s", r.code, r)
	}
	out := decodeObject(t, r.stdout, "tools", "groups", "skills", "broken_skills", "overridden_skills", "broken_plugins", "pending_plugins", "skills_prompt", "sandbox")
	tools, _ := out["tools"].([]any)
	var names []string
	for _, tool := range tools {
		m := tool.(map[string]any)
		names = append(names, m["name"].(string))
		if m["source"] != "builtin" {
			t.Errorf("tool %v is not a built-in", m)
		}
	}
	for _, want := range []string{"Bash", "Read", "Write", "Edit"} {
		if !slices.Contains(names, want) {
			t.Errorf("built-ins %v lack %s", names, want)
		}
	}
	// Empty lists are [], not null.
	if v, ok := out["groups"].([]any); !ok || len(v) != 0 {
		t.Errorf("groups = %#v, want []", out["groups"])
	}
}

func TestListText(t *testing.T) {
	r := wasmtools(t, "", "list")
	if r.code != exitOK {
		t.Fatalf("exit code %d\n%s", r.code, r)
	}
	var rows [][]string
	for line := range strings.Lines(r.stdout) {
		f := strings.Fields(line)
		if len(f) > 0 && f[len(f)-1] == "builtin" && f[0] != "Bash" {
			continue // built-ins other than Bash come and go with their issues
		}
		rows = append(rows, f)
	}
	want := [][]string{
		{"NAME", "GROUP", "ACTIVE", "READ-ONLY", "CONCURRENCY-SAFE", "SOURCE"},
		{"Bash", "basic", "yes", "no", "no", "builtin"},
		{"echo", "basic", "yes", "yes", "yes", "function"},
		{"upper", "text", "yes", "no", "yes", "function"},
		{"reset_tools", "basic", "yes", "no", "no", "meta"},
		{},
		{"GROUP", "ACTIVE", "DESCRIPTION"},
		{"text", "yes", "Text", "transformations"},
		{},
	}
	if len(rows) > 0 && len(rows[len(rows)-1]) > 1 && rows[len(rows)-1][0] == "SANDBOX" {
		rows = rows[:len(rows)-1] // TestSandboxList checks it
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %q\nwant %q\n%s", rows, want, r.stdout)
	}
	// The table is aligned: every row of the tool table starts its
	// columns at the same offsets as the header.
	lines := strings.Split(r.stdout, "\n")
	col := strings.Index(lines[0], "GROUP")
	for _, l := range lines[1:5] { // every tool row is aligned like the header
		if l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row %q is not aligned on column %d", l, col)
		}
	}
}

// TestListTools: --tools offers only the built-ins it names; an unknown
// name is a usage error that lists the real ones.
func TestListTools(t *testing.T) {
	r := runBinary(t, nil, "", "list", "--json", "--tools", "Read, Glob")
	if r.code != exitOK {
		t.Fatalf("exit code %d\n%s", r.code, r)
	}
	out := decodeObject(t, r.stdout, "tools", "groups", "skills", "broken_skills", "overridden_skills", "broken_plugins", "pending_plugins", "skills_prompt", "sandbox")
	var names []string
	for _, tool := range out["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if !slices.Equal(names, []string{"Read", "Glob"}) {
		t.Errorf("--tools Read,Glob lists %v", names)
	}
	r = runBinary(t, nil, "", "list", "--tools", "Read,Bsh")
	if r.code != exitUsage || !strings.Contains(r.stderr, `"Bsh" is not a built-in tool`) || !strings.Contains(r.stderr, "Bash") {
		t.Errorf("--tools with a typo: exit %d\n%s", r.code, r.stderr)
	}
}
