package mcp

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/internal/testdata"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// everything returns the path of the reference MCP server
// @modelcontextprotocol/server-everything, which .ci/run installs under
// build/npm (or WASMTOOLS_MCP_EVERYTHING names).
func everything(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("WASMTOOLS_MCP_EVERYTHING"); p != "" {
		return p
	}
	return testdata.NPMPeer(t, "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

func checkClient(t *testing.T, c *Client) {
	t.Helper()
	ctx := context.Background()
	tk := toolkit.New(toolkit.Options{})
	for _, tool := range c.Tools() {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	echo := ToolName("everything", "echo")
	if _, ok := tk.Tool(echo); !ok {
		t.Fatalf("no %s among %d tools", echo, len(c.Tools()))
	}
	// readOnlyHint, trusted by the callers: allowed; others ask.
	d, err := tk.Check(ctx, "s", toolkit.Call{Name: echo, Arguments: `{"message":"hi"}`}, toolkit.CheckOptions{})
	if err != nil || d.Behavior != permission.Allow {
		t.Errorf("echo: %+v %v", d, err)
	}
	toggle := ToolName("everything", "toggle-simulated-logging")
	if _, ok := tk.Tool(toggle); ok {
		d, err := tk.Check(ctx, "s", toolkit.Call{Name: toggle, Arguments: `{}`}, toolkit.CheckOptions{})
		if err != nil || d.Behavior != permission.Ask {
			t.Errorf("toggle: %+v %v", d, err)
		}
	}
	r := toolkittest.Call(t, tk, "s", echo, `{"message":"hello"}`)
	if r.State != toolkit.StateSuccess || !strings.Contains(r.Text(), "hello") {
		t.Errorf("echo call: %s %q", r.State, r.Text())
	}
	img := ToolName("everything", "get-tiny-image")
	if _, ok := tk.Tool(img); ok {
		r := toolkittest.Call(t, tk, "s", img, `{}`)
		found := false
		for _, b := range r.Content {
			if b.Type == toolkit.BlockData && strings.HasPrefix(b.MediaType, "image/") && len(b.Data) > 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("tiny image: %+v", r.Content)
		}
	}
}

func TestClientStdio(t *testing.T) {
	c, err := Connect(context.Background(), ServerConfig{Name: "everything", Command: "node", Args: []string{everything(t), "stdio"}, TrustReadOnlyHint: true}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkClient(t, c)

	// Filters by the server's tool names.
	f, err := Connect(context.Background(), ServerConfig{Name: "everything", Command: "node", Args: []string{everything(t), "stdio"}, EnableTools: []string{"echo", "get-sum"}}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := len(f.Tools()); n != 2 {
		t.Errorf("enable filter: %d tools", n)
	}
}

func TestClientStreamableHTTP(t *testing.T) {
	port := startHTTPServer(t, "streamableHttp")
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	for _, stateless := range []bool{false, true} {
		c, err := Connect(context.Background(), ServerConfig{Name: "everything", URL: url, Stateless: stateless, TrustReadOnlyHint: true}, ClientOptions{})
		if err != nil {
			t.Fatalf("stateless=%v: %v", stateless, err)
		}
		checkClient(t, c)
		c.Close()
	}
}

func TestToolName(t *testing.T) {
	for in, want := range map[[2]string]string{
		{"github", "create_issue"}: "mcp__github__create_issue",
		{"my server", "a.b/c"}:     "mcp__my_server__a_b_c",
	} {
		if got := ToolName(in[0], in[1]); got != want {
			t.Errorf("ToolName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClientSSE(t *testing.T) {
	port := startHTTPServer(t, "sse")
	c, err := Connect(context.Background(), ServerConfig{Name: "everything", URL: fmt.Sprintf("http://127.0.0.1:%d/sse", port), TrustReadOnlyHint: true}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkClient(t, c)
}

// startHTTPServer starts the reference server with an HTTP transport on a
// free port and waits for it to listen.
func startHTTPServer(t *testing.T, transport string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("node", everything(t), transport)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			conn.Close()
			return port
		}
		if time.Now().After(deadline) {
			t.Fatalf("the %s server did not start", transport)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestClientReconnects: a stdio server that dies is started again on the
// next call.
func TestClientReconnects(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c, err := Connect(context.Background(), ServerConfig{Name: "everything", Command: "sh",
		Args: []string{"-c", fmt.Sprintf("echo $$ > %s; exec node %s stdio", pidFile, everything(t))}, TrustReadOnlyHint: true}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tk := toolkit.New(toolkit.Options{})
	for _, tool := range c.Tools() {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	echo := ToolName("everything", "echo")
	if r := toolkittest.Call(t, tk, "s", echo, `{"message":"one"}`); r.State != toolkit.StateSuccess {
		t.Fatalf("first call: %q", r.Text())
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	p, _ := os.FindProcess(pid)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if r := toolkittest.Call(t, tk, "s", echo, `{"message":"two"}`); r.State != toolkit.StateSuccess || !strings.Contains(r.Text(), "two") {
		t.Fatalf("call after the server died: %s %q", r.State, r.Text())
	}
}

// TestClientReadOnlyHint pins that a server's readOnlyHint is not a
// permission: its tools are read-only only for a server configured with
// TrustReadOnlyHint, and otherwise ask in DEFAULT and are denied in
// EXPLORE like any other tool.
func TestClientReadOnlyHint(t *testing.T) {
	ctx := context.Background()
	server := everything(t)
	toolkits := map[bool]*toolkit.Toolkit{}
	for _, trust := range []bool{false, true} {
		c, err := Connect(ctx, ServerConfig{Name: "everything", Command: "node", Args: []string{server, "stdio"},
			EnableTools: []string{"echo", "toggle-simulated-logging"}, TrustReadOnlyHint: trust}, ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		tk := toolkit.New(toolkit.Options{})
		for _, tool := range c.Tools() {
			mt := tool.(*Tool)
			sp := tool.Spec()
			// The reference server marks echo readOnlyHint and
			// toggle-simulated-logging not.
			hint := mt.remote == "echo"
			if mt.ReadOnlyHint() != hint || sp.ReadOnly != (hint && trust) || sp.ConcurrencySafe != hint {
				t.Errorf("trust=%v %s: hint %v, read-only %v, concurrency-safe %v; want %v, %v, %v",
					trust, mt.remote, mt.ReadOnlyHint(), sp.ReadOnly, sp.ConcurrencySafe, hint, hint && trust, hint)
			}
			if err := tk.Register(tool); err != nil {
				t.Fatal(err)
			}
		}
		toolkits[trust] = tk
	}
	echo, toggle := ToolName("everything", "echo"), ToolName("everything", "toggle-simulated-logging")
	tests := []struct {
		name    string
		trust   bool
		mode    permission.Mode
		tool    string
		want    permission.Behavior
		message string // substring of the decision's message
	}{
		{"untrusted hint asks in default", false, permission.ModeDefault, echo, permission.Ask, "trust_read_only_hint: true"},
		{"untrusted hint is denied in explore", false, permission.ModeExplore, echo, permission.Deny, ""},
		{"trusted hint is allowed in default", true, permission.ModeDefault, echo, permission.Allow, ""},
		{"trusted hint is allowed in explore", true, permission.ModeExplore, echo, permission.Allow, ""},
		{"no hint asks without trust", false, permission.ModeDefault, toggle, permission.Ask, "Run toggle-simulated-logging"},
		{"no hint asks with trust", true, permission.ModeDefault, toggle, permission.Ask, "Run toggle-simulated-logging"},
		{"no hint is denied in explore with trust", true, permission.ModeExplore, toggle, permission.Deny, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := `{}`
			if tt.tool == echo {
				args = `{"message":"hi"}`
			}
			d, err := toolkits[tt.trust].Check(ctx, "s", toolkit.Call{Name: tt.tool, Arguments: args},
				toolkit.CheckOptions{Permission: &permission.Context{Mode: tt.mode}})
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tt.want || !strings.Contains(d.Message, tt.message) {
				t.Errorf("%s %s: %s %q, want %s with %q", tt.mode, tt.tool, d.Behavior, d.Message, tt.want, tt.message)
			}
			if tt.tool == toggle && strings.Contains(d.Message, "trust_read_only_hint") {
				t.Errorf("a tool without the hint suggests trusting it: %q", d.Message)
			}
		})
	}
}

// TestClientForwardsProgress: a call of the reference server's
// long-running tool streams its progress notifications as chunks while it
// runs, and its result as usual.
func TestClientForwardsProgress(t *testing.T) {
	ctx := context.Background()
	c, err := Connect(ctx, ServerConfig{Name: "everything", Command: "node", Args: []string{everything(t), "stdio"}}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	name := ToolName("everything", "trigger-long-running-operation")
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass}})
	for _, tool := range c.Tools() {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := tk.Tool(name); !ok {
		t.Fatalf("the reference server has no %s", name)
	}
	res, err := toolkittest.Run(ctx, tk, "s", name, `{"duration":0.4,"steps":4}`, toolkit.TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []toolkit.Progress
	for _, c := range res.Chunks {
		if c.Progress != nil {
			got = append(got, *c.Progress)
		}
	}
	r := res.Outcome.Response
	if r.State != toolkit.StateSuccess || !strings.Contains(r.Text(), "completed") {
		t.Fatalf("result: %s %q", r.State, r.Text())
	}
	// The server sends its last notification just before its result; the
	// SDK may hand the two over in either order, and progress after the
	// result is news for nobody. The steps before it always arrive.
	if len(got) < 3 || len(got) > 4 {
		t.Fatalf("progress chunks: %+v, want the 4 steps (the last may race the result)", got)
	}
	for i, p := range got {
		if p.Done != float64(i+1) || p.Total != 4 {
			t.Errorf("progress %d: %+v", i, p)
		}
	}

	// Served again over MCP, the progress reaches the client that asked
	// for it with a progress token of its own.
	srv := NewServer(tk, ServerOptions{})
	if err := srv.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	heard := make(chan string, 16)
	client := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			if r.Params.ProgressToken == "mine" {
				heard <- r.Params.Message
			}
		},
	})
	cs := connectInMemory(t, srv, client)
	params := &sdk.CallToolParams{Name: name, Arguments: map[string]any{"duration": 0.4, "steps": 4}}
	params.SetProgressToken("mine")
	if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
		t.Fatalf("served call: %v %+v", err, res)
	}
	select {
	case msg := <-heard:
		if msg != "1 of 4" {
			t.Errorf("first progress message %q, want \"1 of 4\"", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no progress notification reached the MCP client")
	}
}
