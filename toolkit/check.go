package toolkit

import (
	"context"

	"github.com/wasmtools/wasmtools/permission"
)

// CheckOptions configure Check.
type CheckOptions struct {
	// Permission replaces the toolkit's permission configuration.
	Permission *permission.Context
	// View adds the request's schema-only tools.
	View *View
}

// Check runs gates 1 to 3 of the pipeline (availability, input, permission)
// and returns the engine's decision without executing anything. An unknown
// or inactive tool, bad JSON or a schema violation is an error whose text
// is what the model would read: a *CallError of KindUnknownTool,
// KindInactive or KindInvalidInput. Other errors come from the
// session store.
func (tk *Toolkit) Check(ctx context.Context, sessionID string, call Call, opts CheckOptions) (permission.Decision, error) {
	// The gates, the call and its context in one allocation: a check
	// needs none of the state a Turn keeps to run its calls.
	c := &struct {
		g  gates
		cs callState
		rc runtimeContext
	}{cs: callState{call: call, deferredTo: -1}}
	g, cs := &c.g, &c.cs
	if err := tk.initGates(ctx, g, sessionID, TurnOptions{View: opts.View, Permission: opts.Permission}); err != nil {
		return permission.Decision{}, err
	}
	g.checkCtx = &c.rc
	cs.call.ID = tk.callID(call.ID)
	// Gates 1-3 only: admitQuiet never executes.
	g.admitQuiet(ctx, cs)
	if cs.phase == phaseDone {
		// A denial in a check has no response (see admitQuiet).
		if cs.resp == nil || cs.resp.State == StateDenied {
			return cs.decision, nil
		}
		return permission.Decision{}, cs.resp.Err()
	}
	return cs.decision, nil
}
