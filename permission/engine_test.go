package permission

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// fakeSubject is a tool whose answers the test sets. Rules match when their
// content equals the input's "cmd" (or are tool-level).
type fakeSubject struct {
	name     string
	readOnly bool
	check    Decision
	checkErr error
	called   *bool
	foreign  map[string]Match // "Tool(content)" rules of other tools that hit
	maybe    bool             // its own content rules may match
}

func (f fakeSubject) Name() string                             { return f.name }
func (f fakeSubject) IsReadOnly(map[string]any, *Context) bool { return f.readOnly }
func (f fakeSubject) CheckPermissions(context.Context, map[string]any, *Context) (Decision, error) {
	if f.called != nil {
		*f.called = true
	}
	return f.check, f.checkErr
}
func (f fakeSubject) MatchRule(r Rule, in map[string]any, _ *Context) Match {
	if r.Tool != f.name {
		return f.foreign[r.String()]
	}
	if r.Content == "" || r.Content == in["cmd"] {
		return Matches
	}
	if f.maybe {
		return MayMatch
	}
	return NoMatch
}
func (f fakeSubject) CoveredBy(allow []Rule, in map[string]any, pc *Context) bool {
	for _, r := range allow {
		if r.Tool == f.name && f.MatchRule(r, in, pc) == Matches {
			return true
		}
	}
	return false
}
func (f fakeSubject) Suggestions(in map[string]any) []Rule {
	cmd, _ := in["cmd"].(string)
	return []Rule{{Tool: f.name, Content: cmd}, {Tool: f.name, Content: "never-covers-" + cmd}}
}

