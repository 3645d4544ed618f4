package guest

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/abi"
)

// flatIn has a plan: its fields are strings, booleans, numbers and a
// list of strings.
type flatIn struct {
	Text    string   `json:"text"`
	Mode    string   `json:"mode,omitempty"`
	N       int      `json:"n"`
	U       uint8    `json:"u"`
	F       float64  `json:"f"`
	F32     float32  `json:"f32"`
	On      bool     `json:"on"`
	Tags    []string `json:"tags"`
	Skipped string   `json:"-"`
	Dash    string   `json:"-,"` //lint:ignore SA5008 encoding/json names this field "-", which the test checks
	Plain   string
	hidden  string //lint:ignore U1000 unexported fields are not decoded, which the test checks
}

// TestDecodeInputMatchesEncodingJSON: the fast decoding of a tool's
// input gives exactly what encoding/json gives, error or value, for
// well-formed and broken inputs alike (it hands whatever it does not
// handle to encoding/json).
func TestDecodeInputMatchesEncodingJSON(t *testing.T) {
	inputs := []string{
		`{}`, `null`, ` { } `,
		`{"text":"hello","n":-3,"u":255,"f":1.5e3,"f32":0.25,"on":true,"tags":["a","b"],"Plain":"p"}`,
		`{"text":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 end"}`,
		`{"text":"héllo wörld ✓ 😀"}`,
		`{"text":"` + strings.Repeat("abcdefgh", 100) + `"}`,
		`{"text":"a","text":"b"}`,
		`{"text":null,"tags":null,"on":null,"n":null}`,
		`{"tags":[]}`,
		`{"unknown":{"deep":[1,2,{"x":null}],"s":"\u0041"},"text":"t"}`,
		`{"-":"dash","Skipped":"no"}`,
		// Handed to encoding/json: case-folded keys, wrong types,
		// numbers that do not fit, broken documents.
		`{"TEXT":"upper"}`, `{"plain":"lower"}`,
		`{"text":5}`, `{"n":"5"}`, `{"n":1.5}`, `{"n":1e3}`, `{"u":256}`, `{"u":-1}`, `{"f32":1e40}`,
		`{"on":"true"}`, `{"tags":"a"}`, `{"tags":[1]}`,
		`{"text":"lone \ud83d surrogate"}`, "{\"text\":\"bad \xff utf8\"}", "{\"text\":\"ctl \x01\"}",
		`{"text":"unterminated`, `{"text":"a",}`, `{"text":"a"} x`, `[1]`, `"s"`, `{"n":01}`, `{"n":-}`, `{"f":1.}`,
		`{"n":9223372036854775808}`, `{"u":0}`,
	}
	for _, in := range inputs {
		got, gotErr := decodeInput[flatIn]([]byte(in), false)
		var want flatIn
		var wantErr error
		if in != "null" {
			wantErr = json.Unmarshal([]byte(in), &want)
		}
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%s: error %v, encoding/json %v", in, gotErr, wantErr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", in, got, want)
		}
		aliased, _ := decodeInput[flatIn]([]byte(in), true)
		if !reflect.DeepEqual(aliased, want) {
			t.Errorf("%s, aliased: %+v", in, aliased)
		}
	}
}

// TestStringsMatchEncodingJSON: strings are read a word at a time, so
// each byte that needs attention (an escape, a quote, a control byte,
// UTF-8, invalid UTF-8) is tried at every offset within a word and
// across word boundaries, alone and after another; the decoded text, or
// the fallback's error, is encoding/json's.
func TestStringsMatchEncodingJSON(t *testing.T) {
	specials := []struct{ name, s string }{
		{"newline escape", `\n`},
		{"quote escape", `\"`},
		{"backslash escape", `\\`},
		{"slash escape", `\/`},
		{"unicode escape", `\u00e9`},
		{"surrogate pair", `\ud83d\ude00`},
		{"lone surrogate", `\ud83d`},
		{"surrogate then escape", `\ud83d\n`},
		{"bad hex", `\u00g9`},
		{"short unicode escape", `\u00`},
		{"unknown escape", `\x`},
		{"two-byte UTF-8", "é"},
		{"four-byte UTF-8", "😀"},
		{"invalid UTF-8", "\xff"},
		{"control byte", "\x01"},
		{"del", "\x7f"},
	}
	for _, sp := range specials {
		for pre := range 18 {
			for _, post := range []int{0, 1, 7, 8, 9, 20} {
				text := strings.Repeat("a", pre) + sp.s + strings.Repeat("b", post)
				for _, doc := range []string{
					`{"text":"` + text + `"}`,
					`{"text":"` + text + sp.s + `"}`,
					`{"tags":["` + text + `"],"text":"x"}`,
					`{"unknown":"` + text + `","text":"x"}`,
					`{"text":"` + text, // unterminated
				} {
					got, gotErr := decodeInput[flatIn]([]byte(doc), true)
					var want flatIn
					wantErr := json.Unmarshal([]byte(doc), &want)
					if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
						t.Fatalf("%s, %q: error %v, encoding/json %v", sp.name, doc, gotErr, wantErr)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s, %q:\n got %+v\nwant %+v", sp.name, doc, got, want)
					}
				}
			}
		}
	}
}

