package toolkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// Shared is embedded by kindEmbedded.
type Shared struct {
	ID string `json:"id" jsonschema:"the shared id"`
}

// Quiet is embedded by pointer in kindEmbedded.
type Quiet struct {
	Quiet bool `json:"quiet,omitempty"`
}

type hidden struct {
	Hidden string `json:"hidden"`
}

// kindEmbedded promotes the fields of Shared and Quiet as encoding/json
// does, but not those of hidden: encoding/json cannot allocate an
// unexported struct for the pointer.
type kindEmbedded struct {
	Shared
	*Quiet
	*hidden
	Sub  Shared `json:"sub"`
	Name string `json:"name"`
}

// kindCase is one kind of field: the schema both inferrers must give, and
// arguments a toolkit call must take or refuse.
type kindCase struct {
	name   string
	typ    reflect.Type
	host   func() (json.RawMessage, error)
	tool   func() (toolkit.Tool, error)
	decode func([]byte) error // encoding/json into the type
	want   string
	// accept are arguments encoding/json reads and the call takes;
	// reject are arguments encoding/json refuses and so does the call;
	// stricter are arguments encoding/json reads but the schema refuses,
	// by the documented rules (required fields, null only for pointers,
	// no unknown keys, enums).
	accept, reject, stricter []string
}

func kind[T any](name, want string, accept, reject, stricter []string) kindCase {
	return kindCase{
		name: name,
		typ:  reflect.TypeFor[T](),
		host: toolkit.InferSchema[T],
		tool: func() (toolkit.Tool, error) {
			return toolkit.NewFunc("kind", "a kind of field", func(context.Context, T) (string, error) { return "ok", nil },
				toolkit.FuncOptions{ReadOnly: true})
		},
		decode: func(b []byte) error {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber() // as Input.Decode does
			var v T
			return dec.Decode(&v)
		},
		want:     want,
		accept:   accept,
		reject:   reject,
		stricter: stricter,
	}
}

