// Package mcp connects a toolkit to the Model Context Protocol, with the
// official Go SDK.
//
// [Server] serves a toolkit to MCP clients: every MCP session is a
// wasmtools session (its own active groups, read cache, tasks and granted
// rules); a call the permission engine asks about becomes an elicitation
// to the client, and a client that cannot elicit gets a denial that names
// the rule that would allow the call.
//
// [Connect] turns an MCP server's tools into toolkit tools named
// mcp__SERVER__TOOL. They ask before every call: a server's readOnlyHint
// makes a tool read-only only when its [ServerConfig] sets
// TrustReadOnlyHint, since the hint is the server's unchecked claim.
package mcp
