package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
)

type weatherIn struct {
	City  string   `json:"city" jsonschema:"the city to look up"`
	Unit  string   `json:"unit,omitempty" enum:"celsius,fahrenheit"`
	Days  int      `json:"days,omitempty" enum:"1,3,7"`
	Tags  []string `json:"tags,omitempty" enum:"a,b"`
	Inner struct {
		Mode string `json:"mode" enum:"fast,slow"`
	} `json:"inner,omitzero"`
}

type weatherOut struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
}

func TestInferSchema(t *testing.T) {
	raw, err := InferSchema[weatherIn]()
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Type       string   `json:"type"`
		Required   []string `json:"required"`
		Properties map[string]struct {
			Description string               `json:"description"`
			Enum        []any                `json:"enum"`
			Items       struct{ Enum []any } `json:"items"`
			Properties  map[string]struct{ Enum []any }
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || !slices.Equal(s.Required, []string{"city"}) {
		t.Errorf("type %q required %v; want object, [city]", s.Type, s.Required)
	}
	if d := s.Properties["city"].Description; d != "the city to look up" {
		t.Errorf("city description %q", d)
	}
	if e := s.Properties["unit"].Enum; len(e) != 2 || e[0] != "celsius" {
		t.Errorf("unit enum %v", e)
	}
	if e := s.Properties["days"].Enum; len(e) != 3 || e[2] != float64(7) {
		t.Errorf("days enum %v: want numbers", e)
	}
	if e := s.Properties["tags"].Items.Enum; len(e) != 2 {
		t.Errorf("tags items enum %v", e)
	}
	if e := s.Properties["inner"].Properties["mode"].Enum; len(e) != 2 {
		t.Errorf("nested enum %v", e)
	}
	if _, err := InferSchema[string](); err == nil {
		t.Error("a string input type was accepted")
	}
}

func TestFuncTool(t *testing.T) {
	weather, err := NewFunc("weather", "Weather by city", func(_ context.Context, in weatherIn) (weatherOut, error) {
		if in.City == "Atlantis" {
			return weatherOut{}, errors.New("no such city")
		}
		return weatherOut{City: in.City, Temp: 21.5}, nil
	}, FuncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	greet, err := NewFunc("greet", "Greets", func(_ context.Context, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "hello " + in.Name, nil
	}, FuncOptions{ReadOnly: true, Sequential: true})
	if err != nil {
		t.Fatal(err)
	}
	if sp := weather.Spec(); !sp.ConcurrencySafe || sp.ReadOnly || sp.Source.Kind != SourceFunction {
		t.Errorf("weather spec defaults %+v", sp)
	}
	if sp := greet.Spec(); sp.ConcurrencySafe || !sp.ReadOnly {
		t.Errorf("greet spec options %+v", sp)
	}
	tk := New(Options{})
	mustRegister(t, tk, weather)
	mustRegister(t, tk, greet)

	// Default permission: ASK, not bypass-immune.
	d, err := tk.Check(context.Background(), "s", Call{Name: "weather", Arguments: `{"city":"Oslo"}`}, CheckOptions{})
	if err != nil || d.Behavior != permission.Ask || d.BypassImmune {
		t.Fatalf("default check %+v %v", d, err)
	}
	turn := runTurn(t, tk, TurnOptions{},
		Call{ID: "1", Name: "weather", Arguments: `{"city":"Oslo","unit":"celsius"}`},
		Call{ID: "2", Name: "weather", Arguments: `{"city":"Atlantis"}`},
		Call{ID: "3", Name: "weather", Arguments: `{"city":"Oslo","unit":"kelvin"}`},
		Call{ID: "4", Name: "greet", Arguments: `{"name":"Ada"}`})
	// Call 2 is covered by the suggestion of call 1 (the tool-level rule),
	// so it waits; accepting that rule lets it run without a second ask.
	if got := statuses(turn); !slices.Equal(got, []Status{StatusNeedsConfirmation, StatusPending, StatusDone, StatusPending}) {
		t.Fatalf("statuses %v", got)
	}
	if err := turn.Confirm("1", Approval{Approve: true, Rules: turn.Outcomes()[0].Confirmation.Decision.Suggestions}); err != nil {
		t.Fatal(err)
	}
	_ = turn.Run(context.Background())
	r := turn.Responses()
	if len(r) != 4 {
		t.Fatalf("%d responses", len(r))
	}
	if r[0].State != StateSuccess || r[0].Text() != `{"city":"Oslo","temp":21.5}` {
		t.Errorf("struct result: %s %q", r[0].State, r[0].Text())
	}
	if r[1].State != StateError || r[1].Text() != "no such city" {
		t.Errorf("error result: %s %q", r[1].State, r[1].Text())
	}
	if r[2].State != StateError || !strings.Contains(r[2].Text(), "/unit") {
		t.Errorf("enum violation: %s %q", r[2].State, r[2].Text())
	}
	if r[3].State != StateSuccess || r[3].Text() != "hello Ada" {
		t.Errorf("string result: %s %q", r[3].State, r[3].Text())
	}
}

func TestFuncToolOptions(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":10}},"required":["n"]}`)
	tool, err := NewFunc("sq", "squares", func(_ context.Context, in map[string]any) (json.RawMessage, error) {
		n, _ := in["n"].(json.Number).Int64()
		return json.RawMessage(`{"sq":` + strconv.FormatInt(n*n, 10) + `}`), nil
	}, FuncOptions{InputSchema: schema, CheckPermissions: func(context.Context, Input, *permission.Context) (permission.Decision, error) {
		return permission.AllowDecision("mine"), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	tk := New(Options{})
	mustRegister(t, tk, tool)
	r := runTurn(t, tk, TurnOptions{}, Call{Name: "sq", Arguments: `{"n": 9}`}, Call{Name: "sq", Arguments: `{"n": 11}`}).Responses()
	if r[0].Text() != `{"sq":81}` {
		t.Errorf("raw JSON result %q", r[0].Text())
	}
	if r[1].State != StateError || !strings.Contains(r[1].Text(), "maximum") {
		t.Errorf("explicit schema not applied: %s %q", r[1].State, r[1].Text())
	}
	if _, err := NewFunc[struct{}, string]("nil", "", nil, FuncOptions{}); err == nil {
		t.Error("nil function accepted")
	}
}

// wireIn has fields whose JSON form differs from their Go kind.
type wireIn struct {
	Data []byte          `json:"data"`
	Raw  json.RawMessage `json:"raw"`
	When time.Time       `json:"when"`
	Wait time.Duration   `json:"wait"`
}

// TestInferWireTypes: the inferred schema accepts what encoding/json
// reads for []byte (base64 text), json.RawMessage (any JSON value),
// time.Time (RFC 3339 text) and time.Duration (nanoseconds), and the
// function gets the decoded values.
func TestInferWireTypes(t *testing.T) {
	var got wireIn
	tool, err := NewFunc("wire", "Takes wire types.", func(_ context.Context, in wireIn) (string, error) {
		got = in
		return "ok", nil
	}, FuncOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	tk := New(Options{})
	mustRegister(t, tk, tool)
	args := `{"data":"aGk=","raw":{"a":[1,2]},"when":"2026-11-30T12:00:00Z","wait":1500000000}`
	turn, err := tk.NewTurn(context.Background(), "s", []Call{{Name: "wire", Arguments: args}}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Run(context.Background()); err != nil && !errors.Is(err, ErrWaiting) {
		t.Fatal(err)
	}
	if r := turn.Responses()[0]; r.State != StateSuccess {
		t.Fatalf("call: %s %q", r.State, r.Text())
	}
	want := wireIn{Data: []byte("hi"), Raw: json.RawMessage(`{"a":[1,2]}`), When: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Wait: 1500 * time.Millisecond}
	if string(got.Data) != string(want.Data) || string(got.Raw) != string(want.Raw) || !got.When.Equal(want.When) || got.Wait != want.Wait {
		t.Errorf("the function got %+v, want %+v", got, want)
	}
	// A time that is not RFC 3339 is refused before the call, naming it.
	turn, _ = tk.NewTurn(context.Background(), "s", []Call{{Name: "wire", Arguments: `{"data":"","raw":1,"when":"yesterday","wait":0}`}}, TurnOptions{})
	_ = turn.Run(context.Background())
	if r := turn.Responses()[0]; r.State != StateError || !strings.Contains(r.Text(), "yesterday") {
		t.Errorf("a bad time: %s %q", r.State, r.Text())
	}
}
