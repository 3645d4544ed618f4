package permission

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Context is the permission configuration a call is judged under.
type Context struct {
	Mode Mode
	// WorkingDirs are the absolute directories edits may auto-allow in
	// (ACCEPT_EDITS). They are explicit: the process working directory is
	// never implied.
	WorkingDirs []string
	// Cwd is the directory relative paths resolve against when the tool has
	// no directory of its own. Empty means the first working directory.
	Cwd string
	// Allow, Deny and Ask are the rules in force, for all tools.
	Allow, Deny, Ask []Rule
	// Protected are absolute paths (files, or folders with everything
	// below them) of the host's own configuration: the configuration
	// file, served plugin and skill folders. A call that may write one
	// asks in every mode, bypass included, and is denied in dont_ask: a
	// change there changes what the host itself runs. They act as ask
	// rules Edit(//PATH) that a request's own rules cannot drop.
	Protected []string

	// memo is set on the copy Evaluate makes for one decision (see Shared).
	memo *decisionMemo
}

// decisionMemo holds what the checks of one decision share: a few
// entries (one per tool analysis), searched in order.
type decisionMemo struct {
	mu      sync.Mutex
	entries []memoEntry
	// inline backs entries for the first answer: a decision mostly
	// shares one analysis (the Bash tool's), and with room for one the
	// context copy and its memo take 224 bytes rather than 256.
	inline [1]memoEntry
}

type memoEntry struct{ key, val any }

// get returns the answer remembered for key; m.mu must be held.
func (m *decisionMemo) get(key any) (any, bool) {
	for _, e := range m.entries {
		if e.key == key {
			return e.val, true
		}
	}
	return nil, false
}

// Shared returns compute's answer for key, computed once per decision:
// Evaluate hands the subject's methods a copy of the context made for
// that one decision, so a tool whose read-only verdict, own check and
// rule coverage all rest on one costly analysis (Bash) runs it once.
// Outside Evaluate (a nil context, or one the caller made) it calls
// compute every time. The answers are dropped with the copy when the
// decision ends: the file system, and so the analysis, may differ at the
// next call. key must be comparable and name the tool and everything the
// answer depends on besides the context; compute must not change what
// it returns to one caller after another got it.
func (c *Context) Shared(key any, compute func() any) any {
	if c == nil || c.memo == nil {
		return compute()
	}
	m := c.memo
	m.mu.Lock()
	v, ok := m.get(key)
	m.mu.Unlock()
	if ok {
		return v
	}
	v = compute() // unlocked: compute may ask for other keys
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.get(key); ok {
		return old
	}
	if m.entries == nil {
		m.entries = m.inline[:0]
	}
	m.entries = append(m.entries, memoEntry{key, v})
	return v
}

// forDecision returns the copy of c the steps of one decision share.
func (c *Context) forDecision() *Context {
	if c == nil {
		return nil
	}
	// The copy and its memo in one allocation.
	d := &struct {
		pc   Context
		memo decisionMemo
	}{pc: *c}
	d.pc.memo = &d.memo
	return &d.pc
}

// Clone returns a copy whose slices can be appended to without touching c.
// The copy shares no decision's answers: it may outlive the decision.
func (c *Context) Clone() *Context {
	out := *c
	out.memo = nil
	out.WorkingDirs = append([]string(nil), c.WorkingDirs...)
	out.Allow = append([]Rule(nil), c.Allow...)
	out.Deny = append([]Rule(nil), c.Deny...)
	out.Ask = append([]Rule(nil), c.Ask...)
	out.Protected = append([]string(nil), c.Protected...)
	return &out
}

// Dir returns the directory relative paths resolve against: Cwd, else the
// first working directory, else "".
func (c *Context) Dir() string {
	if c.Cwd != "" {
		return c.Cwd
	}
	if len(c.WorkingDirs) > 0 {
		return c.WorkingDirs[0]
	}
	return ""
}

