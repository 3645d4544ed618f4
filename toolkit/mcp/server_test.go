package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
)

// TestConcurrentSessions: several MCP sessions at once over streamable
// HTTP, in process so that the race detector sees the server; each has its
// own wasmtools session (task lists never mix).
func TestConcurrentSessions(t *testing.T) {
	srv := taskServer(t, toolkit.Options{Permission: permission.Context{Mode: permission.ModeDefault}})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() }, nil))
	defer hs.Close()

	const sessions = 6
	var wg sync.WaitGroup
	errs := make(chan error, sessions*10)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			client := sdk.NewClient(&sdk.Implementation{Name: fmt.Sprint("c", i), Version: "1"}, nil)
			cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL}, nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			for j := range 3 {
				subject := fmt.Sprintf("task %d of session %d", j, i)
				if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": subject, "description": "d"}}); err != nil {
					errs <- err
					return
				}
			}
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskList", Arguments: map[string]any{}})
			if err != nil {
				errs <- err
				return
			}
			var text strings.Builder
			for _, c := range r.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			got := text.String()
			if strings.Count(got, "session "+fmt.Sprint(i)) != 3 || strings.Count(got, "of session") != 3 {
				errs <- fmt.Errorf("session %d sees: %q", i, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestSessionsEnd: sessions closed by their client, and sessions
// abandoned past the idle timeout, leave nothing behind: neither in the
// server nor in the toolkit's session store.
func TestSessionsEnd(t *testing.T) {
	store := toolkit.NewMemoryStore()
	srv := taskServer(t, toolkit.Options{Store: store, Permission: permission.Context{Mode: permission.ModeDefault}})
	base := store.Len() // Refresh's own look at the default groups
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() },
		&sdk.StreamableHTTPOptions{SessionTimeout: 300 * time.Millisecond}))
	defer hs.Close()
	ctx := context.Background()
	open := func() *sdk.ClientSession {
		client := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": "s", "description": "d"}}); err != nil {
			t.Fatal(err)
		}
		return cs
	}
	waitEmpty := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); srv.Sessions() > 0 || store.Len() > base; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d server sessions and %d stored sessions left", what, srv.Sessions(), store.Len())
			}
		}
	}
	// Closed by the client (an HTTP DELETE).
	for range 20 {
		cs := open()
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
	}
	waitEmpty("closed sessions")
	// Abandoned: the client goes away without a word.
	for range 5 {
		_ = open()
	}
	if srv.Sessions() != 5 || store.Len() != base+5 {
		t.Fatalf("before expiry: %d server sessions, %d stored, want 5 each", srv.Sessions(), store.Len())
	}
	waitEmpty("abandoned sessions after the idle timeout")
}

// TestProgressAndLogging: a call with a progress token gets a
// notifications/progress per chunk it streams; a client that set a log
// level hears how the permission engine decided.
func TestProgressAndLogging(t *testing.T) {
	dir := t.TempDir()
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass, WorkingDirs: []string{dir}, Cwd: dir,
		Deny: []permission.Rule{permission.MustParseRule("Bash(rm:*)")}}})
	if err := tk.Register(builtin.NewBash(builtin.BashOptions{})); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(tk, ServerOptions{})
	if err := srv.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() }, nil))
	defer hs.Close()
	var mu sync.Mutex
	var progress []string
	var logs []any
	client := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Message)
			mu.Unlock()
		},
		//lint:ignore SA1019 the logging feature is what this test checks
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, r.Params.Data)
			mu.Unlock()
		},
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	//lint:ignore SA1019 the logging feature is what this test checks
	if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	params := &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "echo one; sleep 0.2; echo two"}}
	params.SetProgressToken("p1")
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	denied, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "rm -f x"}})
	if err != nil {
		t.Fatal(err)
	}
	// The result says it was a denial, and by which rule.
	raw, _ := json.Marshal(denied.Meta[outcomeMetaKey])
	var outcome outcomeMeta
	if err := json.Unmarshal(raw, &outcome); err != nil || !denied.IsError || outcome.Kind != toolkit.KindDenied ||
		outcome.Decision == nil || outcome.Decision.Rule == nil || outcome.Decision.Rule.String() != "Bash(rm:*)" {
		t.Errorf("denied result: is_error %v, _meta %s (%v)", denied.IsError, raw, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		got, nlogs := strings.Join(progress, "|"), len(logs)
		logText := fmt.Sprint(logs)
		mu.Unlock()
		if strings.Contains(got, "one") && strings.Contains(got, "two") && nlogs >= 2 && strings.Contains(logText, "deny") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress %q, logs %s", got, logText)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestListChangedPerSession: one session's reset_tools is announced to
// that session only; a change of the toolkit to every session.
func TestListChangedPerSession(t *testing.T) {
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeDefault}})
	if err := tk.AddGroup(toolkit.Group{Name: "extra", Description: "Extra tools."}); err != nil {
		t.Fatal(err)
	}
	tasks := builtin.TaskTools()
	if err := tk.Register(tasks[0], toolkit.InGroup("extra")); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(tk, ServerOptions{})
	if err := srv.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() }, nil))
	defer hs.Close()
	ctx := context.Background()
	connect := func() (*sdk.ClientSession, chan struct{}) {
		heard := make(chan struct{}, 8)
		client := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, &sdk.ClientOptions{
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { heard <- struct{}{} },
		})
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil { // the server now knows the session
			t.Fatal(err)
		}
		return cs, heard
	}
	a, heardA := connect()
	defer a.Close()
	b, heardB := connect()
	defer b.Close()
	if _, err := a.CallTool(ctx, &sdk.CallToolParams{Name: toolkit.ResetToolsName, Arguments: map[string]any{"extra": true}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-heardA:
	case <-time.After(5 * time.Second):
		t.Fatal("the session that called reset_tools was not told its list changed")
	}
	select {
	case <-heardB:
		t.Fatal("another session was told of a reset_tools that changed nothing for it")
	case <-time.After(500 * time.Millisecond):
	}
	if err := tk.Register(tasks[1]); err != nil {
		t.Fatal(err)
	}
	if err := srv.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for name, heard := range map[string]chan struct{}{"a": heardA, "b": heardB} {
		select {
		case <-heard:
		case <-time.After(5 * time.Second):
			t.Fatalf("session %s was not told the toolkit changed", name)
		}
	}
}

