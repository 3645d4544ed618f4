package wasmtools_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools"
	"github.com/wasmtools/wasmtools/host"
	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/sandbox"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "wasmtools.yaml", []byte(text))
}

// TestLoadConfigErrors: a mistake in the file is an error that says where
// and what to write instead.
func TestLoadConfigErrors(t *testing.T) {
	for text, want := range map[string][]string{
		"allow:\n  - \"Bash(\"\n":                   {"line 2"},
		"allow: Read\n":                             {"line 1"},
		"mode: fast\n":                              {"unknown permission mode"},
		"allwo: []\n":                               {"allwo", "(fields: mode, working_dirs, allow, deny, ask, tools, reset_tools, plugins, plugin_group, skills, grants, groups, mcp_servers, limits, sandbox, token_file, allow_origins)"},
		"tools: {enabled: [Read]}\n":                {"line 1", "enabled"},
		"reset_tools: maybe\n":                      {"line 1", "write on or off"},
		"groups:\n  - name: web\n":                  {"groups[0]", "description"},
		"groups:\n  - name: web\n    colour: red\n": {"colour"},
		"mcp_servers:\n  x: {}\n":                   {"mcp_servers.x", "give command"},
		"working_dirs: [a\n":                        {"line"},
		"grants:\n  v: {httphosts: [x]}\n":          {"line 2", "http_hosts"},
		"sandbox:\n  mode: on\n":                    {"line 2", "sandbox.mode"},
		"sandbox:\n  net: off\n":                    {"line 2", `unknown field "net"`},
		"sandbox:\n  network: maybe\n":              {"line 2", "write on or off"},
		"limits:\n  max_result: 3\n":                {"max_result"},
		"watch: true\n":                             {"watch"}, // a Go-only field
	} {
		path := writeConfig(t, text)
		_, err := wasmtools.LoadConfig(path)
		if err == nil {
			t.Errorf("%q: no error", text)
			continue
		}
		for _, w := range append(want, path) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %v\nwant %q in it", text, err, w)
			}
		}
	}
	_, err := wasmtools.LoadConfig(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestLoadConfig reads every field, normalises the modes, records the
// file and its folder and leaves relative paths as written.
func TestLoadConfig(t *testing.T) {
	path := writeConfig(t, `
mode: ACCEPT-EDITS
working_dirs: [.]
allow: ["Bash(npm test:*)", Read]
deny: ["Bash(rm -rf:*)"]
ask: ["Write(//etc/**)"]
plugins: [plugins]
plugin_group: extra
skills: [skills]
grants:
  httpfetch: {http_hosts: [api.example.com], timeout_ms: 10000}
groups:
  - {name: extra, description: Extra tools., active: true}
mcp_servers:
  remote: {url: "https://mcp.example.com/mcp", group: extra, timeout_ms: 500}
  local: {command: node, args: [server.js], cwd: servers}
limits: {max_result_chars: 1000, offload_dir: results, max_offload_bytes: 4096}
sandbox: {mode: Required, network: false, writable: [cache]}
token_file: token
allow_origins: [https://app.example.com]
`)
	c, err := wasmtools.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case c.Mode != permission.ModeAcceptEdits:
		t.Errorf("mode %q", c.Mode)
	case c.File != path || c.Dir != filepath.Dir(path):
		t.Errorf("file %q, dir %q", c.File, c.Dir)
	case len(c.Allow) != 2 || c.Allow[1] != permission.MustParseRule("Read") || len(c.Deny) != 1 || len(c.Ask) != 1:
		t.Errorf("rules %v %v %v", c.Allow, c.Deny, c.Ask)
	case c.Plugins[0] != "plugins" || c.Skills[0] != "skills" || c.PluginGroup != "extra":
		t.Errorf("folders %q %q %q", c.Plugins, c.Skills, c.PluginGroup)
	case c.Grants["httpfetch"].HTTPHosts[0] != "api.example.com" || c.Grants["httpfetch"].TimeoutMS != 10000:
		t.Errorf("grants %+v", c.Grants)
	case len(c.Groups) != 1 || !c.Groups[0].Active:
		t.Errorf("groups %+v", c.Groups)
	case c.MCPServers["remote"].Group != "extra" || c.MCPServers["remote"].TimeoutMS != 500 || c.MCPServers["local"].Cwd != "servers":
		t.Errorf("servers %+v", c.MCPServers)
	case c.Limits != wasmtools.Limits{MaxResultChars: 1000, OffloadDir: "results", MaxOffloadBytes: 4096}:
		t.Errorf("limits %+v", c.Limits)
	case c.Sandbox.Mode != sandbox.ModeRequired || c.Sandbox.Network != wasmtools.Off || c.Sandbox.Writable[0] != "cache":
		t.Errorf("sandbox %+v", c.Sandbox)
	case c.TokenFile != "token" || c.AllowOrigins[0] != "https://app.example.com":
		t.Errorf("http: %q %q", c.TokenFile, c.AllowOrigins)
	}

	// allow with nothing is no rules.
	if c, err := wasmtools.LoadConfig(writeConfig(t, "allow:\n")); err != nil || c.Allow != nil {
		t.Errorf("an empty allow: %v, %v", c.Allow, err)
	}
	// An empty file is the zero Config.
	c, err = wasmtools.LoadConfig(writeConfig(t, ""))
	if err != nil || c.Mode != "" || c.Plugins != nil {
		t.Errorf("an empty file: %+v, %v", c, err)
	}
}

