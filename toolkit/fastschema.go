package toolkit

import (
	"encoding/json"
	"slices"
	"strconv"
)

// flatSchema is the common shape of an input schema, an object of scalar
// properties, held so that a valid input is known valid without the
// schema library (whose validation of every call costs more than the
// rest of the check). It only ever vouches: an input it does not accept
// is judged, and its error worded, by the compiled schema.
type flatSchema struct {
	// props are few (a handful): a list read in order costs less than a
	// map's look-ups, above all on a toolkit no call has touched yet
	// (each of a map's parts is a cache miss).
	props      []flatProp
	required   []string
	additional bool // properties not listed are allowed
}

// prop returns the property named name.
func (fs *flatSchema) prop(name string) (*flatProp, bool) {
	for i := range fs.props {
		if fs.props[i].name == name {
			return &fs.props[i], true
		}
	}
	return nil, false
}

type flatProp struct {
	name     string
	typ      string   // "string", "integer", "boolean", "number", or "" for any value
	enum     []string // for strings: the allowed values; nil means any
	min, max int64    // for integers, when hasMin, hasMax
	hasMin   bool
	hasMax   bool
}

// newFlatSchema returns the flat form of a schema document, or nil when
// it uses anything beyond type, properties, required,
// additionalProperties (a boolean) and, per property, a scalar type,
// an enum of strings, an integer minimum and maximum, and annotations.
// Whatever it accepts is a valid schema (every keyword's value has the
// type the metaschema asks for, lists have no duplicates), so a flat
// schema need not be compiled to be known valid: TestFlatSchemaCompiles
// and FuzzFlatSchemaDoc hold it to that.
func newFlatSchema(doc map[string]any) *flatSchema {
	fs := &flatSchema{additional: true}
	for k, v := range doc {
		switch k {
		case "type":
			if v != "object" {
				return nil
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			for name, p := range props {
				fp, ok := newFlatProp(p)
				if !ok {
					return nil
				}
				fp.name = name
				fs.props = append(fs.props, fp)
			}
		case "required":
			list, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, r := range list {
				s, ok := r.(string)
				if !ok || slices.Contains(fs.required, s) {
					return nil
				}
				fs.required = append(fs.required, s)
			}
		case "additionalProperties":
			b, ok := v.(bool)
			if !ok {
				return nil
			}
			fs.additional = b
		default:
			if !annotation(k, v) {
				return nil
			}
		}
	}
	if _, ok := doc["type"]; !ok {
		return nil // without "type": "object", a non-object would pass
	}
	return fs
}

func newFlatProp(v any) (flatProp, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return flatProp{}, false
	}
	var p flatProp
	for k, v := range m {
		switch k {
		case "type":
			s, ok := v.(string)
			if !ok {
				return p, false
			}
			switch s {
			case "string", "integer", "boolean", "number":
				p.typ = s
			default:
				return p, false
			}
		case "enum":
			list, ok := v.([]any)
			if !ok {
				return p, false
			}
			p.enum = []string{}
			for _, e := range list {
				s, ok := e.(string)
				if !ok || slices.Contains(p.enum, s) {
					return p, false
				}
				p.enum = append(p.enum, s)
			}
		case "minimum", "maximum":
			n, ok := v.(json.Number)
			if !ok {
				return p, false
			}
			i, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil {
				return p, false
			}
			if k == "minimum" {
				p.min, p.hasMin = i, true
			} else {
				p.max, p.hasMax = i, true
			}
		case "default":
		default:
			if !annotation(k, v) {
				return p, false
			}
		}
	}
	if p.typ == "" || p.enum != nil && p.typ != "string" || (p.hasMin || p.hasMax) && p.typ != "integer" {
		return p, false
	}
	return p, true
}

// annotation reports an annotation keyword with a value of the type the
// metaschema asks for.
func annotation(k string, v any) bool {
	switch k {
	case "description", "title", "$comment":
		_, ok := v.(string)
		return ok
	case "examples":
		_, ok := v.([]any)
		return ok
	}
	return false
}

// vouches reports whether in is certainly valid.
func (fs *flatSchema) vouches(in Input) bool {
	for _, r := range fs.required {
		if _, ok := in[r]; !ok {
			return false
		}
	}
	for k, v := range in {
		p, ok := fs.prop(k)
		if !ok {
			if !fs.additional {
				return false
			}
			continue
		}
		if !p.accepts(v) {
			return false
		}
	}
	return true
}

func (p flatProp) accepts(v any) bool {
	switch p.typ {
	case "string":
		s, ok := v.(string)
		if !ok {
			return false
		}
		if p.enum == nil {
			return true
		}
		for _, e := range p.enum {
			if s == e {
				return true
			}
		}
		return false
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		return err == nil && (!p.hasMin || i >= p.min) && (!p.hasMax || i <= p.max)
	}
	return false
}
