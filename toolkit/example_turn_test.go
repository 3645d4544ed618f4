package toolkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// deleteTool is a tool that asks before it runs: the function tools'
// default.
func deleteTool() toolkit.Tool {
	type in struct {
		Name string `json:"name" jsonschema:"the record to delete"`
	}
	t, err := toolkit.NewFunc("delete_record", "Deletes a record.",
		func(_ context.Context, in in) (string, error) { return "deleted " + in.Name, nil },
		toolkit.FuncOptions{Sequential: true})
	if err != nil {
		panic(err)
	}
	return t
}

// A turn stops at a call the permission engine asks about; Run says so
// with a *WaitingError, the user's answer goes in by call ID, and the
// next Run finishes the turn.
func ExampleTurn_Confirm() {
	tk := toolkit.New(toolkit.Options{})
	if err := tk.Register(deleteTool()); err != nil {
		panic(err)
	}
	ctx := context.Background()
	turn, err := tk.NewTurn(ctx, "session-1", []toolkit.Call{
		{ID: "call-1", Name: "delete_record", Arguments: `{"name": "draft"}`},
	}, toolkit.TurnOptions{})
	if err != nil {
		panic(err)
	}
	err = turn.Run(ctx)
	var waiting *toolkit.WaitingError
	if errors.As(err, &waiting) {
		for _, c := range waiting.Confirmations {
			fmt.Println("asked:", c.Tool, c.Decision.Message)
			_ = turn.Confirm(c.CallID, toolkit.Approval{Approve: true})
		}
	}
	if err := turn.Run(ctx); err != nil {
		panic(err)
	}
	r := turn.Responses()[0]
	fmt.Println(r.Kind, r.Text())
	// Output:
	// asked: delete_record Run delete_record?
	// success deleted draft
}

// A waiting turn is saved as JSON and resumed by another toolkit with the
// same tools: in this process after a restart, or on another replica.
func ExampleToolkit_ResumeTurn() {
	ctx := context.Background()
	first := toolkit.New(toolkit.Options{})
	_ = first.Register(deleteTool())
	turn, _ := first.NewTurn(ctx, "session-1", []toolkit.Call{
		{ID: "call-1", Name: "delete_record", Arguments: `{"name": "draft"}`},
	}, toolkit.TurnOptions{})
	if err := turn.Run(ctx); !errors.Is(err, toolkit.ErrWaiting) {
		panic(err)
	}
	saved, _ := json.Marshal(turn.Snapshot()) // to a database, a file, ...

	// Later, elsewhere: the approval arrives.
	second := toolkit.New(toolkit.Options{})
	_ = second.Register(deleteTool())
	var snap toolkit.TurnSnapshot
	if err := json.Unmarshal(saved, &snap); err != nil {
		panic(err)
	}
	resumed, err := second.ResumeTurn(ctx, &snap, toolkit.TurnOptions{})
	if err != nil {
		panic(err)
	}
	_ = resumed.Confirm("call-1", toolkit.Approval{Approve: true})
	if err := resumed.Run(ctx); err != nil {
		panic(err)
	}
	fmt.Println(resumed.Responses()[0].Text())
	// Output:
	// deleted draft
}

// A failed call's Err says how it failed; errors.Is matches the kind and
// the rule that decided is in the decision.
func ExampleResponse_Err() {
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{
		Deny: []permission.Rule{permission.MustParseRule("delete_record")},
	}})
	_ = tk.Register(deleteTool())
	resp, err := tk.Call(context.Background(), "session-1",
		toolkit.Call{Name: "delete_record", Arguments: `{"name": "all"}`}, toolkit.TurnOptions{})
	if err != nil {
		panic(err)
	}
	err = resp.Err()
	fmt.Println(errors.Is(err, toolkit.ErrDenied), resp.Decision.Rule)
	// Output:
	// true delete_record
}

// Toolkit-wide middleware sees every call of every tool: here it keeps
// an audit trail and refuses one input.
func ExampleOptions_middleware() {
	var audit []string
	tk := toolkit.New(toolkit.Options{
		Permission: permission.Context{Mode: permission.ModeBypass},
		Middleware: []toolkit.Middleware{func(ctx context.Context, in toolkit.Input, next toolkit.Next) toolkit.Stream {
			rt := toolkit.RuntimeFrom(ctx)
			audit = append(audit, rt.Tool+" "+in.String("name"))
			if strings.HasPrefix(in.String("name"), "prod-") {
				return toolkit.Refuse("Production records are not deleted by agents.")
			}
			return next(ctx, in)
		}},
	})
	_ = tk.Register(deleteTool())
	for _, name := range []string{"draft", "prod-users"} {
		resp, _ := tk.Call(context.Background(), "s", toolkit.Call{Name: "delete_record", Arguments: `{"name": "` + name + `"}`}, toolkit.TurnOptions{})
		fmt.Println(resp.Kind, resp.Text())
	}
	fmt.Println(audit)
	// Output:
	// success deleted draft
	// refused Production records are not deleted by agents.
	// [delete_record draft delete_record prod-users]
}
