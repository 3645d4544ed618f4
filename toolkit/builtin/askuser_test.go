package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// askArgs builds AskUser arguments from questions.
func askArgs(t *testing.T, questions ...map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"questions": questions})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// question builds one question with n options labelled A, B, ...
func question(text, header string, n int, multi bool) map[string]any {
	opts := make([]any, n)
	for i := range n {
		label := string(rune('A' + i))
		opts[i] = map[string]any{"label": label, "description": "option " + label}
	}
	return map[string]any{"question": text, "header": header, "options": opts, "multi_select": multi}
}

func newAskToolkit(t *testing.T, mode permission.Mode) *toolkit.Toolkit {
	t.Helper()
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: mode}})
	if err := tk.Register(NewAskUser()); err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestAskUserSpec(t *testing.T) {
	s := NewAskUser().Spec()
	if s.Name != AskUserName || !s.External || !s.Coordination || s.Source.Kind != toolkit.SourceBuiltin {
		t.Errorf("spec %+v", s)
	}
	if _, ok := any(NewAskUser()).(toolkit.Caller); ok {
		t.Error("AskUser has a Call method: the caller executes it")
	}
	d, err := NewAskUser().CheckPermissions(context.Background(), toolkit.Input{}, &permission.Context{})
	if err != nil || d.Behavior != permission.Allow {
		t.Errorf("CheckPermissions: %v %v", d, err)
	}
}

// TestAskUserEndToEnd: in every mode the call suspends for the caller,
// who shows the questions, checks the answers and submits them.
func TestAskUserEndToEnd(t *testing.T) {
	args := askArgs(t,
		question("Which database?", "Database", 3, false),
		question("Which features?", "Features", 4, true),
	)
	answers := []Answer{
		{Question: "Which features?", Selected: []string{"A", "C"}, Other: "billing too"},
		{Question: "Which database?", Selected: []string{"B"}},
	}
	for _, mode := range permission.Modes {
		tk := newAskToolkit(t, mode)
		ctx := context.Background()
		var events []toolkit.Event
		turn, err := tk.NewTurn(ctx, "s", []toolkit.Call{{ID: "q1", Name: AskUserName, Arguments: args}},
			toolkit.TurnOptions{OnEvent: func(ev toolkit.Event) { events = append(events, ev) }})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Run(ctx); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
			t.Fatal(err)
		}
		out := turn.Outcomes()[0]
		if out.Status != toolkit.StatusNeedsExternal || out.External == nil || turn.Done() {
			t.Fatalf("%s: status %s, want needs_external (%+v)", mode, out.Status, out.Response)
		}
		if len(events) != 1 || events[0].Kind != toolkit.EventExternal || events[0].External.CallID != "q1" {
			t.Errorf("%s: events %+v", mode, events)
		}

		// What the UI does: read the questions, collect and check answers.
		qs, err := ParseAskUserInput(out.External.Input)
		if err != nil || len(qs) != 2 || qs[0].Header != "Database" || len(qs[1].Options) != 4 || !qs[1].MultiSelect {
			t.Fatalf("%s: parsed %+v %v", mode, qs, err)
		}
		if err := ValidateAskUserAnswers(out.External.Input, answers); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if err := turn.SubmitResult("q1", AskUserAnswer(answers)); err != nil {
			t.Fatal(err)
		}
		if err := turn.Run(ctx); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
			t.Fatal(err)
		}
		if !turn.Done() {
			t.Fatalf("%s: not done after the result", mode)
		}
		r := turn.Responses()[0]
		if r.State != toolkit.StateSuccess || r.CallID != "q1" || r.Tool != AskUserName {
			t.Fatalf("%s: %+v", mode, r)
		}
		for _, w := range []string{"Which features?", `"A"; "C"; in their own words: "billing too"`, "Which database?", `"B"`} {
			if !strings.Contains(r.Text(), w) {
				t.Errorf("%s: %q lacks %q", mode, r.Text(), w)
			}
		}
		meta, _ := json.Marshal(r.Metadata)
		want := `{"answers":[{"other":"billing too","question":"Which features?","selected":["A","C"]},{"other":"","question":"Which database?","selected":["B"]}]}`
		if string(meta) != want {
			t.Errorf("%s: metadata\n%s\nwant\n%s", mode, meta, want)
		}
	}
}