// TestEvaluateTable walks the reference's per-mode table: each row is one
// situation, each column the expected behaviour (and bypass immunity) in a
// mode.
func TestEvaluateTable(t *testing.T) {
	type want struct {
		b      Behavior
		immune bool
	}
	A, D, K, KI := want{b: Allow}, want{b: Deny}, want{b: Ask}, want{b: Ask, immune: true}
	rows := []struct {
		name  string
		subj  fakeSubject
		pc    Context
		modes map[Mode]want
	}{
		{
			name:  "deny rule wins over everything",
			subj:  fakeSubject{name: "T", readOnly: true, check: AllowDecision("")},
			pc:    Context{Deny: []Rule{{Tool: "T"}}, Allow: []Rule{{Tool: "T"}}},
			modes: map[Mode]want{ModeDefault: D, ModeAcceptEdits: D, ModeExplore: D, ModeBypass: D, ModeDontAsk: D},
		},
		{
			name:  "ask rule asks, dont_ask denies, bypass still asks",
			subj:  fakeSubject{name: "T", readOnly: true, check: AllowDecision("")},
			pc:    Context{Ask: []Rule{{Tool: "T"}}, Allow: []Rule{{Tool: "T"}}},
			modes: map[Mode]want{ModeDefault: K, ModeAcceptEdits: K, ModeExplore: K, ModeBypass: K, ModeDontAsk: D},
		},
		{
			name:  "read-only call is allowed everywhere",
			subj:  fakeSubject{name: "T", readOnly: true, check: DenyDecision("no", "")},
			modes: map[Mode]want{ModeDefault: A, ModeAcceptEdits: A, ModeExplore: A, ModeBypass: A, ModeDontAsk: A},
		},
		{
			name:  "tool allows",
			subj:  fakeSubject{name: "T", check: AllowDecision("")},
			modes: map[Mode]want{ModeDefault: A, ModeAcceptEdits: A, ModeExplore: D, ModeBypass: A, ModeDontAsk: A},
		},
		{
			name:  "tool denies, even under an allow rule",
			subj:  fakeSubject{name: "T", check: DenyDecision("no", "")},
			pc:    Context{Allow: []Rule{{Tool: "T"}}},
			modes: map[Mode]want{ModeDefault: D, ModeAcceptEdits: D, ModeExplore: D, ModeBypass: D, ModeDontAsk: D},
		},
		{
			name:  "safety ask beats allow rules except in bypass",
			subj:  fakeSubject{name: "T", check: SafetyAsk("danger", "")},
			pc:    Context{Allow: []Rule{{Tool: "T"}}},
			modes: map[Mode]want{ModeDefault: KI, ModeAcceptEdits: KI, ModeExplore: D, ModeBypass: A, ModeDontAsk: D},
		},
		{
			name:  "plain ask without rules falls back to the mode",
			subj:  fakeSubject{name: "T", check: AskDecision("sure?", "")},
			modes: map[Mode]want{ModeDefault: K, ModeAcceptEdits: K, ModeExplore: D, ModeBypass: A, ModeDontAsk: D},
		},
		{
			name:  "plain ask silenced by an allow rule (not in explore)",
			subj:  fakeSubject{name: "T", check: AskDecision("sure?", "")},
			pc:    Context{Allow: []Rule{{Tool: "T"}}},
			modes: map[Mode]want{ModeDefault: A, ModeAcceptEdits: A, ModeExplore: D, ModeBypass: A, ModeDontAsk: A},
		},
		{
			name:  "passthrough falls back to the mode",
			subj:  fakeSubject{name: "T", check: PassthroughDecision()},
			modes: map[Mode]want{ModeDefault: K, ModeAcceptEdits: K, ModeExplore: D, ModeBypass: A, ModeDontAsk: D},
		},
		{
			name:  "passthrough with a matching content rule",
			subj:  fakeSubject{name: "T", check: PassthroughDecision()},
			pc:    Context{Allow: []Rule{{Tool: "T", Content: "go"}}},
			modes: map[Mode]want{ModeDefault: A, ModeAcceptEdits: A, ModeExplore: D, ModeBypass: A, ModeDontAsk: A},
		},
		{
			name:  "rules of other tools do not allow",
			subj:  fakeSubject{name: "T", check: PassthroughDecision()},
			pc:    Context{Allow: []Rule{{Tool: "U"}}},
			modes: map[Mode]want{ModeDefault: K, ModeAcceptEdits: K, ModeExplore: D, ModeBypass: A, ModeDontAsk: D},
		},
		{
			name:  "a content rule that does not match does not deny",
			subj:  fakeSubject{name: "T", check: PassthroughDecision()},
			pc:    Context{Deny: []Rule{{Tool: "T", Content: "other"}}},
			modes: map[Mode]want{ModeDefault: K, ModeAcceptEdits: K, ModeExplore: D, ModeBypass: A, ModeDontAsk: D},
		},
		{
			name:  "a foreign deny rule the tool accepts denies",
			subj:  fakeSubject{name: "Bash", readOnly: true, foreign: map[string]Match{"Read(/secret)": Matches}},
			pc:    Context{Deny: []Rule{{Tool: "Read", Content: "/secret"}}},
			modes: map[Mode]want{ModeDefault: D, ModeAcceptEdits: D, ModeExplore: D, ModeBypass: D, ModeDontAsk: D},
		},
		{
			name:  "a foreign ask rule the tool accepts asks, also in bypass",
			subj:  fakeSubject{name: "Bash", readOnly: true, foreign: map[string]Match{"Edit(/x)": Matches}},
			pc:    Context{Ask: []Rule{{Tool: "Edit", Content: "/x"}}, Allow: []Rule{{Tool: "Bash"}}},
			modes: map[Mode]want{ModeDefault: K, ModeAcceptEdits: K, ModeExplore: K, ModeBypass: K, ModeDontAsk: D},
		},
		{
			name:  "a deny rule that may match asks in every mode, before allow rules and the read-only path",
			subj:  fakeSubject{name: "T", readOnly: true, check: AllowDecision(""), maybe: true},
			pc:    Context{Deny: []Rule{{Tool: "T", Content: "rm"}}, Allow: []Rule{{Tool: "T"}}},
			modes: map[Mode]want{ModeDefault: KI, ModeAcceptEdits: KI, ModeExplore: KI, ModeBypass: KI, ModeDontAsk: D},
		},
		{
			// Explore's deny wins over it for a call that may change
			// things (issue 27, item 4).
			name:  "an ask rule that may match asks in every mode but explore",
			subj:  fakeSubject{name: "T", check: AllowDecision(""), maybe: true},
			pc:    Context{Ask: []Rule{{Tool: "T", Content: "push"}}},
			modes: map[Mode]want{ModeDefault: KI, ModeAcceptEdits: KI, ModeExplore: D, ModeBypass: KI, ModeDontAsk: D},
		},
		{
			name:  "a deny rule that certainly matches wins over one that may",
			subj:  fakeSubject{name: "T", maybe: true},
			pc:    Context{Deny: []Rule{{Tool: "T", Content: "rm"}, {Tool: "T", Content: "go"}}},
			modes: map[Mode]want{ModeDefault: D, ModeAcceptEdits: D, ModeExplore: D, ModeBypass: D, ModeDontAsk: D},
		},
		{
			name:  "a protected path asks in every mode, as an immune ask",
			subj:  fakeSubject{name: "Write", check: AllowDecision(""), foreign: map[string]Match{"Edit(//srv/wasmtools.yaml)": Matches}},
			pc:    Context{Protected: []string{"/srv/wasmtools.yaml"}, Allow: []Rule{{Tool: "Write"}}},
			modes: map[Mode]want{ModeDefault: KI, ModeAcceptEdits: KI, ModeExplore: KI, ModeBypass: KI, ModeDontAsk: D},
		},
		{
			name:  "a failing check is a safety ask",
			subj:  fakeSubject{name: "T", checkErr: errors.New("plugin trapped")},
			pc:    Context{Allow: []Rule{{Tool: "T"}}},
			modes: map[Mode]want{ModeDefault: KI, ModeAcceptEdits: KI, ModeExplore: D, ModeBypass: A, ModeDontAsk: D},
		},
		{
			name:  "an unknown behaviour is a safety ask",
			subj:  fakeSubject{name: "T", check: Decision{Behavior: "maybe"}},
			modes: map[Mode]want{ModeDefault: KI, ModeAcceptEdits: KI, ModeExplore: D, ModeBypass: A, ModeDontAsk: D},
		},
	}
	in := map[string]any{"cmd": "go"}
	for _, row := range rows {
		for _, mode := range Modes {
			w, ok := row.modes[mode]
			if !ok {
				t.Fatalf("%s: no expectation for mode %s", row.name, mode)
			}
			pc := row.pc
			pc.Mode = mode
			d := Evaluate(context.Background(), row.subj, in, &pc)
			if d.Behavior != w.b || d.BypassImmune != w.immune {
				t.Errorf("%s, mode %s: got %s (immune %v), want %s (immune %v); reason %q",
					row.name, mode, d.Behavior, d.BypassImmune, w.b, w.immune, d.Reason)
			}
			if d.Behavior == Allow && len(d.Suggestions) > 0 {
				t.Errorf("%s, mode %s: ALLOW carries suggestions %v", row.name, mode, d.Suggestions)
			}
			// Suggestions are offered exactly where granting them would
			// take effect: never for an immune or rule-made ask, and
			// only the suggestion that covers the call otherwise.
			switch {
			case d.Behavior == Ask && (d.BypassImmune || strings.HasPrefix(d.Reason, "ask rule")):
				if len(d.Suggestions) != 0 {
					t.Errorf("%s, mode %s: ASK that no allow rule can silence suggests %v", row.name, mode, d.Suggestions)
				}
			case d.Behavior == Ask:
				if len(d.Suggestions) != 1 || d.Suggestions[0].Content != "go" {
					t.Errorf("%s, mode %s: suggestions %v, want only the one that covers the call", row.name, mode, d.Suggestions)
				}
			}
			if d.Behavior == Deny && d.Message == "" {
				t.Errorf("%s, mode %s: DENY without a message for the model", row.name, mode)
			}
		}
	}
}

