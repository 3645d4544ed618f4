package toolkit

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
)

// resetTool is the reset_tools meta tool: one boolean property per named
// group; a call sets the final state (groups not set true are deactivated).
type resetTool struct {
	tk *Toolkit
}

const resetDescription = "Choose which tool groups are active. Set each group you need to true; every group not set to true is deactivated. The reply lists the active groups, and describes the groups it activates with their instructions."

func (tk *Toolkit) newResetEntry(r *registry) *entry {
	t := &resetTool{tk: tk}
	spec := Spec{
		Name:            ResetToolsName,
		Description:     resetDescription,
		InputSchema:     resetSchema(r, nil),
		ConcurrencySafe: false,
		Coordination:    true,
		StateInjected:   true,
		Source:          Source{Kind: SourceMeta},
	}
	v, err := compileSchema(spec.Name, spec.InputSchema)
	if err != nil {
		// The schema is built from group names we validated; failing to
		// compile it is a bug in this file.
		panic(fmt.Sprintf("toolkit: reset_tools schema: %v", err))
	}
	e := &entry{spec: spec, group: BasicGroup, validator: *v, handler: chain(t.Call, tk.opts.Middleware)}
	e.subject = subject{tool: t, spec: &e.spec}
	return e
}

// resetSchema builds reset_tools' input schema. With active != nil the
// schema also tells the model which groups are active now: each property's
// default is its current state and its description says so.
func resetSchema(r *registry, active map[string]bool) json.RawMessage {
	props := map[string]any{}
	for _, n := range r.gorder {
		g := r.groups[n]
		desc := g.Description
		def := false
		if active != nil && active[n] {
			desc += " (active now)"
			def = true
		}
		props[n] = map[string]any{"type": "boolean", "description": desc, "default": def}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return b
}

func (t *resetTool) Spec() Spec { return t.tk.reg.Load().reset.spec }

func (t *resetTool) CheckPermissions(context.Context, Input, *permission.Context) (permission.Decision, error) {
	return permission.AllowDecision("reset_tools changes only the session's active groups"), nil
}

func (t *resetTool) Call(ctx context.Context, in Input) Stream {
	return func(yield func(*Chunk, error) bool) {
		rt := RuntimeFrom(ctx)
		if rt == nil || rt.Session == nil {
			yield(nil, fmt.Errorf("reset_tools needs a session"))
			return
		}
		r := t.tk.reg.Load()
		var unknown, want []string
		for k, v := range in {
			if _, ok := r.groups[k]; !ok {
				unknown = append(unknown, k)
				continue
			}
			b, ok := v.(bool)
			if !ok {
				yield(nil, fmt.Errorf("group %q: the value must be true or false, not %v; nothing was changed", k, v))
				return
			}
			if b {
				want = append(want, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			yield(nil, fmt.Errorf("unknown tool group(s) %s; the groups are: %s. Nothing was changed",
				strings.Join(unknown, ", "), strings.Join(r.gorder, ", ")))
			return
		}
		// The groups an earlier reset_tools of the session activated: the
		// model has read their instructions. (Groups active by default
		// have not been described to it yet.)
		before := map[string]bool{}
		names, set, err := rt.Session.ActiveGroups(ctx)
		if err != nil {
			yield(nil, fmt.Errorf("read the active groups: %w", err))
			return
		}
		if set {
			for _, n := range names {
				before[n] = true
			}
		}
		// Keep the groups' own order so the reply is stable.
		active := map[string]bool{}
		for _, n := range want {
			active[n] = true
		}
		ordered := r.inOrder(active)
		if err := rt.Session.SetActiveGroups(ctx, ordered); err != nil {
			yield(nil, fmt.Errorf("set the active groups: %w", err))
			return
		}
		yield(&Chunk{
			Content:  []Block{TextBlock(resetReply(r, ordered, before))},
			State:    StateSuccess,
			Last:     true,
			Metadata: map[string]any{"active_groups": ordered},
		}, nil)
	}
}

// resetReply tells the model which groups are active now and, for each
// group this call activated, what it is for and its instructions. Groups
// that were active before are named only: their instructions are in the
// conversation already, and repeating them at every call costs tokens.
func resetReply(r *registry, active []string, before map[string]bool) string {
	if len(active) == 0 {
		return "No tool groups are active now; only the basic tools are available."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Active tool groups: %s.", strings.Join(active, ", "))
	for _, n := range active {
		if before[n] {
			continue
		}
		g := r.groups[n]
		fmt.Fprintf(&b, "\n\n## %s (activated now)\n%s", n, strings.TrimSpace(g.Description))
		if ins := strings.TrimSpace(g.Instructions); ins != "" {
			fmt.Fprintf(&b, "\n\n%s", ins)
		}
	}
	return b.String()
}
