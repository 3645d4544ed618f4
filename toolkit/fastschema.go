package toolkit

import (
	"encoding/json"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// flatSchema is the common shape of an input schema, an object of scalar
// properties, held so that a valid input is known valid without the
// schema library (whose validation of every call costs more than the
// rest of the check). It only ever vouches: an input it does not accept
// is judged, and its error worded, by the compiled schema.
type flatSchema struct {
	// props are few (a handful): a list read in order costs less than a
	// map's look-ups, above all on a toolkit no call has touched yet,
	// where each separate piece read is a cache miss. So the list lives
	// in the schema's own allocation when it is short (inline), the
	// names share one string, and the required ones are a mask of bits.
	// What every input reads fills the first cache line, four
	// properties the next two (the schema takes 192 bytes, whole lines:
	// TestFlatSchemaSize).
	props []flatProp
	// required has bit i set when props[i] is required; unlisted are
	// the required names no property has.
	required   uint64
	unlisted   []string
	additional bool // properties not listed are allowed
	inline     [4]flatProp
}

// flatKind is a flat property's type.
type flatKind uint8

const (
	kindString flatKind = iota + 1
	kindInteger
	kindBoolean
	kindNumber
)

// index returns the index of the property named name, or -1.
func (fs *flatSchema) index(name string) int {
	for i := range fs.props {
		if fs.props[i].name == name {
			return i
		}
	}
	return -1
}

type flatProp struct {
	name string
	kind flatKind
	// limits, nil for none, are out of line: most properties have none,
	// and an input is checked against every property's name.
	limits *flatLimits
}

// flatLimits are the rarer constraints of a flat property.
type flatLimits struct {
	enum           []string // for strings: the allowed values; nil means any
	min, max       int64    // for integers, when hasMin, hasMax
	hasMin, hasMax bool
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
	var required []string
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
			if len(props) > 64 {
				return nil // more than the required mask holds
			}
			fs.props = fs.inline[:0]
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
				if !ok || slices.Contains(required, s) {
					return nil
				}
				required = append(required, s)
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
	// The names in one string, read together.
	n := 0
	for _, p := range fs.props {
		n += len(p.name)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range fs.props {
		b.WriteString(p.name)
	}
	all, at := b.String(), 0
	for i := range fs.props {
		l := len(fs.props[i].name)
		fs.props[i].name, at = all[at:at+l], at+l
	}
	for _, r := range required {
		if i := fs.index(r); i >= 0 {
			fs.required |= 1 << i
		} else {
			fs.unlisted = append(fs.unlisted, r)
		}
	}
	return fs
}

func newFlatProp(v any) (flatProp, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return flatProp{}, false
	}
	var p flatProp
	var l flatLimits
	for k, v := range m {
		switch k {
		case "type":
			s, ok := v.(string)
			if !ok {
				return p, false
			}
			switch s {
			case "string":
				p.kind = kindString
			case "integer":
				p.kind = kindInteger
			case "boolean":
				p.kind = kindBoolean
			case "number":
				p.kind = kindNumber
			default:
				return p, false
			}
		case "enum":
			list, ok := v.([]any)
			if !ok {
				return p, false
			}
			l.enum = []string{}
			for _, e := range list {
				s, ok := e.(string)
				if !ok || slices.Contains(l.enum, s) {
					return p, false
				}
				l.enum = append(l.enum, s)
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
				l.min, l.hasMin = i, true
			} else {
				l.max, l.hasMax = i, true
			}
		case "default":
		default:
			if !annotation(k, v) {
				return p, false
			}
		}
	}
	if p.kind == 0 || l.enum != nil && p.kind != kindString || (l.hasMin || l.hasMax) && p.kind != kindInteger {
		return p, false
	}
	if l.enum != nil || l.hasMin || l.hasMax {
		p.limits = new(flatLimits) // l itself stays on the stack
		*p.limits = l
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
	if len(fs.props) <= maxLookupProps {
		return fs.vouchesByLookup(in)
	}
	return fs.vouchesByWalk(in)
}

// vouchesByWalk is vouches walking the input's members.
func (fs *flatSchema) vouchesByWalk(in Input) bool {
	for m := fs.required; m != 0; m &= m - 1 {
		if _, ok := in[fs.props[bits.TrailingZeros64(m)].name]; !ok {
			return false
		}
	}
	for _, r := range fs.unlisted {
		if _, ok := in[r]; !ok {
			return false
		}
	}
	for k, v := range in {
		i := fs.index(k)
		if i < 0 {
			if !fs.additional {
				return false
			}
			continue
		}
		if !fs.props[i].accepts(v) {
			return false
		}
	}
	return true
}

// maxLookupProps is the most properties vouches looks up one by one
// rather than walk the input: a few map look-ups cost less than starting
// a walk over a map.
const maxLookupProps = 8

// vouchesByLookup is vouches for a schema of few properties: each is
// looked up in the input, and an input holding more keys than the
// properties found holds one the schema does not list.
func (fs *flatSchema) vouchesByLookup(in Input) bool {
	found := 0
	for i := range fs.props {
		v, ok := in[fs.props[i].name]
		if !ok {
			if fs.required&(1<<i) != 0 {
				return false
			}
			continue
		}
		if !fs.props[i].accepts(v) {
			return false
		}
		found++
	}
	for _, r := range fs.unlisted {
		if _, ok := in[r]; !ok {
			return false
		}
	}
	return fs.additional || found == len(in)
}

func (p *flatProp) accepts(v any) bool {
	switch p.kind {
	case kindString:
		s, ok := v.(string)
		if !ok {
			return false
		}
		if p.limits == nil || p.limits.enum == nil {
			return true
		}
		return slices.Contains(p.limits.enum, s)
	case kindBoolean:
		_, ok := v.(bool)
		return ok
	case kindNumber:
		_, ok := v.(json.Number)
		return ok
	case kindInteger:
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return false
		}
		l := p.limits
		return l == nil || (!l.hasMin || i >= l.min) && (!l.hasMax || i <= l.max)
	}
	return false
}