// TestAskUserSchema: the pipeline refuses inputs the UI cannot show, and
// accepts the limits themselves.
func TestAskUserSchema(t *testing.T) {
	asked := 0
	q := func(header string, n int) map[string]any {
		asked++ // questions must differ
		return question(fmt.Sprintf("Q%d?", asked), header, n, false)
	}
	tests := []struct {
		name string
		args string
		ok   bool
		text string
	}{
		{"1 question", askArgs(t, q("H", 2)), true, ""},
		{"4 questions, 4 options, 12-character header", askArgs(t, q("Twelve chars", 4), q("H", 2), q("H", 3), q("Données-égal", 2)), true, ""},
		{"preview and context", `{"questions":[{"question":"Q?","header":"H","context":"why","options":[{"label":"a","description":"d","preview":"code"},{"label":"b","description":"d"}]}]}`, true, ""},
		{"5 questions", askArgs(t, q("H", 2), q("H", 2), q("H", 2), q("H", 2), q("H", 2)), false, "/questions"},
		{"no questions", askArgs(t), false, "/questions"},
		{"1 option", askArgs(t, q("H", 1)), false, "/questions/0/options"},
		{"5 options", askArgs(t, q("H", 5)), false, "/questions/0/options"},
		{"13-character header", askArgs(t, q("Thirteen char", 2)), false, "/questions/0/header"},
		{"missing header", `{"questions":[{"question":"Q?","options":[{"label":"a","description":"d"},{"label":"b","description":"d"}]}]}`, false, "header"},
		{"missing question", `{"questions":[{"header":"H","options":[{"label":"a","description":"d"},{"label":"b","description":"d"}]}]}`, false, "question"},
		{"option without description", `{"questions":[{"question":"Q?","header":"H","options":[{"label":"a"},{"label":"b","description":"d"}]}]}`, false, "description"},
		{"option without label", `{"questions":[{"question":"Q?","header":"H","options":[{"description":"d"},{"label":"b","description":"d"}]}]}`, false, "label"},
		{"multi_select not a boolean", `{"questions":[{"question":"Q?","header":"H","multi_select":"yes","options":[{"label":"a","description":"d"},{"label":"b","description":"d"}]}]}`, false, "multi_select"},
		{"questions not an array", `{"questions":"Q?"}`, false, "/questions"},
	}
	tk := newAskToolkit(t, permission.ModeDefault)
	for _, tt := range tests {
		ctx := context.Background()
		turn, err := tk.NewTurn(ctx, "s", []toolkit.Call{{Name: AskUserName, Arguments: tt.args}}, toolkit.TurnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Run(ctx); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
			t.Fatal(err)
		}
		out := turn.Outcomes()[0]
		if tt.ok {
			if out.Status != toolkit.StatusNeedsExternal {
				t.Errorf("%s: %s %v, want needs_external", tt.name, out.Status, out.Response)
			}
			continue
		}
		if out.Status != toolkit.StatusDone || out.Response.State != toolkit.StateError ||
			!strings.Contains(out.Response.Text(), "Invalid arguments for AskUser") || !strings.Contains(out.Response.Text(), tt.text) {
			t.Errorf("%s: %s %+v, want a schema error at %s", tt.name, out.Status, out.Response, tt.text)
		}
	}
}

func TestValidateAskUserAnswers(t *testing.T) {
	in := toolkit.Input{}
	if err := json.Unmarshal([]byte(`{"questions":[
		{"question":"One?","header":"One","options":[{"label":"a","description":"d"},{"label":"b","description":"d"}]},
		{"question":"Many?","header":"Many","multi_select":true,"options":[{"label":"x","description":"d"},{"label":"y","description":"d"},{"label":"z","description":"d"}]}
	]}`), &in); err != nil {
		t.Fatal(err)
	}
	many := func(sel []string, other string) Answer { return Answer{Question: "Many?", Selected: sel, Other: other} }
	one := func(sel []string, other string) Answer { return Answer{Question: "One?", Selected: sel, Other: other} }
	tests := []struct {
		name    string
		answers []Answer
		errText []string // empty: valid
	}{
		{"a label each", []Answer{one([]string{"a"}, ""), many([]string{"x"}, "")}, nil},
		{"any order", []Answer{many([]string{"x", "z"}, ""), one([]string{"b"}, "")}, nil},
		{"other instead of a label", []Answer{one(nil, "neither"), many(nil, "")}, nil},
		{"multi: labels and other", []Answer{one([]string{"a"}, ""), many([]string{"x", "y", "z"}, "and w")}, nil},
		{"skipped (empty entry)", []Answer{one(nil, ""), many(nil, "  ")}, nil},
		{"unknown label", []Answer{one([]string{"c"}, ""), many(nil, "")}, []string{`"c" is not one of its options`}},
		{"label of another question", []Answer{one([]string{"x"}, ""), many(nil, "")}, []string{`"x" is not one of`}},
		{"single-select, two labels", []Answer{one([]string{"a", "b"}, ""), many(nil, "")}, []string{"takes one answer", "got 2"}},
		{"single-select, label and other", []Answer{one([]string{"a"}, "also"), many(nil, "")}, []string{"takes one answer"}},
		{"same label twice", []Answer{one(nil, ""), many([]string{"x", "x"}, "")}, []string{"selected twice"}},
		{"unknown question", []Answer{one(nil, ""), many(nil, ""), {Question: "Three?"}}, []string{`"Three?": no such question`}},
		{"answered twice", []Answer{one([]string{"a"}, ""), one([]string{"b"}, ""), many(nil, "")}, []string{"answered twice"}},
		{"missing entry", []Answer{one([]string{"a"}, "")}, []string{`"Many?" has no answer entry`}},
		{"several problems at once", []Answer{one([]string{"q", "r"}, "")}, []string{`"q"`, `"r"`, "takes one answer", `"Many?"`}},
	}
	for _, tt := range tests {
		err := ValidateAskUserAnswers(in, tt.answers)
		if len(tt.errText) == 0 {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", tt.name)
			continue
		}
		for _, w := range tt.errText {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, err, w)
			}
		}
	}

	// The input itself must make sense.
	bad := []toolkit.Input{
		{},
		{"questions": "x"},
		{"questions": []any{map[string]any{"question": "Q?"}, map[string]any{"question": "Q?"}}},
	}
	for i, in := range bad {
		if err := ValidateAskUserAnswers(in, nil); err == nil {
			t.Errorf("bad input %d accepted", i)
		}
	}
}

