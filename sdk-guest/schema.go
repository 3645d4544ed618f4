package guest

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Schema is the subset of JSON Schema that SchemaFor infers from Go
// types. It encodes to standard JSON Schema, with an object's properties
// in the order of the struct's fields.
type Schema struct {
	Type string `json:"type,omitempty"`
	// Nullable adds null to Type (it encodes as "type": ["null", Type]):
	// the schema of a pointer.
	Nullable        bool            `json:"-"`
	Description     string          `json:"description,omitempty"`
	Enum            []any           `json:"enum,omitempty"`
	Default         json.RawMessage `json:"default,omitempty"`
	Format          string          `json:"format,omitempty"`
	ContentEncoding string          `json:"contentEncoding,omitempty"`
	Minimum         *float64        `json:"minimum,omitempty"`
	Maximum         *float64        `json:"maximum,omitempty"`
	Items           *Schema         `json:"items,omitempty"`
	Properties      Properties      `json:"properties,omitempty"`
	Required        []string        `json:"required,omitempty"`
	// AdditionalProperties is false for a struct (no other keys) and the
	// value schema for a map.
	AdditionalProperties any `json:"additionalProperties,omitempty"`
}

// MarshalJSON encodes the schema, its type a list when it is Nullable.
func (s *Schema) MarshalJSON() ([]byte, error) {
	type plain Schema // its fields, without this method
	if !s.Nullable || s.Type == "" {
		return json.Marshal((*plain)(s))
	}
	return json.Marshal(struct {
		Type []string `json:"type"`
		*plain
	}{[]string{"null", s.Type}, (*plain)(s)})
}

// Property is one named property of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// Properties are an object's properties, in order; they encode as a JSON
// object.
type Properties []Property

// MarshalJSON encodes the properties as one JSON object, keeping their
// order.
func (ps Properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.Name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.Schema)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var (
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// durationUnit is the description of a time.Duration, and what is added
// to a field's own: the model would otherwise guess seconds.
const durationUnit = "nanoseconds"

// SchemaFor infers the JSON Schema of what encoding/json reads into a
// value of type t (a pointer t has the schema of what it points to). The
// host's toolkit.InferSchema follows the same rules, and a test of the
// host's checks that they agree, so a tool has one schema whether it runs
// in a plugin or in the host:
//
//   - a struct is an object of the fields encoding/json sees: exported
//     fields named by their json tag (tag "-" leaves one out), the
//     fields of untagged embedded structs promoted (not through a pointer
//     to an unexported struct, which encoding/json cannot allocate), a
//     JSON name claimed twice going to the shallower field, or to the
//     tagged one, or else to neither; other properties are not allowed;
//   - a field is required unless its tag says omitempty or omitzero or
//     its type is a pointer;
//   - a pointer inside t has the schema of what it points to and also
//     allows null (absent and null both leave it nil); nowhere else is
//     null allowed, although encoding/json would ignore it: a schema says
//     what a value means, and null means something only for a pointer;
//   - bool is boolean; integers are integer, with the minimum and maximum
//     of their size (below 64 bits); floats and json.Number are number;
//     strings are string, and so is every field tagged json:",string";
//   - slices and arrays are arrays of their elements, except []byte,
//     base64 text; maps are objects whose additionalProperties is the
//     value's schema (keys must be strings, integers or text
//     unmarshalers);
//   - time.Time is date-time text; time.Duration an integer number of
//     nanoseconds, which its description says; json.RawMessage,
//     interfaces and types with their own UnmarshalJSON take any value;
//     types with UnmarshalText take a string;
//   - a recursive type is cut at its second appearance (an object of
//     any shape); channels, functions and complex numbers are errors.
//
// Struct tags add to a field's schema: `jsonschema:"..."` is its
// description, `enum:"a,b,c"` its allowed values (for a list, its
// items'), and `default:"..."` its default, a JSON value of the field's
// type (for a field whose JSON is a string, the text itself). A tag that
// does not parse as the field's type is an error. The default is for the
// model to read: the tool still sees the zero value of a field the call
// left out.
func SchemaFor(t reflect.Type) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem() // a tool's input is an object, never null
	}
	return schemaOf(t, map[reflect.Type]bool{})
}

// schemaOf infers the schema of t; visiting holds the structs being
// inferred, to cut recursion.
func schemaOf(t reflect.Type, visiting map[reflect.Type]bool) (*Schema, error) {
	pointer := false
	for t.Kind() == reflect.Pointer {
		t, pointer = t.Elem(), true
	}
	s, err := typeSchema(t, visiting)
	if err != nil {
		return nil, err
	}
	if pointer {
		allowNull(s)
	}
	return s, nil
}

// allowNull makes s accept null too. A schema without a type accepts it
// already.
func allowNull(s *Schema) {
	if s.Type != "" {
		s.Nullable = true
		if s.Enum != nil {
			s.Enum = append(s.Enum, nil)
		}
	}
}

