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

// A typed function becomes a tool; its input schema is inferred from the
// struct, and the toolkit checks the model's arguments against it before
// the function runs.
func ExampleNewFunc() {
	type convertIn struct {
		Celsius float64 `json:"celsius" jsonschema:"the temperature to convert"`
		To      string  `json:"to,omitempty" enum:"fahrenheit,kelvin" default:"fahrenheit"`
	}
	convert, err := toolkit.NewFunc("convert", "Converts a temperature.",
		func(_ context.Context, in convertIn) (string, error) {
			if in.To == "kelvin" {
				return fmt.Sprintf("%.2f K", in.Celsius+273.15), nil
			}
			return fmt.Sprintf("%.1f °F", in.Celsius*9/5+32), nil
		},
		toolkit.FuncOptions{ReadOnly: true}) // read-only: runs without asking
	if err != nil {
		panic(err)
	}
	fmt.Println(string(convert.Spec().InputSchema))

	tk := toolkit.New(toolkit.Options{})
	if err := tk.Register(convert); err != nil {
		panic(err)
	}
	ctx := context.Background()
	turn, err := tk.NewTurn(ctx, "session-1", []toolkit.Call{
		{ID: "1", Name: "convert", Arguments: `{"celsius": 21.5}`},
		{ID: "2", Name: "convert", Arguments: `{"celsius": 0, "to": "kelvin"}`},
		{ID: "3", Name: "convert", Arguments: `{"celsius": "warm"}`},
	}, toolkit.TurnOptions{})
	if err != nil {
		panic(err)
	}
	_ = turn.Run(ctx)
	for _, r := range turn.Responses() {
		fmt.Println(r.CallID, r.State, strings.SplitN(r.Text(), "\n", 2)[0])
	}
	// Output:
	// {"type":"object","properties":{"celsius":{"type":"number","description":"the temperature to convert"},"to":{"type":"string","enum":["fahrenheit","kelvin"],"default":"fahrenheit"}},"required":["celsius"],"additionalProperties":false}
	// 1 success 70.7 °F
	// 2 success 273.15 K
	// 3 error Invalid arguments for convert: the arguments do not match the tool's input schema: at /celsius: got string, want number. Fix the arguments and call again.
}

// A streaming function sends its result in chunks: the turn hands each
// one to OnEvent as it comes, and folds them into the call's response.
func ExampleNewStreamFunc() {
	type countdownIn struct {
		From int `json:"from" jsonschema:"where to start"`
	}
	countdown, err := toolkit.NewStreamFunc("countdown", "Counts down to liftoff.",
		func(ctx context.Context, in countdownIn, emit func(*toolkit.Chunk) error) error {
			for i := in.From; i > 0; i-- {
				// An error means the call was cancelled or nobody reads
				// any more: stop.
				if err := emit(toolkit.TextChunk(fmt.Sprintf("%d… ", i))); err != nil {
					return err
				}
			}
			return emit(toolkit.TextChunk("liftoff!"))
		},
		toolkit.FuncOptions{ReadOnly: true})
	if err != nil {
		panic(err)
	}
	tk := toolkit.New(toolkit.Options{})
	if err := tk.Register(countdown); err != nil {
		panic(err)
	}
	ctx := context.Background()
	turn, err := tk.NewTurn(ctx, "session-1", []toolkit.Call{{ID: "1", Name: "countdown", Arguments: `{"from": 3}`}},
		toolkit.TurnOptions{OnEvent: func(ev toolkit.Event) {
			if ev.Kind == toolkit.EventChunk {
				fmt.Printf("chunk %q\n", ev.Chunk.Content[0].Text)
			}
		}})
	if err != nil {
		panic(err)
	}
	_ = turn.Run(ctx)
	r := turn.Responses()[0]
	fmt.Println(r.State, r.Text())
	// Output:
	// chunk "3… "
	// chunk "2… "
	// chunk "1… "
	// chunk "liftoff!"
	// success 3… 2… 1… liftoff!
}
