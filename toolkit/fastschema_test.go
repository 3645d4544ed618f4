package toolkit

import (
	"testing"
	"unsafe"
)

// flatSchemas are schemas of the flat shape and some that are not.
var flatSchemas = []struct {
	schema string
	flat   bool
}{
	{`{"type":"object","properties":{"command":{"type":"string","description":"x"},"timeout":{"type":"integer","minimum":1,"maximum":600000},"description":{"type":"string"},"sandbox":{"type":"string","enum":["on","off"]}},"required":["command"],"additionalProperties":false}`, true},
	{cmdSchema, true},
	{`{"type":"object"}`, true},
	{`{"type":"object","properties":{"n":{"type":"number"},"b":{"type":"boolean"}},"additionalProperties":true}`, true},
	// Required names no property lists, with and without other members.
	{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","cmd"]}`, true},
	{`{"type":"object","properties":{"a":{"type":"string"}},"required":["cmd"],"additionalProperties":false}`, true},
	// More properties than vouches looks up one by one.
	{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"},"f":{"type":"string"},"g":{"type":"string"},"h":{"type":"string"},"n":{"type":"number"},"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`, true},
	{`{"properties":{"a":{"type":"string"}}}`, false},
	{`{"type":"object","properties":{"a":{"type":"string","minLength":2}}}`, false},
	{`{"type":"object","properties":{"a":{"type":["string","null"]}}}`, false},
	{`{"type":"object","properties":{"a":{"type":"integer","minimum":1.5}}}`, false},
	{`{"type":"object","properties":{"a":{"type":"string","enum":["x",1]}}}`, false},
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`, false},
	{`{"type":"object","additionalProperties":{"type":"string"}}`, false},
	{`{"type":"object","properties":{"a":true}}`, false},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, false},
}

var flatInputs = []string{
	`{"command":"ls"}`, `{"command":"ls","timeout":1}`, `{"command":"ls","timeout":0}`, `{"command":"ls","timeout":600001}`,
	`{"command":"ls","timeout":1.0}`, `{"command":"ls","timeout":1e3}`, `{"command":"ls","timeout":"5"}`, `{"command":1}`,
	`{"command":"ls","sandbox":"off"}`, `{"command":"ls","sandbox":"OFF"}`, `{"command":"ls","extra":1}`, `{}`,
	`{"cmd":"x"}`, `{"cmd":null}`, `{"n":1.5,"b":true}`, `{"n":"1","b":1}`, `{"command":null}`, `{"a":"xy"}`, `{"a":null}`,
	`{"command":"ls","timeout":-1}`, `{"a":"x","cmd":"y"}`, `{"a":"x","cmd":1,"n":2}`, `{"a":"x","h":"y","command":"z"}`, `{"command":"ls","timeout":99999999999999999999}`, `{"command":"ls","description":"d"}`,
}

// TestFlatSchemaVouches: the flat form is made for flat schemas only, and
// whatever it vouches for, the schema library accepts.
func TestFlatSchemaVouches(t *testing.T) {
	vouched := 0
	for _, s := range flatSchemas {
		v, err := compileSchema("t", []byte(s.schema))
		if err != nil {
			t.Fatalf("%s: %v", s.schema, err)
		}
		if (v.flat != nil) != s.flat {
			t.Errorf("%s: flat form %v, want %v", s.schema, v.flat != nil, s.flat)
		}
		for _, raw := range flatInputs {
			if checkFlatVouch(t, v, raw) {
				vouched++
			}
		}
	}
	if vouched < 10 {
		t.Fatalf("the flat form vouched for only %d inputs", vouched)
	}
}

