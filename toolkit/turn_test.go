package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
)

func TestInputGate(t *testing.T) {
	tk := New(Options{})
	// Read-only, so that repaired arguments run (TestRepairedArguments
	// covers the tools that refuse them).
	tool := cmdTool("run", true, allowAll)
	tool.spec.ReadOnly = true
	mustRegister(t, tk, tool)
	tests := []struct {
		name     string
		args     string
		state    State
		repaired bool
		text     string
	}{
		{"valid", `{"cmd":"a"}`, StateSuccess, false, "run:a"},
		{"single quotes repaired", `{'cmd': 'a'}`, StateSuccess, true, "run:a"},
		{"trailing comma repaired", `{"cmd":"a",}`, StateSuccess, true, "run:a"},
		{"unclosed repaired", `{"cmd":"a"`, StateSuccess, true, "run:a"},
		{"not an object", `["cmd"]`, StateError, false, "JSON object"},
		{"schema: missing property", `{}`, StateError, false, "cmd"},
		{"schema: wrong type", `{"cmd": 3}`, StateError, false, "/cmd"},
		{"trailing garbage repaired or refused", `{"cmd":"a"} x`, "", false, ""},
		{"invalid UTF-8 refused, not turned into U+FFFD", "{\"cmd\":\"a\xff\"}", StateError, false, "not valid UTF-8"},
	}
	for _, tt := range tests {
		resp := runTurn(t, tk, TurnOptions{}, Call{Name: "run", Arguments: tt.args}).Responses()[0]
		if tt.state == "" {
			if resp.State == StateSuccess && !resp.Repaired {
				t.Errorf("%s: trailing data accepted without repair", tt.name)
			}
			continue
		}
		if resp.State != tt.state || resp.Repaired != tt.repaired {
			t.Errorf("%s: state %s repaired %v, want %s %v (%s)", tt.name, resp.State, resp.Repaired, tt.state, tt.repaired, resp.Text())
		}
		if !strings.Contains(resp.Text(), tt.text) {
			t.Errorf("%s: text %q lacks %q", tt.name, resp.Text(), tt.text)
		}
	}
}

func TestSameInputForCheckAndCall(t *testing.T) {
	tk := New(Options{})
	var checked, called uintptr
	tool := cmdTool("run", true, nil)
	tool.check = func(in Input) permission.Decision {
		checked = reflect.ValueOf(in).Pointer()
		return permission.AllowDecision("")
	}
	tool.call = func(_ context.Context, in Input) Stream {
		called = reflect.ValueOf(in).Pointer()
		return Single(TextChunk("x"))
	}
	mustRegister(t, tk, tool)
	runTurn(t, tk, TurnOptions{}, Call{Name: "run", Arguments: `{"cmd":"a"}`})
	if checked == 0 || checked != called {
		t.Fatalf("permission check saw input %x, call saw %x: want the same parsed value", checked, called)
	}
}

func TestConfirmation(t *testing.T) {
	safety := func(in Input) permission.Decision {
		if strings.Contains(in.String("cmd"), "rm") {
			return permission.SafetyAsk("dangerous", "test")
		}
		return permission.AskDecision("may I?", "test")
	}
	tests := []struct {
		name      string
		deny      []permission.Rule
		approval  Approval
		wantState State
		wantText  string
		// wantAskAgain: the edited input is asked about again.
		wantAskAgain bool
	}{
		{name: "approve", approval: Approval{Approve: true}, wantState: StateSuccess, wantText: "run:build"},
		{name: "reject", approval: Approval{Approve: false, Message: "not now"}, wantState: StateDenied, wantText: "not now"},
		{name: "approve edited", approval: Approval{Approve: true, Arguments: `{"cmd":"test"}`}, wantState: StateSuccess, wantText: "run:test"},
		{name: "edited input hits a deny rule", deny: []permission.Rule{{Tool: "run", Content: "curl:*"}},
			approval: Approval{Approve: true, Arguments: `{"cmd":"curl evil"}`}, wantState: StateDenied, wantText: "run(curl:*)"},
		{name: "edited input fails validation", approval: Approval{Approve: true, Arguments: `{"cmd":1}`}, wantState: StateError, wantText: "/cmd"},
		{name: "edited input needs a safety ask", approval: Approval{Approve: true, Arguments: `{"cmd":"rm -rf x"}`}, wantAskAgain: true},
	}
	for _, tt := range tests {
		tk := New(Options{Permission: permission.Context{Deny: tt.deny}})
		mustRegister(t, tk, cmdTool("run", false, safety))
		rec := &recorder{}
		turn := runTurn(t, tk, TurnOptions{OnEvent: rec.on}, Call{ID: "c1", Name: "run", Arguments: `{"cmd":"build"}`})
		out := turn.Outcomes()[0]
		if out.Status != StatusNeedsConfirmation {
			t.Fatalf("%s: status %s, want needs_confirmation", tt.name, out.Status)
		}
		if c := out.Confirmation; c.Decision.Message != "may I?" || len(c.Decision.Suggestions) != 1 || c.Decision.Suggestions[0].String() != "run(build:*)" {
			t.Fatalf("%s: confirmation %+v", tt.name, c)
		}
		if err := turn.Confirm("c1", tt.approval); err != nil {
			t.Fatal(err)
		}
		if err := turn.Run(context.Background()); err != nil && !errors.Is(err, ErrWaiting) {
			t.Fatal(err)
		}
		out = turn.Outcomes()[0]
		if tt.wantAskAgain {
			if out.Status != StatusNeedsConfirmation || !out.Confirmation.Decision.BypassImmune {
				t.Errorf("%s: %+v, want a new safety confirmation", tt.name, out)
			}
			if n := len(rec.kinds(EventConfirmation)); n != 2 {
				t.Errorf("%s: %d confirmation events, want 2", tt.name, n)
			}
			continue
		}
		if out.Status != StatusDone || out.Response.State != tt.wantState || !strings.Contains(out.Response.Text(), tt.wantText) {
			t.Errorf("%s: %s %s %q, want done %s containing %q", tt.name, out.Status, out.Response.State, out.Response.Text(), tt.wantState, tt.wantText)
		}
	}
}

