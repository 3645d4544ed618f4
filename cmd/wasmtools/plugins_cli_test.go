package main

import (
	"encoding/json"
	"os"
	"os/exec"
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

// TestPluginsTrust drives the trust record from the command line: a
// module in a plugin folder inside the working directory waits (list
// reports it, with the command that trusts it), serves once trusted,
// waits again when its sidecar changes, and stops when revoked; a record
// kept inside the working directory approves nothing.
func TestPluginsTrust(t *testing.T) {
	work := t.TempDir()
	plugins := filepath.Join(work, "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(testplugins.Go(t, "jsonquery"))
	if err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(plugins, "jsonquery.wasm")
	sidecar := filepath.Join(plugins, "jsonquery.json")
	if err := os.WriteFile(module, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sidecar, []byte(`{"grants":{"config":{"k":"v"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "trust.json")
	env := []string{"WASMTOOLS_TRUST_FILE=" + record}

	type listed struct {
		Tools   []struct{ Name string }        `json:"tools"`
		Pending []struct{ Path, Error string } `json:"pending_plugins"`
	}
	list := func(env []string) (served bool, pending string) {
		t.Helper()
		r := runBinary(t, env, "", "list", "--json", "--workdir", work, "--plugins", plugins)
		var out listed
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
			t.Fatalf("%v\n%s", err, r)
		}
		for _, tool := range out.Tools {
			served = served || tool.Name == "jsonquery"
		}
		for _, p := range out.Pending {
			if p.Path == module {
				pending = p.Error
			}
		}
		return served, pending
	}

	if served, pending := list(env); served || !strings.Contains(pending, "wasmtools plugins trust "+module) {
		t.Fatalf("an untrusted module in the working directory: served %v, pending %q", served, pending)
	}

	r := runBinary(t, env, "", "plugins", "trust", "--json", plugins)
	var trusted struct {
		TrustFile string `json:"trust_file"`
		Trusted   []struct {
			Path, Kind, SHA256 string
			Grants             map[string]any
		} `json:"trusted"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &trusted); err != nil || r.code != 0 {
		t.Fatalf("%v\n%s", err, r)
	}
	if trusted.TrustFile != record || len(trusted.Trusted) != 1 || trusted.Trusted[0].Path != module || trusted.Trusted[0].Grants["config"] == nil {
		t.Errorf("plugins trust: %s", r.stdout)
	}
	if served, pending := list(env); !served || pending != "" {
		t.Errorf("a trusted module: served %v, pending %q", served, pending)
	}

	// The sidecar grows a grant: the module waits again.
	if err := os.WriteFile(sidecar, []byte(`{"grants":{"config":{"k":"v"},"http_hosts":["example.com"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if served, pending := list(env); served || !strings.Contains(pending, "sidecar jsonquery.json changed") {
		t.Errorf("a trusted module whose sidecar changed: served %v, pending %q", served, pending)
	}
	r = runBinary(t, env, "", "plugins", "list", plugins)
	if r.code != 0 || !strings.Contains(r.stdout, "changed  module  "+module) || !strings.Contains(r.stdout, "PENDING "+module) {
		t.Errorf("plugins list after the change:\n%s", r)
	}

	r = runBinary(t, env, "", "plugins", "revoke", plugins)
	if r.code != 0 || !strings.Contains(r.stdout, "revoked "+module) {
		t.Errorf("plugins revoke:\n%s", r)
	}
	if err := os.WriteFile(sidecar, []byte(`{"grants":{"config":{"k":"v"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if served, _ := list(env); served {
		t.Error("a revoked module is served")
	}

	// A record inside the working directory could be written by the
	// agent: the host does not read it.
	inside := []string{"WASMTOOLS_TRUST_FILE=" + filepath.Join(work, "trust.json")}
	if r := runBinary(t, inside, "", "plugins", "trust", plugins); r.code != 0 {
		t.Fatalf("plugins trust:\n%s", r)
	}
	if served, pending := list(inside); served || !strings.Contains(pending, "lies in a folder tool calls may write") {
		t.Errorf("approved by a record in the working directory: served %v, pending %q", served, pending)
	}

	if r := runBinary(t, env, "", "plugins", "frobnicate"); r.code != exitUsage || !strings.Contains(r.stderr, "trust, list or revoke") {
		t.Errorf("plugins frobnicate:\n%s", r)
	}
}

// TestImplicitConfigNeedsTrust: a wasmtools.yaml found in the current
// directory (the default working directory, which tool calls may write)
// is obeyed only as the operator trusted it; one named with --config is
// the operator's word.
func TestImplicitConfigNeedsTrust(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "wasmtools.yaml")
	if err := os.WriteFile(config, []byte("deny: [Read]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "WASMTOOLS_TRUST_FILE="+filepath.Join(t.TempDir(), "trust.json"))
	run := func(args ...string) result {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), binary, args...)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		return result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	}
	if r := run("check", "Read", `{"file_path":"x"}`); r.code != exitToolError || !strings.Contains(r.stderr, "wasmtools plugins trust "+config) {
		t.Fatalf("an untrusted wasmtools.yaml in the current directory was read:\n%s", r)
	}
	if r := run("check", "--config", config, "Read", `{"file_path":"x"}`); r.code == exitToolError || !strings.Contains(r.stdout, "deny") {
		t.Errorf("a configuration named with --config was not read as it is:\n%s", r)
	}
	if r := run("plugins", "trust", "wasmtools.yaml"); r.code != 0 || !strings.Contains(r.stdout, "trusted config "+config) {
		t.Fatalf("plugins trust wasmtools.yaml:\n%s", r)
	}
	if r := run("check", "Read", `{"file_path":"x"}`); r.code == exitToolError || !strings.Contains(r.stdout, "deny") {
		t.Errorf("the trusted wasmtools.yaml was not read:\n%s", r)
	}
	if err := os.WriteFile(config, []byte("deny: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run("check", "Read", `{"file_path":"x"}`); r.code != exitToolError || !strings.Contains(r.stderr, "changed since the operator trusted it") {
		t.Errorf("a changed wasmtools.yaml was read:\n%s", r)
	}
}