func TestAskUserAnswerText(t *testing.T) {
	tests := []struct {
		name    string
		answers []Answer
		text    []string
		meta    string
	}{
		{"none", nil, []string{"no answers"}, `{"answers":[]}`},
		{"skipped", []Answer{{Question: "Q?"}}, []string{"1. Q?", "skipped"}, `{"answers":[{"other":"","question":"Q?","selected":[]}]}`},
		{"label", []Answer{{Question: "Q?", Selected: []string{"Yes"}}}, []string{`→ "Yes"`}, `{"answers":[{"other":"","question":"Q?","selected":["Yes"]}]}`},
		{"other only", []Answer{{Question: "Q?", Other: "Maybe later"}}, []string{`in their own words: "Maybe later"`},
			`{"answers":[{"other":"Maybe later","question":"Q?","selected":[]}]}`},
		{"numbered", []Answer{{Question: "A?", Selected: []string{"1"}}, {Question: "B?", Selected: []string{"2"}}},
			[]string{"1. A?", "2. B?"}, ""},
	}
	for _, tt := range tests {
		r := AskUserAnswer(tt.answers)
		if r.State != toolkit.StateSuccess || r.Tool != AskUserName {
			t.Errorf("%s: %+v", tt.name, r)
		}
		for _, w := range tt.text {
			if !strings.Contains(r.Text(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, r.Text(), w)
			}
		}
		if tt.meta != "" {
			if got, _ := json.Marshal(r.Metadata); string(got) != tt.meta {
				t.Errorf("%s: metadata %s, want %s", tt.name, got, tt.meta)
			}
		}
	}
	// The helper must not keep the caller's slices.
	sel := []string{"a"}
	r := AskUserAnswer([]Answer{{Question: "Q?", Selected: sel}})
	sel[0] = "changed"
	if got := fmt.Sprint(r.Metadata["answers"]); strings.Contains(got, "changed") {
		t.Errorf("metadata shares the caller's slice: %s", got)
	}
}

func TestAskUserValidateInput(t *testing.T) {
	tk := toolkit.New(toolkit.Options{})
	if err := tk.Register(NewAskUser()); err != nil {
		t.Fatal(err)
	}
	opt := func(l string) map[string]any { return map[string]any{"label": l, "description": "d"} }
	q := func(text string, labels ...string) map[string]any {
		var opts []any
		for _, l := range labels {
			opts = append(opts, opt(l))
		}
		return map[string]any{"question": text, "header": "H", "options": opts}
	}
	tests := []struct {
		name      string
		questions []any
		want      string
	}{
		{"fine", []any{q("a?", "x", "y"), q("b?", "x", "y")}, ""},
		{"duplicate question", []any{q("a?", "x", "y"), q("a?", "z", "w")}, "asked twice"},
		{"duplicate label", []any{q("a?", "x", "x")}, "option labels must differ"},
	}
	for _, tt := range tests {
		args, _ := json.Marshal(map[string]any{"questions": tt.questions})
		_, err := tk.Check(context.Background(), "s", toolkit.Call{Name: "AskUser", Arguments: string(args)}, toolkit.CheckOptions{})
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
