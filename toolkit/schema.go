package toolkit

import (
	"encoding/json"
	"fmt"
	"reflect"

	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

// InferSchema returns the JSON Schema NewFunc and NewStreamFunc infer for
// In, which must be a struct, a map with string keys, or a pointer to one.
//
// The schema describes what encoding/json reads into In. It is inferred by
// the guest SDK's SchemaFor (package sdk-guest), so a tool has one schema
// whether it runs in the host or in a plugin. The rules:
//
//   - a struct is an object of the fields encoding/json sees: exported
//     fields named by their json tag (tag "-" leaves one out), the
//     fields of untagged embedded structs promoted (not through a pointer
//     to an unexported struct, which encoding/json cannot allocate), a
//     JSON name claimed twice going to the shallower field, or to the
//     tagged one, or else to neither; other properties are not allowed;
//   - a field is required unless its tag says omitempty or omitzero or
//     its type is a pointer;
//   - a pointer has the schema of what it points to and also allows null
//     (absent and null both leave it nil); nowhere else is null allowed,
//     although encoding/json would ignore it: a schema says what a value
//     means, and null means something only for a pointer;
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
// model to read: a function still sees the zero value of a field the
// call left out.
func InferSchema[In any]() (json.RawMessage, error) {
	t := reflect.TypeFor[In]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem() // a tool's input is an object, never null
	}
	s, err := guest.SchemaFor(t)
	if err != nil {
		return nil, fmt.Errorf("infer input schema: %w", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("infer input schema: %s is not a struct or map: tool inputs are JSON objects", t)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode input schema: %w", err)
	}
	return b, nil
}
