package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
)

// testTool is a tool whose behaviour each test sets.
type testTool struct {
	spec    Spec
	check   func(Input) permission.Decision
	call    func(context.Context, Input) Stream
	match   func(content string, in Input) bool
	suggest func(Input) []permission.Rule
}

func (t *testTool) Spec() Spec { return t.spec }

func (t *testTool) CheckPermissions(_ context.Context, in Input, _ *permission.Context) (permission.Decision, error) {
	if t.check == nil {
		return permission.PassthroughDecision(), nil
	}
	return t.check(in), nil
}

func (t *testTool) Call(ctx context.Context, in Input) Stream {
	if t.call == nil {
		return Single(&Chunk{Content: []Block{TextBlock("ok")}})
	}
	return t.call(ctx, in)
}

func (t *testTool) MatchRule(content string, in Input, _ *permission.Context) permission.Match {
	if t.match == nil {
		return permission.MatchOf(content == "")
	}
	return permission.MatchOf(t.match(content, in))
}

func (t *testTool) Suggestions(in Input) []permission.Rule {
	if t.suggest == nil {
		return DefaultSuggestions(t.spec.Name)
	}
	return t.suggest(in)
}

// cmdSchema is an input schema with one required string "cmd".
const cmdSchema = `{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`

// cmdTool is a tool taking {"cmd": ...}; rules match "prefix:*" against
// cmd, and it suggests "firstword:*".
func cmdTool(name string, safe bool, check func(Input) permission.Decision) *testTool {
	return &testTool{
		spec:  Spec{Name: name, Description: name + " tool", InputSchema: json.RawMessage(cmdSchema), ConcurrencySafe: safe},
		check: check,
		call: func(_ context.Context, in Input) Stream {
			return Single(&Chunk{Content: []Block{TextBlock(name + ":" + in.String("cmd"))}})
		},
		match: func(content string, in Input) bool {
			if content == "" {
				return true
			}
			prefix, ok := strings.CutSuffix(content, ":*")
			if !ok {
				return content == in.String("cmd")
			}
			return strings.HasPrefix(in.String("cmd"), prefix)
		},
		suggest: func(in Input) []permission.Rule {
			w, _, _ := strings.Cut(in.String("cmd"), " ")
			return []permission.Rule{{Tool: name, Content: w + ":*"}}
		},
	}
}

func askAll(Input) permission.Decision   { return permission.AskDecision("may I?", "test") }
func allowAll(Input) permission.Decision { return permission.AllowDecision("test") }

func mustRegister(t testing.TB, tk *Toolkit, tool Tool, opts ...RegisterOption) {
	t.Helper()
	if err := tk.Register(tool, opts...); err != nil {
		t.Fatalf("register %s: %v", tool.Spec().Name, err)
	}
}

// recorder collects a turn's events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) on(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *recorder) kinds(kind EventKind) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, ev := range r.events {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// runTurn runs calls in a new turn of session "s" and returns it.
func runTurn(t testing.TB, tk *Toolkit, opts TurnOptions, calls ...Call) *Turn {
	t.Helper()
	turn, err := tk.NewTurn(context.Background(), "s", calls, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, turn, turn.Run(context.Background()))
	return turn
}

// checkRun checks what Run said against the turn's state: nil when
// every call is done, a *WaitingError listing exactly the calls that wait
// otherwise.
func checkRun(t testing.TB, turn *Turn, err error) {
	t.Helper()
	if err == nil {
		if !turn.Done() {
			t.Fatalf("Run returned nil with calls not done: %v", statuses(turn))
		}
		return
	}
	var w *WaitingError
	if !errors.As(err, &w) || !errors.Is(err, ErrWaiting) {
		t.Fatalf("Run: %v, want nil or a *WaitingError", err)
	}
	var asks, ext []string
	for _, o := range turn.Outcomes() {
		switch o.Status {
		case StatusNeedsConfirmation:
			asks = append(asks, o.Call.ID)
		case StatusNeedsExternal:
			ext = append(ext, o.Call.ID)
		}
	}
	var gotAsks, gotExt []string
	for _, c := range w.Confirmations {
		gotAsks = append(gotAsks, c.CallID)
	}
	for _, x := range w.External {
		gotExt = append(gotExt, x.CallID)
	}
	if !slices.Equal(asks, gotAsks) || !slices.Equal(ext, gotExt) || len(asks)+len(ext) == 0 || w.Turn != turn {
		t.Fatalf("Run's WaitingError lists confirmations %v and external %v; the turn waits for %v and %v", gotAsks, gotExt, asks, ext)
	}
}

func statuses(turn *Turn) []Status {
	var out []Status
	for _, o := range turn.Outcomes() {
		out = append(out, o.Status)
	}
	return out
}