func TestConfirmErrors(t *testing.T) {
	tk := New(Options{})
	mustRegister(t, tk, cmdTool("run", false, allowAll))
	turn := runTurn(t, tk, TurnOptions{}, Call{ID: "a", Name: "run", Arguments: `{"cmd":"x"}`})
	if err := turn.Confirm("a", Approval{Approve: true}); !errors.Is(err, ErrNotWaiting) {
		t.Errorf("confirming a finished call: %v", err)
	}
	if err := turn.Confirm("zzz", Approval{}); err == nil {
		t.Error("confirming an unknown call succeeded")
	}
	if _, err := tk.NewTurn(context.Background(), "s", []Call{{ID: "x", Name: "run"}, {ID: "x", Name: "run"}}, TurnOptions{}); err == nil {
		t.Error("duplicate call ids accepted")
	}
}

func TestGrantedRulesLastForTheSession(t *testing.T) {
	tk := New(Options{})
	mustRegister(t, tk, cmdTool("run", false, askAll))
	turn := runTurn(t, tk, TurnOptions{}, Call{ID: "1", Name: "run", Arguments: `{"cmd":"npm test"}`})
	d := turn.Outcomes()[0].Confirmation.Decision
	if err := turn.Confirm("1", Approval{Approve: true, Rules: d.Suggestions}); err != nil {
		t.Fatal(err)
	}
	_ = turn.Run(context.Background())
	// The same session is no longer asked about npm; another session is.
	if s := statuses(runTurn(t, tk, TurnOptions{}, Call{Name: "run", Arguments: `{"cmd":"npm run x"}`})); s[0] != StatusDone {
		t.Errorf("granted rule not applied: %v", s)
	}
	if s := statuses(runTurn(t, tk, TurnOptions{}, Call{Name: "run", Arguments: `{"cmd":"make"}`})); s[0] != StatusNeedsConfirmation {
		t.Errorf("granted rule covers too much: %v", s)
	}
	other, _ := tk.NewTurn(context.Background(), "other", []Call{{Name: "run", Arguments: `{"cmd":"npm test"}`}}, TurnOptions{})
	_ = other.Run(context.Background())
	if s := statuses(other); s[0] != StatusNeedsConfirmation {
		t.Errorf("another session inherited a granted rule: %v", s)
	}
}

func TestDenied(t *testing.T) {
	tk := New(Options{Permission: permission.Context{Mode: permission.ModeExplore}})
	mustRegister(t, tk, cmdTool("run", false, allowAll))
	resp := runTurn(t, tk, TurnOptions{}, Call{Name: "run", Arguments: `{"cmd":"x"}`}).Responses()[0]
	if resp.State != StateDenied || !strings.Contains(resp.Text(), "explore") {
		t.Fatalf("explore: %s %q", resp.State, resp.Text())
	}
}

