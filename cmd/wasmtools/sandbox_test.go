package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
)

// needSandbox skips a test when the binary reports that this kernel has
// no Landlock, saying so; under CI (CI=true), whose kernel has it, that
// is a failure instead.
func needSandbox(t *testing.T) {
	t.Helper()
	r := runBinary(t, nil, "", "list", "--json")
	var out struct {
		Sandbox struct {
			Supported bool   `json:"supported"`
			Reason    string `json:"reason"`
		} `json:"sandbox"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r)
	}
	if out.Sandbox.Supported {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI runs on a kernel with Landlock, and this one has none: %s", out.Sandbox.Reason)
	}
	t.Skipf("SKIPPED, the OS sandbox was not tested: %s", out.Sandbox.Reason)
}

// bashCall returns the arguments of a Bash call.
func bashCall(command string, sandboxSetting string) string {
	m := map[string]string{"command": command}
	if sandboxSetting != "" {
		m["sandbox"] = sandboxSetting
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// listing is every path below dir with its contents.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			out = append(out, rel+"="+string(b))
		}
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, ";")
}

// TestSandboxCall: commands that bypass mode allows write nothing
// outside the working directory (kept outside the repository), with
// several ways of writing; writes inside work.
func TestSandboxCall(t *testing.T) {
	needSandbox(t)
	work, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := listing(t, outside)
	o := outside
	commands := []string{
		"touch " + o + "/x",
		"sh -c 'echo > " + o + "/y'",
		"ln -s " + o + "/via-link link && echo x > link",
		"echo data > f && cp f " + o + "/copy",
		"cd " + o + " && echo x >> keep",
		"echo x | tee " + o + "/tee",
		"mv " + o + "/keep " + work + "/stolen",
	}
	if _, err := exec.LookPath("python3"); err == nil {
		commands = append(commands, `python3 -c 'open("`+o+`/py", "w").write("x")'`)
	}
	for _, c := range commands {
		r := runBinary(t, nil, "", "call", "Bash", bashCall(c, ""), "--mode", "bypass", "--workdir", work, "--sandbox", "required", "--yes")
		if r.code != exitToolError || !strings.Contains(r.stdout+r.stderr, "[sandbox]") || !strings.Contains(r.stdout+r.stderr, `"sandbox": "off"`) {
			t.Errorf("%s: %s", c, r)
		}
	}
	if after := listing(t, outside); after != before {
		t.Errorf("written outside the working directory:\nbefore %s\nafter  %s", before, after)
	}
	r := runBinary(t, nil, "", "call", "Bash", bashCall(`mkdir -p d && echo in > d/f && echo t > "$TMPDIR/t" && cat d/f "$TMPDIR/t"`, ""),
		"--mode", "bypass", "--workdir", work, "--sandbox", "required", "--yes")
	if r.code != exitOK || r.stdout != "in\nt\n" {
		t.Errorf("writes inside: %s", r)
	}
}

// TestSandboxEscalationCall: a refused command re-run with "sandbox":
// "off" asks, as a safety check naming the command, even in bypass mode;
// rejected it does not run, approved it does.
func TestSandboxEscalationCall(t *testing.T) {
	needSandbox(t)
	work, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "x")
	command := "touch " + target
	flags := []string{"--mode", "bypass", "--workdir", work, "--sandbox", "required"}

	r := runBinary(t, nil, "", append([]string{"call", "Bash", bashCall(command, "")}, flags...)...)
	if r.code != exitToolError || !strings.Contains(r.stdout, "Permission denied") || !strings.Contains(r.stdout, "[sandbox]") {
		t.Fatalf("confined: %s", r)
	}
	r = runBinary(t, nil, "n\n", append([]string{"call", "Bash", bashCall(command, "off")}, flags...)...)
	if r.code != exitDenied || !strings.Contains(r.stderr, "WITHOUT the OS sandbox") || !strings.Contains(r.stderr, command) ||
		!strings.Contains(r.stderr, "safety check") || !strings.Contains(r.stderr, "Allow? [y/N]") {
		t.Fatalf("rejected: %s", r)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the rejected command ran")
	}
	r = runBinary(t, nil, "", append([]string{"call", "Bash", bashCall(command, "off"), "--yes"}, flags...)...)
	if r.code != exitOK {
		t.Fatalf("approved: %s", r)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	for _, mode := range []string{"dont_ask", "explore"} {
		r = runBinary(t, nil, "", "call", "Bash", bashCall("ls", "off"), "--mode", mode, "--workdir", work, "--sandbox", "required", "--yes")
		if r.code != exitDenied {
			t.Errorf("%s: %s", mode, r)
		}
	}

	// check: the same question, bypass-immune; nothing to ask with the sandbox off.
	r = runBinary(t, nil, "", "check", "Bash", bashCall("ls", "off"), "--mode", "bypass", "--workdir", work, "--json")
	var d decisionJSON
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Behavior != "ask" || !d.BypassImmune {
		t.Errorf("check with the sandbox on: %v %s", err, r)
	}
	r = runBinary(t, nil, "", "check", "Bash", bashCall("ls", "off"), "--mode", "bypass", "--workdir", work, "--sandbox", "off", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Behavior != "allow" {
		t.Errorf("check with the sandbox off: %v %s", err, r)
	}
}

// TestSandboxServeElicitation: over MCP, the unconfined re-run reaches
// the user as an elicitation naming the command, in bypass mode too.
func TestSandboxServeElicitation(t *testing.T) {
	needSandbox(t)
	work, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "x")
	var asked []string
	answer := "reject"
	cs := serveSession(t, work, func(r *sdk.ElicitRequest) *sdk.ElicitResult {
		asked = append(asked, r.Params.Message)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": answer}}
	}, "--mode", "bypass", "--sandbox", "required")
	call := func(args map[string]any) *sdk.CallToolResult {
		r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "Bash", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := call(map[string]any{"command": "touch " + target})
	if !r.IsError || !strings.Contains(resultText(r), "[sandbox]") || len(asked) != 0 {
		t.Fatalf("confined: %q, asked %q", resultText(r), asked)
	}
	r = call(map[string]any{"command": "touch " + target, "sandbox": "off"})
	if !r.IsError || len(asked) != 1 || !strings.Contains(asked[0], "WITHOUT the OS sandbox") || !strings.Contains(asked[0], "touch "+target) {
		t.Fatalf("rejected: %q, asked %q", resultText(r), asked)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the rejected command ran")
	}
	answer = "once"
	if r = call(map[string]any{"command": "touch " + target, "sandbox": "off"}); r.IsError || len(asked) != 2 {
		t.Fatalf("approved: %q, asked %q", resultText(r), asked)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
}

// TestSandboxNetworkConfig: sandbox: network: off in wasmtools.yaml
// refuses a connection to a loopback listener.
func TestSandboxNetworkConfig(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("SKIPPED: python3 is needed to open a socket")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	connect := fmt.Sprintf(`python3 -c 'import socket; print(socket.create_connection(("127.0.0.1", %d)).recv(6).decode())'`, ln.Addr().(*net.TCPAddr).Port)
	work := t.TempDir()
	r := runBinary(t, nil, "", "call", "Bash", bashCall(connect, ""), "--mode", "bypass", "--workdir", work, "--sandbox", "required", "--yes")
	if r.code != exitOK || !strings.Contains(r.stdout, "hello") {
		t.Errorf("network on: %s", r)
	}
	cfg := filepath.Join(t.TempDir(), "wasmtools.yaml")
	if err := os.WriteFile(cfg, []byte("sandbox:\n  mode: required\n  network: off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, nil, "", "call", "Bash", bashCall(connect, ""), "--mode", "bypass", "--workdir", work, "--config", cfg, "--yes")
	if r.code != exitToolError || strings.Contains(r.stdout, "hello") || !strings.Contains(r.stdout, "network off") {
		t.Errorf("network off: %s", r)
	}
}

// TestSandboxList: list reports the sandbox as the flags and the
// configuration set it.
func TestSandboxList(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "wasmtools.yaml")
	if err := os.WriteFile(cfg, []byte("sandbox:\n  mode: required\n  network: off\n  writable: [cache, /abs/path, ~/.cache]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type status struct {
		Mode      string   `json:"mode"`
		Enforced  bool     `json:"enforced"`
		Supported bool     `json:"supported"`
		ABI       int      `json:"abi"`
		Network   string   `json:"network"`
		Writable  []string `json:"writable"`
		Reason    string   `json:"reason"`
	}
	list := func(args ...string) status {
		t.Helper()
		r := runBinary(t, nil, "", append([]string{"list", "--json"}, args...)...)
		var out struct{ Sandbox status }
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != exitOK {
			t.Fatalf("%v: %s", err, r)
		}
		return out.Sandbox
	}
	def := list()
	if def.Mode != "auto" || def.Network != "on" || def.Enforced != def.Supported || def.Supported != (def.ABI > 0) || def.Writable == nil {
		t.Errorf("default: %+v", def)
	}
	if !def.Supported && def.Reason == "" {
		t.Errorf("no reason given for an unconfined sandbox: %+v", def)
	}
	if off := list("--sandbox", "off"); off.Mode != "off" || off.Enforced || off.Reason == "" {
		t.Errorf("--sandbox off: %+v", off)
	}
	got := list("--config", cfg)
	home, _ := os.UserHomeDir()
	if got.Mode != "required" || got.Network != "off" || len(got.Writable) != 3 || got.Writable[0] != filepath.Join(dir, "cache") || got.Writable[1] != "/abs/path" ||
		got.Writable[2] != filepath.Join(home, ".cache") {
		t.Errorf("configured: %+v", got)
	}
	if flag := list("--config", cfg, "--sandbox", "AUTO"); flag.Mode != "auto" || flag.Network != "off" {
		t.Errorf("the flag wins over the configuration's mode: %+v", flag)
	}
	r := runBinary(t, nil, "", "list", "--sandbox", "off")
	if !strings.Contains(r.stdout, "SANDBOX off: shell commands run unconfined") {
		t.Errorf("text: %s", r)
	}

	for _, bad := range []struct{ yaml, want string }{
		{"sandbox:\n  mode: maybe\n", `line 2: sandbox.mode: unknown sandbox mode "maybe"`},
		{"sandbox:\n  network: sometimes\n", `line 2: "sometimes": write on or off`},
		{"sandbox:\n  netwrk: off\n", `line 2: sandbox: unknown field "netwrk"`},
	} {
		if err := os.WriteFile(cfg, []byte(bad.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBinary(t, nil, "", "list", "--config", cfg)
		if r.code == exitOK || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("%q: %s", bad.yaml, r)
		}
	}
	if r := runBinary(t, nil, "", "list", "--sandbox", "on"); r.code != exitUsage || !strings.Contains(r.stderr, "auto, required or off") {
		t.Errorf("--sandbox on: %s", r)
	}
	for _, cmd := range []string{"call", "check", "serve", "list"} {
		if r := runBinary(t, nil, "", cmd, "--help"); !strings.Contains(r.stdout, "-sandbox") {
			t.Errorf("%s --help lacks --sandbox", cmd)
		}
	}
}

// BenchmarkSandboxExecWasmtools measures what the sandbox adds to a
// command when the helper is the wasmtools binary (as under serve, and
// for an embedder whose sandbox.Options.Helper names a wasmtools
// binary): `true` run unconfined, then confined.
func BenchmarkSandboxExecWasmtools(b *testing.B) {
	work := b.TempDir()
	ctx := toolkit.WithRuntime(context.Background(), &toolkit.Runtime{Permission: &permission.Context{Mode: permission.ModeDefault, WorkingDirs: []string{work}}})
	on, err := sandbox.New(sandbox.Options{Mode: sandbox.ModeRequired, Helper: binary})
	if err != nil {
		b.Fatal(err)
	}
	if !on.Status().Supported {
		b.Skipf("SKIPPED: %s", on.Status().Reason)
	}
	for _, bc := range []struct {
		name string
		sb   *sandbox.Sandbox
	}{{"unconfined", nil}, {"confined", on}} {
		b.Run(bc.name, func(b *testing.B) {
			be := &builtin.LocalBackend{Shell: "/bin/sh", Sandbox: bc.sb}
			for b.Loop() {
				res, err := be.Exec(ctx, builtin.ExecRequest{Command: "true", Dir: work}, nil)
				if err != nil || res.ExitCode != 0 {
					b.Fatal(res, err)
				}
			}
		})
	}
}
