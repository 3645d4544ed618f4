package guest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/wasmtools/wasmtools/abi"
)

// Tool defines one tool of a plugin: its name, description and flags, and
// the functions that answer the plugin exports for it. In is the tool's
// input, decoded from the call's JSON arguments (a struct, a pointer to a
// struct, or a map with string keys); its JSON Schema is inferred from the
// type (see [SchemaFor]). Out is the result: a string becomes one text
// block, a [Result] (or *Result, abi.CallResult, []abi.Block) is used as
// is, and any other value is encoded as JSON into one text block.
//
// Only Name, Description and Call are required. Every optional function
// left nil gets the default of the host's Tool contract: Check answers
// passthrough, IsReadOnly answers the ReadOnly flag, MatchRule matches
// only rules without content, Suggest suggests the tool-level rule.
type Tool[In, Out any] struct {
	// Name must match [A-Za-z0-9_-]{1,64} and be unique in the plugin.
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// ReadOnly marks calls that change nothing; the permission engine
	// allows them in every mode.
	ReadOnly bool
	// ConcurrencySafe lets the host run calls of the tool in parallel,
	// each on its own instance.
	ConcurrencySafe bool

	// Call performs one call. An error becomes a result in the error
	// state that the model reads (e.g. "no match for the query"); a
	// panic fails the call with a non-zero return. Required.
	Call func(c *Call, in In) (Out, error)
	// Check is the tool's own permission decision for one input
	// (check_permissions). Nil answers passthrough: no opinion, the
	// host's rules and mode decide.
	Check func(in In, pctx abi.PermissionContext) abi.Decision
	// IsReadOnly is the per-call read-only verdict (check_read_only).
	// Nil answers the ReadOnly flag.
	IsReadOnly func(in In) bool
	// MatchRule says whether the content of a rule, the x in
	// "name(x)", covers this input (match_rule). Nil matches only rules
	// without content.
	MatchRule func(content string, in In) bool
	// Suggest returns rules, in text form ("name" or "name(content)"),
	// that a user could accept to allow calls like this one
	// (generate_suggestions). Nil suggests the tool-level rule "name".
	Suggest func(in In) []string

	// InputSchema replaces the inferred JSON Schema when set. It must
	// describe an object.
	InputSchema json.RawMessage
}

// Result is a rich call result: content blocks, metadata and an error
// state. Return it from a tool's Call when a plain string is not enough.
type Result struct {
	// Content is the result's blocks; see [Text] and [Data].
	Content []abi.Block
	// Metadata is merged into the response's metadata by the host.
	Metadata map[string]any
	// Error marks a failure the model reads and can act on (the state
	// "error"), as opposed to a crash.
	Error bool
}

// Text returns a text content block.
func Text(s string) abi.Block { return abi.Block{Type: abi.BlockText, Text: s} }

// Data returns a data content block: bytes with a media type such as
// "image/png" (base64 on the wire).
func Data(mediaType string, b []byte) abi.Block {
	return abi.Block{Type: abi.BlockData, MediaType: mediaType, Data: b}
}

// PluginInfo describes the plugin as a whole in its schema.
type PluginInfo struct {
	// Name and Version are shown by `wasmtools list` and `inspect`.
	Name    string
	Version string
	// Grants are the capabilities the plugin asks for, such as the HTTP
	// hosts it needs. Asking grants nothing: the operator decides.
	Grants *abi.Grants
}

// SetInfo sets the plugin's name, version and requested grants. Call it
// from an init function, like [Register].
func SetInfo(info PluginInfo) { defaultRegistry.info = info }

// Register adds a tool to the plugin. Call it from an init function of
// the plugin's main package. A tool that cannot be registered (a bad
// name, a duplicate, a missing Call, an input type without an object
// schema) does not panic: the plugin's schema export fails with every
// problem listed, so the host reports them when it loads the plugin.
func Register[In, Out any](t Tool[In, Out]) { defaultRegistry.add(newEntry(t)) }

// RawHandler answers one export with raw bytes: it receives the export's
// input document and returns its output document, or an error (a
// non-zero return with the error's message).
type RawHandler func(input []byte) ([]byte, error)

// HandleRaw replaces the SDK's implementation of one export (one of the
// abi.Export* names) with h. It is an escape hatch for plugins that need
// full control over a message, and for test fixtures that break the ABI
// on purpose; ordinary plugins never need it.
func HandleRaw(export string, h RawHandler) {
	if defaultRegistry.raw == nil {
		defaultRegistry.raw = map[string]RawHandler{}
	}
	defaultRegistry.raw[export] = h
}

