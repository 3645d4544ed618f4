package toolkit

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// fastJSONSeeds are arguments the flat decoder takes or declines; every
// one is checked against encoding/json.
var fastJSONSeeds = []string{
	`{"command":"ls -la"}`, ` { "command" : "a" , "timeout" : 1000 } `, `{}`, ` {} `, `{"a":"b","a":"c"}`,
	`{"command":"echo \u003e out \u0026\u0026 cat \u003c in"}`, `{"c":"\"\\\/\b\f\n\r\t"}`, `{"c":"\u00e9\u4e2d"}`,
	`{"c":"\ud83d\ude00"}`, `{"c":"\ud800"}`, `{"c":"\u12"}`, `{"c":"\x"}`, `{"n":-0.5e+10}`, `{"n":01}`, `{"n":-}`,
	`{"n":1.}`, `{"n":1e}`, `{"b":true,"f":false,"z":null}`, `{"b":tru}`, `{"a":{"b":1}}`, `{"a":[1]}`, `{"a":"b"} x`,
	`{"a":"b",}`, `{"a" "b"}`, `{a:"b"}`, `[1]`, `"x"`, `{"a":"b"`, "{\"a\":\"\x01\"}", `{"a":"b"}{}`, `{"":""}`,
	`{"n":0}`, `{"n":-0}`, `{"n":123456789012345678901234567890}`, `{"c":"tab	in"}`, `{"c":"\uD834\uDD1E"}`,
}

// TestDecodeFlatObject: whatever the flat decoder takes, encoding/json
// (decodeJSON) reads the same way, value for value.
func TestDecodeFlatObject(t *testing.T) {
	took := 0
	for _, s := range fastJSONSeeds {
		if checkFlatDecode(t, s) {
			took++
		}
	}
	if took < 12 {
		t.Fatalf("the flat decoder took only %d of the seeds", took)
	}
}

func checkFlatDecode(t *testing.T, s string) bool {
	t.Helper()
	if !utf8.ValidString(s) {
		return false
	}
	in, ok := decodeFlatObject(s)
	want, err := decodeJSON(s)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("flat decoder took %q, which encoding/json refuses: %v", s, err)
	}
	if !reflect.DeepEqual(map[string]any(in), want) {
		t.Fatalf("%q: flat decoder %#v, encoding/json %#v", s, in, want)
	}
	return true
}

// FuzzDecodeFlatObject: the flat decoder never disagrees with
// encoding/json on what it takes.
func FuzzDecodeFlatObject(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFlatDecode(t, s)
		// and a string value round-trips through json.Marshal
		b, _ := json.Marshal(map[string]string{"command": s})
		checkFlatDecode(t, string(b))
	})
}
