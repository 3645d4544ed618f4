// Package wasmtools assembles a tool host from one configuration: what
// `wasmtools serve` runs, for a Go program to embed.
//
// A Config holds what wasmtools.yaml holds (the permission mode, working
// directories and rules, plugin and skill folders, plugin grants, tool
// groups, MCP servers, result limits, the OS sandbox) and what only a
// program gives (a logger, callbacks, toolkit and plugin-host options, its
// own tools). LoadConfig reads the file; a program may as well build the
// Config in Go. Open turns it into a running Host:
//
//	cfg, err := wasmtools.LoadConfig("wasmtools.yaml")
//	if err != nil { ... }
//	cfg.Watch = true // follow the plugin and skill folders
//	h, err := wasmtools.Open(ctx, cfg)
//	if err != nil { ... }
//	defer h.Close()
//	err = h.ServeMCP(ctx, &sdk.StdioTransport{}) // or h.Toolkit().NewTurn(...)
//
// The Host holds a toolkit (package toolkit) with the built-in tools, the
// program's tools, the plugins of the plugin folders (package host), the
// skill viewer (package skills) and the tools of the MCP servers (package
// toolkit/mcp). Calls run through the toolkit's pipeline: the same
// permission engine, the same confinement of shell commands (package
// sandbox), whether they come from the program (Host.Toolkit) or from an
// MCP client (Host.ServeMCP, Host.HTTPHandler).
//
// A program whose shell commands should run confined calls sandbox.Main
// first thing in main: the sandbox re-executes the program as the helper
// that confines itself and becomes the command (or set
// Config.Sandbox.Helper to another program that does).
//
// Parts fail alone: a plugin that does not load, a skill that does not
// parse, an MCP server that cannot be reached are logged and skipped, and
// the rest serves. Mistakes in the configuration itself are errors of
// LoadConfig or Open that say what to change.
//
// A Host is safe for concurrent use; its toolkit serves any number of
// sessions at once. Close stops the watchers and releases the plugins and
// MCP connections.
package wasmtools
