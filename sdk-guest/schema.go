package guest

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Schema is the subset of JSON Schema that SchemaFor infers from Go
// types. It encodes to standard JSON Schema, with an object's properties
// in the order of the struct's fields.
type Schema struct {
	Type            string     `json:"type,omitempty"`
	Description     string     `json:"description,omitempty"`
	Enum            []any      `json:"enum,omitempty"`
	Format          string     `json:"format,omitempty"`
	ContentEncoding string     `json:"contentEncoding,omitempty"`
	Items           *Schema    `json:"items,omitempty"`
	Properties      Properties `json:"properties,omitempty"`
	Required        []string   `json:"required,omitempty"`
	// AdditionalProperties is false for a struct (no other keys) and the
	// value schema for a map.
	AdditionalProperties any `json:"additionalProperties,omitempty"`
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
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
	timeType          = reflect.TypeFor[time.Time]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// SchemaFor infers the JSON Schema of values of type t as encoding/json
// reads them:
//
//   - a struct is an object whose properties are its exported fields,
//     named by their json tag (fields tagged "-" are left out, embedded
//     structs without a tag are flattened); a field is required unless
//     its tag says omitempty or omitzero; additional properties are not
//     allowed;
//   - the tag jsonschema:"..." gives a property's description, and
//     enum:"a,b,c" its allowed values (for a slice, its items' values);
//   - strings, bools, integers and floats map to string, boolean,
//     integer and number; slices and arrays to array ([]byte to a base64
//     string); maps to object with additionalProperties; pointers to
//     the type they point to; interfaces and json.RawMessage to any
//     value; time.Time to a date-time string; json.Number to number.
//
// A recursive type is cut at its second appearance (an object of any
// shape). Channels, functions and complex numbers are errors.
func SchemaFor(t reflect.Type) (*Schema, error) {
	return schemaOf(t, map[reflect.Type]bool{})
}

func schemaOf(t reflect.Type, visiting map[reflect.Type]bool) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case rawMessageType:
		return &Schema{}, nil
	case numberType:
		return &Schema{Type: "number"}, nil
	case timeType:
		return &Schema{Type: "string", Format: "date-time"}, nil
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return &Schema{}, nil // encodes itself: its shape is unknown
	}
	if t.Kind() != reflect.String && (t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)) {
		return &Schema{Type: "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &Schema{Type: "integer"}, nil
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
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			if !t.Key().Implements(textMarshalerType) {
				return nil, fmt.Errorf("map key type %v cannot be a JSON object key", t.Key())
			}
		}
		values, err := schemaOf(t.Elem(), visiting)
		if err != nil {
			return nil, err
		}
		s := &Schema{Type: "object"}
		if values.Type != "" || values.Items != nil || values.Properties != nil {
			s.AdditionalProperties = values
		}
		return s, nil
	case reflect.Struct:
		if visiting[t] {
			return &Schema{Type: "object"}, nil
		}
		visiting[t] = true
		defer delete(visiting, t)
		s := &Schema{Type: "object", AdditionalProperties: false}
		if err := addFields(s, t, visiting); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("type %v has no JSON Schema (kind %v)", t, t.Kind())
}

// addFields adds the properties of struct type t to s, flattening
// untagged embedded structs as encoding/json does.
func addFields(s *Schema, t reflect.Type, visiting map[reflect.Type]bool) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := addFields(s, ft, visiting); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs, err := schemaOf(f.Type, visiting)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		if d, ok := f.Tag.Lookup("jsonschema"); ok {
			fs.Description = d
		}
		if e, ok := f.Tag.Lookup("enum"); ok {
			target := fs
			if fs.Type == "array" && fs.Items != nil {
				target = fs.Items
			}
			vals, err := enumValues(e, target.Type)
			if err != nil {
				return fmt.Errorf("field %s: enum: %w", f.Name, err)
			}
			target.Enum = vals
		}
		s.Properties = append(s.Properties, Property{Name: name, Schema: fs})
		if !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero") {
			s.Required = append(s.Required, name)
		}
	}
	return nil
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
