package guest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

type inner struct {
	Host string `json:"host"`
	Port int    `json:"port,omitempty"`
}

type Embedded struct {
	Shared string `json:"shared" jsonschema:"from an embedded struct"`
}

// Level is embedded by name: not a struct, it is a field named Level.
type Level string

type deepA struct {
	A string `json:"a"`
	B int    `json:"b"`
}

type deepB struct {
	A string `json:"a"` // loses to embedding.A, which is shallower
	B int    `json:"-"`
	C string // ties with deeper.C: both are dropped
	X string // loses to deeper.Y, tagged with its name
}

type deeper struct {
	deepA
	B string `json:"b"` // loses to embedding.B, which is shallower
	C string
	Y bool `json:"X"`
}

type hiddenPtr struct {
	Hidden string `json:"hidden"`
}

// embedding exercises encoding/json's embedding rules.
type embedding struct {
	Embedded
	Named Embedded `json:"named"`
	deeper
	*hiddenPtr // encoding/json cannot allocate it: left out
	deepB
	A string `json:"a"` // shallower than both embedded a's: wins
	B int    `json:"b"`
	Level
}

type node struct {
	Name     string  `json:"name"`
	Children []*node `json:"children,omitempty"`
}

type everything struct {
	Embedded
	Text     string            `json:"text" jsonschema:"the text"`
	Mode     string            `json:"mode,omitempty" enum:"fast,slow"`
	Level    int               `json:"level" enum:"1,2,3"`
	Ratio    float64           `json:"ratio,omitzero"`
	On       bool              `json:"on"`
	Tags     []string          `json:"tags,omitempty" enum:"a,b"`
	Labels   map[string]string `json:"labels,omitempty"`
	Any      map[string]any    `json:"any,omitempty"`
	Server   inner             `json:"server"`
	Optional *inner            `json:"optional,omitempty"`
	Blob     []byte            `json:"blob,omitempty"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Number   json.Number       `json:"number,omitempty"`
	When     time.Time         `json:"when,omitzero"`
	Matrix   [][]float32       `json:"matrix,omitempty"`
	Value    any               `json:"value,omitempty"`
	NoTag    string
	Skipped  string `json:"-"`
	//lint:ignore U1000 an unexported field must be left out of the schema
	private string
}

func TestSchemaFor(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"empty struct", reflect.TypeFor[struct{}](), `{"type":"object","additionalProperties":false}`},
		{"pointer", reflect.TypeFor[*inner](), `{"type":"object","properties":{"host":{"type":"string"},"port":{"type":"integer"}},"required":["host"],"additionalProperties":false}`},
		{"map", reflect.TypeFor[map[string]int](), `{"type":"object","additionalProperties":{"type":"integer"}}`},
		{"map of any", reflect.TypeFor[map[string]any](), `{"type":"object"}`},
		{"string", reflect.TypeFor[string](), `{"type":"string"}`},
		{"recursive", reflect.TypeFor[node](), `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"type":["null","object"]}}},"required":["name"],"additionalProperties":false}`},
		{"everything", reflect.TypeFor[everything](), `{"type":"object","properties":{` +
			`"shared":{"type":"string","description":"from an embedded struct"},` +
			`"text":{"type":"string","description":"the text"},` +
			`"mode":{"type":"string","enum":["fast","slow"]},` +
			`"level":{"type":"integer","enum":[1,2,3]},` +
			`"ratio":{"type":"number"},` +
			`"on":{"type":"boolean"},` +
			`"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},` +
			`"labels":{"type":"object","additionalProperties":{"type":"string"}},` +
			`"any":{"type":"object"},` +
			`"server":{"type":"object","properties":{"host":{"type":"string"},"port":{"type":"integer"}},"required":["host"],"additionalProperties":false},` +
			`"optional":{"type":["null","object"],"properties":{"host":{"type":"string"},"port":{"type":"integer"}},"required":["host"],"additionalProperties":false},` +
			`"blob":{"type":"string","contentEncoding":"base64"},` +
			`"raw":{},` +
			`"number":{"type":"number"},` +
			`"when":{"type":"string","format":"date-time"},` +
			`"matrix":{"type":"array","items":{"type":"array","items":{"type":"number"}}},` +
			`"value":{},` +
			`"NoTag":{"type":"string"}},` +
			`"required":["shared","text","level","on","server","NoTag"],"additionalProperties":false}`},
		{"embedding as encoding/json does it", reflect.TypeFor[embedding](), `{"type":"object","properties":{` +
			`"shared":{"type":"string","description":"from an embedded struct"},` +
			`"named":{"type":"object","properties":{"shared":{"type":"string","description":"from an embedded struct"}},"required":["shared"],"additionalProperties":false},` +
			`"X":{"type":"boolean"},"a":{"type":"string"},"b":{"type":"integer"},"Level":{"type":"string"}},` +
			`"required":["shared","named","X","a","b","Level"],"additionalProperties":false}`},
		{"pointers are optional and nullable", reflect.TypeFor[struct {
			N *int    `json:"n" enum:"1,2"`
			S *string `json:"s,string"`
			L []*bool `json:"l"`
		}](), `{"type":"object","properties":{"n":{"type":["null","integer"],"enum":[1,2,null]},"s":{"type":["null","string"]},"l":{"type":"array","items":{"type":["null","boolean"]}}},"required":["l"],"additionalProperties":false}`},
		{"sizes, durations, defaults, quoted", reflect.TypeFor[struct {
			U8   uint8             `json:"u8"`
			I32  int32             `json:"i32"`
			U    uint              `json:"u"`
			Wait time.Duration     `json:"wait" jsonschema:"how long" default:"1000"`
			Mode string            `json:"mode" default:"fast"`
			Tags []string          `json:"tags" default:"[\"a\"]"`
			Q    int               `json:"q,string"`
			Keys map[int]bool      `json:"keys"`
			When time.Time         `json:"when" default:"2026-01-02T03:04:05Z"`
			Any  map[string]string `json:"any" default:"{}"`
		}](), `{"type":"object","properties":{` +
			`"u8":{"type":"integer","minimum":0,"maximum":255},` +
			`"i32":{"type":"integer","minimum":-2147483648,"maximum":2147483647},` +
			`"u":{"type":"integer","minimum":0},` +
			`"wait":{"type":"integer","description":"how long (nanoseconds)","default":1000},` +
			`"mode":{"type":"string","default":"fast"},` +
			`"tags":{"type":"array","default":["a"],"items":{"type":"string"}},` +
			`"q":{"type":"string"},` +
			`"keys":{"type":"object","additionalProperties":{"type":"boolean"}},` +
			`"when":{"type":"string","default":"2026-01-02T03:04:05Z","format":"date-time"},` +
			`"any":{"type":"object","default":{},"additionalProperties":{"type":"string"}}},` +
			`"required":["u8","i32","u","wait","mode","tags","q","keys","when","any"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SchemaFor(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestSchemaForErrors(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[struct {
			C chan int `json:"c"`
		}](), "field C: type chan int has no JSON Schema"},
		{reflect.TypeFor[struct {
			F func() `json:"f"`
		}](), "field F"},
		{reflect.TypeFor[map[[2]int]string](), "map key type"},
		{reflect.TypeFor[struct {
			N int `json:"n" enum:"one,two"`
		}](), "field N: enum"},
		{reflect.TypeFor[complex128](), "no JSON Schema"},
		{reflect.TypeFor[struct {
			N int `json:"n" default:"\"x\""`
		}](), "field N: default"},
		{reflect.TypeFor[struct {
			N uint8 `json:"n" default:"300"`
		}](), "field N: default"},
		{reflect.TypeFor[struct {
			T time.Time `json:"t" default:"yesterday"`
		}](), "field T: default"},
		{reflect.TypeFor[struct {
			N int `json:"n" default:"{"`
		}](), "not JSON"},
	}
	for _, tt := range tests {
		_, err := SchemaFor(tt.typ)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want %q", tt.typ, err, tt.want)
		}
	}
}