// Subject is a tool as the engine sees it, bound to nothing but its name:
// every method receives the parsed call input.
type Subject interface {
	// Name is the tool's name; rules name tools by it.
	Name() string
	// IsReadOnly reports whether this call changes nothing outside the
	// session (read-only tools and coordination tools such as task lists)
	// and reads nothing sensitive, judged where the call runs.
	IsReadOnly(input map[string]any, pc *Context) bool
	// CheckPermissions is the tool's own verdict. An error is treated as a
	// bypass-immune ASK: a check that fails never allows.
	CheckPermissions(ctx context.Context, input map[string]any, pc *Context) (Decision, error)
	// MatchRule reports whether a deny or ask rule hits this call. The rule
	// may name another tool (a Bash command reading a path denied to Read,
	// an Edit rule for a Write). MayMatch says the call may do what the
	// rule names and the tool cannot tell (code it cannot see): the engine
	// then asks, in every mode.
	MatchRule(rule Rule, input map[string]any, pc *Context) Match
	// CoveredBy reports whether the allow rules, taken together, allow this
	// call. The rules given are every allow rule in force: the subject
	// uses those that apply to it (its own, and those of tools whose rules
	// it shares, as Write and Edit do). The slice is the engine's, reused
	// from call to call: the subject must not keep it.
	CoveredBy(allow []Rule, input map[string]any, pc *Context) bool
	// Suggestions are the rules offered with an ASK.
	Suggestions(input map[string]any) []Rule
}

// Match says how a rule relates to a call.
type Match int

// The answers of Subject.MatchRule.
const (
	// NoMatch: the rule does not apply to the call.
	NoMatch Match = iota
	// Matches: the rule applies.
	Matches
	// MayMatch: the call may do what the rule names and the analysis
	// cannot tell (a command holding code it cannot see, a path known only
	// at run time). A deny or ask rule that may match asks, in every mode.
	MayMatch
)

// Hit reports whether a match is certain or possible: what deny and ask
// rules must treat as a hit.
func (m Match) Hit() bool { return m != NoMatch }

// MatchOf turns a yes/no answer into a Match.
func MatchOf(b bool) Match {
	if b {
		return Matches
	}
	return NoMatch
}

// ProtectedRules returns the ask rules that stand for pc.Protected.
func (c *Context) ProtectedRules() []Rule {
	out := make([]Rule, 0, len(c.Protected))
	for _, p := range c.Protected {
		if strings.HasPrefix(p, "/") {
			out = append(out, Rule{Tool: "Edit", Content: "/" + p, Host: true})
		}
	}
	return out
}

// Escalator is implemented by subjects whose calls can ask to run with
// less protection than usual: a shell command outside the OS sandbox.
type Escalator interface {
	// Escalation returns what the call would run without its usual
	// protection, as a question for the user, or "" when it asks for
	// nothing of the kind.
	Escalation(input map[string]any, pc *Context) string
}

// Evaluate decides whether the call may run. It never returns Passthrough.
// See the package documentation for the order of the steps.
//
// A call that asks for an escalation (see [Escalator]) is never allowed
// without the user: what the steps decide becomes a bypass-immune ASK
// carrying the escalation's question, in every mode, bypass included; a
// DENY stays a DENY, and the modes that never ask (dont_ask) or allow
// nothing that changes anything (explore) deny it.
func Evaluate(ctx context.Context, s Subject, input map[string]any, pc *Context) Decision {
	pc = pc.forDecision()
	d := evaluate(ctx, s, input, pc)
	e, ok := s.(Escalator)
	if !ok || d.Behavior == Deny {
		return d
	}
	why := e.Escalation(input, pc)
	if why == "" {
		return d
	}
	name := s.Name()
	switch pc.Mode {
	case ModeDontAsk:
		return Decision{Behavior: Deny, Message: deniedNoAsk(name, why), Reason: "escalation in mode dont_ask"}
	case ModeExplore:
		return Decision{
			Behavior: Deny,
			Message:  fmt.Sprintf("%s was not run: it asks to run with less protection than usual, and the permission mode explore allows only calls that change nothing. %s", name, why),
			Reason:   "escalation in mode explore",
		}
	}
	msg := why
	if d.Behavior == Ask && d.Message != "" {
		msg += "\nAlso: " + d.Message
	}
	return Decision{Behavior: Ask, Message: msg, Reason: "escalation (" + name + " asks to run with less protection)", Suggestions: []Rule{}, BypassImmune: true}
}

