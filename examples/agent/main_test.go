package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmtools/wasmtools/sandbox"
)

func TestMain(m *testing.M) {
	// The OS sandbox runs shell commands through this program: started
	// as its helper, become it.
	sandbox.Main()
	os.Exit(m.Run())
}

// chatRequest is what the test reads of a Chat Completions request.
type chatRequest struct {
	Model             string `json:"model"`
	ParallelToolCalls bool   `json:"parallel_tool_calls"`
	Messages          []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

func (r *chatRequest) toolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// toolResult returns the content of the tool message answering a call.
func (r *chatRequest) toolResult(callID string) string {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			var s string
			if json.Unmarshal(m.Content, &s) == nil {
				return s
			}
			return string(m.Content)
		}
	}
	return ""
}

// toolCall is a call the scripted model makes.
type toolCall struct{ id, name, args string }

// scriptedModel is an OpenAI-compatible Chat Completions server whose
// answers are a script: step i checks the request and answers it.
type scriptedModel struct {
	t     *testing.T
	mu    sync.Mutex
	steps []func(*chatRequest) (content string, calls []toolCall)
	n     int
}

func (m *scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	if m.n >= len(m.steps) {
		m.mu.Unlock()
		m.t.Errorf("the agent asked the model a %d-th time; the script has %d steps", m.n+1, len(m.steps))
		http.Error(w, "script over", http.StatusInternalServerError)
		return
	}
	step := m.steps[m.n]
	m.n++
	m.mu.Unlock()
	content, calls := step(&req)
	msg := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
		var tc []map[string]any
		for _, c := range calls {
			tc = append(tc, map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
		}
		msg["tool_calls"] = tc
		msg["content"] = nil
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", m.n), "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
	})
}

// TestAgentEndToEnd runs the agent against a scripted model: parallel
// calls, a denied call, a truncated call, an approval on the terminal, a
// tool group activated with reset_tools, skills in the system prompt.
func TestAgentEndToEnd(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	skill := filepath.Join(dir, "skills", "release-notes")
	for _, d := range []string{work, skill} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(work, "todo.txt"), "ship the agent example\n")
	write(filepath.Join(skill, "SKILL.md"), "---\nname: release-notes\ndescription: Write release notes from the changelog.\n---\nRead CHANGELOG.md first.\n")
	config := filepath.Join(dir, "wasmtools.yaml")
	write(config, "mode: default\nworking_dirs: [work]\ndeny: [\"Bash(rm:*)\"]\nskills: [skills]\n")
	out := filepath.Join(work, "out.txt")
	outArgs, _ := json.Marshal(map[string]string{"file_path": out, "content": "hello\n"})

	m := &scriptedModel{t: t}
	m.steps = []func(*chatRequest) (string, []toolCall){
		func(r *chatRequest) (string, []toolCall) {
			if !r.ParallelToolCalls || r.Model != "scripted" {
				t.Errorf("request: parallel_tool_calls %v, model %q", r.ParallelToolCalls, r.Model)
			}
			names := r.toolNames()
			for _, want := range []string{"Read", "Write", "Bash", "Glob", "reset_tools", "Skill"} {
				if !slices.Contains(names, want) {
					t.Errorf("tools offered %v lack %s", names, want)
				}
			}
			if slices.Contains(names, "note") {
				t.Errorf("note is offered before its group is active: %v", names)
			}
			if sys := string(r.Messages[0].Content); r.Messages[0].Role != "system" || !strings.Contains(sys, "release-notes") {
				t.Errorf("the system prompt does not list the skill: %s", sys)
			}
			return "", []toolCall{
				{"c_read", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(work, "todo.txt"))},
				{"c_glob", "Glob", fmt.Sprintf(`{"pattern":"*.txt","path":%q}`, work)},
				{"c_rm", "Bash", `{"command":"rm -rf work"}`},
			}
		},
		func(r *chatRequest) (string, []toolCall) {
			if got := r.toolResult("c_read"); !strings.Contains(got, "ship the agent example") {
				t.Errorf("Read result: %q", got)
			}
			if got := r.toolResult("c_glob"); !strings.Contains(got, "todo.txt") {
				t.Errorf("Glob result: %q", got)
			}
			if got := r.toolResult("c_rm"); !strings.Contains(got, "denied by the rule Bash(rm:*)") {
				t.Errorf("denied Bash result: %q", got)
			}
			// A cut-off call: the arguments end mid-string.
			return "", []toolCall{{"c_cut", "Write", string(outArgs[:len(outArgs)-8])}}
		},
		func(r *chatRequest) (string, []toolCall) {
			if got := r.toolResult("c_cut"); !strings.Contains(got, "not valid JSON") || !strings.Contains(got, "Nothing was run") {
				t.Errorf("truncated Write result: %q", got)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("the truncated Write wrote %s", out)
			}
			return "", []toolCall{{"c_write", "Write", string(outArgs)}}
		},
		func(r *chatRequest) (string, []toolCall) {
			if data, err := os.ReadFile(out); err != nil || string(data) != "hello\n" {
				t.Errorf("after the approved Write: %q %v", data, err)
			}
			return "", []toolCall{{"c_reset", "reset_tools", `{"notes":true}`}}
		},
		func(r *chatRequest) (string, []toolCall) {
			if !slices.Contains(r.toolNames(), "note") {
				t.Errorf("note is not offered after reset_tools: %v", r.toolNames())
			}
			if got := r.toolResult("c_reset"); !strings.Contains(got, "notes") {
				t.Errorf("reset_tools result: %q", got)
			}
			return "", []toolCall{{"c_note", "note", `{"text":"wrote out.txt"}`}}
		},
		func(r *chatRequest) (string, []toolCall) {
			if got := r.toolResult("c_note"); !strings.Contains(got, "wrote out.txt") {
				t.Errorf("note result: %q", got)
			}
			return "Done: out.txt written.", nil
		},
	}
	srv := httptest.NewServer(m)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")

	var stdout, stderr strings.Builder
	err := run(context.Background(), []string{"-model", "scripted", "-config", config, "write out.txt"},
		strings.NewReader("y\n"), &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("the agent's terminal:\n%s", stdout.String())
	if m.n != len(m.steps) {
		t.Errorf("the model was asked %d times, the script has %d steps", m.n, len(m.steps))
	}
	got := stdout.String()
	for _, want := range []string{"? Write", "← Bash denied", "← Write invalid_input", "← Write success", "Done: out.txt written."} {
		if !strings.Contains(got, want) {
			t.Errorf("stdout lacks %q:\n%s", want, got)
		}
	}
}

// TestAgentWithoutConfig: with no wasmtools.yaml in its folder and no
// -config, the agent offers the built-in tools and runs.
func TestAgentWithoutConfig(t *testing.T) {
	t.Chdir(t.TempDir())
	m := &scriptedModel{t: t}
	m.steps = []func(*chatRequest) (string, []toolCall){
		func(r *chatRequest) (string, []toolCall) {
			if !slices.Contains(r.toolNames(), "Read") {
				t.Errorf("tools offered without a configuration: %v", r.toolNames())
			}
			return "nothing to do", nil
		},
	}
	srv := httptest.NewServer(m)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"-model", "scripted", "look around"}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "nothing to do") {
		t.Errorf("stdout: %q", stdout.String())
	}
	var code strings.Builder
	if err := run(context.Background(), []string{"-config", "missing.yaml", "x"}, strings.NewReader(""), &code, &code); err == nil {
		t.Error("a -config file that does not exist was not an error")
	}
}