func TestExternalTool(t *testing.T) {
	tk := New(Options{})
	ext := &testTool{spec: Spec{Name: "AskUser", External: true, Coordination: true, InputSchema: []byte(cmdSchema)}}
	mustRegister(t, tk, ext)
	mustRegister(t, tk, cmdTool("after", false, allowAll))
	rec := &recorder{}
	turn := runTurn(t, tk, TurnOptions{OnEvent: rec.on},
		Call{ID: "q", Name: "AskUser", Arguments: `{"cmd":"which?"}`},
		Call{ID: "n", Name: "after", Arguments: `{"cmd":"x"}`})
	if got := statuses(turn); !slices.Equal(got, []Status{StatusNeedsExternal, StatusPending}) {
		t.Fatalf("statuses %v", got)
	}
	if ev := rec.kinds(EventExternal); len(ev) != 1 || ev[0].External.Input.String("cmd") != "which?" {
		t.Fatalf("external events %+v", ev)
	}
	if err := turn.SubmitResult("q", &Response{Content: []Block{TextBlock("blue")}, Metadata: map[string]any{"answers": 1}}); err != nil {
		t.Fatal(err)
	}
	_ = turn.Run(context.Background())
	if !turn.Done() {
		t.Fatalf("not done: %v", statuses(turn))
	}
	r := turn.Responses()
	if r[0].Text() != "blue" || r[0].State != StateSuccess || r[0].CallID != "q" || r[0].Metadata["answers"] != 1 {
		t.Errorf("external response %+v", r[0])
	}
	if r[1].Text() != "after:x" {
		t.Errorf("next call %+v", r[1])
	}
}

func TestCancellation(t *testing.T) {
	tk := New(Options{})
	started := make(chan struct{})
	slow := &testTool{spec: Spec{Name: "slow"}, check: allowAll, call: func(ctx context.Context, _ Input) Stream {
		return func(yield func(*Chunk, error) bool) {
			if !yield(TextChunk("partial"), nil) {
				return
			}
			close(started)
			<-ctx.Done()
			yield(nil, ctx.Err())
		}
	}}
	mustRegister(t, tk, slow)
	mustRegister(t, tk, cmdTool("next", false, allowAll))
	ctx, cancel := context.WithCancel(context.Background())
	turn, _ := tk.NewTurn(ctx, "s", []Call{{Name: "slow"}, {Name: "next", Arguments: `{"cmd":"x"}`}}, TurnOptions{})
	go func() { <-started; cancel() }()
	if err := turn.Run(ctx); err != nil && !errors.Is(err, ErrWaiting) {
		t.Fatal(err)
	}
	r := turn.Responses()
	if len(r) != 2 || r[0].State != StateInterrupted || !strings.Contains(r[0].Text(), "partial") {
		t.Fatalf("cancelled call: %+v", r[0])
	}
	if r[1].State != StateInterrupted {
		t.Fatalf("call after the cancelled one: %s, want interrupted", r[1].State)
	}
}

func TestToolFailures(t *testing.T) {
	tk := New(Options{})
	mustRegister(t, tk, &testTool{spec: Spec{Name: "panics"}, check: allowAll, call: func(context.Context, Input) Stream {
		panic("boom")
	}})
	mustRegister(t, tk, &testTool{spec: Spec{Name: "panicsLater"}, check: allowAll, call: func(context.Context, Input) Stream {
		return func(yield func(*Chunk, error) bool) {
			yield(TextChunk("a"), nil)
			var m map[string]int
			//lint:ignore SA5000 the runtime panic is what this test checks
			m["x"] = 1
		}
	}})
	mustRegister(t, tk, &testTool{spec: Spec{Name: "fails"}, check: allowAll, call: func(context.Context, Input) Stream {
		return Fail(errors.New("disk full"))
	}})
	mustRegister(t, tk, &testTool{spec: Spec{Name: "errChunk"}, check: allowAll, call: func(context.Context, Input) Stream {
		return func(yield func(*Chunk, error) bool) {
			_ = yield(ErrorChunk("bad"), nil) && yield(&Chunk{State: StateSuccess, Content: []Block{TextBlock("!")}}, nil)
		}
	}})
	mustRegister(t, tk, &testTool{spec: Spec{Name: "checkPanics"}, check: func(Input) permission.Decision { panic("in check") }})
	tests := map[string][]string{
		"panics":      {"boom"},
		"panicsLater": {"a", "nil map"},
		"fails":       {"disk full"},
		"errChunk":    {"bad!"},
	}
	for name, want := range tests {
		resp := runTurn(t, tk, TurnOptions{}, Call{Name: name}).Responses()[0]
		if resp.State != StateError {
			t.Errorf("%s: state %s, want error", name, resp.State)
		}
		for _, w := range want {
			if !strings.Contains(resp.Text(), w) {
				t.Errorf("%s: %q lacks %q", name, resp.Text(), w)
			}
		}
	}
	// A panicking permission check fails closed: a safety ask.
	out := runTurn(t, tk, TurnOptions{}, Call{Name: "checkPanics"}).Outcomes()[0]
	if out.Status != StatusNeedsConfirmation || !out.Confirmation.Decision.BypassImmune {
		t.Errorf("panicking check: %+v", out)
	}
}

