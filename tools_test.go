package wasmtools_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools"
)

// mcpTools serves h over in-memory transports and returns a function
// listing the tools an MCP client sees, and the client session.
func mcpTools(t *testing.T, h *wasmtools.Host) (func() []string, *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	serverT, clientT := sdk.NewInMemoryTransports()
	go func() { _ = h.ServeMCP(ctx, serverT) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return func() []string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		return names
	}, cs
}

// TestToolsConfig: the tools section chooses the built-ins a host offers
// over MCP and puts them in groups; reset_tools: off leaves the meta tool
// out.
func TestToolsConfig(t *testing.T) {
	tests := []struct {
		name            string
		yaml            string
		listed, notList []string
		// after reset_tools {"shell": true}, when set
		afterShell []string
	}{
		{
			name:    "disabled shells are not listed",
			yaml:    "tools: {disable: [Bash, PowerShell]}\n",
			listed:  []string{"Read", "Write", "Glob", "Grep", "TaskList"},
			notList: []string{"Bash", "PowerShell", "reset_tools"},
		},
		{
			name:    "only the enabled ones",
			yaml:    "tools: {enable: [Read, Glob, Grep]}\n",
			listed:  []string{"Read", "Glob", "Grep"},
			notList: []string{"Bash", "Write", "Edit", "TaskCreate", "AskUser"},
		},
		{
			name:       "a shell group appears with reset_tools",
			yaml:       "groups: [{name: shell, description: Run shell commands}]\ntools: {groups: {Bash: shell}}\n",
			listed:     []string{"Read", "reset_tools"},
			notList:    []string{"Bash"},
			afterShell: []string{"Bash", "Read"},
		},
		{
			name:    "no meta tool",
			yaml:    "groups: [{name: shell, description: Run shell commands}]\ntools: {groups: {Bash: shell}}\nreset_tools: off\n",
			listed:  []string{"Read"},
			notList: []string{"Bash", "reset_tools"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "wasmtools.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := wasmtools.LoadConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			h, err := wasmtools.Open(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = h.Close() })
			list, cs := mcpTools(t, h)
			names := list()
			for _, n := range tt.listed {
				if !slices.Contains(names, n) {
					t.Errorf("tools/list %v lacks %s", names, n)
				}
			}
			for _, n := range tt.notList {
				if slices.Contains(names, n) {
					t.Errorf("tools/list %v has %s", names, n)
				}
			}
			if tt.afterShell == nil {
				return
			}
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "reset_tools", Arguments: map[string]any{"shell": true}})
			if err != nil || res.IsError {
				t.Fatalf("reset_tools: %v %+v", err, res)
			}
			if got := list(); !includes(got, tt.afterShell) {
				t.Errorf("after reset_tools: %v, want %v among them", got, tt.afterShell)
			}
		})
	}
}

// TestToolsConfigErrors: a name that is not a built-in tool, or a group
// that does not exist, stops Open with an error that says what to fix.
func TestToolsConfigErrors(t *testing.T) {
	for yaml, want := range map[string]string{
		"tools: {enable: [Raed]}\n":                                        `"Raed", which is not a built-in tool`,
		"tools: {groups: {Bash: nowhere}}\n":                               `group "nowhere" does not exist`,
		"sandbox: {mode: required}\ntools: {enable: [Read, PowerShell]}\n": "PowerShell commands cannot run in the OS sandbox",
	} {
		path := filepath.Join(t.TempDir(), "wasmtools.yaml")
		if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := wasmtools.LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		h, err := wasmtools.Open(t.Context(), cfg)
		if err == nil {
			h.Close()
			t.Errorf("%q: Open succeeded", yaml)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want it to say %q", yaml, err, want)
		}
	}
}

func includes(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
