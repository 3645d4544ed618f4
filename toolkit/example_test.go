package toolkit_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// A Go function becomes a tool; a turn runs the model's calls, stopping at
// the confirmation the function tool asks for by default.
func Example() {
	type shoutIn struct {
		Text string `json:"text" jsonschema:"what to shout"`
	}
	shout, err := toolkit.NewFunc("shout", "Upper-cases text.",
		func(_ context.Context, in shoutIn) (string, error) { return strings.ToUpper(in.Text) + "!", nil },
		toolkit.FuncOptions{})
	if err != nil {
		panic(err)
	}
	tk := toolkit.New(toolkit.Options{})
	if err := tk.Register(shout); err != nil {
		panic(err)
	}

	ctx := context.Background()
	turn, err := tk.NewTurn(ctx, "session-1", []toolkit.Call{
		{ID: "call-1", Name: "shout", Arguments: `{"text": "hello"}`},
	}, toolkit.TurnOptions{})
	if err != nil {
		panic(err)
	}
	_ = turn.Run(ctx)
	for _, o := range turn.Outcomes() {
		if o.Status == toolkit.StatusNeedsConfirmation {
			fmt.Println("asked:", o.Confirmation.Decision.Message, o.Confirmation.Decision.Suggestions)
			// The user approves, and allows the tool for the session.
			_ = turn.Confirm(o.Call.ID, toolkit.Approval{Approve: true, Rules: o.Confirmation.Decision.Suggestions})
		}
	}
	_ = turn.Run(ctx)
	fmt.Println(turn.Responses()[0].State, turn.Responses()[0].Text())
	// Output:
	// asked: Run shout? [shout]
	// success HELLO!
}

// Tool groups are activated per session with the reset_tools meta tool.
func ExampleToolkit_AddGroup() {
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass}})
	_ = tk.AddGroup(toolkit.Group{Name: "web", Description: "Fetch web pages", Instructions: "Cite your sources."})
	fetch, _ := toolkit.NewFunc("fetch", "Fetches a URL.",
		func(_ context.Context, in struct {
			URL string `json:"url"`
		}) (string, error) {
			return "<html>" + in.URL + "</html>", nil
		}, toolkit.FuncOptions{})
	_ = tk.Register(fetch, toolkit.InGroup("web"))

	ctx := context.Background()
	run := func(name, args string) {
		turn, _ := tk.NewTurn(ctx, "s", []toolkit.Call{{Name: name, Arguments: args}}, toolkit.TurnOptions{})
		_ = turn.Run(ctx)
		r := turn.Responses()[0]
		fmt.Printf("%s: %s\n", r.State, r.Text())
	}
	run("fetch", `{"url": "example.org"}`)
	run("reset_tools", `{"web": true}`)
	run("fetch", `{"url": "example.org"}`)
	// Output:
	// error: The tool fetch belongs to the tool group "web", which is not active. Activate it by calling reset_tools with {"web": true} (and true for every other group you still need), then call fetch again.
	// success: Active tool groups: web.
	//
	// ## web (activated now)
	// Fetch web pages
	//
	// Cite your sources.
	// success: <html>example.org</html>
}