// Call is what a tool's Call function knows about the call it serves,
// and its way to stream partial results.
type Call struct {
	// Tool is the name of the tool being called.
	Tool string
	// CallID and SessionID identify the call and the agent session, as
	// given by the host (either may be empty).
	CallID    string
	SessionID string

	// emit receives chunks when set (Invoke); otherwise they go to the
	// host's wasmtools_emit.
	emit func(abi.Chunk) error
}

// Emit streams a chunk to the caller before the final result (through the
// host function wasmtools_emit). Chunks are delivered as they are
// emitted; the final result is folded in after them. A plugin that never
// streams does not import wasmtools_emit, so it stays a plain Extism
// module that any Extism host can run.
func (c *Call) Emit(chunk abi.Chunk) error {
	if c.emit != nil {
		return c.emit(chunk)
	}
	return hostEmit(chunk)
}

// EmitText streams a chunk holding one text block.
func (c *Call) EmitText(text string) error {
	return c.Emit(abi.Chunk{Content: []abi.Block{Text(text)}})
}

// Progress streams a progress chunk: a text block (when message is not
// empty) and the metadata {"progress": fraction}, fraction in [0, 1].
func (c *Call) Progress(fraction float64, message string) error {
	ch := abi.Chunk{Metadata: map[string]any{"progress": fraction}}
	if message != "" {
		ch.Content = []abi.Block{Text(message)}
	}
	return c.Emit(ch)
}

// validToolName reports whether name matches [A-Za-z0-9_-]{1,64}. (A
// hand-written loop: package regexp would add half a megabyte to every
// plugin.)
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// entry is a registered tool with its typed functions wrapped to take
// raw JSON input.
type entry struct {
	spec  abi.ToolSpec
	hooks []string // never nil: see toolWire
	err   error
	// The functions below take the tool's raw input and whether its
	// bytes may be aliased by the decoded value (see scanner.alias).
	call     func(c *Call, input json.RawMessage, alias bool) (abi.CallResult, error)
	check    func(input json.RawMessage, alias bool, pctx abi.PermissionContext) (abi.Decision, error)
	readOnly func(input json.RawMessage, alias bool) (bool, error)
	match    func(content string, input json.RawMessage, alias bool) (bool, error)
	suggest  func(input json.RawMessage, alias bool) ([]string, error)
	// hasCheck is set when the tool has its own Check: without one,
	// check_permissions answers passthrough whatever the input.
	hasCheck bool
}

