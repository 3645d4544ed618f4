package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
)

// TestResponseKinds runs a call to each way a call can end and checks the
// response's kind, the sentinel its Err matches, the decision it carries
// (with the rule that decided) and the Go error behind it.
func TestResponseKinds(t *testing.T) {
	toolErr := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	newTK := func() *Toolkit {
		tk := New(Options{Permission: permission.Context{
			Mode:  permission.ModeDefault,
			Deny:  []permission.Rule{{Tool: "run", Content: "rm:*"}},
			Allow: []permission.Rule{{Tool: "run", Content: "ls:*"}, {Tool: "run", Content: "echo:*"}},
		}})
		mustRegister(t, tk, cmdTool("run", false, nil))
		mustRegister(t, tk, &testTool{spec: Spec{Name: "fails", ReadOnly: true},
			call: func(context.Context, Input) Stream { return Fail(toolErr) }})
		mustRegister(t, tk, &testTool{spec: Spec{Name: "says_error", ReadOnly: true},
			call: func(context.Context, Input) Stream { return Single(ErrorChunk("bad")) }})
		mustRegister(t, tk, &testTool{spec: Spec{Name: "panics", ReadOnly: true},
			call: func(context.Context, Input) Stream { panic("boom") }})
		if err := tk.AddGroup(Group{Name: "extra", Description: "more"}); err != nil {
			t.Fatal(err)
		}
		mustRegister(t, tk, &testTool{spec: Spec{Name: "hidden", ReadOnly: true}}, InGroup("extra"))
		return tk
	}
	tests := []struct {
		name     string
		call     Call
		kind     Kind
		sentinel error
		rule     string // the decision's rule; "" for none
		cause    error  // errors.Is target behind Err, nil for none
	}{
		{name: "success by allow rule", call: Call{Name: "run", Arguments: `{"cmd":"ls -l"}`}, kind: KindSuccess, rule: "run(ls:*)"},
		{name: "unknown tool", call: Call{Name: "nope"}, kind: KindUnknownTool, sentinel: ErrUnknownTool},
		{name: "inactive group", call: Call{Name: "hidden"}, kind: KindInactive, sentinel: ErrInactive},
		{name: "not JSON", call: Call{Name: "run", Arguments: `[1]`}, kind: KindInvalidInput, sentinel: ErrInvalidInput},
		{name: "schema", call: Call{Name: "run", Arguments: `{"cmd":1}`}, kind: KindInvalidInput, sentinel: ErrInvalidInput},
		{name: "repaired and not read-only", call: Call{Name: "run", Arguments: `{"cmd":"ls`}, kind: KindInvalidInput, sentinel: ErrInvalidInput},
		{name: "deny rule", call: Call{Name: "run", Arguments: `{"cmd":"rm -rf /"}`}, kind: KindDenied, sentinel: ErrDenied, rule: "run(rm:*)"},
		{name: "tool error", call: Call{Name: "fails"}, kind: KindToolError, sentinel: ErrToolFailed, cause: fs.ErrNotExist},
		{name: "error chunk", call: Call{Name: "says_error"}, kind: KindToolError, sentinel: ErrToolFailed},
		{name: "panic", call: Call{Name: "panics"}, kind: KindToolError, sentinel: ErrToolFailed, cause: ErrPanicked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := newTK().Call(context.Background(), "s", tt.call, TurnOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Kind != tt.kind {
				t.Errorf("kind %q, want %q (%s)", resp.Kind, tt.kind, resp.Text())
			}
			rerr := resp.Err()
			if tt.sentinel == nil {
				if rerr != nil {
					t.Errorf("Err() = %v, want nil", rerr)
				}
			} else if !errors.Is(rerr, tt.sentinel) {
				t.Errorf("Err() = %v, does not match %v", rerr, tt.sentinel)
			}
			var ce *CallError
			if tt.sentinel != nil && (!errors.As(rerr, &ce) || ce.Kind != tt.kind || ce.Tool != tt.call.Name || ce.Message != resp.Text()) {
				t.Errorf("Err() = %#v, want a *CallError of kind %s", rerr, tt.kind)
			}
			if tt.cause != nil && !errors.Is(rerr, tt.cause) {
				t.Errorf("Err() = %v does not reach the cause %v", rerr, tt.cause)
			}
			if tt.name == "tool error" {
				var pe *fs.PathError
				if !errors.As(rerr, &pe) || pe != toolErr {
					t.Errorf("errors.As does not find the tool's own error in %v", rerr)
				}
			}
			got := ""
			if resp.Decision != nil && resp.Decision.Rule != nil {
				got = resp.Decision.Rule.String()
			}
			if got != tt.rule {
				t.Errorf("decision rule %q, want %q (%+v)", got, tt.rule, resp.Decision)
			}
			if tt.kind == KindSuccess || tt.kind == KindDenied || tt.kind == KindToolError {
				if resp.Decision == nil {
					t.Errorf("a call that reached the permission gate has no decision")
				}
			} else if resp.Decision != nil {
				t.Errorf("a call stopped before the permission gate has a decision: %+v", resp.Decision)
			}
			// The kind and the decision cross a wire; Err matches after.
			var back Response
			data, _ := json.Marshal(resp)
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if back.Kind != tt.kind || tt.sentinel != nil && !errors.Is(back.Err(), tt.sentinel) {
				t.Errorf("after JSON: kind %q, Err %v", back.Kind, back.Err())
			}
		})
	}
}

