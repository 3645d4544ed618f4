package permission

import (
	"context"
	"fmt"
	"strings"
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
}

// Clone returns a copy whose slices can be appended to without touching c.
func (c *Context) Clone() *Context {
	out := *c
	out.WorkingDirs = append([]string(nil), c.WorkingDirs...)
	out.Allow = append([]Rule(nil), c.Allow...)
	out.Deny = append([]Rule(nil), c.Deny...)
	out.Ask = append([]Rule(nil), c.Ask...)
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
	// session (read-only tools and coordination tools such as task lists).
	IsReadOnly(input map[string]any) bool
	// CheckPermissions is the tool's own verdict. An error is treated as a
	// bypass-immune ASK: a check that fails never allows.
	CheckPermissions(ctx context.Context, input map[string]any, pc *Context) (Decision, error)
	// MatchRule reports whether a deny or ask rule hits this call. The rule
	// may name another tool (a Bash command reading a path denied to Read).
	MatchRule(rule Rule, input map[string]any, pc *Context) bool
	// CoveredBy reports whether the allow rules, taken together, allow this
	// call. All the rules given name this tool.
	CoveredBy(allow []Rule, input map[string]any, pc *Context) bool
	// Suggestions are the rules offered with an ASK.
	Suggestions(input map[string]any) []Rule
}

// Evaluate decides whether the call may run. It never returns Passthrough.
// See the package documentation for the order of the steps.
func Evaluate(ctx context.Context, s Subject, input map[string]any, pc *Context) Decision {
	name := s.Name()
	mode := pc.Mode
	if mode == "" {
		mode = ModeDefault
	}

	// 1. Deny rules, of this tool or of another one the tool says applies.
	for _, r := range pc.Deny {
		if s.MatchRule(r, input, pc) {
			return Decision{
				Behavior: Deny,
				Message:  fmt.Sprintf("Permission to use %s was denied by the rule %s. Do not retry this call; choose another approach or ask the user.", name, r),
				Reason:   "deny rule " + r.String(),
			}
		}
	}

	// 2. Ask rules of this tool.
	for _, r := range pc.Ask {
		if r.Tool != name || !s.MatchRule(r, input, pc) {
			continue
		}
		if mode == ModeDontAsk {
			return Decision{
				Behavior: Deny,
				Message:  fmt.Sprintf("%s needs the user's approval (rule %s) and the permission mode dont_ask never asks. Choose another approach.", name, r),
				Reason:   "ask rule " + r.String() + " in mode dont_ask",
			}
		}
		return Decision{
			Behavior:    Ask,
			Message:     fmt.Sprintf("The rule %s asks before %s runs.", r, name),
			Reason:      "ask rule " + r.String(),
			Suggestions: s.Suggestions(input),
		}
	}

	// 3. Read-only fast path.
	if s.IsReadOnly(input) {
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
				if d.Suggestions == nil {
					d.Suggestions = s.Suggestions(input)
				}
				return d
			default:
				toolAsk = &d
			}
		}
	}

	// 5. Allow rules (not consulted in EXPLORE).
	if mode != ModeExplore {
		var own []Rule
		for _, r := range pc.Allow {
			if r.Tool == name {
				own = append(own, r)
			}
		}
		if len(own) > 0 && s.CoveredBy(own, input, pc) {
			return Decision{Behavior: Allow, Reason: "allow rule"}
		}
	}

	// 6. The mode's fallback.
	switch mode {
	case ModeBypass:
		return Decision{Behavior: Allow, Reason: "mode bypass"}
	case ModeExplore:
		return Decision{
			Behavior: Deny,
			Message:  fmt.Sprintf("%s may change things and the permission mode explore allows only read-only calls. Use read-only tools, or ask the user to change the mode.", name),
			Reason:   "mode explore",
		}
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
		if d.Message == "" {
			d.Message = fmt.Sprintf("%s wants to run; allow it?", name)
		}
		return d
	}
	return Decision{
		Behavior:    Ask,
		Message:     fmt.Sprintf("%s wants to run; allow it?", name),
		Reason:      "no rule allows this call",
		Suggestions: s.Suggestions(input),
	}
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
