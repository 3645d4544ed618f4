package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
)

// snapshotToolkit is what each "process" of the tests builds: the same
// tools, fresh state. runs counts the executions of "write" across them.
func snapshotToolkit(t *testing.T, runs *atomic.Int32, pc permission.Context) *Toolkit {
	t.Helper()
	tk := New(Options{Permission: pc})
	w := cmdTool("write", true, askAll)
	w.call = func(_ context.Context, in Input) Stream {
		runs.Add(1)
		return Single(TextChunk("wrote " + in.String("cmd")))
	}
	mustRegister(t, tk, w)
	mustRegister(t, tk, cmdTool("read", true, allowAll))
	mustRegister(t, tk, &testTool{spec: Spec{Name: "ext", External: true, ConcurrencySafe: true, InputSchema: json.RawMessage(cmdSchema)}, check: allowAll})
	return tk
}

// roundTrip saves a snapshot as JSON and reads it back, as a store would.
func roundTrip(t *testing.T, s *TurnSnapshot) *TurnSnapshot {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back TurnSnapshot
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

func TestResumeTurn(t *testing.T) {
	var runs atomic.Int32
	first := snapshotToolkit(t, &runs, permission.Context{})
	calls := []Call{
		{ID: "r1", Name: "read", Arguments: `{"cmd":"a"}`},
		{ID: "w1", Name: "write", Arguments: `{"cmd":"b","n":1.50}`},
		{ID: "x1", Name: "ext", Arguments: `{"cmd":"c"}`},
	}
	turn, err := first.NewTurn(context.Background(), "sess", calls, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, turn, turn.Run(context.Background()))
	snap := roundTrip(t, turn.Snapshot())
	if snap.ID != turn.ID() || snap.Revision != 1 || snap.SessionID != "sess" {
		t.Errorf("snapshot header %+v", snap)
	}
	if n := snap.Calls[1].Input["n"]; n != json.Number("1.50") {
		t.Errorf("input number after JSON: %#v, want json.Number 1.50", n)
	}

	// "Another process": another toolkit with the same tools.
	second := snapshotToolkit(t, &runs, permission.Context{})
	resumed, err := second.ResumeTurn(context.Background(), snap, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(resumed); got[0] != StatusDone || got[1] != StatusNeedsConfirmation || got[2] != StatusNeedsExternal {
		t.Fatalf("resumed statuses %v", got)
	}
	if resumed.Outcomes()[0].Response.Text() != "read:a" {
		t.Errorf("the done call lost its response: %+v", resumed.Outcomes()[0].Response)
	}
	if err := resumed.Confirm("w1", Approval{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if err := resumed.SubmitResult("x1", &Response{State: StateSuccess, Content: []Block{TextBlock("done elsewhere")}}); err != nil {
		t.Fatal(err)
	}
	checkRun(t, resumed, resumed.Run(context.Background()))
	if runs.Load() != 1 {
		t.Fatalf("write ran %d times, want 1", runs.Load())
	}
	rs := resumed.Responses()
	if rs[1].Text() != "wrote b" || rs[2].Text() != "done elsewhere" || rs[1].Decision == nil || rs[1].Decision.Behavior != permission.Ask {
		t.Errorf("responses after resume: %q %q %+v", rs[1].Text(), rs[2].Text(), rs[1].Decision)
	}

	// The finished turn saved and resumed again runs nothing again.
	done := roundTrip(t, resumed.Snapshot())
	if done.Revision != 2 || done.ID != snap.ID {
		t.Errorf("revision %d id %s, want 2 and %s", done.Revision, done.ID, snap.ID)
	}
	third := snapshotToolkit(t, &runs, permission.Context{})
	again, err := third.ResumeTurn(context.Background(), done, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Run(context.Background()); err != nil || !again.Done() {
		t.Fatalf("finished turn: %v done=%v", err, again.Done())
	}
	if err := again.Confirm("w1", Approval{Approve: true}); !errors.Is(err, ErrNotWaiting) {
		t.Errorf("confirming a done call: %v, want ErrNotWaiting", err)
	}
	if runs.Load() != 1 {
		t.Errorf("write ran %d times after resuming a finished turn, want 1", runs.Load())
	}
}

// TestResumeChecksWhatChanged: a deny rule added since the snapshot
// denies an approved call; a tool gone makes it an unknown tool.
func TestResumeChecksWhatChanged(t *testing.T) {
	var runs atomic.Int32
	first := snapshotToolkit(t, &runs, permission.Context{})
	turn, err := first.NewTurn(context.Background(), "s", []Call{{ID: "w", Name: "write", Arguments: `{"cmd":"rm x"}`}}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, turn, turn.Run(context.Background()))
	if err := turn.Confirm("w", Approval{Approve: true}); err != nil {
		t.Fatal(err)
	}
	approved := roundTrip(t, turn.Snapshot())
	if approved.Calls[0].Phase != "approved" {
		t.Fatalf("phase %q, want approved", approved.Calls[0].Phase)
	}

	strict := snapshotToolkit(t, &runs, permission.Context{Deny: []permission.Rule{{Tool: "write", Content: "rm:*"}}})
	resumed, err := strict.ResumeTurn(context.Background(), approved, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, resumed, resumed.Run(context.Background()))
	if r := resumed.Responses()[0]; r.Kind != KindDenied || r.Decision.Rule == nil || r.Decision.Rule.String() != "write(rm:*)" {
		t.Errorf("approved call under a new deny rule: kind %s, decision %+v", r.Kind, r.Decision)
	}

	bare := New(Options{})
	resumed, err = bare.ResumeTurn(context.Background(), approved, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, resumed, resumed.Run(context.Background()))
	if r := resumed.Responses()[0]; r.Kind != KindUnknownTool {
		t.Errorf("approved call of a tool gone: kind %s", r.Kind)
	}
	if runs.Load() != 0 {
		t.Errorf("write ran %d times", runs.Load())
	}
}

func TestResumeRefusesBadSnapshots(t *testing.T) {
	var runs atomic.Int32
	tk := snapshotToolkit(t, &runs, permission.Context{})
	turn, err := tk.NewTurn(context.Background(), "s", []Call{{ID: "a", Name: "read", Arguments: `{"cmd":"x"}`}, {ID: "b", Name: "write", Arguments: `{"cmd":"y"}`}}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, turn, turn.Run(context.Background()))
	good := roundTrip(t, turn.Snapshot())
	for name, spoil := range map[string]func(*TurnSnapshot){
		"version":       func(s *TurnSnapshot) { s.Version = 99 },
		"phase":         func(s *TurnSnapshot) { s.Calls[1].Phase = "running" },
		"batches":       func(s *TurnSnapshot) { s.Batches = [][2]int{{0, 1}} },
		"next batch":    func(s *TurnSnapshot) { s.NextBatch = 5 },
		"skipped call":  func(s *TurnSnapshot) { s.NextBatch = len(s.Batches) },
		"duplicate id":  func(s *TurnSnapshot) { s.Calls[1].Call.ID = "a" },
		"done, no resp": func(s *TurnSnapshot) { s.Calls[0].Response = nil },
		"deferred to ?": func(s *TurnSnapshot) { s.Calls[1].Phase, s.Calls[1].DeferredTo = "deferred", "zz" },
	} {
		bad := roundTrip(t, good)
		spoil(bad)
		if _, err := tk.ResumeTurn(context.Background(), bad, TurnOptions{}); !errors.Is(err, ErrBadSnapshot) {
			t.Errorf("%s: %v, want ErrBadSnapshot", name, err)
		}
	}
	if _, err := tk.ResumeTurn(context.Background(), good, TurnOptions{}); err != nil {
		t.Errorf("the unspoilt snapshot: %v", err)
	}
}

// TestEventJSON: events cross a wire with their kinds spelt out.
func TestEventJSON(t *testing.T) {
	data, err := json.Marshal(Event{Kind: EventConfirmation, CallID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"kind":"confirmation","call_id":"c"}` {
		t.Errorf("event JSON %s", data)
	}
	var back Event
	if err := json.Unmarshal(data, &back); err != nil || back.Kind != EventConfirmation {
		t.Errorf("back: %+v %v", back, err)
	}
	if EventResult.String() != "result" || EventKind(9).String() != "EventKind(9)" {
		t.Errorf("String: %s %s", EventResult, EventKind(9))
	}
	if err := json.Unmarshal([]byte(`{"kind":"nope"}`), &back); err == nil {
		t.Error("an unknown kind was accepted")
	}
	var a Approval
	if err := json.Unmarshal([]byte(`{"approve":true,"rules":["Bash(npm test:*)"]}`), &a); err != nil || !a.Approve || a.Rules[0].Tool != "Bash" || a.Rules[0].Content != "npm test:*" {
		t.Errorf("approval from JSON: %+v %v", a, err)
	}
}

// TestResumeEmptyInput: a call without arguments keeps its place: {} is
// an input, not a missing one.
func TestResumeEmptyInput(t *testing.T) {
	var runs atomic.Int32
	mk := func() *Toolkit {
		tk := New(Options{})
		mustRegister(t, tk, &testTool{spec: Spec{Name: "noargs"}, check: askAll, call: func(context.Context, Input) Stream {
			runs.Add(1)
			return Single(TextChunk("ran"))
		}})
		return tk
	}
	turn, err := mk().NewTurn(context.Background(), "s", []Call{{ID: "a", Name: "noargs", Arguments: `{}`}}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, turn, turn.Run(context.Background()))
	resumed, err := mk().ResumeTurn(context.Background(), roundTrip(t, turn.Snapshot()), TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := resumed.Confirm("a", Approval{Approve: true}); err != nil {
		t.Fatalf("confirming the resumed call: %v", err)
	}
	checkRun(t, resumed, resumed.Run(context.Background()))
	if runs.Load() != 1 || resumed.Responses()[0].Text() != "ran" {
		t.Errorf("runs %d, response %+v", runs.Load(), resumed.Responses())
	}
}

// TestResumeReleasesDeferred: a call deferred behind one that a new deny
// rule finishes on resume is checked on its own, not left waiting for an
// answer no one can give.
func TestResumeReleasesDeferred(t *testing.T) {
	var runs atomic.Int32
	calls := []Call{{ID: "a", Name: "write", Arguments: `{"cmd":"rm x"}`}, {ID: "b", Name: "write", Arguments: `{"cmd":"rm y"}`}}
	first := New(Options{})
	w := cmdTool("write", true, askAll)
	mustRegister(t, first, w)
	turn, err := first.NewTurn(context.Background(), "s", calls, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, turn, turn.Run(context.Background()))
	snap := roundTrip(t, turn.Snapshot())
	if snap.Calls[1].Phase != "deferred" || snap.Calls[1].DeferredTo != "a" {
		t.Fatalf("b: %+v, want deferred to a", snap.Calls[1])
	}
	second := snapshotToolkit(t, &runs, permission.Context{Deny: []permission.Rule{{Tool: "write", Content: "rm x"}}})
	resumed, err := second.ResumeTurn(context.Background(), snap, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, resumed, resumed.Run(context.Background()))
	if got := statuses(resumed); got[0] != StatusDone || got[1] != StatusNeedsConfirmation {
		t.Errorf("statuses %v, want a denied and b asking for itself", got)
	}
}

// TestResumeRefusesInconsistentSnapshots: what Run could not drive, or a
// response on a call that is not done, is a bad snapshot.
func TestResumeRefusesInconsistentSnapshots(t *testing.T) {
	var runs atomic.Int32
	tk := snapshotToolkit(t, &runs, permission.Context{})
	turn, err := tk.NewTurn(context.Background(), "s", []Call{
		{ID: "a", Name: "read", Arguments: `{"cmd":"x"}`}, {ID: "b", Name: "write", Arguments: `{"cmd":"y"}`},
		{ID: "c", Name: "write", Arguments: `{"cmd":"z"}`},
	}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, turn, turn.Run(context.Background()))
	good := roundTrip(t, turn.Snapshot())
	for name, spoil := range map[string]func(*TurnSnapshot){
		"sequential call in a shared batch": func(s *TurnSnapshot) { s.Calls[1].Parallel = false },
		"response on a waiting call": func(s *TurnSnapshot) {
			s.Calls[1].Response = &Response{State: StateSuccess, Content: []Block{TextBlock("forged")}}
		},
		"deferred to itself":       func(s *TurnSnapshot) { s.Calls[2].Phase, s.Calls[2].DeferredTo = "deferred", "c" },
		"deferred to a later call": func(s *TurnSnapshot) { s.Calls[1].Phase, s.Calls[1].DeferredTo = "deferred", "c" },
	} {
		bad := roundTrip(t, good)
		spoil(bad)
		if _, err := tk.ResumeTurn(context.Background(), bad, TurnOptions{}); !errors.Is(err, ErrBadSnapshot) {
			t.Errorf("%s: %v, want ErrBadSnapshot", name, err)
		}
	}
}

// validatedTool refuses inputs whose cmd is "bad" through its own check.
type validatedTool struct{ *testTool }

func (validatedTool) ValidateInput(in Input) error {
	if in.String("cmd") == "bad" {
		return errors.New("refused by the tool's own check")
	}
	return nil
}

// TestResumeRunsToolValidation: the tool's own input check runs again on
// resume, as it would for the model's call.
func TestResumeRunsToolValidation(t *testing.T) {
	var runs atomic.Int32
	plain := cmdTool("w", false, askAll)
	plain.call = func(context.Context, Input) Stream { runs.Add(1); return Single(TextChunk("ran")) }
	first := New(Options{})
	mustRegister(t, first, plain)
	turn, err := first.NewTurn(context.Background(), "s", []Call{{ID: "a", Name: "w", Arguments: `{"cmd":"bad"}`}}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, turn, turn.Run(context.Background()))
	if err := turn.Confirm("a", Approval{Approve: true}); err != nil {
		t.Fatal(err)
	}
	second := New(Options{})
	mustRegister(t, second, validatedTool{plain})
	resumed, err := second.ResumeTurn(context.Background(), roundTrip(t, turn.Snapshot()), TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, resumed, resumed.Run(context.Background()))
	if r := resumed.Responses()[0]; r.Kind != KindInvalidInput || runs.Load() != 0 {
		t.Errorf("kind %s, runs %d: the approved input the tool now refuses ran", r.Kind, runs.Load())
	}
}

// TestSubmitResultKind: the submitter says what the result is, not how
// the pipeline judged the call.
func TestSubmitResultKind(t *testing.T) {
	var runs atomic.Int32
	tk := snapshotToolkit(t, &runs, permission.Context{})
	turn, err := tk.NewTurn(context.Background(), "s", []Call{{ID: "x", Name: "ext", Arguments: `{"cmd":"c"}`}}, TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, turn, turn.Run(context.Background()))
	forged := permission.DenyDecision("no", "forged")
	if err := turn.SubmitResult("x", &Response{State: StateSuccess, Kind: KindDenied, Decision: &forged, Content: []Block{TextBlock("ok")}}); err != nil {
		t.Fatal(err)
	}
	r := turn.Responses()[0]
	if r.Kind != KindSuccess || r.Err() != nil || r.Decision == nil || r.Decision.Behavior != permission.Allow {
		t.Errorf("submitted result: kind %s, err %v, decision %+v", r.Kind, r.Err(), r.Decision)
	}
}