func checkFlatVouch(t *testing.T, v *schemaValidator, raw string) bool {
	t.Helper()
	in, _, err := parseArguments(raw)
	if err != nil || v.flat == nil {
		return false
	}
	// The two ways of vouching (vouches picks one by the schema's size)
	// give one answer.
	if byLookup, byWalk := v.flat.vouchesByLookup(in), v.flat.vouchesByWalk(in); byLookup != byWalk {
		t.Fatalf("for %s, looking the properties up vouches %v, walking the input %v", raw, byLookup, byWalk)
	}
	if !v.flat.vouches(in) {
		return false
	}
	schema, err := v.compiled()
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(map[string]any(in)); err != nil {
		t.Fatalf("the flat form vouched for %s, which the schema refuses: %v", raw, err)
	}
	return true
}

// FuzzFlatSchema: the flat form never vouches for an input the schema
// library refuses.
func FuzzFlatSchema(f *testing.F) {
	for _, raw := range flatInputs {
		f.Add(raw)
	}
	var vs []*schemaValidator
	for _, s := range flatSchemas {
		v, err := compileSchema("t", []byte(s.schema))
		if err != nil {
			f.Fatal(err)
		}
		vs = append(vs, v)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, v := range vs {
			checkFlatVouch(t, v, raw)
		}
	})
}

// flatDocs are schema documents near the flat shape, valid and not.
var flatDocs = []string{
	`{"type":"object","description":1}`, `{"type":"object","title":null}`, `{"type":"object","examples":"x"}`,
	`{"type":"object","examples":[{}]}`, `{"type":"object","$comment":"c"}`, `{"type":"object","required":["a","a"]}`,
	`{"type":"object","required":"a"}`, `{"type":"object","required":[]}`,
	`{"type":"object","properties":{"a":{"type":"string","enum":["x","x"]}}}`,
	`{"type":"object","properties":{"a":{"type":"string","enum":[]}}}`,
	`{"type":"object","properties":{"a":{"type":"string","description":["d"]}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","minimum":"1"}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","default":{"any":"thing"}}}}`,
	`{"type":"object","properties":{"a":{"type":"boolean","examples":[true]}}}`,
	`{"type":"object","additionalProperties":"no"}`, `{"type":"object","properties":[]}`,
}

// TestFlatSchemaCompiles: a schema the flat form accepts compiles (the
// toolkit compiles it only when an input needs the library), and one
// that does not compile is refused at registration.
func TestFlatSchemaCompiles(t *testing.T) {
	docs := append([]string{}, flatDocs...)
	for _, s := range flatSchemas {
		docs = append(docs, s.schema)
	}
	flat := 0
	for _, doc := range docs {
		if checkFlatCompiles(t, doc) {
			flat++
		}
	}
	if flat < 8 {
		t.Fatalf("only %d of the documents are flat", flat)
	}
}

// checkFlatCompiles reports whether doc has a flat form, failing when it
// has one and the schema library refuses it, or when registration
// accepts a schema the library refuses.
func checkFlatCompiles(t *testing.T, doc string) bool {
	t.Helper()
	v, err := compileSchema("t", []byte(doc))
	if err != nil {
		return false
	}
	if _, cerr := v.compiled(); cerr != nil {
		t.Fatalf("%s: registration accepts it (flat form %v), the schema library refuses it: %v", doc, v.flat != nil, cerr)
	}
	return v.flat != nil
}

// FuzzFlatSchemaDoc: registration never accepts a schema the schema
// library would refuse, flat or not.
func FuzzFlatSchemaDoc(f *testing.F) {
	for _, d := range flatDocs {
		f.Add(d)
	}
	for _, s := range flatSchemas {
		f.Add(s.schema)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		checkFlatCompiles(t, doc)
	})
}

// TestFlatSchemaSize keeps a flat schema to whole cache lines (its size
// class is then a multiple of 64 bytes), with what every input reads
// before its inline properties in the first, and its four inline
// properties in the next two.
func TestFlatSchemaSize(t *testing.T) {
	var fs flatSchema
	if n := unsafe.Sizeof(fs); n != 192 {
		t.Errorf("a flat schema takes %d bytes, want 192", n)
	}
	if off := unsafe.Offsetof(fs.inline); off != 64 {
		t.Errorf("the inline properties start at byte %d, want 64", off)
	}
}