func TestBatchingRunsSafeCallsInParallel(t *testing.T) {
	tk := New(Options{})
	// Two calls that each wait for the other: they finish only if they run
	// at the same time.
	var arrived sync.WaitGroup
	arrived.Add(2)
	rendezvous := &testTool{spec: Spec{Name: "meet", ConcurrencySafe: true}, check: allowAll, call: func(ctx context.Context, _ Input) Stream {
		return func(yield func(*Chunk, error) bool) {
			arrived.Done()
			done := make(chan struct{})
			go func() { arrived.Wait(); close(done) }()
			select {
			case <-done:
				yield(TextChunk(RuntimeFrom(ctx).CallID), nil)
			case <-time.After(10 * time.Second):
				yield(nil, errors.New("the other call never ran alongside"))
			}
		}
	}}
	mustRegister(t, tk, rendezvous)
	resp := runTurn(t, tk, TurnOptions{}, Call{ID: "x", Name: "meet"}, Call{ID: "y", Name: "meet"}).Responses()
	if len(resp) != 2 || resp[0].Text() != "x" || resp[1].Text() != "y" {
		t.Fatalf("responses %v %v", resp[0], resp[1])
	}
}

func TestBatchingOrderAndSequencing(t *testing.T) {
	tk := New(Options{})
	var mu sync.Mutex
	var order []string
	log := func(name string, safe bool, check func(Input) permission.Decision) *testTool {
		tt := cmdTool(name, safe, check)
		tt.call = func(_ context.Context, in Input) Stream {
			mu.Lock()
			order = append(order, in.String("cmd"))
			mu.Unlock()
			return Single(TextChunk(in.String("cmd")))
		}
		return tt
	}
	mustRegister(t, tk, log("safe", true, allowAll))
	mustRegister(t, tk, log("seq", false, allowAll))
	mustRegister(t, tk, log("seqAsk", false, askAll))
	calls := []Call{
		{ID: "1", Name: "safe", Arguments: `{"cmd":"s1"}`},
		{ID: "2", Name: "safe", Arguments: `{"cmd":"s2"}`},
		{ID: "3", Name: "seq", Arguments: `{"cmd":"q3"}`},
		{ID: "4", Name: "seqAsk", Arguments: `{"cmd":"q4"}`},
		{ID: "5", Name: "seq", Arguments: `{"cmd":"q5"}`},
		{ID: "6", Name: "safe", Arguments: `{"cmd":"s6"}`},
	}
	turn := runTurn(t, tk, TurnOptions{}, calls...)
	want := []Status{StatusDone, StatusDone, StatusDone, StatusNeedsConfirmation, StatusPending, StatusPending}
	if got := statuses(turn); !slices.Equal(got, want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	if err := turn.Confirm("4", Approval{Approve: true}); err != nil {
		t.Fatal(err)
	}
	_ = turn.Run(context.Background())
	if !turn.Done() {
		t.Fatalf("not done: %v", statuses(turn))
	}
	for i, r := range turn.Responses() {
		if r.CallID != calls[i].ID {
			t.Errorf("response %d is for call %s", i, r.CallID)
		}
	}
	// s1 and s2 ran in parallel (any order), then the rest in order.
	if !slices.Equal(order[2:], []string{"q3", "q4", "q5", "s6"}) {
		t.Errorf("execution order %v", order)
	}
}

func TestParallelBatchDedupesAsks(t *testing.T) {
	check := func(in Input) permission.Decision {
		if strings.HasPrefix(in.String("cmd"), "rm") {
			return permission.SafetyAsk("dangerous", "test")
		}
		return permission.AskDecision("may I?", "test")
	}
	tests := []struct {
		name string
		// answer to call 1
		approval Approval
		// statuses after the first Run and after answering call 1
		first, second []Status
	}{
		{
			name:     "always: the covered call runs without asking",
			approval: Approval{Approve: true, Rules: []permission.Rule{{Tool: "run", Content: "npm:*"}}},
			first:    []Status{StatusNeedsConfirmation, StatusPending, StatusNeedsConfirmation, StatusNeedsConfirmation, StatusDone},
			second:   []Status{StatusDone, StatusDone, StatusNeedsConfirmation, StatusNeedsConfirmation, StatusDone},
		},
		{
			name:     "once: the covered call asks for itself",
			approval: Approval{Approve: true},
			first:    []Status{StatusNeedsConfirmation, StatusPending, StatusNeedsConfirmation, StatusNeedsConfirmation, StatusDone},
			second:   []Status{StatusDone, StatusNeedsConfirmation, StatusNeedsConfirmation, StatusNeedsConfirmation, StatusDone},
		},
		{
			name:     "reject: the covered call asks for itself",
			approval: Approval{Approve: false},
			first:    []Status{StatusNeedsConfirmation, StatusPending, StatusNeedsConfirmation, StatusNeedsConfirmation, StatusDone},
			second:   []Status{StatusDone, StatusNeedsConfirmation, StatusNeedsConfirmation, StatusNeedsConfirmation, StatusDone},
		},
	}
	for _, tt := range tests {
		tk := New(Options{})
		mustRegister(t, tk, cmdTool("run", true, check))
		mustRegister(t, tk, cmdTool("free", true, allowAll))
		rec := &recorder{}
		turn := runTurn(t, tk, TurnOptions{OnEvent: rec.on},
			Call{ID: "1", Name: "run", Arguments: `{"cmd":"npm test"}`},
			Call{ID: "2", Name: "run", Arguments: `{"cmd":"npm run lint"}`}, // covered by 1's suggestion npm:*
			Call{ID: "3", Name: "run", Arguments: `{"cmd":"make"}`},         // not covered
			Call{ID: "4", Name: "run", Arguments: `{"cmd":"rm -rf x"}`},     // safety: always asks
			Call{ID: "5", Name: "free", Arguments: `{"cmd":"go"}`},          // allowed: runs meanwhile
		)
		if got := statuses(turn); !slices.Equal(got, tt.first) {
			t.Errorf("%s: first run %v, want %v", tt.name, got, tt.first)
		}
		if n := len(rec.kinds(EventConfirmation)); n != 3 {
			t.Errorf("%s: %d confirmations, want 3", tt.name, n)
		}
		if err := turn.Confirm("1", tt.approval); err != nil {
			t.Fatal(err)
		}
		_ = turn.Run(context.Background())
		if got := statuses(turn); !slices.Equal(got, tt.second) {
			t.Errorf("%s: after answer %v, want %v", tt.name, got, tt.second)
		}
	}
}

func TestSafetyAsksNeverDeduped(t *testing.T) {
	tk := New(Options{})
	mustRegister(t, tk, cmdTool("run", true, func(Input) permission.Decision { return permission.SafetyAsk("danger", "") }))
	turn := runTurn(t, tk, TurnOptions{},
		Call{Name: "run", Arguments: `{"cmd":"rm a"}`},
		Call{Name: "run", Arguments: `{"cmd":"rm b"}`})
	if got := statuses(turn); !slices.Equal(got, []Status{StatusNeedsConfirmation, StatusNeedsConfirmation}) {
		t.Fatalf("safety asks: %v", got)
	}
}

func TestStreamingEvents(t *testing.T) {
	tk := New(Options{})
	mustRegister(t, tk, &testTool{spec: Spec{Name: "stream"}, check: allowAll, call: func(context.Context, Input) Stream {
		return func(yield func(*Chunk, error) bool) {
			for _, s := range []string{"a", "b", "c"} {
				if !yield(TextChunk(s), nil) {
					return
				}
			}
			yield(&Chunk{Metadata: map[string]any{"exit_code": 0}, State: StateSuccess, Last: true}, nil)
		}
	}})
	rec := &recorder{}
	turn := runTurn(t, tk, TurnOptions{OnEvent: rec.on}, Call{Name: "stream"})
	if n := len(rec.kinds(EventChunk)); n != 4 {
		t.Errorf("%d chunk events, want 4", n)
	}
	res := rec.kinds(EventResult)
	if len(res) != 1 || res[0].Response != turn.Responses()[0] {
		t.Fatalf("result events %+v", res)
	}
	if r := res[0].Response; r.Text() != "abc" || r.Metadata["exit_code"] != 0 || r.State != StateSuccess {
		t.Errorf("folded %+v", r)
	}
	if rec.events[len(rec.events)-1].Kind != EventResult {
		t.Error("the final response is not the last event")
	}
}

func TestOffloadLargeResults(t *testing.T) {
	dir := t.TempDir()
	tk := New(Options{MaxResultChars: 100, OffloadDir: dir})
	big := strings.Repeat("é", 250) // multi-byte: cut on characters
	mustRegister(t, tk, &testTool{spec: Spec{Name: "big"}, check: allowAll, call: func(context.Context, Input) Stream {
		return Single(&Chunk{Content: []Block{TextBlock(big), DataBlock("image/png", []byte{1, 2})}})
	}})
	resp := runTurn(t, tk, TurnOptions{}, Call{Name: "big"}).Responses()[0]
	path, _ := resp.Metadata["full_output_path"].(string)
	if path == "" || !strings.HasPrefix(path, dir) {
		t.Fatalf("no offload path in %+v", resp.Metadata)
	}
	full, err := os.ReadFile(path)
	if err != nil || string(full) != big {
		t.Fatalf("offloaded file: %v, %d bytes", err, len(full))
	}
	text := resp.Text()
	if !strings.HasPrefix(text, strings.Repeat("é", 100)+"\n") || strings.Contains(text, strings.Repeat("é", 101)) {
		t.Errorf("cut text does not keep exactly 100 characters: %q", text[:40])
	}
	if !strings.Contains(text, path) || !strings.Contains(text, "Read") {
		t.Errorf("the note does not tell the model where the rest is: %q", text[200:])
	}
	if len(resp.Content) != 2 || resp.Content[1].Type != BlockData {
		t.Errorf("data blocks lost: %+v", resp.Content)
	}

	small := New(Options{MaxResultChars: -1})
	mustRegister(t, small, &testTool{spec: Spec{Name: "big"}, check: allowAll, call: func(context.Context, Input) Stream {
		return Single(TextChunk(big))
	}})
	if r := runTurn(t, small, TurnOptions{}, Call{Name: "big"}).Responses()[0]; r.Text() != big {
		t.Error("MaxResultChars < 0 still cut")
	}
}

func TestSessionsAreIsolatedUnderConcurrency(t *testing.T) {
	tk := groupKit(t)
	var wg sync.WaitGroup
	var failures atomic.Int32
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := string(rune('a' + i))
			group := []string{"web", "db"}[i%2]
			other := []string{"db", "web"}[i%2]
			tool := map[string]string{"web": "fetch", "db": "query"}
			for range 20 {
				turn, err := tk.NewTurn(context.Background(), id, []Call{
					{Name: ResetToolsName, Arguments: `{"` + group + `": true}`},
					{Name: tool[group], Arguments: `{"cmd":"x"}`},
					{Name: tool[other], Arguments: `{"cmd":"x"}`},
				}, TurnOptions{})
				if err != nil {
					failures.Add(1)
					return
				}
				_ = turn.Run(context.Background())
				r := turn.Responses()
				if r[1].State != StateSuccess || r[2].State != StateError {
					failures.Add(1)
				}
				sess, _ := tk.Store().Session(context.Background(), id)
				_, _ = sess.Tasks().Create(context.Background(), Task{Subject: id})
			}
		}()
	}
	wg.Wait()
	if failures.Load() != 0 {
		t.Fatalf("%d turns saw another session's groups", failures.Load())
	}
	for i := range 8 {
		sess, _ := tk.Store().Session(context.Background(), string(rune('a'+i)))
		tasks, _ := sess.Tasks().List(context.Background())
		if len(tasks) != 20 || tasks[0].ID != "1" || tasks[19].ID != "20" {
			t.Fatalf("session %d: %d tasks", i, len(tasks))
		}
		for _, task := range tasks {
			if task.Subject != string(rune('a'+i)) {
				t.Fatalf("session %d holds a task of another session", i)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	tk := groupKit(t)
	mustRegister(t, tk, cmdTool("ask", false, askAll))
	ctx := context.Background()
	d, err := tk.Check(ctx, "s", Call{Name: "ask", Arguments: `{"cmd":"go build"}`}, CheckOptions{})
	if err != nil || d.Behavior != permission.Ask || d.Suggestions[0].String() != "ask(go:*)" {
		t.Fatalf("check: %+v %v", d, err)
	}
	d, err = tk.Check(ctx, "s", Call{Name: "ask", Arguments: `{"cmd":"go build"}`},
		CheckOptions{Permission: &permission.Context{Allow: []permission.Rule{{Tool: "ask", Content: "go:*"}}}})
	if err != nil || d.Behavior != permission.Allow {
		t.Fatalf("check with rule: %+v %v", d, err)
	}
	d, err = tk.Check(ctx, "s", Call{Name: "ask", Arguments: `{"cmd":"x"}`},
		CheckOptions{Permission: &permission.Context{Deny: []permission.Rule{{Tool: "ask"}}}})
	if err != nil || d.Behavior != permission.Deny {
		t.Fatalf("check with deny: %+v %v", d, err)
	}
	for _, c := range []Call{{Name: "nosuch"}, {Name: "ask", Arguments: `{}`}, {Name: "ask", Arguments: `[1]`}} {
		var ce *CallError
		if _, err := tk.Check(ctx, "s", c, CheckOptions{}); !errors.As(err, &ce) || ce.Tool != c.Name || ce.Message == "" {
			t.Errorf("check %+v: error %v, want a *CallError", c, err)
		}
	}
	if _, err := New(Options{}).Check(ctx, "s", Call{Name: "x"}, CheckOptions{}); err == nil || !strings.Contains(err.Error(), "no tools are available") {
		t.Errorf("empty toolkit: %v", err)
	}
}

// rangeTool checks what its schema cannot: from <= to.
type rangeTool struct{ *testTool }

func (rangeTool) ValidateInput(in Input) error {
	from, _ := in.Int("from")
	to, _ := in.Int("to")
	if from > to {
		return errors.New("from must not be after to")
	}
	return nil
}

func TestInputValidator(t *testing.T) {
	checked := false
	tool := rangeTool{&testTool{spec: Spec{Name: "span"}, check: func(Input) permission.Decision {
		checked = true
		return permission.AllowDecision("")
	}}}
	tk := New(Options{})
	mustRegister(t, tk, tool)
	r := runTurn(t, tk, TurnOptions{}, Call{Name: "span", Arguments: `{"from": 5, "to": 1}`}).Responses()[0]
	if r.State != StateError || !strings.Contains(r.Text(), "from must not be after to") || checked {
		t.Fatalf("invalid input: %s %q, permission checked %v", r.State, r.Text(), checked)
	}
	r = runTurn(t, tk, TurnOptions{}, Call{Name: "span", Arguments: `{"from": 1, "to": 5}`}).Responses()[0]
	if r.State != StateSuccess || !checked {
		t.Fatalf("valid input: %s %q", r.State, r.Text())
	}
}

// panickyMatcher panics in its rule matcher: the engine must fail closed.
type panickyMatcher struct{ *testTool }

func (panickyMatcher) IsReadOnly(Input) bool { panic("read-only check exploded") }

func TestPanicsInPermissionMethodsFailClosed(t *testing.T) {
	tk := New(Options{Permission: permission.Context{Allow: []permission.Rule{{Tool: "p"}}}})
	mustRegister(t, tk, panickyMatcher{&testTool{spec: Spec{Name: "p"}, check: allowAll}})
	out := runTurn(t, tk, TurnOptions{}, Call{Name: "p"}).Outcomes()[0]
	if out.Status != StatusNeedsConfirmation || !out.Confirmation.Decision.BypassImmune {
		t.Fatalf("%+v", out)
	}
}

// TestOffloadBounded: saved outputs live in a folder per session, the
// oldest go first past the cap, a session's go when it ends, and a
// result its source can serve again is not saved at all.
func TestOffloadBounded(t *testing.T) {
	dir := t.TempDir()
	tk := New(Options{MaxResultChars: 10, OffloadDir: dir, MaxOffloadBytes: 250})
	mustRegister(t, tk, &testTool{spec: Spec{Name: "big"}, check: allowAll, call: func(_ context.Context, in Input) Stream {
		c := &Chunk{Content: []Block{TextBlock(strings.Repeat("x", 100))}}
		if in.Bool("from_file") {
			c.Metadata = map[string]any{MetaSourcePath: "/src/file.txt"}
		}
		return Single(c)
	}})
	run := func(session string, args string) *Response {
		turn, err := tk.NewTurn(context.Background(), session, []Call{{Name: "big", Arguments: args}}, TurnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := turn.Run(context.Background()); err != nil && !errors.Is(err, ErrWaiting) {
			t.Fatal(err)
		}
		return turn.Responses()[0]
	}
	var paths []string
	for range 4 {
		p, _ := run("s1", `{}`).Metadata["full_output_path"].(string)
		if !strings.HasPrefix(p, dir+"/s1/") {
			t.Fatalf("saved at %q, want under the session's folder", p)
		}
		paths = append(paths, p)
	}
	// 4 x 100 bytes past a 250-byte cap: the two oldest are gone.
	for i, p := range paths {
		_, err := os.Stat(p)
		if gone := err != nil; gone != (i < 2) {
			t.Errorf("saved output %d: gone=%v", i, gone)
		}
	}
	other, _ := run("s2", `{}`).Metadata["full_output_path"].(string)
	tk.EndSession("s1")
	if _, err := os.Stat(dir + "/s1"); err == nil {
		t.Error("the ended session's folder is still there")
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("another session's output went with it")
	}
	resp := run("s2", `{"from_file": true}`)
	if _, saved := resp.Metadata["full_output_path"]; saved || !strings.Contains(resp.Text(), "/src/file.txt") {
		t.Errorf("a re-readable result was saved, or the note does not name its source: %q %v", resp.Text(), resp.Metadata)
	}
}

// TestViewCacheBounded: schema-only tools of request views are kept
// compiled, but not without bound: a caller sending a new schema on
// every step does not grow the toolkit forever.
func TestViewCacheBounded(t *testing.T) {
	tk := New(Options{})
	first := tk.viewEntry(Spec{Name: "ext", InputSchema: json.RawMessage(`{"type":"object"}`)})
	if again := tk.viewEntry(Spec{Name: "ext", InputSchema: json.RawMessage(`{"type":"object"}`)}); again != first {
		t.Error("the same schema-only tool was compiled twice")
	}
	for i := range 3 * maxViewCache {
		tk.viewEntry(Spec{Name: "ext", InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","description":"%d"}`, i))})
	}
	tk.viewMu.Lock()
	n := len(tk.viewCache)
	tk.viewMu.Unlock()
	if n > maxViewCache {
		t.Errorf("%d schema-only tools kept, want at most %d", n, maxViewCache)
	}
}

// TestCheckSchemaOwnsItsBytes: a request's tool schema is read when the
// request is checked; changing the caller's buffer afterwards changes
// nothing (the schema is compiled lazily, from the toolkit's own copy).
func TestCheckSchemaOwnsItsBytes(t *testing.T) {
	tk := New(Options{})
	const schema = `{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`
	buf := []byte(schema)
	pc := &permission.Context{Mode: permission.ModeBypass}
	check := func(schema []byte, args string) error {
		v := &View{External: []Spec{{Name: "ext", InputSchema: json.RawMessage(schema)}}}
		_, err := tk.Check(context.Background(), "s", Call{Name: "ext", Arguments: args}, CheckOptions{View: v, Permission: pc})
		return err
	}
	if err := check(buf, `{"n":1}`); err != nil {
		t.Fatal(err)
	}
	copy(buf, `{"type":"object","properties":{"m":{"type":"integer"}},"additionalProperties":true }`)
	if err := check([]byte(schema), `{"n":"x"}`); err == nil || !strings.Contains(err.Error(), "/n") {
		t.Errorf("input {\"n\":\"x\"} against the original schema: error %v, want one about /n", err)
	}
}

// runtimeProbe checks, from inside Check, the context its permission
// check gets.
type runtimeProbe struct {
	*testTool
	got func(ctx context.Context)
}

func (p runtimeProbe) CheckPermissions(ctx context.Context, in Input, pc *permission.Context) (permission.Decision, error) {
	p.got(ctx)
	return permission.PassthroughDecision(), nil
}

// TestCheckRuntimeContext: the permission check of a Check sees the
// call's Runtime, the caller's values and deadline, and its cancellation,
// through contexts derived from it too.
func TestCheckRuntimeContext(t *testing.T) {
	type key struct{}
	base, cancel := context.WithTimeout(context.WithValue(context.Background(), key{}, "v"), time.Minute)
	var seen bool
	probe := runtimeProbe{&testTool{spec: Spec{Name: "probe"}}, func(ctx context.Context) {
		seen = true
		rt := RuntimeFrom(ctx)
		if rt == nil || rt.Tool != "probe" || rt.SessionID != "s" || rt.CallID != "c1" || rt.Permission == nil {
			t.Errorf("runtime %+v", rt)
		}
		if ctx.Value(key{}) != "v" {
			t.Error("the caller's value is lost")
		}
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the caller's deadline is lost")
		}
		child, stop := context.WithCancel(ctx)
		defer stop()
		if RuntimeFrom(child) != rt {
			t.Error("a derived context carries another runtime")
		}
		cancel()
		select {
		case <-child.Done():
		case <-time.After(10 * time.Second):
			t.Error("cancelling the caller's context did not reach a context derived in the check")
		}
	}}
	tk := New(Options{})
	mustRegister(t, tk, probe)
	if _, err := tk.Check(base, "s", Call{ID: "c1", Name: "probe", Arguments: `{}`}, CheckOptions{}); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatal("the permission check did not run")
	}
}
