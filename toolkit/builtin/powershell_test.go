package builtin

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

func TestPowerShellEncodeUTF16LE(t *testing.T) {
	// Expected values computed independently (Python:
	// base64.b64encode(s.encode("utf-16-le"))); the first non-trivial one
	// is the example of the PowerShell documentation for -EncodedCommand.
	tests := []struct{ in, want string }{
		{"", ""},
		{"a", "YQA="},
		{"Get-Date", "RwBlAHQALQBEAGEAdABlAA=="},
		{`dir "c:\program files" `, "ZABpAHIAIAAiAGMAOgBcAHAAcgBvAGcAcgBhAG0AIABmAGkAbABlAHMAIgAgAA=="},
		{"é", "6QA="},                    // U+00E9: one code unit, low byte first
		{"日本語", "5WUsZ56K"},              // BMP beyond Latin-1
		{"😀", "PdgA3g=="},                // U+1F600: surrogate pair D83D DE00
		{"a\n'\"$x", "YQAKACcAIgAkAHgA"}, // quotes, newline and $ travel as they are
		{"\xff", "/f8="},                 // invalid UTF-8 becomes U+FFFD
	}
	for _, tt := range tests {
		if got := encodeUTF16LEBase64(tt.in); got != tt.want {
			t.Errorf("encode(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	// Round trip through an independent decoder.
	for _, s := range []string{"Write-Output 'héllo wörld'", "emoji 😀🎉 and 𝄞", strings.Repeat("ü", 1000)} {
		raw, err := base64.StdEncoding.DecodeString(encodeUTF16LEBase64(s))
		if err != nil || len(raw)%2 != 0 {
			t.Fatalf("%q: %v, %d bytes", s, err, len(raw))
		}
		units := make([]uint16, len(raw)/2)
		for i := range units {
			units[i] = binary.LittleEndian.Uint16(raw[2*i:])
		}
		if got := string(utf16.Decode(units)); got != s {
			t.Errorf("round trip: %q, want %q", got, s)
		}
	}
}

// decodePowerShellScript undoes powerShellArgs, for checks.
func decodePowerShellScript(t *testing.T, args []string) string {
	t.Helper()
	if len(args) != 4 || args[0] != "-NoProfile" || args[1] != "-NonInteractive" || args[2] != "-EncodedCommand" {
		t.Fatalf("args %q", args)
	}
	raw, err := base64.StdEncoding.DecodeString(args[3])
	if err != nil {
		t.Fatal(err)
	}
	units := make([]uint16, len(raw)/2)
	for i := range units {
		units[i] = binary.LittleEndian.Uint16(raw[2*i:])
	}
	return string(utf16.Decode(units))
}

func TestPowerShellCommandLine(t *testing.T) {
	tests := []struct {
		command string
		prelude bool
	}{
		{"Get-ChildItem | Select-Object Name", true},
		{"Write-Output \"a 'b' `$c\"\nexit 3", true},
		{"using namespace System.Text\n[StringBuilder]::new()", false},
		{"  Param([int]$n = 1)\n$n", false},
		{"\r\nUSING module Foo", false},
	}
	for _, tt := range tests {
		script := decodePowerShellScript(t, powerShellArgs(tt.command))
		want := tt.command
		if tt.prelude {
			want = powerShellPrelude + tt.command
		}
		if script != want {
			t.Errorf("%q: script %q, want %q", tt.command, script, want)
		}
	}
	if !strings.HasSuffix(powerShellPrelude, "\n") || strings.Count(powerShellPrelude, "\n") != 1 {
		t.Error("the prelude must be one line of its own: error positions in the command shift by exactly one line")
	}
}

// TestPowerShellPermissions goes through the real engine: the tool always
// asks (not a safety ask), suggests no rule, and the modes and rules do
// the rest.
func TestPowerShellPermissions(t *testing.T) {
	call := toolkit.Call{Name: "PowerShell", Arguments: `{"command":"Remove-Item -Recurse C:\\temp\\x"}`}
	tests := []struct {
		name     string
		pc       permission.Context
		behavior permission.Behavior
	}{
		{"default", permission.Context{Mode: permission.ModeDefault}, permission.Ask},
		{"accept_edits", permission.Context{Mode: permission.ModeAcceptEdits}, permission.Ask},
		{"dont_ask", permission.Context{Mode: permission.ModeDontAsk}, permission.Deny},
		{"explore", permission.Context{Mode: permission.ModeExplore}, permission.Deny},
		{"bypass", permission.Context{Mode: permission.ModeBypass}, permission.Allow},
		{"tool-level allow rule", permission.Context{Mode: permission.ModeDefault, Allow: []permission.Rule{{Tool: "PowerShell"}}}, permission.Allow},
		{"allow rule with content does not match", permission.Context{Mode: permission.ModeDefault,
			Allow: []permission.Rule{{Tool: "PowerShell", Content: "Remove-Item:*"}}}, permission.Ask},
		{"deny rule in bypass", permission.Context{Mode: permission.ModeBypass, Deny: []permission.Rule{{Tool: "PowerShell"}}}, permission.Deny},
		{"ask rule in bypass", permission.Context{Mode: permission.ModeBypass, Ask: []permission.Rule{{Tool: "PowerShell"}}}, permission.Ask},
	}
	tk := toolkit.New(toolkit.Options{})
	if err := tk.Register(NewPowerShell(PowerShellOptions{})); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		d, err := tk.Check(context.Background(), "s", call, toolkit.CheckOptions{Permission: &tt.pc})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d.Behavior != tt.behavior {
			t.Errorf("%s: %s (%s), want %s", tt.name, d.Behavior, d.Message, tt.behavior)
		}
		if d.BypassImmune {
			t.Errorf("%s: the ask is bypass-immune; it must not be", tt.name)
		}
		if d.Behavior == permission.Ask && (d.Suggestions == nil || len(d.Suggestions) != 0) {
			t.Errorf("%s: suggestions %#v, want an empty list", tt.name, d.Suggestions)
		}
	}

	// The tool's own answers, without the engine.
	ps := NewPowerShell(PowerShellOptions{})
	d, err := ps.CheckPermissions(context.Background(), toolkit.Input{"command": "Get-Date"}, &permission.Context{})
	if err != nil || d.Behavior != permission.Ask || d.BypassImmune || d.Message == "" {
		t.Errorf("CheckPermissions: %+v %v", d, err)
	}
	if s := ps.Suggestions(toolkit.Input{"command": "Get-Date"}); s == nil || len(s) != 0 {
		t.Errorf("Suggestions: %#v, want an empty non-nil list", s)
	}
	spec := ps.Spec()
	if spec.Name != "PowerShell" || spec.ReadOnly || spec.Coordination || spec.External || spec.ConcurrencySafe {
		t.Errorf("spec %+v", spec)
	}
}

// TestPowerShellProbe: pwsh is preferred, powershell.exe is the fallback,
// the PATH is searched once, and an explicit executable skips the search.
func TestPowerShellProbe(t *testing.T) {
	tests := []struct {
		name      string
		installed []string
		opt       string
		want      string
		err       bool
	}{
		{"both", []string{"pwsh", "powershell.exe"}, "", "/bin/pwsh", false},
		{"only Windows PowerShell", []string{"powershell.exe"}, "", "/bin/powershell.exe", false},
		{"neither", nil, "", "", true},
		{"explicit", nil, "/opt/ps/pwsh", "/opt/ps/pwsh", false},
	}
	for _, tt := range tests {
		var lookups atomic.Int32
		ps := NewPowerShell(PowerShellOptions{Executable: tt.opt})
		ps.lookPath = func(name string) (string, error) {
			lookups.Add(1)
			if slices.Contains(tt.installed, name) {
				return "/bin/" + name, nil
			}
			return "", exec.ErrNotFound
		}
		for range 3 {
			got, err := ps.executable()
			if got != tt.want || (err != nil) != tt.err {
				t.Errorf("%s: %q %v, want %q (error %v)", tt.name, got, err, tt.want, tt.err)
			}
			if err != nil && (!strings.Contains(err.Error(), "pwsh") || !strings.Contains(err.Error(), "powershell.exe")) {
				t.Errorf("%s: error %q does not say what is missing", tt.name, err)
			}
		}
		if n := lookups.Load(); n > 2 || (tt.opt != "" && n != 0) {
			t.Errorf("%s: %d PATH lookups for 3 calls", tt.name, n)
		}
	}

	// Through the pipeline: no PowerShell is a clear error, not a crash.
	ps := NewPowerShell(PowerShellOptions{})
	ps.lookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	r, _ := runPowerShellTool(t, context.Background(), ps, map[string]any{"command": "Get-Date"})
	if r.State != toolkit.StateError || !strings.Contains(r.Text(), "not installed") {
		t.Errorf("%s %q", r.State, r.Text())
	}
}

func TestPowerShellDefaultShellTool(t *testing.T) {
	if IsWindows() != (runtime.GOOS == "windows") {
		t.Error("IsWindows disagrees with runtime.GOOS")
	}
	tests := []struct{ goos, name string }{
		{"windows", "PowerShell"},
		{"linux", "Bash"},
		{"darwin", "Bash"},
	}
	for _, tt := range tests {
		if got := shellToolFor(tt.goos, BashOptions{}, PowerShellOptions{}).Spec().Name; got != tt.name {
			t.Errorf("%s: %s, want %s", tt.goos, got, tt.name)
		}
	}
	want := "Bash"
	if IsWindows() {
		want = "PowerShell"
	}
	if got := DefaultShellTool(BashOptions{}, PowerShellOptions{}).Spec().Name; got != want {
		t.Errorf("DefaultShellTool here: %s, want %s", got, want)
	}
}

func TestCompleteUTF8(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"é", 2},
		{"a\xc3", 1},             // first byte of é
		{"a\xe6\x97", 1},         // two of three bytes of 日
		{"a\xf0\x9f\x98", 1},     // three of four bytes of 😀
		{"a\xf0\x9f\x98\x80", 5}, // all of 😀
		{"a\xff", 2},             // invalid, not incomplete: passed on
		{"\x80\x80\x80\x80", 4},  // stray continuation bytes: passed on
	}
	for _, tt := range tests {
		if got := completeUTF8([]byte(tt.in)); got != tt.want {
			t.Errorf("completeUTF8(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// runPowerShellTool runs one call in bypass mode (the permission check is
// tested above) and returns the response and the streamed chunks.
func runPowerShellTool(t *testing.T, ctx context.Context, ps *PowerShell, input map[string]any) (*toolkit.Response, []*toolkit.Chunk) {
	t.Helper()
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass, WorkingDirs: []string{t.TempDir()}}})
	if err := tk.Register(ps); err != nil {
		t.Fatal(err)
	}
	res, err := toolkittest.Run(ctx, tk, "s", "PowerShell", input, toolkit.TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Outcome.Response, res.Chunks
}

// fakePowerShell writes a stand-in for pwsh: it checks the command line,
// decodes -EncodedCommand (base64, UTF-16LE) with standard tools, drops
// the prelude line and runs the rest with bash. It lets the runner
// (streaming, cut, exit code, timeout, encoding end to end) be tested
// where PowerShell is not installed.
func fakePowerShell(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the PowerShell stand-in is a shell script")
	}
	for _, tool := range []string{"bash", "base64", "iconv"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the PowerShell stand-in needs %s, which is not installed", tool)
		}
	}
	path := filepath.Join(t.TempDir(), "fake-pwsh")
	script := `#!/usr/bin/env bash
if [ "$#" -ne 4 ] || [ "$1" != -NoProfile ] || [ "$2" != -NonInteractive ] || [ "$3" != -EncodedCommand ]; then
  echo "bad command line: $*" >&2; exit 99
fi
script=$(printf '%s' "$4" | base64 -d | iconv -f UTF-16LE -t UTF-8) || exit 98
exec bash -c "${script#*$'\n'}"
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPowerShellRunnerWithStandIn(t *testing.T) {
	fake := fakePowerShell(t)
	dir := t.TempDir()
	tests := []struct {
		name     string
		input    map[string]any
		state    toolkit.State
		text     []string
		exitCode int
	}{
		{"stdout and stderr", map[string]any{"command": "echo out; echo err >&2"}, toolkit.StateSuccess, []string{"out\n", "err\n"}, 0},
		{"exit code", map[string]any{"command": "echo x; exit 3"}, toolkit.StateError, []string{"x\n", "[exit code 3]"}, 3},
		{"working directory", map[string]any{"command": "pwd"}, toolkit.StateSuccess, []string{dir}, 0},
		{"non-ASCII and quotes survive the encoding", map[string]any{"command": `echo "héllo 'wörld' 😀 日本"`}, toolkit.StateSuccess,
			[]string{"héllo 'wörld' 😀 日本\n"}, 0},
		{"a character split across writes", map[string]any{"command": `printf '\xc3'; sleep 0.2; printf '\xa9\n'`}, toolkit.StateSuccess,
			[]string{"é\n"}, 0},
		{"no stdin", map[string]any{"command": "cat; echo done"}, toolkit.StateSuccess, []string{"done"}, 0},
	}
	for _, tt := range tests {
		resp, chunks := runPowerShellTool(t, context.Background(), NewPowerShell(PowerShellOptions{Cwd: dir, Executable: fake}), tt.input)
		if resp.State != tt.state {
			t.Errorf("%s: state %s, want %s (%q)", tt.name, resp.State, tt.state, resp.Text())
		}
		for _, w := range tt.text {
			if !strings.Contains(resp.Text(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, resp.Text(), w)
			}
		}
		if code, _ := resp.Metadata["exit_code"].(int); code != tt.exitCode {
			t.Errorf("%s: exit code %v, want %d", tt.name, resp.Metadata["exit_code"], tt.exitCode)
		}
		for _, c := range chunks {
			for _, b := range c.Content {
				if !utf8.ValidString(b.Text) {
					t.Errorf("%s: chunk %q is not valid UTF-8", tt.name, b.Text)
				}
			}
		}
	}
}

func TestPowerShellStreamsAndCuts(t *testing.T) {
	fake := fakePowerShell(t)
	ps := NewPowerShell(PowerShellOptions{Executable: fake})

	resp, chunks := runPowerShellTool(t, context.Background(), ps, map[string]any{"command": "echo first; sleep 0.3; echo second"})
	if resp.State != toolkit.StateSuccess || resp.Text() != "first\nsecond\n" {
		t.Fatalf("%s %q", resp.State, resp.Text())
	}
	if len(chunks) < 2 || chunks[0].Content[0].Text != "first\n" {
		t.Errorf("output did not stream as it came: %+v", chunks)
	}

	resp, _ = runPowerShellTool(t, context.Background(), ps, map[string]any{"command": "head -c 100000 /dev/zero | tr '\\0' é"})
	text := resp.Text()
	output, _, _ := strings.Cut(text, "\n[output cut")
	if n := utf8.RuneCountInString(output); n != MaxPowerShellOutput {
		t.Errorf("%d characters of output kept, want %d", n, MaxPowerShellOutput)
	}
	if !strings.Contains(text, "[output cut: 30000 of ") {
		t.Errorf("no cut note in %q", text[len(text)-80:])
	}
}

func TestPowerShellTimeoutAndCancel(t *testing.T) {
	fake := fakePowerShell(t)
	ps := NewPowerShell(PowerShellOptions{Executable: fake})

	start := time.Now()
	resp, _ := runPowerShellTool(t, context.Background(), ps, map[string]any{"command": "echo started; sleep 30", "timeout": 500})
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Fatalf("the call took %s after a 500 ms timeout", elapsed)
	}
	if resp.State != toolkit.StateError || !strings.Contains(resp.Text(), "timed out") || resp.Metadata["timed_out"] != true {
		t.Fatalf("%s %q %v", resp.State, resp.Text(), resp.Metadata)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	start = time.Now()
	resp, _ = runPowerShellTool(t, ctx, ps, map[string]any{"command": "echo a; sleep 30"})
	if time.Since(start) > 10*time.Second {
		t.Fatal("cancellation did not stop the command")
	}
	if resp.State != toolkit.StateInterrupted {
		t.Fatalf("state %s, want interrupted (%q)", resp.State, resp.Text())
	}
}

// TestPowerShellExecution runs real PowerShell when pwsh is installed.
func TestPowerShellExecution(t *testing.T) {
	if _, err := exec.LookPath("pwsh"); err != nil {
		t.Skip("pwsh is not installed on this machine: skipping the tests that run real PowerShell")
	}
	dir := t.TempDir()
	tests := []struct {
		name     string
		command  string
		state    toolkit.State
		text     []string
		exitCode int
	}{
		{"output", "Write-Output 'hello'", toolkit.StateSuccess, []string{"hello"}, 0},
		{"non-ASCII", "Write-Output 'héllo 😀 日本'", toolkit.StateSuccess, []string{"héllo 😀 日本"}, 0},
		{"exit code", "Write-Output x; exit 3", toolkit.StateError, []string{"x", "[exit code 3]"}, 3},
		{"error stream", "[Console]::Error.WriteLine('oops')", toolkit.StateSuccess, []string{"oops"}, 0},
		{"working directory", "(Get-Location).Path", toolkit.StateSuccess, []string{filepath.Base(dir)}, 0},
		{"using statement first", "using namespace System.Text\n[StringBuilder]::new('sb').ToString()", toolkit.StateSuccess, []string{"sb"}, 0},
		{"quotes and newlines", "$a = \"it's\"\nWrite-Output \"$a `\"quoted`\"\"", toolkit.StateSuccess, []string{`it's "quoted"`}, 0},
	}
	for _, tt := range tests {
		resp, _ := runPowerShellTool(t, context.Background(), NewPowerShell(PowerShellOptions{Cwd: dir}), map[string]any{"command": tt.command})
		if resp.State != tt.state {
			t.Errorf("%s: state %s, want %s (%q)", tt.name, resp.State, tt.state, resp.Text())
		}
		for _, w := range tt.text {
			if !strings.Contains(resp.Text(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, resp.Text(), w)
			}
		}
		if code, _ := resp.Metadata["exit_code"].(int); code != tt.exitCode {
			t.Errorf("%s: exit code %v, want %d", tt.name, resp.Metadata["exit_code"], tt.exitCode)
		}
	}
	resp, _ := runPowerShellTool(t, context.Background(), NewPowerShell(PowerShellOptions{}), map[string]any{"command": "Start-Sleep 30", "timeout": 1000})
	if resp.State != toolkit.StateError || resp.Metadata["timed_out"] != true {
		t.Errorf("timeout: %s %q", resp.State, resp.Text())
	}
}