func kindCases() []kindCase {
	type (
		str struct {
			S string `json:"s" jsonschema:"some text"`
		}
		ints struct {
			I int8   `json:"i"`
			U uint32 `json:"u,omitempty"`
			N int    `json:"n,omitempty"`
		}
		float struct {
			F float64 `json:"f"`
		}
		boolean struct {
			B bool `json:"b"`
		}
		slice struct {
			L []int `json:"l"`
		}
		bytes struct {
			D []byte `json:"d"`
		}
		maps struct {
			M map[string]int  `json:"m"`
			K map[int]string  `json:"k,omitempty"`
			A map[string]any  `json:"a,omitempty"`
			P map[string]*int `json:"p,omitempty"`
		}
		pointer struct {
			P *int    `json:"p"`
			E *string `json:"e,omitempty" enum:"x,y"`
		}
		nested struct {
			N struct {
				A string `json:"a"`
			} `json:"n"`
			L []struct {
				B bool `json:"b,omitempty"`
			} `json:"l,omitempty"`
		}
		when struct {
			T time.Time `json:"t"`
		}
		duration struct {
			W time.Duration  `json:"w" jsonschema:"how long to wait"`
			X *time.Duration `json:"x"`
		}
		raw struct {
			R json.RawMessage `json:"r"`
			V any             `json:"v,omitempty"`
			N json.Number     `json:"n,omitempty"`
		}
		tags struct {
			Unit  string   `json:"unit" enum:"c,f" default:"c" jsonschema:"the unit"`
			Days  int      `json:"days,omitempty" enum:"1,3" default:"3"`
			Tags  []string `json:"tags,omitempty" enum:"a,b" default:"[\"a\"]"`
			Ratio float32  `json:"ratio,omitzero" default:"0.5"`
		}
		quoted struct {
			Q int   `json:"q,string"`
			B *bool `json:"b,omitempty,string"`
		}
		omit struct {
			O string `json:"o,omitempty"`
			Z int    `json:"z,omitzero"`
			D string `json:"-"`
			G string // named by its Go name
		}
	)
	return []kindCase{
		kind[str]("string",
			`{"type":"object","properties":{"s":{"type":"string","description":"some text"}},"required":["s"],"additionalProperties":false}`,
			[]string{`{"s":"x"}`, `{"s":""}`}, []string{`{"s":1}`, `{"s":["x"]}`}, []string{`{}`, `{"s":null}`, `{"s":"x","t":1}`}),
		kind[ints]("integers",
			`{"type":"object","properties":{"i":{"type":"integer","minimum":-128,"maximum":127},"u":{"type":"integer","minimum":0,"maximum":4294967295},"n":{"type":"integer"}},"required":["i"],"additionalProperties":false}`,
			[]string{`{"i":-128}`, `{"i":127,"u":4294967295,"n":-5}`}, []string{`{"i":128}`, `{"i":1.5}`, `{"i":"1"}`, `{"i":0,"u":-1}`}, nil),
		kind[float]("float",
			`{"type":"object","properties":{"f":{"type":"number"}},"required":["f"],"additionalProperties":false}`,
			[]string{`{"f":1.5}`, `{"f":2}`, `{"f":-1e3}`}, []string{`{"f":"1"}`, `{"f":true}`}, nil),
		kind[boolean]("bool",
			`{"type":"object","properties":{"b":{"type":"boolean"}},"required":["b"],"additionalProperties":false}`,
			[]string{`{"b":true}`}, []string{`{"b":"true"}`, `{"b":1}`}, nil),
		kind[slice]("slice",
			`{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer"}}},"required":["l"],"additionalProperties":false}`,
			[]string{`{"l":[1,2]}`, `{"l":[]}`}, []string{`{"l":[1,"a"]}`, `{"l":"1"}`}, []string{`{"l":null}`}),
		kind[bytes]("[]byte",
			`{"type":"object","properties":{"d":{"type":"string","contentEncoding":"base64"}},"required":["d"],"additionalProperties":false}`,
			[]string{`{"d":"aGk="}`, `{"d":""}`}, []string{`{"d":"!!!"}`, `{"d":1}`}, []string{`{"d":null}`}),
		kind[maps]("maps",
			`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}},"k":{"type":"object","additionalProperties":{"type":"string"}},"a":{"type":"object"},"p":{"type":"object","additionalProperties":{"type":["null","integer"]}}},"required":["m"],"additionalProperties":false}`,
			[]string{`{"m":{"a":1}}`, `{"m":{},"k":{"1":"x"},"a":{"x":[1]},"p":{"x":null,"y":2}}`},
			[]string{`{"m":{"a":"x"}}`, `{"m":[1]}`, `{"m":{},"k":{"one":"x"}}`}, []string{`{"m":null}`}),
		kind[pointer]("pointer",
			`{"type":"object","properties":{"p":{"type":["null","integer"]},"e":{"type":["null","string"],"enum":["x","y",null]}},"additionalProperties":false}`,
			[]string{`{}`, `{"p":null}`, `{"p":3}`, `{"e":"x"}`, `{"e":null}`}, []string{`{"p":"3"}`, `{"p":[3]}`}, []string{`{"e":"z"}`}),
		kind[nested]("nested struct",
			`{"type":"object","properties":{"n":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false},"l":{"type":"array","items":{"type":"object","properties":{"b":{"type":"boolean"}},"additionalProperties":false}}},"required":["n"],"additionalProperties":false}`,
			[]string{`{"n":{"a":"x"}}`, `{"n":{"a":"x"},"l":[{},{"b":true}]}`}, []string{`{"n":{"a":1}}`, `{"n":"a"}`, `{"n":{"a":""},"l":[{"b":1}]}`},
			[]string{`{"n":{}}`, `{"n":{"a":"x","z":1}}`}),
		kind[kindEmbedded]("embedded struct",
			`{"type":"object","properties":{"id":{"type":"string","description":"the shared id"},"quiet":{"type":"boolean"},"sub":{"type":"object","properties":{"id":{"type":"string","description":"the shared id"}},"required":["id"],"additionalProperties":false},"name":{"type":"string"}},"required":["id","sub","name"],"additionalProperties":false}`,
			[]string{`{"id":"1","sub":{"id":"2"},"name":"n"}`, `{"id":"1","sub":{"id":"2"},"name":"n","quiet":true}`},
			[]string{`{"id":1,"sub":{"id":"2"},"name":"n"}`, `{"id":"1","sub":{"id":"2"},"name":"n","quiet":"yes"}`, `{"id":"1","sub":{"id":"2"},"name":"n","hidden":"h"}`},
			[]string{`{"Shared":{"id":"1"},"sub":{"id":"2"},"name":"n"}`}),
		kind[when]("time.Time",
			`{"type":"object","properties":{"t":{"type":"string","format":"date-time"}},"required":["t"],"additionalProperties":false}`,
			[]string{`{"t":"2026-11-30T12:00:00Z"}`, `{"t":"2026-11-30T12:00:00.5+01:00"}`}, []string{`{"t":"yesterday"}`, `{"t":1}`}, nil),
		kind[duration]("time.Duration",
			`{"type":"object","properties":{"w":{"type":"integer","description":"how long to wait (nanoseconds)"},"x":{"type":["null","integer"],"description":"nanoseconds"}},"required":["w"],"additionalProperties":false}`,
			[]string{`{"w":1500000000}`, `{"w":0,"x":null}`}, []string{`{"w":"1s"}`, `{"w":1.5}`}, nil),
		kind[raw]("json.RawMessage, any, json.Number",
			`{"type":"object","properties":{"r":{},"v":{},"n":{"type":"number"}},"required":["r"],"additionalProperties":false}`,
			[]string{`{"r":[1]}`, `{"r":"x","v":{"a":1}}`, `{"r":null,"n":1.5}`}, []string{`{"r":1,"n":"x"}`}, []string{`{}`}),
		kind[tags]("enum, default and description tags",
			`{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"],"default":"c","description":"the unit"},"days":{"type":"integer","enum":[1,3],"default":3},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["a"]},"ratio":{"type":"number","default":0.5}},"required":["unit"],"additionalProperties":false}`,
			[]string{`{"unit":"c"}`, `{"unit":"f","days":1,"tags":["b","a"],"ratio":0.25}`}, []string{`{"unit":1}`, `{"unit":"c","days":"3"}`},
			[]string{`{"unit":"k"}`, `{"unit":"c","days":2}`, `{"unit":"c","tags":["z"]}`}),
		kind[quoted]("json string option",
			`{"type":"object","properties":{"q":{"type":"string"},"b":{"type":["null","string"]}},"required":["q"],"additionalProperties":false}`,
			[]string{`{"q":"12"}`, `{"q":"-1","b":"true"}`}, []string{`{"q":"x"}`, `{"q":"1","b":"yes"}`, `{"q":12}`}, nil),
		kind[omit]("omitempty and omitzero",
			`{"type":"object","properties":{"o":{"type":"string"},"z":{"type":"integer"},"G":{"type":"string"}},"required":["G"],"additionalProperties":false}`,
			[]string{`{"G":""}`, `{"o":"x","z":1,"G":"g"}`}, []string{`{"o":1,"G":""}`, `{"z":"1","G":""}`}, []string{`{"D":"x","G":""}`}),
	}
}

