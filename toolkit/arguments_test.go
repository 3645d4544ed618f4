package toolkit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRuntimeArguments: a tool gets the arguments text in place of its
// input only when the text is plain (every decoder reads it as the same
// members) and the input it was handed is exactly what the text decodes
// to.
func TestRuntimeArguments(t *testing.T) {
	same := func(ctx context.Context, in Input, next Next) Stream { return next(ctx, in) }
	copied := func(ctx context.Context, in Input, next Next) Stream {
		c := Input{}
		for k, v := range in {
			c[k] = v
		}
		return next(ctx, c)
	}
	changed := func(ctx context.Context, in Input, next Next) Stream {
		in["cmd"] = "other"
		return next(ctx, in)
	}
	added := func(ctx context.Context, in Input, next Next) Stream {
		in["extra"] = true
		return next(ctx, in)
	}
	retyped := func(ctx context.Context, in Input, next Next) Stream {
		in["cmd"] = []any{"go"}
		return next(ctx, in)
	}
	tests := []struct {
		name, args string
		mw         Middleware
		plain      bool
	}{
		{"flat", `{"cmd":"go","n":1.5e3,"on":true,"z":null}`, nil, true},
		{"spaces and escapes", " { \"cmd\" : \"a\\nb \\u00e9\" } ", nil, true},
		{"empty object", `{}`, nil, true},
		{"middleware passes it on", `{"cmd":"go"}`, same, true},
		{"middleware copies it", `{"cmd":"go"}`, copied, true},
		{"middleware changes a value", `{"cmd":"go"}`, changed, false},
		{"middleware adds a member", `{"cmd":"go"}`, added, false},
		{"middleware changes a type", `{"cmd":"go"}`, retyped, false},
		{"duplicate key", `{"cmd":"a","cmd":"go"}`, nil, false},
		{"keys differing by case", `{"cmd":"go","CMD":"x"}`, nil, false},
		{"keys differing by simple folding", `{"k":"go","\u212a":"x"}`, nil, false},
		{"nested", `{"cmd":"go","opts":{"a":1}}`, nil, false},
		{"surrogate escape", `{"cmd":"\ud83d\ude00"}`, nil, false},
		{"repaired", `{"cmd":"go"`, nil, false},
		{"empty", ``, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			var ok, called bool
			tk := New(Options{})
			tool := cmdTool("run", true, allowAll)
			// Any object, and read-only: repaired arguments run too.
			tool.spec.InputSchema, tool.spec.ReadOnly = json.RawMessage(`{"type":"object"}`), true
			tool.call = func(ctx context.Context, in Input) Stream {
				called = true
				got, ok = RuntimeFrom(ctx).Arguments(in)
				return Single(TextChunk("done"))
			}
			var opts []RegisterOption
			if tt.mw != nil {
				opts = append(opts, WithMiddleware(tt.mw))
			}
			mustRegister(t, tk, tool, opts...)
			r := runTurn(t, tk, TurnOptions{}, Call{Name: "run", Arguments: tt.args}).Responses()[0]
			if !called {
				t.Fatalf("the tool did not run: %s", r.Text())
			}
			if ok != tt.plain || ok && got != tt.args {
				t.Errorf("Arguments = %q, %v; want the arguments: %v", got, ok, tt.plain)
			}
			if ok {
				// What the text decodes to is what the tool would have
				// encoded.
				var m map[string]any
				d := json.NewDecoder(strings.NewReader(got))
				d.UseNumber()
				if err := d.Decode(&m); err != nil || len(m) == 0 && got != `{}` {
					t.Errorf("the arguments do not decode: %v", err)
				}
			}
		})
	}
	var nilRuntime *Runtime
	if _, ok := nilRuntime.Arguments(Input{}); ok {
		t.Error("a nil Runtime has arguments")
	}
}