// evaluate takes the steps of the package documentation.
func evaluate(ctx context.Context, s Subject, input map[string]any, pc *Context) Decision {
	name := s.Name()
	mode := pc.Mode
	if mode == "" {
		mode = ModeDefault
	}

	// 1. Deny rules, of this tool or of another one the tool says applies.
	// A rule that only may match is remembered: it asks below, after the
	// rules that certainly match.
	var uncertain *Rule
	uncertainDeny := false
	for i := range pc.Deny {
		r := pc.Deny[i] // copied where it is kept: the loop allocates nothing
		switch s.MatchRule(r, input, pc) {
		case Matches:
			return Decision{
				Behavior: Deny,
				Message:  fmt.Sprintf("Permission to use %s was denied by the rule %s. Do not retry this call; choose another approach or ask the user.", name, r),
				Reason:   "deny rule " + r.String(),
				Rule:     rulePtr(r),
			}
		case MayMatch:
			if uncertain == nil {
				uncertain, uncertainDeny = rulePtr(r), true
			}
		}
	}

	// 2. Ask rules (the host's protected paths among them), of this tool
	// or of another one the tool says applies.
	protected := pc.ProtectedRules()
	asks := pc.Ask
	if len(protected) > 0 {
		asks = append(append([]Rule(nil), pc.Ask...), protected...)
	}
	for i := range asks {
		r := asks[i]
		m := s.MatchRule(r, input, pc)
		if m == MayMatch && uncertain == nil {
			uncertain = rulePtr(r)
		}
		if m != Matches {
			continue
		}
		why := fmt.Sprintf("The rule %s asks before %s runs.", r, name)
		if i >= len(pc.Ask) {
			why = fmt.Sprintf("%s would change %s, part of the host's own configuration (what it serves and how it decides); only the user can approve that.", name, strings.TrimPrefix(r.Content, "/"))
		}
		if mode == ModeDontAsk {
			return Decision{
				Behavior: Deny,
				Message:  fmt.Sprintf("%s needs the user's approval (%s) and the permission mode dont_ask never asks. Choose another approach.", name, why),
				Reason:   "ask rule " + r.String() + " in mode dont_ask",
				Rule:     rulePtr(r),
			}
		}
		// No allow rule can silence an ask rule: suggesting one would
		// change nothing.
		return Decision{Behavior: Ask, Message: why, Reason: "ask rule " + r.String(), Suggestions: []Rule{}, BypassImmune: i >= len(pc.Ask), Rule: rulePtr(r)}
	}
	if uncertain != nil && mode == ModeExplore && !s.IsReadOnly(input, pc) {
		// Explore's deny wins: a call that may change things does not
		// run in explore, whatever a rule might say of it.
		return exploreDenial(name)
	}
	if uncertain != nil {
		verb := "asks about"
		if uncertainDeny {
			verb = "forbids"
		}
		why := fmt.Sprintf("%s may do what the rule %s %s, and its analysis cannot tell (it runs code or names paths known only when it runs). Approve only if you know it does not.", name, *uncertain, verb)
		if mode == ModeDontAsk {
			return Decision{Behavior: Deny, Message: deniedNoAsk(name, why), Reason: "rule " + uncertain.String() + " may match, in mode dont_ask", Rule: uncertain}
		}
		return Decision{Behavior: Ask, Message: why, Reason: "rule " + uncertain.String() + " may match", Suggestions: []Rule{}, BypassImmune: true, Rule: uncertain}
	}

	// 3. Read-only fast path.
	if s.IsReadOnly(input, pc) {
		return Decision{Behavior: Allow, Reason: "read-only call"}
	}

	// 4. The tool's own check.
	var toolAsk *Decision
	if mode != ModeExplore {
		d, err := s.CheckPermissions(ctx, input, pc)
		if err != nil {
			d = SafetyAsk(fmt.Sprintf("The permission check of %s failed (%v); approve only if you trust this call.", name, err),
				"tool permission check failed")
		}
		switch d.Behavior {
		case Allow, Deny, Ask, Passthrough, "":
		default:
			d = SafetyAsk(fmt.Sprintf("%s answered an unknown permission behaviour %q; approve only if you trust this call.", name, d.Behavior),
				"invalid tool decision")
		}
		switch d.Behavior {
		case Allow:
			d.Suggestions = nil
			if d.Reason == "" {
				d.Reason = "allowed by the tool"
			}
			return d
		case Deny:
			d.Suggestions = nil
			if d.Reason == "" {
				d.Reason = "denied by the tool"
			}
			return d
		case Ask:
			switch {
			case mode == ModeBypass:
				// BYPASS ignores every ASK of the tool, safety asks included.
			case d.BypassImmune && mode == ModeDontAsk:
				return Decision{
					Behavior: Deny,
					Message:  deniedNoAsk(name, d.Message),
					Reason:   "safety check in mode dont_ask: " + d.Reason,
				}
			case d.BypassImmune:
				// Allow rules cannot silence a safety ask: suggesting one
				// would change nothing.
				d.Suggestions = []Rule{}
				return d
			default:
				toolAsk = &d
			}
		}
	}

	// 5. Allow rules (not consulted in EXPLORE).
	if mode != ModeExplore {
		if len(pc.Allow) > 0 && s.CoveredBy(pc.Allow, input, pc) {
			d := Decision{Behavior: Allow, Reason: "allow rules"}
			if r := decidingAllowRule(s, input, pc); r != nil {
				d.Reason, d.Rule = "allow rule "+r.String(), r
			}
			return d
		}
	}

	// 6. The mode's fallback.
	switch mode {
	case ModeBypass:
		return Decision{Behavior: Allow, Reason: "mode bypass"}
	case ModeExplore:
		return exploreDenial(name)
	case ModeDontAsk:
		msg := ""
		if toolAsk != nil {
			msg = toolAsk.Message
		}
		return Decision{Behavior: Deny, Message: deniedNoAsk(name, msg), Reason: "mode dont_ask"}
	}
	if toolAsk != nil {
		d := *toolAsk
		if d.Suggestions == nil {
			d.Suggestions = s.Suggestions(input)
		}
		d.Suggestions = effective(s, d.Suggestions, input, pc)
		if d.Message == "" {
			d.Message = name + " wants to run; allow it?"
		}
		return d
	}
	return Decision{
		Behavior:    Ask,
		Message:     name + " wants to run; allow it?",
		Reason:      "no rule allows this call",
		Suggestions: effective(s, s.Suggestions(input), input, pc),
	}
}

