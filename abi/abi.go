// Package abi is the contract between the wasmtools host and its Wasm
// plugins: export and import names, the JSON messages they exchange, and
// the ABI version. README.md beside this file is the normative,
// language-neutral specification; this package is its Go form.
//
// A plugin is an Extism-ABI module: the host runs an export with no
// arguments, the export reads its input and writes its output through the
// Extism kernel functions imported from "extism:host/env", and returns 0
// on success. Every message is JSON and carries the ABI version.
//
// The package uses the standard library only, so that it builds for
// GOOS=wasip1 inside plugins (package sdk-guest imports it).
package abi

import "encoding/json"

// Version is the ABI version this package describes. A plugin declares
// the version it speaks in its schema; the host refuses versions it does
// not know.
const Version = 1

// Exports a plugin provides. Each is a function with no parameters that
// returns an i32: 0 for success, anything else for failure (with the
// message set by error_set).
const (
	// ExportSchema returns the plugin's tool list (SchemaResponse).
	// Required.
	ExportSchema = "schema"
	// ExportCheckPermissions returns the plugin's permission decision
	// for one call (CheckRequest -> Decision). Required.
	ExportCheckPermissions = "check_permissions"
	// ExportCall performs one call (CallRequest -> CallResult). Required.
	ExportCall = "call"
	// ExportCheckReadOnly says whether one call is read-only
	// (CheckRequest -> ReadOnlyResponse). Optional: the tool's read_only
	// flag otherwise.
	ExportCheckReadOnly = "check_read_only"
	// ExportMatchRule says whether a permission rule's content matches one
	// call (MatchRuleRequest -> MatchRuleResponse). Optional: only rules
	// without content match otherwise.
	ExportMatchRule = "match_rule"
	// ExportGenerateSuggestions returns the rules a user could accept to
	// stop being asked about calls like this one (SuggestionsRequest ->
	// SuggestionsResponse). Optional: the tool-level rule otherwise.
	ExportGenerateSuggestions = "generate_suggestions"
)

// RequiredExports are the exports every plugin must have.
var RequiredExports = []string{ExportSchema, ExportCheckPermissions, ExportCall}

// Import modules.
const (
	// ModuleEnv is the Extism kernel: memory, input and output, errors,
	// config, variables, HTTP and logging.
	ModuleEnv = "extism:host/env"
	// ModuleUser holds host functions specific to wasmtools.
	ModuleUser = "extism:host/user"
	// ModuleWASI is WASI preview 1, which standard-library guests (Go,
	// Rust std, C) import; the host grants it no files, clock or network
	// unless the plugin's grants say so.
	ModuleWASI = "wasi_snapshot_preview1"
)

// ImportEmit is the host function a call uses to stream a chunk before
// its final result: emit(chunk: i64 offset of a Chunk in kernel memory).
// It lives in ModuleUser.
const ImportEmit = "wasmtools_emit"

// Bulk copies: the kernel's length function, given BulkTag<<48 | op<<32 |
// desc (no block can start at such an offset), copies bytes between
// kernel memory and the guest's linear memory in one call instead of one
// call per 8 bytes. desc is the guest address of three little-endian
// u64s: a kernel offset, a guest address and a byte count n; op is
// BulkLoad (kernel to guest) or BulkStore (guest to kernel). It returns
// n. An Extism host answers 0 (no such block), which tells the guest to
// copy with load_u64 and store_u64 instead. See abi/README.md, section 5.
const (
	BulkTag   = 0x7774 // "wt"
	BulkLoad  = 1
	BulkStore = 2
)

// SchemaRequest is the input of the schema export.
type SchemaRequest struct {
	ABI int `json:"abi"`
	// Host names the host and its version, e.g. "wasmtools/1.0.0".
	Host string `json:"host,omitempty"`
}

// SchemaResponse is the output of the schema export.
type SchemaResponse struct {
	// ABI is the version the plugin speaks.
	ABI int `json:"abi"`
	// Name and Version describe the plugin (optional; the file name is
	// used when Name is empty).
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	// Tools are the tools the plugin provides: at least one.
	Tools []ToolSpec `json:"tools"`
	// Grants lists the capabilities the plugin asks for. Asking grants
	// nothing: the operator decides; `wasmtools inspect` shows both.
	Grants *Grants `json:"grants,omitempty"`
}

// ToolSpec describes one tool of a plugin.
type ToolSpec struct {
	// Name must match [A-Za-z0-9_-]{1,64}, not be reset_tools, and be
	// unique in the toolkit ignoring case (see README.md, "Tool names").
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is a JSON Schema for an object: at most 256 KiB,
	// nesting at most 64 deep, self-contained (no $ref to a file or URL).
	InputSchema json.RawMessage `json:"input_schema"`
	// ConcurrencySafe tools may run in parallel (on separate instances).
	ConcurrencySafe bool `json:"concurrency_safe,omitempty"`
	// ReadOnly calls change nothing; see ExportCheckReadOnly.
	ReadOnly bool `json:"read_only,omitempty"`
	// Hooks, when not null, lists the optional exports that apply to this
	// tool (check_read_only, match_rule, generate_suggestions); the others
	// take their defaults without a call into the plugin ([] means none).
	// When null or absent, every optional export the module has applies.
	// (No omitempty: an empty list and no list mean different things.)
	Hooks []string `json:"hooks"`
}

