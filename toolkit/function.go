package toolkit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wasmtools/wasmtools/permission"
)

// FuncOptions tune a tool made by NewFunc. The zero value gives the
// reference's defaults: concurrency-safe, not read-only, schema inferred,
// every call asks (not bypass-immune).
type FuncOptions struct {
	// InputSchema replaces the inferred schema.
	InputSchema json.RawMessage
	// ReadOnly marks every call read-only (allowed without asking).
	ReadOnly bool
	// Sequential marks the tool as not concurrency-safe.
	Sequential bool
	// CheckPermissions replaces the default check (always ASK).
	CheckPermissions func(ctx context.Context, input Input, pc *permission.Context) (permission.Decision, error)
}

// NewFunc makes a tool from a Go function. The input schema is inferred
// from In, which must be a struct (or a map with string keys), with
// google/jsonschema-go: field names follow the json tags, fields without
// omitempty or omitzero are required, the `jsonschema:"..."` tag is the
// description, and an `enum:"a,b,c"` tag lists the allowed values.
// Fields take what encoding/json reads: []byte base64 text,
// json.RawMessage any JSON value, time.Time RFC 3339 text, time.Duration
// nanoseconds.
//
// A string result becomes a text block; json.RawMessage is sent as it is;
// any other result is encoded as JSON text. An error result ends the call
// with StateError and the error's message, which the model reads.
func NewFunc[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts FuncOptions) (Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("tool %s: nil function", name)
	}
	schema := opts.InputSchema
	if schema == nil {
		s, err := InferSchema[In]()
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", name, err)
		}
		schema = s
	}
	return &funcTool[In, Out]{
		spec: Spec{
			Name:            name,
			Description:     description,
			InputSchema:     schema,
			ConcurrencySafe: !opts.Sequential,
			ReadOnly:        opts.ReadOnly,
			Source:          Source{Kind: SourceFunction},
		},
		fn:    fn,
		check: opts.CheckPermissions,
	}, nil
}

type funcTool[In, Out any] struct {
	spec  Spec
	fn    func(context.Context, In) (Out, error)
	check func(context.Context, Input, *permission.Context) (permission.Decision, error)
}

func (t *funcTool[In, Out]) Spec() Spec { return t.spec }

func (t *funcTool[In, Out]) CheckPermissions(ctx context.Context, in Input, pc *permission.Context) (permission.Decision, error) {
	if t.check != nil {
		return t.check(ctx, in, pc)
	}
	return permission.AskDecision(fmt.Sprintf("Run %s?", t.spec.Name), "function tools ask by default"), nil
}

func (t *funcTool[In, Out]) Call(ctx context.Context, in Input) Stream {
	return func(yield func(*Chunk, error) bool) {
		var arg In
		if err := in.Decode(&arg); err != nil {
			yield(nil, fmt.Errorf("decode arguments: %w", err))
			return
		}
		out, err := t.fn(ctx, arg)
		if err != nil {
			yield(nil, err)
			return
		}
		text, err := resultText(out)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(&Chunk{Content: []Block{TextBlock(text)}, State: StateSuccess, Last: true}, nil)
	}
}

func resultText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.RawMessage:
		return string(v), nil
	case fmt.Stringer:
		if reflect.TypeOf(v).Kind() != reflect.Struct {
			return v.String(), nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode result: %w", err)
	}
	return string(b), nil
}

// InferSchema returns the JSON Schema NewFunc infers for In.
func InferSchema[In any]() (json.RawMessage, error) {
	t := reflect.TypeFor[In]()
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: wireSchemas()})
	if err != nil {
		return nil, fmt.Errorf("infer input schema: %w", err)
	}
	applyEnumTags(t, s)
	if s.Type != "object" {
		return nil, fmt.Errorf("infer input schema: %s is not a struct or map: tool inputs are JSON objects", t)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode input schema: %w", err)
	}
	return b, nil
}

// wireSchemas are the schemas of types whose JSON form is not what their
// Go kind suggests: encoding/json writes []byte as a base64 string (not
// an array of numbers), takes any JSON value for a json.RawMessage, and
// writes a time.Time as an RFC 3339 string.
func wireSchemas() map[reflect.Type]*jsonschema.Schema {
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[[]byte]():          {Type: "string", ContentEncoding: "base64"},
		reflect.TypeFor[json.RawMessage](): {},
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
	}
}

// applyEnumTags copies `enum:"a,b"` struct tags into the schema, walking
// nested structs, pointers, slices and maps the way jsonschema-go does.
func applyEnumTags(t reflect.Type, s *jsonschema.Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		applyEnumTags(t.Elem(), s.Items)
	case reflect.Map:
		applyEnumTags(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
		for f := range t.Fields() {
			if !f.IsExported() {
				continue
			}
			name := f.Name
			if tag, ok := f.Tag.Lookup("json"); ok {
				n, _, _ := strings.Cut(tag, ",")
				if n == "-" {
					continue
				}
				if n != "" {
					name = n
				}
			}
			prop := s.Properties[name]
			if prop == nil {
				continue
			}
			if enum, ok := f.Tag.Lookup("enum"); ok {
				target, ft := prop, f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Slice && prop.Items != nil {
					target = prop.Items // an enum on a list constrains its items
				}
				target.Enum = enumValues(f.Type, enum)
			}
			applyEnumTags(f.Type, prop)
		}
	}
}

func enumValues(t reflect.Type, tag string) []any {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	var out []any
	for _, v := range strings.Split(tag, ",") {
		v = strings.TrimSpace(v)
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			out = append(out, json.Number(v))
		default:
			out = append(out, v)
		}
	}
	return out
}
