package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/toolkit"
)

func TestCall(t *testing.T) {
	const hi = `{"text": "hi"}`
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string   // exact
		stderr []string // substrings
		prompt bool     // whether "Allow? [y/N]" was asked
	}{
		{name: "read-only tool runs", args: []string{"echo", `{"text": "hello"}`}, code: exitOK, stdout: "hello\n"},
		{name: "flags after the arguments", args: []string{"echo", `{"text": "a"}`, "--mode", "explore"}, code: exitOK, stdout: "a\n"},
		{name: "arguments from stdin", args: []string{"echo", "-"}, stdin: `{"text": "piped"}`, code: exitOK, stdout: "piped\n"},
		{name: "text already ending in a newline", args: []string{"echo", `{"text": "line\n"}`}, code: exitOK, stdout: "line\n"},

		{name: "ask, user says no", args: []string{"upper", hi}, stdin: "n\n", code: exitDenied,
			stderr: []string{"upper wants to run", "--allow 'upper'", "rejected"}, prompt: true},
		{name: "ask, user says nothing", args: []string{"upper", hi}, stdin: "\n", code: exitDenied, prompt: true},
		{name: "ask, input ends", args: []string{"upper", hi}, stdin: "", code: exitDenied,
			stderr: []string{"standard input ended", "--yes"}, prompt: true},
		{name: "ask, user says y", args: []string{"upper", hi}, stdin: "y\n", code: exitOK, stdout: "HI\n", prompt: true},
		{name: "ask, user says YES", args: []string{"upper", hi}, stdin: "YES\n", code: exitOK, stdout: "HI\n", prompt: true},
		{name: "--yes approves", args: []string{"upper", hi, "--yes"}, code: exitOK, stdout: "HI\n"},
		{name: "--yes before the tool", args: []string{"--yes", "upper", hi}, code: exitOK, stdout: "HI\n"},
		{name: "arguments from stdin with --yes", args: []string{"upper", "-", "--yes"}, stdin: hi, code: exitOK, stdout: "HI\n"},
		{name: "allow rule", args: []string{"upper", hi, "--allow", "upper"}, code: exitOK, stdout: "HI\n"},

		{name: "deny rule", args: []string{"upper", hi, "--deny", "upper", "--yes"}, code: exitDenied,
			stderr: []string{"denied", "rule upper"}},
		{name: "deny rule beats read-only", args: []string{"echo", hi, "--deny", "echo"}, code: exitDenied},
		{name: "mode explore", args: []string{"upper", hi, "--mode", "explore"}, code: exitDenied, stderr: []string{"explore"}},
		{name: "mode dont_ask", args: []string{"upper", hi, "--mode", "DONT-ASK"}, code: exitDenied},
		{name: "mode bypass", args: []string{"upper", hi, "--mode", "bypass"}, code: exitOK, stdout: "HI\n"},
		{name: "ask rule on a read-only tool", args: []string{"echo", hi, "--ask", "echo"}, stdin: "y\n", code: exitOK, stdout: "hi\n", prompt: true},

		{name: "unknown tool", args: []string{"nosuch", "{}"}, code: exitToolError, stderr: []string{"nosuch does not exist", "echo"}},
		{name: "schema violation", args: []string{"echo", `{"txt": "x"}`}, code: exitToolError, stderr: []string{"text"}},
		{name: "no arguments for a required field", args: []string{"echo"}, code: exitToolError, stderr: []string{"missing property"}},
		{name: "arguments not an object", args: []string{"echo", `["x"]`}, code: exitToolError, stderr: []string{"JSON object"}},
		{name: "repaired arguments of a read-only tool run, with a note", args: []string{"echo", `{"text": "hi`}, code: exitOK, stdout: "hi\n",
			stderr: []string{"not valid JSON", "repaired"}},
		{name: "repaired arguments of another tool do not run", args: []string{"upper", `{"text": "hi`, "--yes"}, code: exitToolError,
			stderr: []string{"not valid JSON", "Nothing was run", "Send the complete arguments again"}},

		{name: "no tool", args: nil, code: exitUsage, stderr: []string{"name the tool", "--help"}},
		{name: "too many arguments", args: []string{"echo", "{}", "{}"}, code: exitUsage, stderr: []string{"too many arguments"}},
		{name: "malformed rule", args: []string{"echo", hi, "--allow", "Bash(ls"}, code: exitUsage, stderr: []string{"missing closing ')'"}},
		{name: "unknown mode", args: []string{"echo", hi, "--mode", "yolo"}, code: exitUsage, stderr: []string{`unknown permission mode "yolo"`}},
		{name: "unknown flag", args: []string{"echo", hi, "--frobnicate"}, code: exitUsage, stderr: []string{"frobnicate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := wasmtools(t, tt.stdin, append([]string{"call"}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit code %d, want %d\n%s", r.code, tt.code, r)
			}
			if r.stdout != tt.stdout {
				t.Errorf("stdout = %q, want %q\n%s", r.stdout, tt.stdout, r)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q\n%s", s, r)
				}
			}
			if asked := strings.Contains(r.stderr, "Allow? [y/N]"); asked != tt.prompt {
				t.Errorf("asked = %v, want %v\n%s", asked, tt.prompt, r)
			}
		})
	}
}

func TestCallJSON(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
		tool  string
		state toolkit.State
		text  string // substring of the response text
	}{
		{name: "success", args: []string{"echo", `{"text": "hello"}`}, tool: "echo", code: exitOK, state: toolkit.StateSuccess, text: "hello"},
		{name: "approved with --yes", args: []string{"--json", "upper", `{"text": "hi"}`, "--yes"}, tool: "upper", code: exitOK, state: toolkit.StateSuccess, text: "HI"},
		{name: "approved on the terminal", args: []string{"upper", `{"text": "hi"}`}, stdin: "y\n", tool: "upper", code: exitOK, state: toolkit.StateSuccess, text: "HI"},
		{name: "rejected", args: []string{"upper", `{"text": "hi"}`}, stdin: "n\n", tool: "upper", code: exitDenied, state: toolkit.StateDenied, text: "rejected"},
		{name: "denied by the mode", args: []string{"upper", `{"text": "hi"}`, "--mode", "explore"}, tool: "upper", code: exitDenied, state: toolkit.StateDenied, text: "explore"},
		{name: "unknown tool", args: []string{"nosuch"}, tool: "nosuch", code: exitToolError, state: toolkit.StateError, text: "nosuch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := wasmtools(t, tt.stdin, append([]string{"call", "--json"}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit code %d, want %d\n%s", r.code, tt.code, r)
			}
			var resp toolkit.Response
			if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil {
				t.Fatalf("stdout is not a response: %v\n%s", err, r)
			}
			if resp.State != tt.state || resp.Tool != tt.tool {
				t.Errorf("state %q, tool %q; want %q, %q", resp.State, resp.Tool, tt.state, tt.tool)
			}
			if !strings.Contains(resp.Text(), tt.text) {
				t.Errorf("text %q lacks %q", resp.Text(), tt.text)
			}
		})
	}
}