func TestExploreNeverCallsTheToolCheck(t *testing.T) {
	called := false
	s := fakeSubject{name: "T", check: AllowDecision(""), called: &called}
	d := Evaluate(context.Background(), s, nil, &Context{Mode: ModeExplore, Allow: []Rule{{Tool: "T"}}})
	if d.Behavior != Deny {
		t.Fatalf("explore: %s, want deny", d.Behavior)
	}
	if called {
		t.Fatal("explore consulted the tool's own check")
	}
}

func TestEvaluateMessages(t *testing.T) {
	s := fakeSubject{name: "T", check: AskDecision("T wants to delete x", "")}
	d := Evaluate(context.Background(), s, nil, &Context{Mode: ModeDontAsk})
	if d.Behavior != Deny || !strings.Contains(d.Message, "T wants to delete x") || !strings.Contains(d.Message, "dont_ask") {
		t.Errorf("dont_ask message = %q: should carry the tool's reason and name the mode", d.Message)
	}
	d = Evaluate(context.Background(), s, nil, &Context{Mode: ModeDefault})
	if d.Message != "T wants to delete x" {
		t.Errorf("default ask message = %q, want the tool's", d.Message)
	}
	d = Evaluate(context.Background(), s, map[string]any{"cmd": "go"}, &Context{Deny: []Rule{{Tool: "T", Content: "go"}}})
	if !strings.Contains(d.Message, "T(go)") {
		t.Errorf("deny message = %q, want it to name the rule", d.Message)
	}
}

func TestContextDirAndClone(t *testing.T) {
	pc := &Context{WorkingDirs: []string{"/a", "/b"}}
	if pc.Dir() != "/a" {
		t.Errorf("Dir() = %q, want first working dir", pc.Dir())
	}
	pc.Cwd = "/c"
	if pc.Dir() != "/c" {
		t.Errorf("Dir() = %q, want cwd", pc.Dir())
	}
	cl := pc.Clone()
	cl.Allow = append(cl.Allow, Rule{Tool: "X"})
	cl.WorkingDirs[0] = "/z"
	if len(pc.Allow) != 0 || pc.WorkingDirs[0] != "/a" {
		t.Error("Clone shares slices with the original")
	}
}

