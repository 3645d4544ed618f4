package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// hookTimeout bounds the plugin calls made for read-only checks, rule
// matching and suggestions, which have no context of their own.
const hookTimeout = 5 * time.Second

// Tool is one tool of a plugin, as a toolkit tool: its permission check,
// read-only verdict, rule matching and suggestions are the plugin's own.
type Tool struct {
	p     *Plugin
	spec  toolkit.Spec
	hooks map[string]bool
}

var (
	_ toolkit.Caller          = (*Tool)(nil)
	_ toolkit.ReadOnlyChecker = (*Tool)(nil)
	_ toolkit.RuleMatcher     = (*Tool)(nil)
	_ toolkit.RulesCoverer    = (*Tool)(nil)
	_ toolkit.Suggester       = (*Tool)(nil)
)

func newTool(p *Plugin, t abi.ToolSpec) *Tool {
	tool := &Tool{p: p, hooks: map[string]bool{}, spec: toolkit.Spec{
		Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
		ConcurrencySafe: t.ConcurrencySafe, ReadOnly: t.ReadOnly,
		Source: toolkit.Source{Kind: toolkit.SourceWasm, Name: p.Name},
	}}
	for _, h := range []string{abi.ExportCheckReadOnly, abi.ExportMatchRule, abi.ExportGenerateSuggestions} {
		if p.exports[h] && (t.Hooks == nil || contains(t.Hooks, h)) {
			tool.hooks[h] = true
		}
	}
	return tool
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Tools returns the plugin's tools.
func (p *Plugin) Tools() []toolkit.Tool {
	out := make([]toolkit.Tool, 0, len(p.tools)+len(p.compatTools))
	for _, t := range p.tools {
		out = append(out, t)
	}
	for _, t := range p.compatTools {
		out = append(out, t)
	}
	return out
}

// Spec implements toolkit.Tool.
func (t *Tool) Spec() toolkit.Spec { return t.spec }

// Plugin returns the plugin the tool belongs to.
func (t *Tool) Plugin() *Plugin { return t.p }

// callJSON marshals req, runs export and unmarshals its output into out.
func (t *Tool) callJSON(ctx context.Context, export string, req, out any) error {
	in, err := json.Marshal(req)
	if err != nil {
		return err
	}
	b, err := t.p.callExport(ctx, export, in, nil, false)
	if err != nil {
		return err
	}
	return t.p.decode(export, b, out)
}

func permContext(pc *permission.Context) abi.PermissionContext {
	if pc == nil {
		return abi.PermissionContext{Mode: string(permission.ModeDefault)}
	}
	mode := pc.Mode
	if mode == "" {
		mode = permission.ModeDefault
	}
	return abi.PermissionContext{Mode: string(mode), WorkingDirs: pc.WorkingDirs, Cwd: pc.Dir()}
}

// CheckPermissions implements toolkit.Tool with the plugin's
// check_permissions export. Any failure is an error, which the engine
// turns into a bypass-immune ask.
func (t *Tool) CheckPermissions(ctx context.Context, in toolkit.Input, pc *permission.Context) (permission.Decision, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return permission.Decision{}, err
	}
	var d abi.Decision
	if err := t.callJSON(ctx, abi.ExportCheckPermissions, abi.CheckRequest{ABI: abi.Version, Tool: t.spec.Name, Input: raw, Context: permContext(pc)}, &d); err != nil {
		return permission.Decision{}, err
	}
	out := permission.Decision{Behavior: permission.Behavior(d.Behavior), Message: d.Message, Reason: d.Reason, BypassImmune: d.BypassImmune}
	switch out.Behavior {
	case permission.Allow, permission.Deny, permission.Ask, permission.Passthrough:
	default:
		return permission.Decision{}, fmt.Errorf("plugin %s answered the unknown behaviour %q", t.p.Name, d.Behavior)
	}
	if out.Reason == "" {
		out.Reason = "plugin " + t.p.Name
	}
	if d.Suggestions != nil {
		out.Suggestions = parseRules(d.Suggestions)
	}
	return out, nil
}

func parseRules(texts []string) []permission.Rule {
	out := []permission.Rule{}
	for _, s := range texts {
		if r, err := permission.ParseRule(s); err == nil {
			out = append(out, r)
		}
	}
	return out
}

func hookContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), hookTimeout)
}

// IsReadOnly implements toolkit.ReadOnlyChecker: the plugin's
// check_read_only when it applies, else the tool's flag. A failing check
// says "not read-only".
func (t *Tool) IsReadOnly(in toolkit.Input) bool {
	if !t.hooks[abi.ExportCheckReadOnly] {
		return t.spec.ReadOnly
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return false
	}
	ctx, cancel := hookContext()
	defer cancel()
	var r abi.ReadOnlyResponse
	if err := t.callJSON(ctx, abi.ExportCheckReadOnly, abi.CheckRequest{ABI: abi.Version, Tool: t.spec.Name, Input: raw}, &r); err != nil {
		t.p.log.Warn("check_read_only failed", "tool", t.spec.Name, "err", err)
		return false
	}
	return r.ReadOnly
}

