package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestListJSON(t *testing.T) {
	r := wasmtools(t, "", "list", "--json")
	if r.code != exitOK {
		t.Fatalf("exit code %d\n%s", r.code, r)
	}
	out := decodeObject(t, r.stdout, "tools", "groups")

	wantTools := []map[string]any{
		{"name": "Bash", "group": "basic", "active": true, "read_only": false, "concurrency_safe": false, "source": "builtin"},
		{"name": "echo", "group": "basic", "active": true, "read_only": true, "concurrency_safe": true, "source": "function"},
		{"name": "upper", "group": "text", "active": true, "read_only": false, "concurrency_safe": true, "source": "function"},
		{"name": "reset_tools", "group": "basic", "active": true, "read_only": false, "concurrency_safe": false, "source": "meta"},
	}
	tools, _ := out["tools"].([]any)
	if len(tools) != len(wantTools) {
		t.Fatalf("%d tools, want %d\n%s", len(tools), len(wantTools), r.stdout)
	}
	for i, want := range wantTools {
		if got := tools[i]; !reflect.DeepEqual(got, any(want)) {
			t.Errorf("tools[%d] = %v, want %v", i, got, want)
		}
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
	out := decodeObject(t, r.stdout, "tools", "groups")
	tools, _ := out["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["name"] != "Bash" {
		t.Errorf("tools = %v, want the built-in Bash only", tools)
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
		rows = append(rows, strings.Fields(line))
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
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %q\nwant %q\n%s", rows, want, r.stdout)
	}
	// The table is aligned: every row of the tool table starts its
	// columns at the same offsets as the header.
	lines := strings.Split(r.stdout, "\n")
	col := strings.Index(lines[0], "GROUP")
	for _, l := range lines[1:5] {
		if l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row %q is not aligned on column %d", l, col)
		}
	}
}
