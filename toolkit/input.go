package toolkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kaptinlin/jsonrepair"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wasmtools/wasmtools/internal/jsontext"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Input is a call's parsed arguments: a JSON object as decoded by
// encoding/json with UseNumber, so numbers are json.Number and keep their
// exact text. The same Input value goes to the permission check and to the
// call.
type Input map[string]any

// UnmarshalJSON reads a JSON object as the toolkit parses arguments, so
// that an Input read back from JSON (a saved turn) holds the same values:
// numbers as json.Number.
func (in *Input) UnmarshalJSON(b []byte) error {
	v, err := decodeJSON(string(b))
	if err != nil {
		return err
	}
	switch obj := v.(type) {
	case map[string]any:
		*in = obj
	case nil:
		*in = nil
	default:
		return fmt.Errorf("input: want a JSON object, not %s", jsonKind(v))
	}
	return nil
}

// Decode stores the input in the value pointed to by v, as if the call's
// JSON arguments were unmarshalled into it.
func (in Input) Decode(v any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode input: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// String returns the string at key, or "" when it is missing or not a string.
func (in Input) String(key string) string {
	s, _ := in[key].(string)
	return s
}

// Bool returns the boolean at key, or false.
func (in Input) Bool(key string) bool {
	b, _ := in[key].(bool)
	return b
}

// Int returns the integer at key and whether it was present and integral.
func (in Input) Int(key string) (int64, bool) {
	switch v := in[key].(type) {
	case json.Number:
		i, err := v.Int64()
		return i, err == nil
	case float64:
		return int64(v), v == float64(int64(v))
	case int:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

// repair says how parseArguments mended arguments that were not valid
// JSON: why strict parsing failed, and the text the repairer made of them.
// The turn shows both to the model when it refuses to run a guess.
type repair struct {
	cause error
	fixed string
}

// parseArguments parses a call's JSON arguments into an object. Invalid
// JSON is repaired when it can be; rep is non-nil when it was. Empty
// arguments are the empty object.
func parseArguments(raw string) (in Input, rep *repair, err error) {
	in, _, rep, err = parseArgs(raw)
	return in, rep, err
}

// maxPlainKeys bounds the keys of arguments parseArgs calls plain (its
// check of keys that differ only by case is quadratic).
const maxPlainKeys = 64

// parseArgs is parseArguments that also reports whether the arguments
// are one flat object (see decodeFlatObject) with no key twice and at
// most maxPlainKeys keys: plain, if no two of its keys differ only by
// case either (see plainArgs).
func parseArgs(raw string) (in Input, distinct bool, rep *repair, err error) {
	if strings.TrimSpace(raw) == "" {
		return Input{}, false, nil, nil
	}
	if !utf8.ValidString(raw) {
		// JSON is UTF-8; a decoder would turn the bad bytes into U+FFFD
		// and a Write would store them so, silently.
		return nil, false, nil, fmt.Errorf("the arguments are not valid UTF-8 (a bad byte at offset %d); send text as UTF-8, and binary data base64-encoded if the tool takes it", jsontext.InvalidUTF8(raw))
	}
	if in, members, ok := decodeFlat(raw); ok {
		return in, members == len(in) && len(in) <= maxPlainKeys, nil, nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		fixed, rerr := repairJSON(raw)
		if rerr != nil {
			return nil, false, nil, fmt.Errorf("the arguments are not valid JSON (%v) and could not be repaired; send a JSON object", err)
		}
		v, rerr = decodeJSON(fixed)
		if rerr != nil {
			return nil, false, nil, fmt.Errorf("the arguments are not valid JSON (%v); send a JSON object", err)
		}
		rep = &repair{cause: err, fixed: fixed}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false, rep, fmt.Errorf("the arguments must be a JSON object, not %s", jsonKind(v))
	}
	return Input(obj), false, rep, nil
}

// plainArgs reports whether arguments parseArgs found distinct are
// plain: no two keys differ only by case (by Unicode simple folding, as
// encoding/json compares them). Every JSON decoder reads plain arguments
// as the same members, whatever it does with duplicates and case
// (encoding/json matches struct fields without regard to case, last
// duplicate winning; other decoders keep the first), so their text can
// stand for in itself (see Runtime.Arguments).
func plainArgs(in Input, distinct bool) bool {
	if !distinct {
		return false
	}
	for k := range in {
		for k2 := range in {
			if k < k2 && strings.EqualFold(k, k2) {
				return false
			}
		}
	}
	return true
}

// sameFlat reports whether in holds exactly the members of flat, whose
// values are those of a flat object (strings, json.Number, booleans,
// null). Strings compare by content, which for the same string (the
// usual case: in is flat itself, or a copy of it) stops at the pointer.
func sameFlat(in, flat Input) bool {
	if len(in) != len(flat) {
		return false
	}
	for k, v := range flat {
		w, ok := in[k]
		// v is of a comparable type, so v != w cannot panic: it is false
		// at once for a w of another type.
		if !ok || v != w {
			return false
		}
	}
	return true
}

// describe says, for the model, what was wrong with the arguments and
// what the repairer made of them, shortened: a cut-off call can be long,
// and its end (where the cut is) matters as much as its start.
func (r *repair) describe() string {
	why := r.cause.Error()
	if errors.Is(r.cause, io.ErrUnexpectedEOF) {
		why += "; they end in the middle of a value, as if cut off"
	}
	return fmt.Sprintf("(%s). Repaired, they would read: %s", why, shorten(r.fixed, 200, 100))
}

// shorten keeps the first head and the last tail runes of s, marking the
// gap.
func shorten(s string, head, tail int) string {
	r := []rune(s)
	if len(r) <= head+tail+20 {
		return s
	}
	return fmt.Sprintf("%s … [%d characters left out] … %s", string(r[:head]), len(r)-head-tail, string(r[len(r)-tail:]))
}

// repairJSON runs the repairer, turning a panic inside it (it is fed text
// straight from a model) into an error.
func repairJSON(raw string) (fixed string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("repair failed: %v", p)
		}
	}()
	return jsonrepair.Repair(raw)
}

func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// schemaValidator is a tool's input schema, ready to judge inputs.
type schemaValidator struct {
	// flat, when the schema has the common flat shape, vouches for valid
	// inputs without the schema library.
	flat *flatSchema
	// compiled returns the schema compiled by the library: at
	// registration, or, for a flat schema, at the first input the flat
	// form does not vouch for (to judge it and word the error). A flat
	// schema is valid by construction (newFlatSchema accepts nothing the
	// metaschema refuses), and compiling one cost a hundred times what
	// the rest of registering a tool does.
	compiled func() (*jsonschema.Schema, error)
}

// defaultInputSchema is used for tools that give none.
var defaultInputSchema = json.RawMessage(`{"type":"object"}`)

// CheckInputSchema reports whether Register would accept raw as a tool's
// input schema: a JSON object whose "type", if any, is "object", that
// compiles with nothing from outside it (a $ref or $schema naming a file
// or URL is refused: the host would read it). A host that loads tools
// from elsewhere (a plugin file, a server) checks with it first, so that
// a refused tool is reported where it comes from. A compile error wraps
// the schema library's error.
func CheckInputSchema(raw json.RawMessage) error {
	_, err := compileInputSchema("wasmtools:///tools/input_schema.json", raw)
	return err
}

// compileSchema compiles a tool's input schema once, at registration. The
// schema must describe an object.
func compileSchema(name string, raw json.RawMessage) (*schemaValidator, error) {
	v, err := compileInputSchema("wasmtools:///tools/"+name+".json", raw)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	return v, nil
}

// compileInputSchema compiles raw as the schema at url.
func compileInputSchema(url string, raw json.RawMessage) (*schemaValidator, error) {
	if len(raw) == 0 {
		raw = defaultInputSchema
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("input schema must be a JSON object")
	}
	if t, has := obj["type"]; has && t != "object" {
		b, _ := json.Marshal(t)
		return nil, fmt.Errorf("input schema must have \"type\": \"object\", not %s", b)
	}
	if flat := newFlatSchema(obj); flat != nil {
		// The tool keeps its schema's bytes, not the decoded tree (which
		// is many times their size): the compile, at the first input the
		// flat form does not vouch for, decodes them again. A copy: the
		// caller's buffer may change meanwhile (a request's view of
		// tools).
		raw := bytes.Clone(raw)
		return &schemaValidator{flat: flat, compiled: sync.OnceValues(func() (*jsonschema.Schema, error) {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				return nil, fmt.Errorf("input schema is not JSON: %w", err)
			}
			return compileDoc(url, doc)
		})}, nil
	}
	s, err := compileDoc(url, doc)
	if err != nil {
		return nil, err
	}
	return &schemaValidator{compiled: func() (*jsonschema.Schema, error) { return s, nil }}, nil
}

