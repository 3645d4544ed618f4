package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/wasmtools/wasmtools/internal/testdata"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveSession starts `wasmtools serve` as a process and connects an MCP
// client from the official SDK to it over stdio.
func serveSession(t *testing.T, dir string, elicit func(*sdk.ElicitRequest) *sdk.ElicitResult, args ...string) *sdk.ClientSession {
	t.Helper()
	opts := &sdk.ClientOptions{}
	if elicit != nil {
		opts.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) { return elicit(r), nil }
	}
	return serveSessionWith(t, dir, opts, args...)
}

// serveSessionWith is serveSession with the client's options spelled out.
func serveSessionWith(t *testing.T, dir string, opts *sdk.ClientOptions, args ...string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cmd := exec.Command(binary, append([]string{"serve", "--workdir", dir}, args...)...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func resultText(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestServeStdio(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	cs := serveSession(t, dir, nil)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"Bash", "Read", "Write", "Edit"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("tools/list %v lacks %s", names, want)
		}
	}
	// A read-only command runs; one that needs approval is denied to a
	// client that cannot elicit, with the rule that would allow it.
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "pwd"}})
	if err != nil || r.IsError || strings.TrimSpace(resultText(r)) != dir {
		t.Fatalf("pwd: %v %v %q", err, r.IsError, resultText(r))
	}
	r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch made.txt"}})
	if err != nil || !r.IsError || !strings.Contains(resultText(r), "Bash(touch:*)") {
		t.Fatalf("touch without elicitation: %v %v %q", err, r.IsError, resultText(r))
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Fatal("the denied command ran")
	}
}

func TestServeElicitation(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var asked []string
	answer := "always"
	cs := serveSession(t, dir, func(r *sdk.ElicitRequest) *sdk.ElicitResult {
		asked = append(asked, r.Params.Message)
		if answer == "decline" {
			return &sdk.ElicitResult{Action: "decline"}
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": answer}}
	})
	call := func(cmd string) *sdk.CallToolResult {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": cmd}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := call("touch a.txt"); r.IsError {
		t.Fatalf("approved touch: %q", resultText(r))
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "touch a.txt") {
		t.Fatalf("elicitations %q", asked)
	}
	// "always" granted Bash(touch:*) for the session: no second question.
	if r := call("touch b.txt"); r.IsError || len(asked) != 1 {
		t.Fatalf("second touch: %q, %d questions", resultText(r), len(asked))
	}
	answer = "decline"
	if r := call("mkdir d"); !r.IsError || !strings.Contains(resultText(r), "rejected") {
		t.Fatalf("declined mkdir: %q", resultText(r))
	}
	if _, err := os.Stat(filepath.Join(dir, "d")); err == nil {
		t.Fatal("the declined command ran")
	}
}

// TestMCPConfig: the tools of the servers an --mcp-config file names are
// listed, checked and called like the others.
func TestMCPConfig(t *testing.T) {
	server := testdata.NPMPeer(t, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(server); err != nil {
		t.Fatalf("the reference MCP server is not installed (see .ci/run): %v", err)
	}
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	data := fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q, "stdio"]}}}`, server)
	if err := os.WriteFile(cfg, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, nil, "", "list", "--json", "--mcp-config", cfg)
	if r.code != exitOK || !strings.Contains(r.stdout, `"mcp__everything__echo"`) {
		t.Fatalf("list: %s", r)
	}
	// echo's readOnlyHint is not a permission: it asks (and no one
	// answers) until the server is trusted.
	r = runBinary(t, nil, "", "call", "mcp__everything__echo", `{"message":"via mcp"}`, "--mcp-config", cfg)
	if r.code != exitDenied || !strings.Contains(r.stderr, "trust_read_only_hint") {
		t.Fatalf("call of an untrusted server's read-only tool: %s", r)
	}
	data = fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q, "stdio"], "trust_read_only_hint": true}}}`, server)
	if err := os.WriteFile(cfg, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, nil, "", "call", "mcp__everything__echo", `{"message":"via mcp"}`, "--mcp-config", cfg)
	if r.code != exitOK || !strings.Contains(r.stdout, "via mcp") {
		t.Fatalf("call: %s", r)
	}
	r = runBinary(t, nil, "", "list", "--mcp-config", filepath.Join(t.TempDir(), "missing.json"))
	if r.code == exitOK || !strings.Contains(r.stderr, "missing.json") {
		t.Fatalf("missing config: %s", r)
	}
}

// TestServeAskUser: AskUser's questions reach the user as an elicitation
// form and the answers come back to the model.
func TestServeAskUser(t *testing.T) {
	ctx := context.Background()
	var asked string
	cs := serveSession(t, t.TempDir(), func(r *sdk.ElicitRequest) *sdk.ElicitResult {
		asked = r.Params.Message
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"q1": "Blue", "q2_other": "tabs, always"}}
	})
	args := map[string]any{"questions": []any{
		map[string]any{"question": "Which color?", "header": "Color", "options": []any{
			map[string]any{"label": "Blue", "description": "calm"}, map[string]any{"label": "Red", "description": "bold"}}},
		map[string]any{"question": "Indent with?", "header": "Indent", "options": []any{
			map[string]any{"label": "Spaces", "description": "4"}, map[string]any{"label": "Tabs", "description": "1"}}},
	}}
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "AskUser", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(r)
	if r.IsError || !strings.Contains(text, "Blue") || !strings.Contains(text, "tabs, always") || !strings.Contains(asked, "Which color?") {
		t.Fatalf("AskUser: error=%v %q (asked %q)", r.IsError, text, asked)
	}
	// A client without elicitation is told so.
	plain := serveSession(t, t.TempDir(), nil)
	r, err = plain.CallTool(ctx, &sdk.CallToolParams{Name: "AskUser", Arguments: args})
	if err != nil || !r.IsError || !strings.Contains(resultText(r), "cannot ask") {
		t.Fatalf("AskUser without elicitation: %v %q", err, resultText(r))
	}
}

// TestServeGroups: tools/list follows the session's active groups, and
// reset_tools tells the client the list changed.
func TestServeGroups(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(binary, "serve", "--workdir", t.TempDir())
	cmd.Env = append(os.Environ(), demoToolsEnv+"=1")
	changed := make(chan struct{}, 4)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	names := func() map[string]*sdk.Tool {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*sdk.Tool{}
		for _, tool := range res.Tools {
			out[tool.Name] = tool
		}
		return out
	}
	tools := names()
	if tools["upper"] == nil || tools["reset_tools"] == nil {
		t.Fatalf("tools %v", tools)
	}
	if schema, _ := json.Marshal(tools["reset_tools"].InputSchema); !strings.Contains(string(schema), "active now") {
		t.Errorf("reset_tools schema does not show the active group: %s", schema)
	}
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "reset_tools", Arguments: map[string]any{}})
	if err != nil || r.IsError {
		t.Fatalf("reset_tools: %v %q", err, resultText(r))
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after reset_tools")
	}
	if tools := names(); tools["upper"] != nil || tools["echo"] == nil {
		t.Errorf("after deactivating the group, tools/list still offers upper: %v", tools)
	}
	// The tool of the inactive group answers with what to call.
	r, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "upper", Arguments: map[string]any{"text": "x"}})
	if err != nil || !r.IsError || !strings.Contains(resultText(r), "reset_tools") {
		t.Errorf("inactive tool: %v %q", err, resultText(r))
	}
}
