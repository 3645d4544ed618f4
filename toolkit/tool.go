package toolkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wasmtools/wasmtools/permission"
)

// SourceKind says where a tool comes from.
type SourceKind string

// The tool sources.
const (
	SourceBuiltin  SourceKind = "builtin"
	SourceWasm     SourceKind = "wasm"
	SourceMCP      SourceKind = "mcp"
	SourceFunction SourceKind = "function"
	SourceExternal SourceKind = "external"
	SourceMeta     SourceKind = "meta"
)

// Source names where a tool comes from: its kind and, for plugins and MCP
// servers, the plugin or server name.
type Source struct {
	Kind SourceKind `json:"kind"`
	Name string     `json:"name,omitempty"`
}

func (s Source) String() string {
	if s.Name == "" {
		return string(s.Kind)
	}
	return string(s.Kind) + ":" + s.Name
}

// Spec describes a tool to the model and to the host.
type Spec struct {
	// Name is unique in a toolkit. Models accept [A-Za-z0-9_-]{1,64}.
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is a JSON Schema for an object; nil means an object with
	// any properties.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// OutputSchema, when set, is a JSON Schema for an object: the
	// Response.Structured of a successful call (MCP's outputSchema and
	// structuredContent).
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`

	// ConcurrencySafe tools may run in parallel with each other.
	ConcurrencySafe bool `json:"concurrency_safe,omitempty"`
	// ReadOnly is the default per-call read-only verdict: a read-only call
	// changes nothing and is allowed without asking in every mode.
	ReadOnly bool `json:"read_only,omitempty"`
	// Coordination tools change only the session's own state (task lists,
	// active groups, skill reading): they are allowed in every mode,
	// EXPLORE included, unless a deny or ask rule names them or the
	// tool's own per-call verdict (ReadOnlyChecker) says a call is not
	// read-only.
	Coordination bool `json:"coordination,omitempty"`
	// External tools are executed by someone else: a call suspends with an
	// external-execution request until its result is submitted.
	External bool `json:"external,omitempty"`
	// StateInjected tools read or change the session state (the Runtime
	// in their context carries it).
	StateInjected bool `json:"state_injected,omitempty"`

	Source Source `json:"source"`
}

// Tool is the contract every tool satisfies. Implementations must be safe
// for concurrent use: one tool serves every session.
//
// A Tool may also implement [ReadOnlyChecker], [RuleMatcher], [Suggester],
// [RulesCoverer], [ForeignRuleMatcher] and [Escalator]; where it does not, the toolkit
// uses the defaults documented on each. Every tool except an External one
// implements [Caller].
type Tool interface {
	Spec() Spec
	// CheckPermissions is the tool's own permission verdict for one parsed
	// and validated input. Return permission.PassthroughDecision() to let
	// the engine decide.
	CheckPermissions(ctx context.Context, input Input, pc *permission.Context) (permission.Decision, error)
}

// Caller runs a call. The stream ends when the call is over; the toolkit
// folds it into the final Response.
type Caller interface {
	Call(ctx context.Context, input Input) Stream
}

// ReadOnlyChecker gives a per-call read-only verdict. Default: Spec().ReadOnly.
type ReadOnlyChecker interface {
	IsReadOnly(input Input) bool
}

// ContextReadOnlyChecker gives a per-call read-only verdict that depends
// on where the call runs: its working directories and current directory
// (a path that is harmless to read in one place names a credential
// store through a link in another). It takes precedence over
// ReadOnlyChecker. pc may be nil when no permission context is known;
// the verdict must then be the cautious one.
type ContextReadOnlyChecker interface {
	IsReadOnlyIn(input Input, pc *permission.Context) bool
}

// RuleMatcher says what a rule's content means for this tool. Default: only
// a tool-level rule (empty content) matches. pc gives the working
// directories, against which relative patterns are anchored. For deny and
// ask rules, permission.MayMatch says the call may do what the rule names
// and the tool cannot tell (the engine then asks, in every mode); allow
// rules cover a call only on permission.Matches.
type RuleMatcher interface {
	MatchRule(content string, input Input, pc *permission.Context) permission.Match
}

// RuleSharer names the other tools whose rules apply to this tool as its
// own (Write and Edit share theirs: an Edit rule covers Write). Default:
// none.
type RuleSharer interface {
	SharesRulesWith() []string
}

// Suggester offers the rules a user could accept to stop being asked about
// calls like this one. Default: the tool-level allow rule.
type Suggester interface {
	Suggestions(input Input) []permission.Rule
}

// RulesCoverer decides whether a set of allow rules together covers a call
// (a Bash script is covered when each of its commands is). Default: any one
// rule matching through MatchRule covers the call.
type RulesCoverer interface {
	CoveredBy(contents []string, input Input, pc *permission.Context) bool
}

// ForeignRuleMatcher lets a deny or ask rule written for another tool hit
// this one (a deny on Read(path) also stopping `cat path` in Bash, an ask
// on Edit(path) a redirect into it). Default: rules of other tools never
// match.
type ForeignRuleMatcher interface {
	MatchForeignRule(rule permission.Rule, input Input, pc *permission.Context) permission.Match
}

// Escalator lets a call ask to run with less protection than usual (a
// shell command outside the OS sandbox): a non-empty answer is the
// question the user must approve, in every permission mode, bypass
// included (see permission.Escalator). Default: never.
type Escalator interface {
	Escalation(input Input, pc *permission.Context) string
}

// InputValidator checks what a JSON Schema cannot express (unique labels,
// a range whose start precedes its end). It runs in gate 2, after the
// schema: an error is a mistake the model can fix, and the call ends with
// its message before the permission check.
type InputValidator interface {
	ValidateInput(input Input) error
}

// DefaultSuggestions is the Tool-contract default: one tool-level allow rule.
func DefaultSuggestions(name string) []permission.Rule {
	return []permission.Rule{{Tool: name}}
}

// subject adapts a Tool to permission.Subject, filling in the defaults of
// the optional interfaces.
type subject struct {
	tool Tool
	spec *Spec
}

func (s subject) Name() string { return s.spec.Name }

func (s subject) IsReadOnly(input map[string]any, pc *permission.Context) bool {
	// A tool's own per-call verdict first: a coordination tool may read
	// a file too (the skill viewer), and such a call is judged like Read.
	if c, ok := s.tool.(ContextReadOnlyChecker); ok {
		return c.IsReadOnlyIn(input, pc)
	}
	if c, ok := s.tool.(ReadOnlyChecker); ok {
		return c.IsReadOnly(input)
	}
	return s.spec.Coordination || s.spec.ReadOnly
}

func (s subject) CheckPermissions(ctx context.Context, input map[string]any, pc *permission.Context) (d permission.Decision, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(p)
		}
	}()
	return s.tool.CheckPermissions(ctx, input, pc)
}

// Escalation implements permission.Escalator. A panic asks: a check
// that fails never lets the call run unasked.
func (s subject) Escalation(input map[string]any, pc *permission.Context) (why string) {
	e, ok := s.tool.(Escalator)
	if !ok {
		return ""
	}
	defer func() {
		if p := recover(); p != nil {
			why = fmt.Sprintf("The check of what %s would run with less protection failed (%v); approve only if you trust this call.", s.spec.Name, p)
		}
	}()
	return e.Escalation(input, pc)
}

func (s subject) MatchRule(r permission.Rule, input map[string]any, pc *permission.Context) (m permission.Match) {
	defer func() {
		if p := recover(); p != nil {
			// A matcher that fails cannot vouch that the rule misses.
			m = permission.MayMatch
		}
	}()
	if !s.ownRule(r) {
		if m, ok := s.tool.(ForeignRuleMatcher); ok {
			return m.MatchForeignRule(r, input, pc)
		}
		return permission.NoMatch
	}
	return s.matchContent(r.Content, input, pc)
}

// ownRule reports whether a rule names this tool, or a tool that shares
// its rules with it.
func (s subject) ownRule(r permission.Rule) bool {
	if r.Tool == s.spec.Name {
		return true
	}
	if sh, ok := s.tool.(RuleSharer); ok {
		for _, name := range sh.SharesRulesWith() {
			if r.Tool == name {
				return true
			}
		}
	}
	return false
}

func (s subject) matchContent(content string, input Input, pc *permission.Context) permission.Match {
	if m, ok := s.tool.(RuleMatcher); ok {
		return m.MatchRule(content, input, pc)
	}
	return permission.MatchOf(content == "")
}

func (s subject) CoveredBy(all []permission.Rule, input map[string]any, pc *permission.Context) bool {
	if c, ok := s.tool.(RulesCoverer); ok {
		var contents []string
		for _, r := range all {
			if s.ownRule(r) {
				if contents == nil {
					contents = make([]string, 0, len(all))
				}
				contents = append(contents, r.Content)
			}
		}
		return len(contents) > 0 && c.CoveredBy(contents, input, pc)
	}
	for _, r := range all {
		if s.ownRule(r) && s.matchContent(r.Content, input, pc) == permission.Matches {
			return true
		}
	}
	return false
}

func (s subject) Suggestions(input map[string]any) []permission.Rule {
	if g, ok := s.tool.(Suggester); ok {
		return g.Suggestions(input)
	}
	return DefaultSuggestions(s.spec.Name)
}