// compileDoc compiles doc, a decoded schema, as the schema at url.
func compileDoc(url string, doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	// The library's default loader reads file: URLs: a schema from an
	// MCP server or a plugin could make the host read its files (or
	// block on a FIFO). Only the schema itself and the metaschemas are
	// known.
	c.UseLoader(selfContained{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("input schema does not compile: %w", err)
	}
	return s, nil
}

// selfContained refuses every resource a schema names outside itself.
type selfContained struct{}

func (selfContained) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside the schema: a tool's input schema must be self-contained (refer to its own $defs)", url)
}

var englishPrinter = message.NewPrinter(language.English)

// validate checks an input against the schema; the error lists every
// violation with its location, in words a model can act on.
func (v *schemaValidator) validate(in Input) error {
	if v.flat != nil && v.flat.vouches(in) {
		return nil
	}
	schema, err := v.compiled()
	if err != nil {
		// Not expected (a flat schema is valid): said, not hidden.
		return fmt.Errorf("the tool's input schema cannot judge the arguments: %w", err)
	}
	err = schema.Validate(map[string]any(in))
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var msgs []string
	collectLeaves(ve, &msgs)
	return fmt.Errorf("the arguments do not match the tool's input schema: %s", strings.Join(msgs, "; "))
}

func collectLeaves(e *jsonschema.ValidationError, out *[]string) {
	if len(e.Causes) == 0 {
		loc := "/" + strings.Join(e.InstanceLocation, "/")
		*out = append(*out, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(englishPrinter)))
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}
