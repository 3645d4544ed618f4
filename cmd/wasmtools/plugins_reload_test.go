package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/internal/testplugins"
)

// TestServePluginsHotReload drives `wasmtools serve --plugins DIR` with
// the MCP SDK's client while a plugin is dropped in, replaced, corrupted,
// put into a group folder and deleted.
func TestServePluginsHotReload(t *testing.T) {
	wasm, err := os.ReadFile(testplugins.Source(t, filepath.Join(testplugins.Root(t), "plugins", "testdata", "versioned")))
	if err != nil {
		t.Fatal(err)
	}
	work, plugins := t.TempDir(), t.TempDir()
	install := func(dir, version string, module []byte) {
		t.Helper()
		side, _ := json.Marshal(map[string]any{"grants": map[string]any{"env": map[string]string{"VERSION": version}}})
		for name, data := range map[string][]byte{"v.json": side, "v.wasm": module} {
			tmp := filepath.Join(dir, "."+name)
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	changed := make(chan struct{}, 64)
	cs := serveSessionWith(t, work, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	}, "--plugins", plugins)
	ctx := context.Background()
	version := func() string {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "version", Arguments: map[string]any{}})
		if err != nil {
			return "ERROR: " + err.Error() // a tool this session cannot see
		}
		if r.IsError {
			return "ERROR: " + resultText(r)
		}
		return resultText(r)
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	served := func(want string) func() bool { return func() bool { return version() == want } }

	install(plugins, "1", wasm)
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/tools/list_changed after a plugin was dropped in")
	}
	waitFor("dropped plugin", served("version 1"))

	install(plugins, "2", wasm)
	waitFor("replaced plugin", served("version 2"))

	if err := os.WriteFile(filepath.Join(plugins, "v.wasm"), []byte("corrupt"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := version(); got != "version 2" {
		t.Errorf("after corruption: %q, want the last good version", got)
	}

	// Moved into a group folder: the tool now belongs to group "extra".
	group := filepath.Join(plugins, "extra")
	if err := os.MkdirAll(group, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(group, "group.yaml"), []byte("description: Extra tools.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(plugins, "v.wasm")); err != nil {
		t.Fatal(err)
	}
	install(group, "3", wasm)
	waitFor("tool in an inactive group", func() bool { return strings.Contains(version(), `group "extra"`) })
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "reset_tools", Arguments: map[string]any{"extra": true}})
	if err != nil || r.IsError {
		t.Fatalf("reset_tools: %v %s", err, resultText(r))
	}
	waitFor("group plugin", served("version 3"))

	if err := os.RemoveAll(group); err != nil {
		t.Fatal(err)
	}
	waitFor("deleted plugin", func() bool { return strings.Contains(version(), `unknown tool "version"`) })
}
