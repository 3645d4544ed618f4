package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
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

// FuzzResumeTurn feeds arbitrary snapshots to ResumeTurn: it must never
// panic, and a turn it accepts must be one Run can drive: Run returns nil
// only when every call is done, and a *WaitingError only when it lists
// something to answer; a call that was done never runs again.
func FuzzResumeTurn(f *testing.F) {
	seed := func(calls []Call, answer bool) {
		tk := fuzzResumeToolkit(f, nil)
		turn, err := tk.NewTurn(context.Background(), "s", calls, TurnOptions{})
		if err != nil {
			f.Fatal(err)
		}
		_ = turn.Run(context.Background())
		if answer {
			for _, o := range turn.Outcomes() {
				if o.Status == StatusNeedsConfirmation {
					_ = turn.Confirm(o.Call.ID, Approval{Approve: true})
				}
			}
		}
		data, err := json.Marshal(turn.Snapshot())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	both := []Call{{ID: "a", Name: "read", Arguments: `{"cmd":"x"}`}, {ID: "b", Name: "write", Arguments: `{"cmd":"rm x"}`},
		{ID: "c", Name: "write", Arguments: `{"cmd":"rm y"}`}, {ID: "d", Name: "seq", Arguments: `{"cmd":"z"}`}, {ID: "e", Name: "ext", Arguments: `{}`}}
	seed(both, false)
	seed(both, true)
	seed([]Call{{ID: "n", Name: "nope"}}, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		var snap TurnSnapshot
		if json.Unmarshal(data, &snap) != nil {
			return
		}
		done := map[string]bool{}
		for _, c := range snap.Calls {
			if c.Phase == string(StatusDone) {
				done[c.Call.ID] = true
			}
		}
		var ran []string
		tk := fuzzResumeToolkit(t, func(id string) { ran = append(ran, id) })
		turn, err := tk.ResumeTurn(context.Background(), &snap, TurnOptions{MaxParallel: 1})
		if err != nil {
			return
		}
		for range 4 {
			err := turn.Run(context.Background())
			var w *WaitingError
			switch {
			case err == nil:
				if !turn.Done() {
					t.Fatalf("Run returned nil with calls not done: %v", statuses(turn))
				}
			case errors.As(err, &w):
				if len(w.Confirmations)+len(w.External) == 0 {
					t.Fatalf("Run waits for nothing: %v", statuses(turn))
				}
				for _, c := range w.Confirmations {
					_ = turn.Confirm(c.CallID, Approval{Approve: true})
				}
				for _, x := range w.External {
					_ = turn.SubmitResult(x.CallID, &Response{State: StateSuccess})
				}
			default:
				t.Fatalf("Run: %v", err)
			}
		}
		for _, id := range ran {
			if done[id] {
				t.Fatalf("call %s was done in the snapshot and ran again", id)
			}
		}
	})
}

// fuzzResumeToolkit holds the tools of FuzzResumeTurn's seeds; onRun
// hears the call IDs that run.
func fuzzResumeToolkit(tb testing.TB, onRun func(id string)) *Toolkit {
	tk := New(Options{})
	mk := func(name string, safe bool, check func(Input) permission.Decision) *testTool {
		tool := cmdTool(name, safe, check)
		tool.call = func(ctx context.Context, in Input) Stream {
			if onRun != nil {
				onRun(RuntimeFrom(ctx).CallID)
			}
			return Single(TextChunk(name))
		}
		return tool
	}
	for _, tool := range []*testTool{mk("read", true, allowAll), mk("write", true, askAll), mk("seq", false, allowAll)} {
		if err := tk.Register(tool); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tk.Register(&testTool{spec: Spec{Name: "ext", External: true, ConcurrencySafe: true}, check: allowAll}); err != nil {
		tb.Fatal(err)
	}
	return tk
}
