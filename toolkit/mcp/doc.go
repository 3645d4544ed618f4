// Package mcp connects a toolkit to the Model Context Protocol, with the
// official Go SDK.
//
// [Server] serves a toolkit to MCP clients: every MCP session is a
// wasmtools session (its own active groups, read cache, tasks and granted
// rules); a call the permission engine asks about becomes an elicitation
// to the client, and a client that cannot elicit gets a denial that names
// the rule that would allow the call.
package mcp
