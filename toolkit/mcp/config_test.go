package mcp

import (
	"maps"
	"strings"
	"testing"
)

func TestParseServers(t *testing.T) {
	good := `{"mcpServers": {
  "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"A": "1"}},
  "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}, "disable_tools": ["rm"]}
}}`
	servers, err := ParseServers("mcp.json", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].Name != "everything" || servers[0].Args[1] != "@modelcontextprotocol/server-everything" ||
		servers[1].URL != "https://example.com/mcp" || servers[1].Headers["Authorization"] != "Bearer x" || servers[1].DisableTools[0] != "rm" {
		t.Fatalf("%+v", servers)
	}
	dirs := `{"mcpServers": {"rel": {"command": "x", "cwd": "servers/a"}, "abs": {"command": "x", "cwd": "/srv/mcp"}, "none": {"command": "x"}}}`
	servers, err = ParseServers("/etc/wasmtools/mcp.json", []byte(dirs))
	if err != nil {
		t.Fatal(err)
	}
	gotDirs := map[string]string{}
	for _, s := range servers {
		gotDirs[s.Name] = s.Dir
	}
	if want := map[string]string{"rel": "/etc/wasmtools/servers/a", "abs": "/srv/mcp", "none": ""}; !maps.Equal(gotDirs, want) {
		t.Errorf("cwd: %v, want %v", gotDirs, want)
	}
	trust := `{"mcpServers": {
  "trusted": {"command": "x", "trust_read_only_hint": true},
  "untrusted": {"command": "x", "trust_read_only_hint": false},
  "unsaid": {"command": "x"}
}}`
	servers, err = ParseServers("mcp.json", []byte(trust))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, s := range servers {
		got[s.Name] = s.TrustReadOnlyHint
	}
	if want := map[string]bool{"trusted": true, "untrusted": false, "unsaid": false}; !maps.Equal(got, want) {
		t.Errorf("trust_read_only_hint: %v, want %v", got, want)
	}
	for in, want := range map[string]string{
		"{\n  \"mcpServers\": {\n    \"a\": {\"command\": }\n  }\n}":             "mcp.json:3:",
		`{"mcpServers": {"a": {}}}`:                                              "give \"command\"",
		`{"mcpServers": {"a": {"command": "x", "url": "y"}}}`:                    "not both",
		`{"mcpServers": {"a": {"comand": "x"}}}`:                                 "mcpServers.a",
		`{"servers": {}}`:                                                        "no \"mcpServers\"",
		`{"mcpServers": {"a": {"args": "x", "command": "y"}}}`:                   "mcpServers.a",
		`{"mcpServers": {"a": {"command": "y", "trust_readonly": true}}}`:        "trust_read_only_hint",
		`{"mcpServers": {"a": {"command": "y", "trust_read_only_hint": "yes"}}}`: "trust_read_only_hint",
	} {
		if _, err := ParseServers("mcp.json", []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}