// FuzzDecodeInput: whatever the input, the fast decoding gives what
// encoding/json gives.
func FuzzDecodeInput(f *testing.F) {
	f.Add(`{"text":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 end","tags":["a\nb"]}`)
	f.Add(`{"text":"héllo wörld ✓ 😀","n":3}`)
	f.Fuzz(func(t *testing.T, doc string) {
		if doc == "" || doc == "null" {
			return // decodeInput's own rule: the zero value
		}
		got, gotErr := decodeInput[flatIn]([]byte(doc), true)
		var want flatIn
		wantErr := json.Unmarshal([]byte(doc), &want)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, encoding/json %v", doc, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", doc, got, want)
		}
	})
}

// TestPlans: which input types are decoded without encoding/json.
func TestPlans(t *testing.T) {
	type embedded struct{ flatIn }
	type nested struct{ In flatIn }
	type withTime struct{ T json.Number }
	type stringOpt struct {
		N int `json:"n,string"`
	}
	type clash struct {
		A string `json:"name"`
		B string `json:"Name"`
	}
	type unicode struct {
		A string `json:"é"`
	}
	cases := []struct {
		t    reflect.Type
		plan bool
	}{
		{reflect.TypeFor[flatIn](), true},
		{reflect.TypeFor[struct{}](), true},
		{reflect.TypeFor[*flatIn](), false},
		{reflect.TypeFor[map[string]any](), false},
		{reflect.TypeFor[embedded](), false},
		{reflect.TypeFor[nested](), false},
		{reflect.TypeFor[withTime](), false},
		{reflect.TypeFor[stringOpt](), false},
		{reflect.TypeFor[clash](), false},
		{reflect.TypeFor[unicode](), false},
	}
	for _, c := range cases {
		if got := makePlan(c.t) != nil; got != c.plan {
			t.Errorf("%v: plan %v, want %v", c.t, got, c.plan)
		}
	}
}

// TestDecodeRequest: request documents decode as encoding/json decodes
// them, or are handed to it.
func TestDecodeRequest(t *testing.T) {
	docs := []struct {
		doc  string
		fast bool
	}{
		{`{"abi":1,"tool":"t","input":{"a":[1,2]},"call_id":"c","session_id":"s"}`, true},
		{`{"abi":1,"tool":"t","input":{"a":1},"context":{"mode":"default","working_dirs":["/w","/x"],"cwd":"/w"}}`, true},
		{`{"abi":1,"tool":"t","content":"npm *","input":null}`, true},
		{`{"tool":"t","extra":{"x":[true,false,null]},"input":"s"}`, true},
		{`{"abi":1,"tool":"t","context":{"mode":"m","working_dirs":null,"other":1}}`, true},
		{`null`, true},
		{`{"Tool":"t"}`, false},
		{`{"abi":"1","tool":"t"}`, false},
		{`{"abi":1.0,"tool":"t"}`, false},
		{`{"tool":"t","input":}`, false},
		{`{"tool":"t"`, false},
	}
	for _, d := range docs {
		var r request
		if ok := decodeRequest([]byte(d.doc), false, &r); ok != d.fast {
			t.Errorf("%s: fast %v, want %v", d.doc, ok, d.fast)
			continue
		}
		if !d.fast {
			continue
		}
		var want struct {
			abi.CallRequest
			Content string                `json:"content"`
			Context abi.PermissionContext `json:"context"`
		}
		if err := json.Unmarshal([]byte(d.doc), &want); err != nil {
			t.Fatal(err)
		}
		got := request{abi: want.ABI, tool: want.Tool, input: want.Input, content: want.Content, callID: want.CallID, sessionID: want.SessionID, context: want.Context}
		if string(got.input) == "null" && r.input != nil {
			got.input = r.input // RawMessage keeps the literal null
		}
		if !reflect.DeepEqual(r, got) {
			t.Errorf("%s:\n got %+v\nwant %+v", d.doc, r, got)
		}
	}
}

