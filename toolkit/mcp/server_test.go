package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeDefault}})
	for _, tool := range builtin.TaskTools() {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	srv := NewServer(tk, ServerOptions{})
	if err := srv.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
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
	tk := toolkit.New(toolkit.Options{Store: store, Permission: permission.Context{Mode: permission.ModeDefault}})
	for _, tool := range builtin.TaskTools() {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	srv := NewServer(tk, ServerOptions{})
	if err := srv.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
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
