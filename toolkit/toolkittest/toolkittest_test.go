package toolkittest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

type shoutIn struct {
	Text string `json:"text"`
}

func newKit(t *testing.T, mode permission.Mode) *toolkit.Toolkit {
	t.Helper()
	shout, err := toolkit.NewFunc("shout", "Upper-cases text.",
		func(_ context.Context, in shoutIn) (string, error) { return strings.ToUpper(in.Text), nil },
		toolkit.FuncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: mode}})
	if err := tk.Register(shout); err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestCall(t *testing.T) {
	tk := newKit(t, permission.ModeBypass)
	for _, args := range []any{map[string]any{"text": "hi"}, `{"text":"hi"}`} {
		if r := toolkittest.Call(t, tk, "s", "shout", args); r.State != toolkit.StateSuccess || r.Text() != "HI" {
			t.Errorf("%v: %s %q", args, r.State, r.Text())
		}
	}
}

func TestRunWaitsForConfirmation(t *testing.T) {
	tk := newKit(t, permission.ModeDefault) // a tool that is not read-only asks
	var events int
	res, err := toolkittest.Run(context.Background(), tk, "s", "shout", map[string]any{"text": "hi"},
		toolkit.TurnOptions{OnEvent: func(toolkit.Event) { events++ }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome.Status != toolkit.StatusNeedsConfirmation || res.Outcome.Response != nil {
		t.Errorf("outcome %+v, want a confirmation", res.Outcome)
	}
	if events == 0 {
		t.Error("the caller's OnEvent heard nothing")
	}
}

func TestRunBadArguments(t *testing.T) {
	tk := newKit(t, permission.ModeBypass)
	if _, err := toolkittest.Run(context.Background(), tk, "s", "shout", make(chan int), toolkit.TurnOptions{}); err == nil {
		t.Error("arguments that are not JSON were accepted")
	}
}