// TestEncodersMatchEncodingJSON: the response writers produce what
// json.Marshal produces.
func TestEncodersMatchEncodingJSON(t *testing.T) {
	text := "plain, \"quoted\", back\\slash, <html> & co, \u2028\u2029, tab\t nl\n ctl\x01\x1f, é, 😀, " + strings.Repeat("long run ", 20)
	results := []abi.CallResult{
		{},
		{State: abi.StateSuccess},
		{Content: []abi.Block{{Type: abi.BlockText, Text: text}}, State: abi.StateError},
		{Content: []abi.Block{{Type: abi.BlockData, Data: []byte{0, 1, 2, 250}, MediaType: "image/png", ID: "i"}, {Type: ""}}},
		{Metadata: map[string]any{"z": 1, "a": "x", "f": 1.5, "tiny": 1e-7, "huge": 1e21, "neg": -2.5e-9, "f32": float32(0.1), "b": true, "nil": nil, "i64": int64(-7), "u64": uint64(7), "list": []string{"x"}, "nested": map[string]any{"k": []any{1, "two"}}, "int8": int8(3)}},
	}
	for _, r := range results {
		got, ok := encodeResult(r)
		want, err := json.Marshal(r)
		if !ok || err != nil || string(got) != string(want) {
			t.Errorf("result %+v:\n got %s (%v)\nwant %s", r, got, ok, want)
		}
	}
	if _, ok := encodeResult(abi.CallResult{Metadata: map[string]any{"nan": math.NaN()}}); ok {
		t.Error("NaN metadata encoded")
	}
	if _, ok := encodeResult(abi.CallResult{Metadata: map[string]any{"ch": make(chan int)}}); ok {
		t.Error("a channel encoded")
	}
	for _, d := range []abi.Decision{
		{Behavior: abi.Passthrough},
		{Behavior: abi.Ask, Message: text, Reason: "r", BypassImmune: true, Suggestions: []string{"t(x)", "t"}},
	} {
		want, _ := json.Marshal(d)
		if got := encodeDecision(d); string(got) != string(want) {
			t.Errorf("decision:\n got %s\nwant %s", got, want)
		}
	}
	for _, s := range [][]string{{}, {"a", "b<"}} {
		want, _ := json.Marshal(abi.SuggestionsResponse{Suggestions: s})
		if got := encodeSuggestions(s); string(got) != string(want) {
			t.Errorf("suggestions: got %s, want %s", got, want)
		}
	}
	for _, v := range []bool{true, false} {
		want, _ := json.Marshal(abi.ReadOnlyResponse{ReadOnly: v})
		if got := encodeBool("read_only", v); string(got) != string(want) {
			t.Errorf("read_only: got %s, want %s", got, want)
		}
	}
}

// TestPassthrough: a check_permissions request is answered from its
// beginning only for a valid tool without Check, named before the input.
func TestPassthrough(t *testing.T) {
	r := testRegistry()
	cases := []struct {
		head string
		want bool
	}{
		{`{"abi":1,"tool":"sum","input":{"A":1`, true},
		{`{"abi":1,"tool":"deploy","input":{"target":"x"`, false}, // has Check
		{`{"abi":1,"tool":"nosuch","input":{`, false},
		{`{"abi":1,"input":{"A":1},"tool":"sum"`, false},
		{`{"abi":1,"tool":"sum","context":{},"input":{`, false},
		{`{"abi":1,"tool":"su`, false},
		{`{"abi":1,"tool":"sum"`, false},
		{`["abi",1]`, false},
	}
	for _, c := range cases {
		if got := r.passthrough([]byte(c.head)); got != c.want {
			t.Errorf("%s: %v, want %v", c.head, got, c.want)
		}
	}
}