// sharedSuggester hands out one list of suggestions to every call.
type sharedSuggester struct {
	fakeSubject
	list []Rule
}

func (s sharedSuggester) Suggestions(map[string]any) []Rule { return s.list }

// TestSuggestionsAreTheCallersCopy: a caller may change the suggestions
// of an ask without changing what the tool offers next time.
func TestSuggestionsAreTheCallersCopy(t *testing.T) {
	s := sharedSuggester{fakeSubject{name: "T", check: PassthroughDecision()}, []Rule{{Tool: "T", Content: "x"}}}
	in := map[string]any{"cmd": "x"}
	for range 2 {
		d := Evaluate(context.Background(), s, in, &Context{Mode: ModeDefault})
		if d.Behavior != Ask || len(d.Suggestions) != 1 || d.Suggestions[0] != (Rule{Tool: "T", Content: "x"}) {
			t.Fatalf("decision %+v, want an ask suggesting T(x)", d)
		}
		d.Suggestions[0].Content = "changed"
	}
	if s.list[0].Content != "x" {
		t.Errorf("the tool's own list was changed through a decision: %v", s.list)
	}
}

// scribbler covers a call when a rule's content is in covers, checks
// that it is handed exactly the rules in force and one suggestion, then
// changes the slice it was handed, as a subject may.
type scribbler struct {
	fakeSubject
	t       *testing.T
	inForce []Rule
	covers  map[string]bool
}

func (s scribbler) CoveredBy(allow []Rule, _ map[string]any, _ *Context) bool {
	s.t.Helper()
	if len(allow) != len(s.inForce)+1 || !slices.Equal(allow[:len(s.inForce)], s.inForce) {
		s.t.Errorf("CoveredBy got %v, want %v and one suggestion", allow, s.inForce)
	}
	covered := false
	for _, r := range allow {
		covered = covered || s.covers[r.Content]
	}
	for i := range allow {
		allow[i] = Rule{Tool: "scribbled"}
	}
	return covered
}

// TestEffective: the suggestions kept are those that alone, on top of
// the rules in force, cover the call, in their order, whatever the
// subject does with the slice it is handed.
func TestEffective(t *testing.T) {
	r := func(c string) Rule { return Rule{Tool: "T", Content: c} }
	for _, c := range []struct {
		allow, suggested, want []Rule
	}{
		{nil, []Rule{r("a")}, []Rule{r("a")}},
		{nil, []Rule{r("x")}, []Rule{}},
		{nil, []Rule{r("x"), r("a"), r("y"), r("b")}, []Rule{r("a"), r("b")}},
		{nil, []Rule{r("a"), r("b"), r("c")}, []Rule{r("a"), r("b"), r("c")}},
		{[]Rule{r("p"), r("q")}, []Rule{r("a"), r("x"), r("b")}, []Rule{r("a"), r("b")}},
		{[]Rule{r("p")}, []Rule{r("x"), r("y")}, []Rule{}},
	} {
		pc := &Context{Allow: slices.Clone(c.allow)}
		s := scribbler{fakeSubject{name: "T"}, t, c.allow, map[string]bool{"a": true, "b": true, "c": true}}
		got := effective(s, c.suggested, nil, pc)
		if got == nil || !slices.Equal(got, c.want) {
			t.Errorf("allow %v, suggested %v: kept %v, want %v", c.allow, c.suggested, got, c.want)
		}
		if !slices.Equal(pc.Allow, c.allow) {
			t.Errorf("the rules in force changed: %v", pc.Allow)
		}
	}
}

// TestShared: within one decision an answer is computed once per key,
// beyond the memo's inline room too; outside a decision, every time.
func TestShared(t *testing.T) {
	pc := (&Context{}).forDecision()
	calls := map[int]int{}
	for range 3 {
		for k := range 4 {
			v := pc.Shared(k, func() any { calls[k]++; return k * 10 })
			if v != k*10 {
				t.Fatalf("Shared(%d) = %v, want %d", k, v, k*10)
			}
		}
	}
	for k := range 4 {
		if calls[k] != 1 {
			t.Errorf("key %d computed %d times in one decision, want once", k, calls[k])
		}
	}
	n := 0
	for _, c := range []*Context{nil, {}} {
		c.Shared(0, func() any { n++; return nil })
		c.Shared(0, func() any { n++; return nil })
	}
	if n != 4 {
		t.Errorf("outside a decision: computed %d times for 4 calls", n)
	}
}