// PermissionContext is what a permission check knows about the host's
// configuration.
type PermissionContext struct {
	// Mode is default, accept_edits, explore, bypass or dont_ask.
	Mode        string   `json:"mode"`
	WorkingDirs []string `json:"working_dirs,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
}

// CheckRequest is the input of check_permissions and check_read_only.
type CheckRequest struct {
	ABI     int               `json:"abi"`
	Tool    string            `json:"tool"`
	Input   json.RawMessage   `json:"input"`
	Context PermissionContext `json:"context"`
}

// Behaviours of a Decision.
const (
	Allow       = "allow"
	Deny        = "deny"
	Ask         = "ask"
	Passthrough = "passthrough"
)

// Decision is the output of check_permissions.
type Decision struct {
	// Behavior is allow, deny, ask or passthrough ("no opinion").
	Behavior string `json:"behavior"`
	// Message is shown to the user (ask) or the model (deny).
	Message string `json:"message,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// BypassImmune marks a safety ask that allow rules cannot silence.
	BypassImmune bool `json:"bypass_immune,omitempty"`
	// Suggestions are rules in text form: "tool" or "tool(content)".
	Suggestions []string `json:"suggestions,omitempty"`
}

// ReadOnlyResponse is the output of check_read_only.
type ReadOnlyResponse struct {
	ReadOnly bool `json:"read_only"`
}

// MatchRuleRequest is the input of match_rule.
type MatchRuleRequest struct {
	ABI     int             `json:"abi"`
	Tool    string          `json:"tool"`
	Content string          `json:"content"`
	Input   json.RawMessage `json:"input"`
}

// MatchRuleResponse is the output of match_rule.
type MatchRuleResponse struct {
	Match bool `json:"match"`
}

// SuggestionsRequest is the input of generate_suggestions.
type SuggestionsRequest struct {
	ABI   int             `json:"abi"`
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
}

// SuggestionsResponse is the output of generate_suggestions.
type SuggestionsResponse struct {
	Suggestions []string `json:"suggestions"`
}

// CallRequest is the input of call.
type CallRequest struct {
	ABI       int             `json:"abi"`
	Tool      string          `json:"tool"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
}

// Block types.
const (
	BlockText = "text"
	BlockData = "data"
)

// Block is a piece of content: text, or bytes (base64 in JSON) with a
// media type. Type is BlockText or BlockData; any other type is refused
// (the call fails).
type Block struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Data      []byte `json:"data,omitempty"`
	MediaType string `json:"media_type,omitempty"`
	// ID groups text across chunks: text blocks with the same ID are
	// concatenated into the first one. Text blocks without an ID share
	// the empty ID, so they are concatenated too.
	ID string `json:"id,omitempty"`
}

// Result states.
const (
	StateSuccess = "success"
	StateError   = "error"
)

// Chunk is one piece of a streamed result, passed to wasmtools_emit.
type Chunk struct {
	Content  []Block        `json:"content,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// CallResult is the output of call: the last piece of the result. Chunks
// emitted before it come first.
type CallResult struct {
	Content []Block `json:"content,omitempty"`
	// State is success (the default) or error: a tool failure the model
	// reads. Any other value is refused (the call fails).
	State    string         `json:"state,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Grants are the capabilities a plugin may be given. The host grants
// nothing by default.
type Grants struct {
	// Dirs maps host directories into the plugin's file system (WASI).
	Dirs []DirGrant `json:"dirs,omitempty"`
	// HTTPHosts are the hosts the plugin may reach with http_request: a
	// name or address (any port), "host:port" (that port only), or
	// "*.example.com" (any subdomain, not example.com itself); redirects
	// are checked again. See README.md, section 6.
	HTTPHosts []string `json:"http_hosts,omitempty"`
	// Env are environment variables visible to the plugin (WASI).
	Env map[string]string `json:"env,omitempty"`
	// Config are values the plugin reads with config_get.
	Config map[string]string `json:"config,omitempty"`
	// MemoryMiB caps the plugin's linear memory.
	MemoryMiB int `json:"memory_mib,omitempty"`
	// TimeoutMS bounds each call, in milliseconds.
	TimeoutMS int `json:"timeout_ms,omitempty"`
}

// DirGrant maps a host directory into the plugin. In a plugin's request
// (SchemaResponse.Grants) only Guest and Write mean something: the plugin
// names the path it will use and whether it writes there, and the
// operator chooses the host folder mapped to it.
type DirGrant struct {
	// Host is the directory on the host (the operator's side).
	Host string `json:"host,omitempty"`
	// Guest is where the plugin sees it; Host when empty.
	Guest string `json:"guest,omitempty"`
	// Write allows changes; directories are read-only otherwise.
	Write bool `json:"write,omitempty"`
}

// HTTPRequest is the JSON request of Extism's http_request (the body is
// passed separately).
type HTTPRequest struct {
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}
