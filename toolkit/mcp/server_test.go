package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

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