// isTime and isDuration recognise time.Time and time.Duration by name:
// a reflect.TypeFor of them would make every plugin carry their methods
// (time formatting and parsing, over 100 KB of Wasm), because the type
// descriptor then reaches an interface.
func isTime(t reflect.Type) bool { return t.PkgPath() == "time" && t.Name() == "Time" }

func isDuration(t reflect.Type) bool { return t.PkgPath() == "time" && t.Name() == "Duration" }

func typeSchema(t reflect.Type, visiting map[reflect.Type]bool) (*Schema, error) {
	switch {
	case t == rawMessageType:
		return &Schema{}, nil
	case t == numberType:
		return &Schema{Type: "number"}, nil
	case isTime(t):
		return &Schema{Type: "string", Format: "date-time"}, nil
	case isDuration(t):
		return &Schema{Type: "integer", Description: durationUnit}, nil
	}
	pt := reflect.PointerTo(t)
	if t.Implements(unmarshalerType) || pt.Implements(unmarshalerType) {
		return &Schema{}, nil // it decodes itself: its shape is its own
	}
	if t.Kind() != reflect.String && (t.Implements(textUnmarshalerType) || pt.Implements(textUnmarshalerType)) {
		return &Schema{Type: "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s := &Schema{Type: "integer"}
		s.Minimum, s.Maximum = intRange(t.Kind())
		return s, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Interface:
		return &Schema{}, nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return &Schema{Type: "string", ContentEncoding: "base64"}, nil
		}
		items, err := schemaOf(t.Elem(), visiting)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: "array", Items: items}, nil
	case reflect.Map:
		if !mapKeyOK(t.Key()) {
			return nil, fmt.Errorf("map key type %v cannot be a JSON object key", t.Key())
		}
		values, err := schemaOf(t.Elem(), visiting)
		if err != nil {
			return nil, err
		}
		s := &Schema{Type: "object"}
		if !reflect.ValueOf(*values).IsZero() {
			s.AdditionalProperties = values // {} would say nothing
		}
		return s, nil
	case reflect.Struct:
		if visiting[t] {
			return &Schema{Type: "object"}, nil
		}
		visiting[t] = true
		defer delete(visiting, t)
		return structSchema(t, visiting)
	}
	return nil, fmt.Errorf("type %v has no JSON Schema (kind %v)", t, t.Kind())
}

// intRange is the range of an integer kind, nil where float64 cannot
// hold the bound exactly or there is none.
func intRange(k reflect.Kind) (lo, hi *float64) {
	f := func(v float64) *float64 { return &v }
	switch k {
	case reflect.Int8:
		return f(math.MinInt8), f(math.MaxInt8)
	case reflect.Int16:
		return f(math.MinInt16), f(math.MaxInt16)
	case reflect.Int32:
		return f(math.MinInt32), f(math.MaxInt32)
	case reflect.Uint8:
		return f(0), f(math.MaxUint8)
	case reflect.Uint16:
		return f(0), f(math.MaxUint16)
	case reflect.Uint32:
		return f(0), f(math.MaxUint32)
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return f(0), nil
	}
	return nil, nil
}

// mapKeyOK reports whether encoding/json decodes object keys into k.
func mapKeyOK(k reflect.Type) bool {
	switch k.Kind() {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return reflect.PointerTo(k).Implements(textUnmarshalerType)
}

func structSchema(t reflect.Type, visiting map[reflect.Type]bool) (*Schema, error) {
	s := &Schema{Type: "object", AdditionalProperties: false}
	for _, f := range jsonFields(t) {
		fs, err := fieldSchema(f, visiting)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.goName, err)
		}
		s.Properties = append(s.Properties, Property{Name: f.name, Schema: fs})
		if !f.optional() {
			s.Required = append(s.Required, f.name)
		}
	}
	return s, nil
}

// fieldSchema is the schema of one field, its tags applied.
func fieldSchema(f jsonField, visiting map[reflect.Type]bool) (*Schema, error) {
	base := f.typ
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	var fs *Schema
	if f.quoted() {
		fs = &Schema{Type: "string"}
		if f.typ.Kind() == reflect.Pointer {
			allowNull(fs)
		}
	} else {
		var err error
		if fs, err = schemaOf(f.typ, visiting); err != nil {
			return nil, err
		}
	}
	if d, ok := f.tag.Lookup("jsonschema"); ok {
		if isDuration(base) {
			d += " (" + durationUnit + ")"
		}
		fs.Description = d
	}
	if e, ok := f.tag.Lookup("enum"); ok {
		target := fs
		if (base.Kind() == reflect.Slice || base.Kind() == reflect.Array) && fs.Items != nil {
			target = fs.Items // an enum on a list constrains its items
		}
		vals, err := enumValues(e, target.Type)
		if err != nil {
			return nil, fmt.Errorf("enum: %w", err)
		}
		if target.Nullable {
			vals = append(vals, nil) // the pointer's null stays allowed
		}
		target.Enum = vals
	}
	if d, ok := f.tag.Lookup("default"); ok {
		v, err := defaultValue(d, f.typ, fs.Type)
		if err != nil {
			return nil, fmt.Errorf("default: %w", err)
		}
		fs.Default = v
	}
	return fs, nil
}