// exploreDenial denies a call that may change things in the explore
// mode.
func exploreDenial(name string) Decision {
	return Decision{
		Behavior: Deny,
		Message:  name + " may change things and the permission mode explore allows only read-only calls. Use read-only tools, or ask the user to change the mode.",
		Reason:   "mode explore",
	}
}

// rulePtr returns a copy of r to keep in a Decision: taking the address
// of a loop variable would move it to the heap at every iteration.
func rulePtr(r Rule) *Rule { return &r }

// decidingAllowRule returns the one allow rule that covers the call on
// its own, or nil when it takes several together. Called only once the
// rules are known to cover the call, so the cost falls on allowed calls.
func decidingAllowRule(s Subject, input map[string]any, pc *Context) *Rule {
	if len(pc.Allow) == 1 {
		r := pc.Allow[0]
		return &r
	}
	for i := range pc.Allow {
		if s.CoveredBy([]Rule{pc.Allow[i]}, input, pc) { // a copy: the subject may keep or change it
			return rulePtr(pc.Allow[i])
		}
	}
	return nil
}

// effective keeps the suggestions that would take effect: granted on top
// of the rules in force, each one alone makes the allow rules cover this
// very call. "Always allow" must never be offered for a rule that would
// change nothing.
func effective(s Subject, suggested []Rule, input map[string]any, pc *Context) []Rule {
	if len(suggested) == 0 {
		return []Rule{}
	}
	// One allocation: the suggestions kept, followed by the rules in
	// force and the suggestion judged (handed to the subject), which
	// move up a place whenever one is kept. The answer is a copy, for the
	// caller to change: a tool may hand out one list to every call.
	n := len(pc.Allow) + 1
	buf := make([]Rule, len(suggested)-1+n)
	kept := 0
	for _, r := range suggested {
		allow := buf[kept : kept+n : kept+n]
		copy(allow, pc.Allow) // again: a subject must not change them, but may
		allow[n-1] = r
		if s.CoveredBy(allow, input, pc) {
			buf[kept] = r
			kept++
		}
	}
	return buf[:kept:kept]
}

func deniedNoAsk(name, why string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s was not run: it needs the user's approval and the permission mode dont_ask never asks.", name)
	if why != "" {
		b.WriteString(" ")
		b.WriteString(why)
	}
	b.WriteString(" Choose another approach.")
	return b.String()
}