// TestRejectedAndInterruptedKinds covers the kinds the user and the
// context decide.
func TestRejectedAndInterruptedKinds(t *testing.T) {
	tk := New(Options{})
	mustRegister(t, tk, cmdTool("run", false, askAll))
	_, err := tk.Call(context.Background(), "s", Call{ID: "a", Name: "run", Arguments: `{"cmd":"x"}`}, TurnOptions{})
	var w *WaitingError
	if !errors.As(err, &w) || len(w.Confirmations) != 1 || w.Confirmations[0].CallID != "a" {
		t.Fatalf("Call of an asking tool: %v, want a *WaitingError for call a", err)
	}
	if err := w.Turn.Confirm("a", Approval{Approve: false}); err != nil {
		t.Fatal(err)
	}
	if err := w.Turn.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := w.Turn.Responses()[0]
	if r.Kind != KindRejected || !errors.Is(r.Err(), ErrRejected) || r.Decision == nil || r.Decision.Behavior != permission.Ask {
		t.Errorf("rejected: kind %s, err %v, decision %+v", r.Kind, r.Err(), r.Decision)
	}

	ctx, cancel := context.WithCancel(context.Background())
	blocking := &testTool{spec: Spec{Name: "wait", ReadOnly: true}, call: func(ctx context.Context, _ Input) Stream {
		return func(yield func(*Chunk, error) bool) {
			cancel()
			<-ctx.Done()
			yield(nil, ctx.Err())
		}
	}}
	mustRegister(t, tk, blocking)
	r, err = tk.Call(ctx, "s", Call{Name: "wait"}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != KindInterrupted || !errors.Is(r.Err(), ErrInterrupted) || !errors.Is(r.Err(), context.Canceled) {
		t.Errorf("interrupted: kind %s, err %v", r.Kind, r.Err())
	}
}

// TestToolkitMiddleware checks that Options.Middleware wraps every tool,
// reset_tools and direct calls included, and can rewrite the input,
// refuse, and rewrite results.
func TestToolkitMiddleware(t *testing.T) {
	var seen []string
	mw := func(ctx context.Context, in Input, next Next) Stream {
		rt := RuntimeFrom(ctx)
		seen = append(seen, rt.Tool)
		switch rt.Tool {
		case "run":
			if in.String("cmd") == "forbidden" {
				return Refuse("The operator's policy refuses this command.")
			}
			in = Input{"cmd": in.String("cmd") + "!"}
		}
		return MapChunks(next(ctx, in), func(c *Chunk) *Chunk {
			out := *c
			out.Content = append([]Block{TextBlock("<")}, c.Content...)
			return &out
		})
	}
	own := func(ctx context.Context, in Input, next Next) Stream {
		seen = append(seen, "own")
		return next(ctx, in)
	}
	tk := New(Options{Middleware: []Middleware{mw}})
	mustRegister(t, tk, cmdTool("run", false, allowAll), WithMiddleware(own))
	if err := tk.AddGroup(Group{Name: "g", Description: "a group"}); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, tk, &testTool{spec: Spec{Name: "grouped", ReadOnly: true}}, InGroup("g"))

	r, err := tk.Call(context.Background(), "s", Call{Name: "run", Arguments: `{"cmd":"go"}`}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text() != "<run:go!" {
		t.Errorf("direct call through the middleware: %q, want %q", r.Text(), "<run:go!")
	}
	r, err = tk.Call(context.Background(), "s", Call{Name: "run", Arguments: `{"cmd":"forbidden"}`}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != KindRefused || r.State != StateDenied || !errors.Is(r.Err(), ErrRefused) || r.Text() != "The operator's policy refuses this command." {
		t.Errorf("refused: kind %s state %s text %q", r.Kind, r.State, r.Text())
	}
	r, err = tk.Call(context.Background(), "s", Call{Name: ResetToolsName, Arguments: `{"g":true}`}, TurnOptions{})
	if err != nil || r.State != StateSuccess || !strings.HasPrefix(r.Text(), "<Active tool groups: g") {
		t.Errorf("reset_tools not wrapped: %v %+v", err, r)
	}
	want := []string{"run", "own", "run", ResetToolsName}
	if len(seen) != len(want) {
		t.Fatalf("middleware saw %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("middleware saw %v, want %v (toolkit's outside the tool's)", seen, want)
		}
	}
}

// TestDecisionRuleOfAllowRules names the allow rule that covers a call,
// and none when it takes several together.
func TestDecisionRuleOfAllowRules(t *testing.T) {
	tk := New(Options{Permission: permission.Context{Allow: []permission.Rule{{Tool: "other"}, {Tool: "run", Content: "make:*"}}}})
	mustRegister(t, tk, cmdTool("run", false, nil))
	r, err := tk.Call(context.Background(), "s", Call{Name: "run", Arguments: `{"cmd":"make all"}`}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Decision == nil || r.Decision.Rule == nil || r.Decision.Rule.String() != "run(make:*)" || r.Decision.Reason != "allow rule run(make:*)" {
		t.Errorf("decision %+v, want the rule run(make:*)", r.Decision)
	}
}