// TestStructuredResults: tools with an output schema announce it, and
// their results carry structuredContent that matches it.
func TestStructuredResults(t *testing.T) {
	srv := taskServer(t, toolkit.Options{})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() }, nil))
	defer hs.Close()
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if strings.HasPrefix(tool.Name, "Task") && tool.OutputSchema == nil {
			t.Errorf("%s has no outputSchema", tool.Name)
		}
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": "s", "description": "d"}}); err != nil {
		t.Fatal(err)
	}
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "TaskList", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := r.StructuredContent.(map[string]any)
	tasks, _ := m["tasks"].([]any)
	if !ok || len(tasks) != 1 {
		t.Fatalf("structuredContent = %#v, want the task list", r.StructuredContent)
	}
}

// TestSessionEndCancelsCalls: a client that goes away mid-call (an HTTP
// DELETE of its session) takes its running command with it.
func TestSessionEndCancelsCalls(t *testing.T) {
	dir := t.TempDir()
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass, WorkingDirs: []string{dir}, Cwd: dir}})
	if err := tk.Register(builtin.NewBash(builtin.BashOptions{})); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(tk, ServerOptions{})
	if err := srv.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler(nil))
	defer hs.Close()
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	pidFile := dir + "/pid"
	go func() {
		_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "sh -c 'echo $$ > pid; exec sleep 30'"}})
	}()
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
	}
	req, err := http.NewRequest(http.MethodDelete, hs.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", cs.ID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the command outlived its session (DELETE answered %s)", resp.Status)
		}
	}
	t.Logf("command ended after the DELETE (%s)", resp.Status)
}

// TestHTTPUnknownMethod: an unknown method over HTTP gets the JSON-RPC
// error -32601, as over stdio.
func TestHTTPUnknownMethod(t *testing.T) {
	tk := toolkit.New(toolkit.Options{})
	srv := NewServer(tk, ServerOptions{})
	hs := httptest.NewServer(srv.HTTPHandler(nil))
	defer hs.Close()
	post := func(body string, session string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, data
	}
	resp, _ := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "")
	sid := resp.Header.Get("Mcp-Session-Id")
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	resp, data := post(`{"jsonrpc":"2.0","id":7,"method":"nosuch/method"}`, sid)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(data), "-32601") || !strings.Contains(string(data), `"id":7`) {
		t.Fatalf("HTTP %d %s, want a JSON-RPC -32601 error for id 7", resp.StatusCode, data)
	}
}

// TestRefreshNeverEarly: tools registered from many goroutines at once,
// each change refreshing the server as `wasmtools serve` wires it. Once
// the changes stop, the last tools/list_changed a client hears leads to a
// list holding every tool: no older refresh overwrites a newer one.
func TestRefreshNeverEarly(t *testing.T) {
	var current sync.Map // "srv" → *Server, set once the server exists
	tk := toolkit.New(toolkit.Options{
		Permission: permission.Context{Mode: permission.ModeDefault},
		OnChange: func(toolkit.Change) {
			if srv, ok := current.Load("srv"); ok {
				if err := srv.(*Server).Refresh(context.Background()); err != nil {
					t.Error(err)
				}
			}
		},
	})
	// A server that offers tools when a client connects advertises
	// tools.listChanged, as `wasmtools serve` always does.
	if err := tk.Register(builtin.TaskTools()[0]); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(tk, ServerOptions{})
	current.Store("srv", srv)
	if err := srv.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	heard := make(chan struct{}, 1000)
	client := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { heard <- struct{}{} },
	})
	cs := connectInMemory(t, srv, client)

	const tools = 40
	var wg sync.WaitGroup
	for i := range tools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool, err := toolkit.NewFunc(fmt.Sprintf("tool_%02d", i), "A tool.",
				func(context.Context, struct{}) (string, error) { return "ok", nil }, toolkit.FuncOptions{})
			if err == nil {
				err = tk.Register(tool)
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-heard:
		case <-deadline:
			t.Fatal("no tools/list_changed led to a list of every registered tool")
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tool := range res.Tools {
			if strings.HasPrefix(tool.Name, "tool_") {
				n++
			}
		}
		t.Logf("heard: %d tools listed", n)
		if n == tools {
			return
		}
	}
}

// taskServer serves a toolkit made with opts that holds the task tools.
func taskServer(tb testing.TB, opts toolkit.Options) *Server {
	tb.Helper()
	tk := toolkit.New(opts)
	for _, tool := range builtin.TaskTools() {
		if err := tk.Register(tool); err != nil {
			tb.Fatal(err)
		}
	}
	srv := NewServer(tk, ServerOptions{})
	if err := srv.Refresh(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return srv
}

// connectInMemory connects client to srv in process; both ends close when
// the test ends.
func connectInMemory(t *testing.T, srv *Server, client *sdk.Client) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