// matchRule asks the plugin; ok is false when it could not answer.
func (t *Tool) matchRule(content string, in toolkit.Input) (match, ok bool) {
	if content == "" {
		return true, true
	}
	if !t.hooks[abi.ExportMatchRule] {
		return false, true
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return false, false
	}
	ctx, cancel := hookContext()
	defer cancel()
	var r abi.MatchRuleResponse
	if err := t.callJSON(ctx, abi.ExportMatchRule, abi.MatchRuleRequest{ABI: abi.Version, Tool: t.spec.Name, Content: content, Input: raw}, &r); err != nil {
		t.p.log.Warn("match_rule failed", "tool", t.spec.Name, "err", err)
		return false, false
	}
	return r.Match, true
}

// MatchRule implements toolkit.RuleMatcher for deny and ask rules: when
// the plugin cannot answer, the rule may match (fail closed: the engine
// asks).
func (t *Tool) MatchRule(content string, in toolkit.Input, _ *permission.Context) permission.Match {
	match, ok := t.matchRule(content, in)
	if !ok {
		return permission.MayMatch
	}
	return permission.MatchOf(match)
}

// CoveredBy implements toolkit.RulesCoverer for allow rules: when the
// plugin cannot answer, the rule does not cover the call (fail closed).
func (t *Tool) CoveredBy(contents []string, in toolkit.Input, _ *permission.Context) bool {
	for _, c := range contents {
		if match, ok := t.matchRule(c, in); ok && match {
			return true
		}
	}
	return false
}

// Suggestions implements toolkit.Suggester with generate_suggestions
// when it applies, else the tool-level rule.
func (t *Tool) Suggestions(in toolkit.Input) []permission.Rule {
	if !t.hooks[abi.ExportGenerateSuggestions] {
		return toolkit.DefaultSuggestions(t.spec.Name)
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return []permission.Rule{}
	}
	ctx, cancel := hookContext()
	defer cancel()
	var r abi.SuggestionsResponse
	if err := t.callJSON(ctx, abi.ExportGenerateSuggestions, abi.SuggestionsRequest{ABI: abi.Version, Tool: t.spec.Name, Input: raw}, &r); err != nil {
		t.p.log.Warn("generate_suggestions failed", "tool", t.spec.Name, "err", err)
		return []permission.Rule{}
	}
	return parseRules(r.Suggestions)
}

// Call implements toolkit.Caller: chunks the plugin emits stream as they
// come; its CallResult ends the stream.
func (t *Tool) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		var callID, sessionID string
		rt := toolkit.RuntimeFrom(ctx)
		if rt != nil {
			callID, sessionID = rt.CallID, rt.SessionID
		}
		var body []byte
		// The arguments as the model sent them, when they are exactly the
		// input (see toolkit.Runtime.Arguments): encoding the input again
		// costs as much as a large input's hashing.
		if args, ok := rt.Arguments(in); ok {
			body = callBody(t.spec.Name, args, callID, sessionID)
		} else {
			raw, err := json.Marshal(in)
			if err != nil {
				yield(nil, err)
				return
			}
			body = callBody(t.spec.Name, raw, callID, sessionID)
		}
		// emit runs on this goroutine, inside the plugin's call: yielding
		// from it streams the chunk to the consumer at once.
		emit := func(c abi.Chunk) error {
			if !yield(&toolkit.Chunk{Content: blocks(c.Content), Metadata: c.Metadata}, nil) {
				return errStopped
			}
			return nil
		}
		out, err := t.p.callExport(ctx, abi.ExportCall, body, emit, !t.spec.ConcurrencySafe)
		if err != nil {
			if errors.Is(err, errStopped) {
				return
			}
			yield(nil, err)
			return
		}
		var res abi.CallResult
		if err := t.p.decode(abi.ExportCall, out, &res); err != nil {
			yield(nil, err)
			return
		}
		if err := checkResult(&res); err != nil {
			yield(nil, &PluginError{Plugin: t.p.Name, Export: abi.ExportCall, Message: "invalid result: " + err.Error()})
			return
		}
		state := toolkit.StateSuccess
		if res.State == abi.StateError {
			state = toolkit.StateError
		}
		yield(&toolkit.Chunk{Content: blocks(res.Content), Metadata: res.Metadata, State: state, Last: true}, nil)
	}
}

// callBody encodes an abi.CallRequest around input, the encoded input:
// json.Marshal would scan and compact a json.RawMessage again, which for
// a large input costs as much as encoding it. The fields come in the
// struct's order.
func callBody[T string | []byte](tool string, input T, callID, sessionID string) []byte {
	quote := func(b []byte, s string) []byte {
		q, _ := json.Marshal(s) // a string always encodes
		return append(b, q...)
	}
	b := make([]byte, 0, len(input)+len(tool)+len(callID)+len(sessionID)+64)
	b = append(b, `{"abi":`...)
	b = strconv.AppendInt(b, abi.Version, 10)
	b = quote(append(b, `,"tool":`...), tool)
	b = append(append(b, `,"input":`...), input...)
	if callID != "" {
		b = quote(append(b, `,"call_id":`...), callID)
	}
	if sessionID != "" {
		b = quote(append(b, `,"session_id":`...), sessionID)
	}
	return append(b, '}')
}

func blocks(in []abi.Block) []toolkit.Block {
	out := make([]toolkit.Block, 0, len(in))
	for _, b := range in {
		switch b.Type {
		case abi.BlockData:
			mt := b.MediaType
			if mt == "" {
				mt = "application/octet-stream"
			}
			out = append(out, toolkit.Block{Type: toolkit.BlockData, Data: b.Data, MediaType: mt, ID: b.ID})
		default:
			out = append(out, toolkit.Block{Type: toolkit.BlockText, Text: b.Text, ID: b.ID})
		}
	}
	return out
}
