package toolkit

import (
	"testing"
)

// FuzzArguments feeds arbitrary argument text through gate 2: parsing,
// repair and schema validation must never panic, and what they accept
// must be a JSON object that passes the schema.
func FuzzArguments(f *testing.F) {
	for _, s := range []string{
		`{"cmd":"ls"}`, `{'cmd': 'ls'}`, `{"cmd":"a",}`, `{"cmd":`, `[1,2]`, `"x"`, ``, `{"cmd":"\u00e9"}`,
		`{"cmd": "a" /* c */}`, `{cmd: ls}`, `{"a":{"b":[1,2,{"c":null}]}}`, "{\"cmd\":\"\x00\"}", `{"cmd":1e999}`,
	} {
		f.Add(s)
	}
	v, err := compileSchema("fuzz", []byte(cmdSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, rep, err := parseArguments(s)
		if rep != nil {
			// The refusal message quotes the repair: it must build for any
			// input, and the repair it shows must be valid JSON.
			if _, err := decodeJSON(rep.fixed); err != nil {
				t.Fatalf("repair of %q is not JSON: %q", s, rep.fixed)
			}
			_ = rep.describe()
		}
		if err != nil {
			return
		}
		if in == nil {
			t.Fatalf("parseArguments(%q) returned a nil object without error", s)
		}
		if err := v.validate(in); err == nil {
			if _, ok := in["cmd"].(string); !ok {
				t.Fatalf("validation passed without a string cmd: %#v", in)
			}
		}
		var back map[string]any
		if err := in.Decode(&back); err != nil {
			t.Fatalf("Decode of an accepted input failed: %v", err)
		}
	})
}
