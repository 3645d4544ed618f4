package guest

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
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
// streams (they go to the host otherwise). An error means a non-zero
// return with the error's message; a panic in the plugin's code is
// recovered into one. The decoded values do not share input's memory.
func (r *registry) handle(export string, input []byte, emit func(abi.Chunk) error) ([]byte, error) {
	return r.handleInput(export, input, false, emit)
}

// handleInput is handle for an input that alias says is never written
// again, so that decoded strings may share its memory.
func (r *registry) handleInput(export string, input []byte, alias bool, emit func(abi.Chunk) error) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out = nil
			err = fmt.Errorf("%s panicked: %v", export, p)
			buf := make([]byte, 16<<10)
			Log.Error(fmt.Sprintf("%v\n%s", err, buf[:runtime.Stack(buf, false)]))
		}
	}()
	if h, ok := r.raw[export]; ok {
		return h(input)
	}
	switch export {
	case abi.ExportSchema:
		return r.schemaOutput()
	case abi.ExportCheckPermissions:
		req, e, err := r.request(input, alias)
		if err != nil {
			return nil, err
		}
		d, err := e.check(req.input, alias, req.context)
		if err != nil {
			return nil, inputError(req.tool, err)
		}
		return encodeDecision(d), nil
	case abi.ExportCheckReadOnly:
		req, e, err := r.request(input, alias)
		if err != nil {
			return nil, err
		}
		ro, err := e.readOnly(req.input, alias)
		if err != nil {
			return nil, inputError(req.tool, err)
		}
		return encodeBool("read_only", ro), nil
	case abi.ExportMatchRule:
		req, e, err := r.request(input, alias)
		if err != nil {
			return nil, err
		}
		m, err := e.match(req.content, req.input, alias)
		if err != nil {
			return nil, inputError(req.tool, err)
		}
		return encodeBool("match", m), nil
	case abi.ExportGenerateSuggestions:
		req, e, err := r.request(input, alias)
		if err != nil {
			return nil, err
		}
		s, err := e.suggest(req.input, alias)
		if err != nil {
			return nil, inputError(req.tool, err)
		}
		if s == nil {
			s = []string{}
		}
		return encodeSuggestions(s), nil
	case abi.ExportCall:
		req, e, err := r.request(input, alias)
		if err != nil {
			return nil, err
		}
		c := &Call{Tool: req.tool, CallID: req.callID, SessionID: req.sessionID, emit: emit}
		res, err := e.call(c, req.input, alias)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", req.tool, err)
		}
		if b, ok := encodeResult(res); ok {
			return b, nil
		}
		return json.Marshal(res)
	}
	return nil, fmt.Errorf("unknown export %q", export)
}

// request decodes any request document and finds the tool it names.
func (r *registry) request(input []byte, alias bool) (*request, *entry, error) {
	req := &request{}
	if !decodeRequest(input, alias, req) {
		// The fast path gave up: encoding/json decides, and words the
		// error.
		var full struct {
			abi.CallRequest
			Content string                `json:"content"`
			Context abi.PermissionContext `json:"context"`
		}
		if err := json.Unmarshal(input, &full); err != nil {
			return nil, nil, fmt.Errorf("the request is not valid JSON: %v", err)
		}
		*req = request{abi: full.ABI, tool: full.Tool, input: full.Input, content: full.Content,
			callID: full.CallID, sessionID: full.SessionID, context: full.Context}
	}
	e, ok := r.byName[req.tool]
	if !ok {
		return nil, nil, fmt.Errorf("unknown tool %q: this plugin provides %s", req.tool, r.toolList())
	}
	if e.err != nil {
		return nil, nil, e.err
	}
	return req, e, nil
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

// passthrough reports whether the beginning of a check_permissions
// request is enough to answer it: the request names, before its input, a
// valid tool that has no Check function, whose answer is passthrough
// whatever the input. head is the first bytes of the request. The host
// writes the members in the order of abi.CheckRequest, so "abi" and
// "tool" come first; any other beginning gives false, and the whole
// request is read and decoded as usual. This spares the call the copy
// and the scan of a large input that nothing would read.
func (r *registry) passthrough(head []byte) bool {
	if _, ok := r.raw[abi.ExportCheckPermissions]; ok {
		return false
	}
	s := &scanner{b: head}
	if !s.eat('{') {
		return false
	}
	var tool string
	for {
		key, ok := s.str()
		if !ok || !s.eat(':') {
			return false
		}
		switch key {
		case "abi":
			if _, ok := s.number(); !ok {
				return false
			}
		case "tool":
			if tool, ok = s.str(); !ok {
				return false
			}
		case "input":
			e := r.byName[tool]
			return e != nil && e.err == nil && !e.hasCheck
		default:
			return false
		}
		if !s.eat(',') {
			return false
		}
	}
}
