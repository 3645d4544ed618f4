package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/wasmtools/wasmtools/permission"
)

// writeSchema is the input schema of a Write-like tool.
const writeSchema = `{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}},"required":["file_path","content"]}`

// perCallReadOnly is a tool whose read-only verdict depends on the input:
// {"mode": "read"} is read-only, anything else is not.
type perCallReadOnly struct{ *testTool }

func (p perCallReadOnly) IsReadOnly(in Input) bool { return in.String("mode") == "read" }

// panickyReadOnly is a tool whose read-only check panics.
type panickyReadOnly struct{ *testTool }

func (panickyReadOnly) IsReadOnly(Input) bool { panic("boom") }

// countingTool is a Write-like tool that counts its calls. kind chooses
// how it judges itself read-only.
func countingTool(kind string, calls *atomic.Int32, check func(Input) permission.Decision) Tool {
	tt := &testTool{
		spec:  Spec{Name: "tool", Description: "a tool", InputSchema: json.RawMessage(writeSchema)},
		check: check,
		call: func(_ context.Context, in Input) Stream {
			calls.Add(1)
			return Single(TextChunk("wrote " + in.String("content")))
		},
	}
	switch kind {
	case "write":
	case "read":
		tt.spec.ReadOnly, tt.spec.ConcurrencySafe = true, true
	case "coordination":
		tt.spec.Coordination = true
	case "per-call":
		return perCallReadOnly{tt}
	case "panics":
		return panickyReadOnly{tt}
	default:
		panic("unknown kind " + kind)
	}
	return tt
}

// TestRepairedArguments pins that a call which is not read-only never
// runs on repaired (guessed) arguments, and that a read-only one runs but
// says so.
func TestRepairedArguments(t *testing.T) {
	const cut = `{"file_path": "/w/a.txt", "content": "hello wor`
	long := `{"file_path": "/w/a.txt", "content": "` + strings.Repeat("x", 5000) + `THE END IS HERE`
	tests := []struct {
		name  string
		kind  string
		check func(Input) permission.Decision
		args  string
		// wantRun: the tool's Call was invoked.
		wantRun      bool
		wantState    State
		wantRepaired bool
		wantNote     bool
		wantText     []string
	}{
		{name: "cut-off write is not run", kind: "write", args: cut,
			wantState: StateError, wantRepaired: true,
			wantText: []string{"not valid JSON", "cut off", `"hello wor"`, "Nothing was run", "not read-only", "Send the complete arguments again"}},
		{name: "cut-off write that would ask is refused before asking", kind: "write", check: askAll, args: cut,
			wantState: StateError, wantRepaired: true, wantText: []string{"Nothing was run"}},
		{name: "single-quoted write is not run", kind: "write", args: `{'file_path': '/w/a.txt', 'content': 'x'}`,
			wantState: StateError, wantRepaired: true, wantText: []string{"not valid JSON", "Nothing was run"}},
		{name: "long cut-off write shows both ends of the repair", kind: "write", args: long,
			wantState: StateError, wantRepaired: true, wantText: []string{"characters left out", "THE END IS HERE", `"file_path"`}},
		{name: "cut-off write missing a field says the JSON was repaired", kind: "write", args: `{"file_path": "/w/a.t`,
			wantState: StateError, wantRepaired: true, wantText: []string{"content", "not valid JSON either"}},
		{name: "valid write runs", kind: "write", args: `{"file_path": "/w/a.txt", "content": "hello world"}`,
			wantRun: true, wantState: StateSuccess, wantText: []string{"wrote hello world"}},
		{name: "cut-off read-only call runs with a note", kind: "read", args: cut,
			wantRun: true, wantState: StateSuccess, wantRepaired: true, wantNote: true, wantText: []string{"wrote hello wor"}},
		{name: "valid read-only call has no note", kind: "read", args: `{"file_path": "/w/a.txt", "content": "hi"}`,
			wantRun: true, wantState: StateSuccess, wantText: []string{"wrote hi"}},
		{name: "coordination tool is read-only", kind: "coordination", args: cut,
			wantRun: true, wantState: StateSuccess, wantRepaired: true, wantNote: true},
		{name: "per-call verdict: read-only input runs", kind: "per-call", args: `{"mode": "read", "file_path": "/w/a.txt", "content": "hello wor`,
			wantRun: true, wantState: StateSuccess, wantRepaired: true, wantNote: true},
		{name: "per-call verdict: writing input is not run", kind: "per-call", args: `{"mode": "write", "file_path": "/w/a.txt", "content": "hello wor`,
			wantState: StateError, wantRepaired: true, wantText: []string{"Nothing was run"}},
		{name: "a read-only check that panics runs nothing", kind: "panics", args: cut,
			wantState: StateError, wantRepaired: true, wantText: []string{"Nothing was run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			check := tt.check
			if check == nil {
				check = allowAll
			}
			tk := New(Options{})
			mustRegister(t, tk, countingTool(tt.kind, &calls, check))
			turn := runTurn(t, tk, TurnOptions{}, Call{ID: "c", Name: "tool", Arguments: tt.args})
			out := turn.Outcomes()[0]
			if out.Status != StatusDone {
				t.Fatalf("status %s, want done", out.Status)
			}
			checkRepairResponse(t, out.Response, calls.Load(), tt.wantRun, tt.wantState, tt.wantRepaired, tt.wantNote, tt.wantText)
		})
	}
}

