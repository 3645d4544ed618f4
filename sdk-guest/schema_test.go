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
		{"recursive", reflect.TypeFor[node](), `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"type":"object"}}},"required":["name"],"additionalProperties":false}`},
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
			`"optional":{"type":"object","properties":{"host":{"type":"string"},"port":{"type":"integer"}},"required":["host"],"additionalProperties":false},` +
			`"blob":{"type":"string","contentEncoding":"base64"},` +
			`"raw":{},` +
			`"number":{"type":"number"},` +
			`"when":{"type":"string","format":"date-time"},` +
			`"matrix":{"type":"array","items":{"type":"array","items":{"type":"number"}}},` +
			`"value":{},` +
			`"NoTag":{"type":"string"}},` +
			`"required":["shared","text","level","on","server","NoTag"],"additionalProperties":false}`},
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
	}
	for _, tt := range tests {
		_, err := SchemaFor(tt.typ)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want %q", tt.typ, err, tt.want)
		}
	}
}
