package guest

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/wasmtools/wasmtools/abi"
)

// registry holds a plugin's tools and answers its exports. The package
// keeps one (defaultRegistry), filled by Register from init functions;
// tests make their own.
type registry struct {
	info   PluginInfo
	tools  []*entry
	byName map[string]*entry
	raw    map[string]RawHandler
	// schema caches the schema export's output once it has been built.
	schema []byte
}

var defaultRegistry = &registry{}

func (r *registry) add(e *entry) {
	if r.byName == nil {
		r.byName = map[string]*entry{}
	}
	if _, dup := r.byName[e.spec.Name]; dup && e.err == nil {
		e.err = fmt.Errorf("tool %q is registered twice", e.spec.Name)
	}
	r.tools = append(r.tools, e)
	if _, dup := r.byName[e.spec.Name]; !dup {
		r.byName[e.spec.Name] = e
	}
	r.schema = nil
}

// problems returns every registration error.
func (r *registry) problems() error {
	var errs []error
	for _, e := range r.tools {
		if e.err != nil {
			errs = append(errs, e.err)
		}
	}
	return errors.Join(errs...)
}

// handle answers one export: input is the request document, the result
// the response document; emit, when not nil, receives the chunks a call
// streams (they go to the host otherwise). An error means a non-zero return with the
// error's message; a panic in the plugin's code is recovered into one.
func (r *registry) handle(export string, input []byte, emit func(abi.Chunk) error) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out = nil
			err = fmt.Errorf("%s panicked: %v", export, p)
			Log.Error(fmt.Sprintf("%v\n%s", err, debug.Stack()))
		}
	}()
	if h, ok := r.raw[export]; ok {
		return h(input)
	}
	switch export {
	case abi.ExportSchema:
		return r.schemaOutput()
	case abi.ExportCheckPermissions:
		var req abi.CheckRequest
		e, err := r.request(input, &req, &req.Tool)
		if err != nil {
			return nil, err
		}
		d, err := e.check(req.Input, req.Context)
		if err != nil {
			return nil, inputError(req.Tool, err)
		}
		return json.Marshal(d)
	case abi.ExportCheckReadOnly:
		var req abi.CheckRequest
		e, err := r.request(input, &req, &req.Tool)
		if err != nil {
			return nil, err
		}
		ro, err := e.readOnly(req.Input)
		if err != nil {
			return nil, inputError(req.Tool, err)
		}
		return json.Marshal(abi.ReadOnlyResponse{ReadOnly: ro})
	case abi.ExportMatchRule:
		var req abi.MatchRuleRequest
		e, err := r.request(input, &req, &req.Tool)
		if err != nil {
			return nil, err
		}
		m, err := e.match(req.Content, req.Input)
		if err != nil {
			return nil, inputError(req.Tool, err)
		}
		return json.Marshal(abi.MatchRuleResponse{Match: m})
	case abi.ExportGenerateSuggestions:
		var req abi.SuggestionsRequest
		e, err := r.request(input, &req, &req.Tool)
		if err != nil {
			return nil, err
		}
		s, err := e.suggest(req.Input)
		if err != nil {
			return nil, inputError(req.Tool, err)
		}
		if s == nil {
			s = []string{}
		}
		return json.Marshal(abi.SuggestionsResponse{Suggestions: s})
	case abi.ExportCall:
		var req abi.CallRequest
		e, err := r.request(input, &req, &req.Tool)
		if err != nil {
			return nil, err
		}
		c := &Call{Tool: req.Tool, CallID: req.CallID, SessionID: req.SessionID, emit: emit}
		res, err := e.call(c, req.Input)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", req.Tool, err)
		}
		return json.Marshal(res)
	}
	return nil, fmt.Errorf("unknown export %q", export)
}

// request decodes a request document into req and finds the tool it
// names (*tool, filled by the decoding).
func (r *registry) request(input []byte, req any, tool *string) (*entry, error) {
	if err := json.Unmarshal(input, req); err != nil {
		return nil, fmt.Errorf("the request is not valid JSON: %v", err)
	}
	e, ok := r.byName[*tool]
	if !ok {
		return nil, fmt.Errorf("unknown tool %q: this plugin provides %s", *tool, r.toolList())
	}
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

func (r *registry) toolList() string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "no tools"
	}
	return strings.Join(names, ", ")
}

func inputError(tool string, err error) error {
	return fmt.Errorf("tool %s: the input does not fit the tool's input type: %v", tool, err)
}

func (r *registry) schemaOutput() ([]byte, error) {
	if err := r.problems(); err != nil {
		return nil, fmt.Errorf("the plugin's tools are not valid:\n%w", err)
	}
	if r.schema != nil {
		return r.schema, nil
	}
	resp := schemaWire{
		ABI:     abi.Version,
		Name:    r.info.Name,
		Version: r.info.Version,
		Tools:   make([]toolWire, 0, len(r.tools)),
		Grants:  r.info.Grants,
	}
	for _, e := range r.tools {
		resp.Tools = append(resp.Tools, toolWire{ToolSpec: e.spec, Hooks: e.hooks})
	}
	b, err := json.Marshal(resp)
	if err != nil {
		return nil, err
	}
	r.schema = b
	return b, nil
}

// Invoke runs one export of this plugin in the current process, exactly
// as the host would through Wasm, minus the kernel: input is the
// request document, the result is the response document, and emit (may
// be nil) receives the chunks a call streams. An error stands for a
// non-zero return. Use it to unit-test a plugin natively with go test;
// guest.HTTP and guest.Config are not available outside Wasm.
func Invoke(export string, input []byte, emit func(abi.Chunk)) ([]byte, error) {
	var fn func(abi.Chunk) error
	if emit != nil {
		fn = func(c abi.Chunk) error { emit(c); return nil }
	}
	return defaultRegistry.handle(export, input, fn)
}

// schemaWire is abi.SchemaResponse with toolWire tools.
type schemaWire struct {
	ABI     int         `json:"abi"`
	Name    string      `json:"name,omitempty"`
	Version string      `json:"version,omitempty"`
	Tools   []toolWire  `json:"tools"`
	Grants  *abi.Grants `json:"grants,omitempty"`
}

// toolWire is abi.ToolSpec whose hooks are always written: an empty list
// says that no optional export applies, which abi.ToolSpec (hooks
// omitempty) cannot say, since an absent list means that all apply.
type toolWire struct {
	abi.ToolSpec
	Hooks []string `json:"hooks"`
}
