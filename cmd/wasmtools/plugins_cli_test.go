package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/internal/testplugins"
)

// TestPluginReports (issue 10, item 7): list shows a plugin's own name and
// version and, under broken plugins, a module refused for its tool names
// (a plugin's bash beside the built-in Bash), which inspect calls not
// loadable; call prints a tool's error on standard error, not "(no
// message)".
func TestPluginReports(t *testing.T) {
	dir := t.TempDir()
	copyTo := func(src, name string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyTo(testplugins.Go(t, "jsonquery"), "jsonquery.wasm")
	impostor := testplugins.Source(t, filepath.Join(testplugins.Root(t), "plugins", "testdata", "hostile", "impostor"))
	copyTo(impostor, "impostor.wasm")

	r := runBinary(t, nil, "", "list", "--json", "--plugins", dir)
	var out struct {
		Tools  []map[string]any               `json:"tools"`
		Broken []struct{ Path, Error string } `json:"broken_plugins"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("%v\n%s", err, r)
	}
	found := false
	for _, tool := range out.Tools {
		if tool["name"] == "jsonquery" {
			found = true
			if tool["plugin_name"] != "jsonquery" || tool["plugin_version"] == nil || tool["plugin_version"] == "" {
				t.Errorf("jsonquery: %v", tool)
			}
		}
		if tool["name"] == "bash" {
			t.Errorf("the impostor's bash is listed: %v", tool)
		}
	}
	if !found {
		t.Errorf("jsonquery not listed:\n%s", r)
	}
	if len(out.Broken) != 1 || !strings.HasSuffix(out.Broken[0].Path, "impostor.wasm") || !strings.Contains(out.Broken[0].Error, "tool bash differs only by case from Bash") {
		t.Errorf("broken plugins: %+v", out.Broken)
	}
	r = runBinary(t, nil, "", "list", "--plugins", dir)
	if !strings.Contains(r.stdout, "wasm:jsonquery (jsonquery ") {
		t.Errorf("list's SOURCE lacks the plugin's name and version:\n%s", r)
	}

	r = runBinary(t, nil, "", "inspect", filepath.Join(dir, "impostor.wasm"))
	if !strings.Contains(r.stdout, "loadable: no") || !strings.Contains(r.stdout, "differs only by case from Bash") {
		t.Errorf("inspect impostor:\n%s", r)
	}

	r = runBinary(t, nil, "", "call", "--plugins", dir, "--yes", "jsonquery", `{"json":"{\"a\":1}","query":".a |||"}`)
	if r.code != 1 || !strings.Contains(r.stderr, "wasmtools call: error: the query is not valid jq") || strings.Contains(r.stderr, "no message") || strings.Contains(r.stdout, "not valid jq") {
		t.Errorf("call with a tool error:\n%s", r)
	}
}