// TestOpenResolvesPaths: Open resolves the relative paths of the file
// against its folder (the working directories default to the current
// directory) and validates a Config built in Go as LoadConfig does.
func TestOpenResolvesPaths(t *testing.T) {
	path := writeConfig(t, "limits: {offload_dir: results}\nsandbox: {mode: off, writable: [cache, ~/x]}\ntoken_file: token\n")
	dir := filepath.Dir(path)
	h := open(t, load(t, path))
	c := h.Config()
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	switch {
	case c.Limits.OffloadDir != filepath.Join(dir, "results"):
		t.Errorf("offload_dir %q", c.Limits.OffloadDir)
	case c.Sandbox.Writable[0] != filepath.Join(dir, "cache") || c.Sandbox.Writable[1] != filepath.Join(home, "x"):
		t.Errorf("writable %q", c.Sandbox.Writable)
	case c.TokenFile != filepath.Join(dir, "token"):
		t.Errorf("token_file %q", c.TokenFile)
	case len(c.WorkingDirs) != 1 || c.WorkingDirs[0] != wd:
		t.Errorf("working dirs %q, want the current directory", c.WorkingDirs)
	}

	for _, tt := range []struct {
		cfg  wasmtools.Config
		want string
	}{
		{wasmtools.Config{Mode: "fast"}, "unknown permission mode"},
		{wasmtools.Config{Groups: []wasmtools.Group{{Name: "x"}}}, "a group needs a name and a description"},
		{wasmtools.Config{MCPServers: map[string]wasmtools.MCPServerConfig{"s": {}}}, "mcp_servers.s"},
		{wasmtools.Config{Sandbox: wasmtools.SandboxConfig{Mode: "sometimes"}}, "sandbox.mode"},
		{wasmtools.Config{Plugins: []string{path}}, "plugins " + path + ": not a folder"},
		{wasmtools.Config{File: path, PluginGroup: "nope", Plugins: []string{dir}}, path + `: plugin_group "nope"`},
	} {
		quiet(t, &tt.cfg)
		if _, err := wasmtools.Open(t.Context(), tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

// TestConfigREADMEExample loads the wasmtools.yaml example of README.md's
// Configuration section, so that the documented fields stay real.
func TestConfigREADMEExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(testplugins.Root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Configuration\n")
	if !ok {
		t.Fatal("README.md has no Configuration section")
	}
	_, block, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatal("README.md's Configuration section has no yaml example")
	}
	block, _, _ = strings.Cut(block, "```")
	c, err := wasmtools.LoadConfig(writeConfig(t, block))
	if err != nil {
		t.Fatalf("the README example does not load: %v", err)
	}
	if s, ok := c.MCPServers["everything"]; !ok || !s.TrustReadOnlyHint {
		t.Errorf("the README example's everything server: %+v, want trust_read_only_hint", s)
	}
	if c.Tools.Groups["Bash"] != "shell" || !slices.Contains(c.Tools.Disable, "PowerShell") || c.ResetTools != wasmtools.On {
		t.Errorf("the README example's tools: %+v, reset_tools %q", c.Tools, c.ResetTools)
	}
	// It opens: its tool names and groups are real.
	c.Plugins, c.Skills, c.MCPServers = nil, nil, nil // not there beside the test's copy
	c.PluginGroup = ""
	h, err := wasmtools.Open(t.Context(), c)
	if err != nil {
		t.Fatalf("the README example does not open: %v", err)
	}
	defer h.Close()
	if _, ok := h.Toolkit().Tool("PowerShell"); ok {
		t.Error("the README example's disabled PowerShell is registered")
	}
}

// TestLoadFoundConfig: a configuration found in the working folder is
// obeyed only as the operator trusted it, from a record no tool call can
// write; a missing one is fs.ErrNotExist.
func TestLoadFoundConfig(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	t.Chdir(dir)
	record := filepath.Join(elsewhere, "trust.json")
	t.Setenv(host.TrustFileEnv, record)
	if _, err := wasmtools.LoadFoundConfig(wasmtools.ConfigFile, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no file: %v, want fs.ErrNotExist", err)
	}
	writeFile(t, dir, wasmtools.ConfigFile, []byte("mode: explore\n"))
	if _, err := wasmtools.LoadFoundConfig(wasmtools.ConfigFile, nil); err == nil || !strings.Contains(err.Error(), "wasmtools plugins trust") {
		t.Errorf("untrusted: %v", err)
	}
	var rec host.TrustRecord
	if _, err := rec.TrustConfig(wasmtools.ConfigFile); err != nil {
		t.Fatal(err)
	}
	if err := rec.Write(record); err != nil {
		t.Fatal(err)
	}
	if cfg, err := wasmtools.LoadFoundConfig(wasmtools.ConfigFile, nil); err != nil || cfg.Mode != permission.ModeExplore {
		t.Errorf("trusted: %v, %v", cfg.Mode, err)
	}
	// The record in a working directory the caller or the file names
	// approves nothing.
	if _, err := wasmtools.LoadFoundConfig(wasmtools.ConfigFile, []string{elsewhere}); err == nil || !strings.Contains(err.Error(), "lies in") {
		t.Errorf("record in a working directory: %v", err)
	}
	writeFile(t, dir, wasmtools.ConfigFile, []byte("working_dirs: ["+elsewhere+"]\n"))
	if _, err := rec.TrustConfig(wasmtools.ConfigFile); err != nil {
		t.Fatal(err)
	}
	if err := rec.Write(record); err != nil {
		t.Fatal(err)
	}
	if _, err := wasmtools.LoadFoundConfig(wasmtools.ConfigFile, nil); err == nil || !strings.Contains(err.Error(), "lies in") {
		t.Errorf("record in a working directory the file names: %v", err)
	}
}