// TestRepairedEditedArguments pins that arguments a user edits in a
// confirmation meet the same rule as the model's.
func TestRepairedEditedArguments(t *testing.T) {
	tests := []struct {
		name         string
		kind         string
		edited       string
		wantRun      bool
		wantState    State
		wantRepaired bool
		wantNote     bool
		wantText     []string
	}{
		{name: "cut-off edit of a write is not run", kind: "write", edited: `{"file_path": "/w/a.txt", "content": "hel`,
			wantState: StateError, wantRepaired: true, wantText: []string{"edited arguments", "not valid JSON", "Nothing was run"}},
		{name: "cut-off edit of a read-only call runs with a note", kind: "read", edited: `{"file_path": "/w/a.txt", "content": "hel`,
			wantRun: true, wantState: StateSuccess, wantRepaired: true, wantNote: true, wantText: []string{"wrote hel"}},
		{name: "valid edit of a write runs", kind: "write", edited: `{"file_path": "/w/a.txt", "content": "hello"}`,
			wantRun: true, wantState: StateSuccess, wantText: []string{"wrote hello"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			// An ask rule makes even the read-only tool ask.
			tk := New(Options{Permission: permission.Context{Ask: []permission.Rule{{Tool: "tool"}}}})
			mustRegister(t, tk, countingTool(tt.kind, &calls, allowAll))
			turn := runTurn(t, tk, TurnOptions{}, Call{ID: "c", Name: "tool", Arguments: `{"file_path": "/w/a.txt", "content": "x"}`})
			if s := turn.Outcomes()[0].Status; s != StatusNeedsConfirmation {
				t.Fatalf("status %s, want needs_confirmation", s)
			}
			if err := turn.Confirm("c", Approval{Approve: true, Arguments: tt.edited}); err != nil {
				t.Fatal(err)
			}
			if err := turn.Run(context.Background()); err != nil && !errors.Is(err, ErrWaiting) {
				t.Fatal(err)
			}
			out := turn.Outcomes()[0]
			if out.Status != StatusDone {
				t.Fatalf("status %s, want done", out.Status)
			}
			checkRepairResponse(t, out.Response, calls.Load(), tt.wantRun, tt.wantState, tt.wantRepaired, tt.wantNote, tt.wantText)
		})
	}
}

// TestRepairedExternalResult pins the note on a read-only external call
// whose result is submitted by the caller.
func TestRepairedExternalResult(t *testing.T) {
	tk := New(Options{})
	view := &View{External: []Spec{{Name: "ext", Description: "external", ReadOnly: true}}}
	turn := runTurn(t, tk, TurnOptions{View: view}, Call{ID: "c", Name: "ext", Arguments: `{"q": "abc`})
	out := turn.Outcomes()[0]
	if out.Status != StatusNeedsExternal || out.External.Input.String("q") != "abc" {
		t.Fatalf("outcome %+v, want needs_external with the repaired input", out)
	}
	if err := turn.SubmitResult("c", &Response{Content: []Block{TextBlock("found")}}); err != nil {
		t.Fatal(err)
	}
	resp := turn.Responses()[0]
	checkRepairResponse(t, resp, 1, true, StateSuccess, true, true, []string{"found"})
}

func checkRepairResponse(t *testing.T, resp *Response, calls int32, wantRun bool, wantState State, wantRepaired, wantNote bool, wantText []string) {
	t.Helper()
	text := resp.Text()
	if ran := calls > 0; ran != wantRun {
		t.Errorf("tool called %d times, want run=%v (response %s: %q)", calls, wantRun, resp.State, text)
	}
	if resp.State != wantState || resp.Repaired != wantRepaired {
		t.Errorf("state %s repaired %v, want %s %v (%q)", resp.State, resp.Repaired, wantState, wantRepaired, text)
	}
	if got := strings.Contains(text, repairedNote); got != wantNote {
		t.Errorf("note present %v, want %v: %q", got, wantNote, text)
	}
	for _, w := range wantText {
		if !strings.Contains(text, w) {
			t.Errorf("text %q lacks %q", text, w)
		}
	}
	if n := utf8.RuneCountInString(text); n > 1000 {
		t.Errorf("response is %d characters long; the repaired form should be shortened", n)
	}
}