// enumValues parses the comma-separated values of an enum tag as values
// of the schema type typ.
func enumValues(tag, typ string) ([]any, error) {
	var vals []any
	for _, v := range strings.Split(tag, ",") {
		v = strings.TrimSpace(v)
		switch typ {
		case "integer":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, err
			}
			vals = append(vals, n)
		case "number":
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, err
			}
			vals = append(vals, n)
		case "boolean":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, err
			}
			vals = append(vals, b)
		default:
			vals = append(vals, v)
		}
	}
	return vals, nil
}

// defaultValue is the JSON of a default tag: the tag's text as a JSON
// string when the field's JSON is a string, else the tag as JSON. It must
// decode into t, so that a default is a value the tool could get.
func defaultValue(tag string, t reflect.Type, typ string) (json.RawMessage, error) {
	var raw []byte
	if typ == "string" {
		raw, _ = json.Marshal(tag) // a string always encodes
	} else {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(tag)); err != nil {
			return nil, fmt.Errorf("%q is not JSON: %w", tag, err)
		}
		raw = b.Bytes()
	}
	if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
		return nil, fmt.Errorf("%q is not a %v: %w", tag, t, err)
	}
	return raw, nil
}

// jsonField is a struct field as encoding/json sees it.
type jsonField struct {
	name   string // the JSON name
	goName string
	typ    reflect.Type
	tag    reflect.StructTag
	opts   string // the json tag's options, after the name
	tagged bool   // the json tag names the field
	depth  int    // how deeply it is embedded
}

func (f jsonField) optional() bool {
	return f.typ.Kind() == reflect.Pointer || hasOpt(f.opts, "omitempty") || hasOpt(f.opts, "omitzero")
}

// quoted reports whether the field is a scalar encoding/json reads from a
// JSON string (the ",string" option).
func (f jsonField) quoted() bool {
	if !hasOpt(f.opts, "string") {
		return false
	}
	t := f.typ
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// jsonFields lists the fields encoding/json decodes into struct type t,
// in field order: embedded structs without a json name are flattened,
// and of the fields that claim one JSON name the shallowest wins, a
// tagged one breaking a tie; a tie left unbroken drops them all.
func jsonFields(t reflect.Type) []jsonField {
	var all []jsonField
	collectFields(t, 0, map[reflect.Type]bool{}, &all)
	byName := map[string][]int{}
	for i, f := range all {
		byName[f.name] = append(byName[f.name], i)
	}
	out := make([]jsonField, 0, len(all))
	for i, f := range all {
		if winner(all, byName[f.name]) == i {
			out = append(out, f)
		}
	}
	return out
}

// winner is the index (into all) of the field that holds a JSON name
// claimed by the fields at idx, or -1 when none does.
func winner(all []jsonField, idx []int) int {
	if len(idx) == 1 {
		return idx[0]
	}
	depth := all[idx[0]].depth
	for _, i := range idx {
		depth = min(depth, all[i].depth)
	}
	w, n, tagged := -1, 0, 0
	for _, i := range idx {
		if all[i].depth != depth {
			continue
		}
		n++
		if all[i].tagged {
			tagged++
			w = i
		} else if tagged == 0 {
			w = i
		}
	}
	if n == 1 || tagged == 1 {
		return w
	}
	return -1
}

// collectFields appends the fields of t at depth, descending into
// embedded structs; path holds the structs being walked, against
// embedding cycles.
func collectFields(t reflect.Type, depth int, path map[reflect.Type]bool, out *[]jsonField) {
	path[t] = true
	defer delete(path, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if !f.IsExported() && (ft.Kind() != reflect.Struct || f.Type.Kind() == reflect.Pointer) {
				// encoding/json cannot set an unexported field, nor
				// allocate an unexported struct to promote fields from.
				continue
			}
			if name == "" && ft.Kind() == reflect.Struct {
				if !path[ft] {
					collectFields(ft, depth+1, path, out)
				}
				continue
			}
		} else if !f.IsExported() {
			continue
		}
		jf := jsonField{name: name, goName: f.Name, typ: f.Type, tag: f.Tag, opts: opts, tagged: name != "", depth: depth}
		if name == "" {
			jf.name = f.Name
		}
		*out = append(*out, jf)
	}
}