// normalize makes a decoded schema comparable: jsonschema-go writes an
// empty schema as true, and an additionalProperties of any value says
// nothing.
func normalize(v any) any {
	switch v := v.(type) {
	case bool:
		if v {
			return map[string]any{}
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = normalize(x)
		}
		if ap, ok := out["additionalProperties"].(map[string]any); ok && len(ap) == 0 {
			delete(out, "additionalProperties")
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalize(x)
		}
		return out
	}
	return v
}

func decodeSchema(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("schema %s: %v", b, err)
	}
	return normalize(v)
}

// TestInferSchemaKinds: for each kind of field, InferSchema (the guest
// SDK's inferrer, which plugins use too) gives the schema wanted.
func TestInferSchemaKinds(t *testing.T) {
	for _, c := range kindCases() {
		t.Run(c.name, func(t *testing.T) {
			hostRaw, err := c.host()
			if err != nil {
				t.Fatal(err)
			}
			if host, want := decodeSchema(t, hostRaw), decodeSchema(t, []byte(c.want)); !reflect.DeepEqual(host, want) {
				t.Errorf("schema\n%s\nwant\n%s", hostRaw, c.want)
			}
		})
	}
}

// TestInferSchemaValidates: through a toolkit call, arguments encoding/json
// reads pass the inferred schema and those it refuses fail; arguments the
// documented rules refuse fail although encoding/json reads them.
func TestInferSchemaValidates(t *testing.T) {
	for _, c := range kindCases() {
		t.Run(c.name, func(t *testing.T) {
			tool, err := c.tool()
			if err != nil {
				t.Fatal(err)
			}
			tk := toolkit.New(toolkit.Options{})
			if err := tk.Register(tool); err != nil {
				t.Fatal(err)
			}
			for _, args := range c.accept {
				if err := c.decode([]byte(args)); err != nil {
					t.Errorf("the case is wrong: encoding/json refuses %s: %v", args, err)
				}
				if r := toolkittest.Call(t, tk, "s", "kind", args); r.State != toolkit.StateSuccess {
					t.Errorf("%s was refused: %s", args, r.Text())
				}
			}
			for _, args := range c.reject {
				if err := c.decode([]byte(args)); err == nil {
					t.Errorf("the case is wrong: encoding/json reads %s", args)
				}
				if r := toolkittest.Call(t, tk, "s", "kind", args); r.State != toolkit.StateError {
					t.Errorf("%s was taken: %s %q", args, r.State, r.Text())
				}
			}
			for _, args := range c.stricter {
				if err := c.decode([]byte(args)); err != nil {
					t.Errorf("the case is wrong: encoding/json refuses %s: %v", args, err)
				}
				if r := toolkittest.Call(t, tk, "s", "kind", args); r.State != toolkit.StateError {
					t.Errorf("%s was taken: %s %q", args, r.State, r.Text())
				}
			}
		})
	}
}