func newEntry[In, Out any](t Tool[In, Out]) *entry {
	e := &entry{spec: abi.ToolSpec{
		Name:            t.Name,
		Description:     t.Description,
		ReadOnly:        t.ReadOnly,
		ConcurrencySafe: t.ConcurrencySafe,
	}}
	var problems []error
	if !validToolName(t.Name) {
		problems = append(problems, fmt.Errorf("tool name %q must match [A-Za-z0-9_-]{1,64}", t.Name))
	}
	if t.Description == "" {
		problems = append(problems, fmt.Errorf("tool %q has no description", t.Name))
	}
	if t.Call == nil {
		problems = append(problems, fmt.Errorf("tool %q has no Call function", t.Name))
	}
	if len(t.InputSchema) > 0 {
		var s struct {
			Type any `json:"type"`
		}
		if err := json.Unmarshal(t.InputSchema, &s); err != nil {
			problems = append(problems, fmt.Errorf("tool %q: InputSchema is not valid JSON: %v", t.Name, err))
		} else if s.Type != "object" {
			problems = append(problems, fmt.Errorf("tool %q: InputSchema must have \"type\": \"object\"", t.Name))
		}
		e.spec.InputSchema = t.InputSchema
	} else {
		s, err := SchemaFor(reflect.TypeFor[In]())
		if err == nil && s.Type != "object" {
			err = fmt.Errorf("the input type %v is not a struct or a map: a tool's input is a JSON object", reflect.TypeFor[In]())
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("tool %q: %w", t.Name, err))
		} else {
			e.spec.InputSchema, _ = json.Marshal(s)
		}
	}
	e.err = errors.Join(problems...)
	// The optional exports that apply to this tool: the SDK always exports
	// all three, so it lists the ones whose answer is not the default and
	// spares the host a call into the plugin for the others.
	e.hooks = []string{}
	if t.IsReadOnly != nil {
		e.hooks = append(e.hooks, abi.ExportCheckReadOnly)
	}
	if t.MatchRule != nil {
		e.hooks = append(e.hooks, abi.ExportMatchRule)
	}
	if t.Suggest != nil {
		e.hooks = append(e.hooks, abi.ExportGenerateSuggestions)
	}

	name := t.Name
	e.hasCheck = t.Check != nil
	e.call = func(c *Call, input json.RawMessage, alias bool) (abi.CallResult, error) {
		in, err := decodeInput[In](input, alias)
		if err != nil {
			return abi.CallResult{State: abi.StateError, Content: []abi.Block{Text(fmt.Sprintf("invalid input for %s: %v", name, err))}}, nil
		}
		out, err := t.Call(c, in)
		if err != nil {
			return abi.CallResult{State: abi.StateError, Content: []abi.Block{Text(err.Error())}}, nil
		}
		return toResult(any(out))
	}
	e.check = func(input json.RawMessage, alias bool, pctx abi.PermissionContext) (abi.Decision, error) {
		if t.Check == nil {
			return abi.Decision{Behavior: abi.Passthrough}, nil
		}
		in, err := decodeInput[In](input, alias)
		if err != nil {
			return abi.Decision{}, err
		}
		d := t.Check(in, pctx)
		if d.Behavior == "" {
			d.Behavior = abi.Passthrough
		}
		return d, nil
	}
	e.readOnly = func(input json.RawMessage, alias bool) (bool, error) {
		if t.IsReadOnly == nil {
			return t.ReadOnly, nil
		}
		in, err := decodeInput[In](input, alias)
		if err != nil {
			return false, err
		}
		return t.IsReadOnly(in), nil
	}
	e.match = func(content string, input json.RawMessage, alias bool) (bool, error) {
		if content == "" {
			return true, nil // a tool-level rule covers every call
		}
		if t.MatchRule == nil {
			return false, nil
		}
		in, err := decodeInput[In](input, alias)
		if err != nil {
			return false, err
		}
		return t.MatchRule(content, in), nil
	}
	e.suggest = func(input json.RawMessage, alias bool) ([]string, error) {
		if t.Suggest == nil {
			return []string{name}, nil
		}
		in, err := decodeInput[In](input, alias)
		if err != nil {
			return nil, err
		}
		return t.Suggest(in), nil
	}
	return e
}

// decodeInput decodes a call's arguments; a missing or null input gives
// the zero value. An input type with a plan (a flat struct) is decoded
// without encoding/json when the input is well formed and fits it; alias
// lets its strings share the input's memory.
func decodeInput[In any](input json.RawMessage, alias bool) (In, error) {
	var in In
	if len(input) == 0 || string(input) == "null" {
		return in, nil
	}
	if p := planFor(reflect.TypeFor[In]()); p != nil {
		var fast In
		if p.decode(input, alias, reflect.ValueOf(&fast).Elem()) {
			return fast, nil
		}
	}
	err := json.Unmarshal(input, &in)
	return in, err
}

// toResult turns a tool's return value into the call's result.
func toResult(v any) (abi.CallResult, error) {
	switch r := v.(type) {
	case nil:
		return abi.CallResult{State: abi.StateSuccess}, nil
	case string:
		return abi.CallResult{State: abi.StateSuccess, Content: []abi.Block{Text(r)}}, nil
	case Result:
		return r.callResult(), nil
	case *Result:
		if r == nil {
			return abi.CallResult{State: abi.StateSuccess}, nil
		}
		return r.callResult(), nil
	case abi.CallResult:
		if r.State == "" {
			r.State = abi.StateSuccess
		}
		return r, nil
	case *abi.CallResult:
		if r == nil {
			return abi.CallResult{State: abi.StateSuccess}, nil
		}
		return toResult(*r)
	case []abi.Block:
		return abi.CallResult{State: abi.StateSuccess, Content: r}, nil
	case abi.Block:
		return abi.CallResult{State: abi.StateSuccess, Content: []abi.Block{r}}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return abi.CallResult{}, fmt.Errorf("encode the result: %w", err)
	}
	return abi.CallResult{State: abi.StateSuccess, Content: []abi.Block{Text(string(b))}}, nil
}

func (r Result) callResult() abi.CallResult {
	state := abi.StateSuccess
	if r.Error {
		state = abi.StateError
	}
	return abi.CallResult{Content: r.Content, State: state, Metadata: r.Metadata}
}
