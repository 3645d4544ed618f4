package main

import (
	"encoding/json"
	"fmt"
	"github.com/wasmtools/wasmtools/internal/testdata"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/internal/testplugins"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "wasmtools.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigFile(t *testing.T) {
	cfg := writeConfig(t, `
mode: dont_ask
working_dirs: [project]
allow:
  - "Bash(npm test:*)"
`)
	tests := []struct {
		args     []string
		behavior string
	}{
		{[]string{"check", "Bash", `{"command":"npm test"}`, "--json", "--config", cfg}, "allow"},
		{[]string{"check", "Bash", `{"command":"make"}`, "--json", "--config", cfg}, "deny"},
		// Flags win over the file for the mode.
		{[]string{"check", "Bash", `{"command":"make"}`, "--json", "--config", cfg, "--mode", "bypass"}, "allow"},
	}
	for _, tt := range tests {
		r := runBinary(t, nil, "", tt.args...)
		var d struct{ Behavior string }
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Behavior != tt.behavior {
			t.Errorf("%v: %s, want %s\n%s", tt.args, d.Behavior, tt.behavior, r)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for text, want := range map[string]string{
		"allow:\n  - \"Bash(\"\n":  "line 2",
		"mode: fast\n":             "unknown permission mode",
		"allwo: []\n":              "allwo",
		"groups:\n  - name: web\n": "description",
		"mcp_servers:\n  x: {}\n":  "mcp_servers.x",
		"working_dirs: [a\n":       "line",
	} {
		cfg := writeConfig(t, text)
		r := runBinary(t, nil, "", "list", "--config", cfg)
		if r.code == exitOK || !strings.Contains(r.stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", text, r.code, r.stderr, want)
		}
	}
	if r := runBinary(t, nil, "", "list", "--config", filepath.Join(t.TempDir(), "nope.yaml")); r.code == exitOK {
		t.Errorf("a missing --config file was accepted: %s", r)
	}
}

func TestConfigGroupsAndServers(t *testing.T) {
	server := testdata.NPMPeer(t, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(server); err != nil {
		t.Fatalf("the reference MCP server is not installed (see .ci/run): %v", err)
	}
	cfg := writeConfig(t, fmt.Sprintf(`
groups:
  - name: demo
    description: The reference MCP server's tools
mcp_servers:
  everything:
    command: node
    args: [%q, stdio]
    group: demo
    enable_tools: [echo]
`, server))
	r := runBinary(t, nil, "", "list", "--json", "--config", cfg)
	var out struct {
		Tools []struct{ Name, Group string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	found := false
	for _, tool := range out.Tools {
		if tool.Name == "mcp__everything__echo" {
			found = tool.Group == "demo"
		}
	}
	if !found {
		t.Errorf("mcp__everything__echo not in group demo: %s", r.stdout)
	}
}

func TestConfigPluginGroup(t *testing.T) {
	plugins := t.TempDir()
	wasm, err := os.ReadFile(testplugins.Source(t, filepath.Join(testplugins.Root(t), "plugins", "testdata", "versioned")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugins, "v.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, fmt.Sprintf("plugins: [%q]\nplugin_group: extra\ngroups:\n  - name: extra\n    description: Extra tools.\n", plugins))
	r := runBinary(t, nil, "", "list", "--json", "--config", cfg)
	if r.code != exitOK || !strings.Contains(r.stdout, `"name": "version",
      "group": "extra"`) {
		t.Errorf("plugin_group: %s", r)
	}
	// Grants use the sidecar's names.
	cfg = writeConfig(t, fmt.Sprintf("plugins: [%q]\ngrants:\n  v: {env: {VERSION: from-yaml}, timeout_ms: 5000}\n", plugins))
	if r := runBinary(t, nil, "", "call", "version", "{}", "--config", cfg); r.code != exitOK || !strings.Contains(r.stdout, "version from-yaml") {
		t.Errorf("grants from wasmtools.yaml: %s", r)
	}
	cfg = writeConfig(t, "grants:\n  v: {httphosts: [x]}\n")
	if r := runBinary(t, nil, "", "list", "--config", cfg); r.code == exitOK || !strings.Contains(r.stderr, "http_hosts") {
		t.Errorf("misspelt grant: %s", r)
	}
	cfg = writeConfig(t, fmt.Sprintf("plugins: [%q]\nplugin_group: nope\n", plugins))
	if r := runBinary(t, nil, "", "list", "--config", cfg); r.code == exitOK || !strings.Contains(r.stderr, `plugin_group "nope" is not one of the groups`) {
		t.Errorf("unknown plugin_group: %s", r)
	}
}

// TestConfigTrustReadOnlyHint pins that an MCP server's readOnlyHint makes
// its tools read-only only with trust_read_only_hint in wasmtools.yaml.
func TestConfigTrustReadOnlyHint(t *testing.T) {
	server := testdata.NPMPeer(t, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(server); err != nil {
		t.Fatalf("the reference MCP server is not installed (see .ci/run): %v", err)
	}
	tests := []struct {
		name     string
		trust    string // the field's line, if any
		mode     string
		behavior string
	}{
		{"no field: echo asks", "", "default", "ask"},
		{"no field: echo is denied in explore", "", "explore", "deny"},
		{"false: echo asks", "trust_read_only_hint: false", "default", "ask"},
		{"true: echo is allowed", "trust_read_only_hint: true", "default", "allow"},
		{"true: echo is allowed in explore", "trust_read_only_hint: true", "explore", "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := writeConfig(t, fmt.Sprintf(`
mcp_servers:
  everything:
    command: node
    args: [%q, stdio]
    enable_tools: [echo]
    %s
`, server, tt.trust))
			r := runBinary(t, nil, "", "check", "mcp__everything__echo", `{"message":"hi"}`, "--json", "--config", cfg, "--mode", tt.mode)
			var d struct{ Behavior string }
			if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Behavior != tt.behavior {
				t.Errorf("%s, want %s\n%s", d.Behavior, tt.behavior, r)
			}
		})
	}
}