// TestInferSchemaErrors: tags that do not parse as their field's type and
// types without a JSON form are errors of NewFunc, naming the field.
func TestInferSchemaErrors(t *testing.T) {
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{"default of the wrong type", errOf[struct {
			N int `json:"n" default:"\"x\""`
		}](), "field N: default"},
		{"default out of range", errOf[struct {
			N uint8 `json:"n" default:"300"`
		}](), "field N: default"},
		{"default not JSON", errOf[struct {
			N []int `json:"n" default:"[1"`
		}](), "not JSON"},
		{"default time not RFC 3339", errOf[struct {
			T time.Time `json:"t" default:"noon"`
		}](), "field T: default"},
		{"enum of the wrong type", errOf[struct {
			N int `json:"n" enum:"one,two"`
		}](), "field N: enum"},
		{"channel", errOf[struct {
			C chan int `json:"c"`
		}](), "field C"},
		{"map key", errOf[struct {
			M map[[2]int]string `json:"m"`
		}](), "map key type"},
		{"not an object", errOf[[]string](), "not a struct or map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.want)) {
				t.Errorf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func errOf[T any]() func() error {
	return func() error {
		_, err := toolkit.NewFunc("f", "", func(context.Context, T) (string, error) { return "", nil }, toolkit.FuncOptions{})
		return err
	}
}

// TestInferSchemaPointerInput: a pointer input has its struct's schema
// (a tool's input is never null), and recursion is cut, not an error.
func TestInferSchemaPointerInput(t *testing.T) {
	type node struct {
		Name string  `json:"name"`
		Next []*node `json:"next,omitempty"`
	}
	got, err := toolkit.InferSchema[*node]()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"name":{"type":"string"},"next":{"type":"array","items":{"type":["null","object"]}}},"required":["name"],"additionalProperties":false}`
	if !reflect.DeepEqual(decodeSchema(t, got), decodeSchema(t, []byte(want))) {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
