package toolkit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wasmtools/wasmtools/permission"
)

// Call is one tool call as the model wrote it.
type Call struct {
	// ID identifies the call in its turn; empty IDs are assigned.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON text of the input object, as the model wrote
	// it. Invalid JSON is repaired, but only a read-only call runs on the
	// repaired input; any other is refused with an error that asks for the
	// arguments again.
	Arguments string `json:"arguments"`
}

// Status is where a call of a turn stands.
type Status string

// The call statuses.
const (
	// StatusPending: not run yet (a later batch, or waiting for the answer
	// to an earlier confirmation of its batch).
	StatusPending Status = "pending"
	// StatusNeedsConfirmation: the user must approve or reject the call
	// (Turn.Confirm).
	StatusNeedsConfirmation Status = "needs_confirmation"
	// StatusNeedsExternal: someone else executes the call and submits its
	// result (Turn.SubmitResult).
	StatusNeedsExternal Status = "needs_external"
	// StatusDone: the call has its final Response.
	StatusDone Status = "done"
)

// Confirmation asks the user to approve a call.
type Confirmation struct {
	CallID   string              `json:"call_id"`
	Tool     string              `json:"tool"`
	Input    Input               `json:"input"`
	Decision permission.Decision `json:"decision"`
}

// ExternalRequest asks the caller to execute a call and submit its result.
type ExternalRequest struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	Input  Input  `json:"input"`
}

// Approval is the user's answer to a Confirmation.
type Approval struct {
	Approve bool `json:"approve"`
	// Rules are allow rules to grant for the rest of the session (the
	// user's "always allow").
	Rules []permission.Rule `json:"rules,omitempty"`
	// Arguments, when not empty, replace the call's arguments. The edited
	// input is validated and checked again before it runs: a deny rule
	// still denies, a safety check still asks, and invalid JSON is refused
	// unless the call is read-only, as for the model's own arguments.
	Arguments string `json:"arguments,omitempty"`
	// Message replaces the default rejection text the model reads (the
	// user's words, or why no one could be asked).
	Message string `json:"message,omitempty"`
}

// Outcome is the state of one call of a turn.
type Outcome struct {
	Call         Call             `json:"call"`
	Status       Status           `json:"status"`
	Response     *Response        `json:"response,omitempty"`     // StatusDone
	Confirmation *Confirmation    `json:"confirmation,omitempty"` // StatusNeedsConfirmation
	External     *ExternalRequest `json:"external,omitempty"`     // StatusNeedsExternal
}

// EventKind says what an Event carries. It prints, and encodes in JSON,
// as its name ("chunk", "confirmation", "external", "result").
type EventKind int

// The event kinds.
const (
	EventChunk        EventKind = iota + 1 // a chunk streamed by a running call
	EventConfirmation                      // a call waits for the user
	EventExternal                          // a call waits for an external result
	EventResult                            // a call has its final response
)

var eventKindNames = [...]string{EventChunk: "chunk", EventConfirmation: "confirmation", EventExternal: "external", EventResult: "result"}

// String returns the kind's name.
func (k EventKind) String() string {
	if k > 0 && int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText encodes the kind as its name.
func (k EventKind) MarshalText() ([]byte, error) {
	if k <= 0 || int(k) >= len(eventKindNames) {
		return nil, fmt.Errorf("unknown event kind %d", int(k))
	}
	return []byte(eventKindNames[k]), nil
}

// UnmarshalText reads a kind's name.
func (k *EventKind) UnmarshalText(b []byte) error {
	for i, n := range eventKindNames {
		if n != "" && n == string(b) {
			*k = EventKind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown event kind %q: use chunk, confirmation, external or result", b)
}

// Event reports progress of a turn to TurnOptions.OnEvent.
type Event struct {
	Kind         EventKind        `json:"kind"`
	CallID       string           `json:"call_id"`
	Chunk        *Chunk           `json:"chunk,omitempty"`
	Confirmation *Confirmation    `json:"confirmation,omitempty"`
	External     *ExternalRequest `json:"external,omitempty"`
	Response     *Response        `json:"response,omitempty"`
}

// TurnOptions configure a turn.
type TurnOptions struct {
	// View adds the request's schema-only external tools; nil for none.
	View *View
	// Accept lists media types the caller takes as data blocks.
	Accept []string
	// OnEvent receives the turn's events, on the goroutine running Run
	// or on one of the goroutines running a parallel batch; calls are
	// serialised: OnEvent is never called concurrently with itself. It
	// must not call the Turn's methods.
	OnEvent func(Event)
	// Permission replaces the toolkit's permission configuration for this
	// turn; the session's granted rules are still added.
	Permission *permission.Context
	// MaxParallel bounds how many calls of a parallel batch run at once;
	// 0 means 16.
	MaxParallel int
}

// phase is the internal state of a call.
type phase uint8

const (
	phaseNew      phase = iota // gates 1-3 not run
	phaseEdited                // approved with edited arguments: gates 1-3 again
	phaseAsk                   // waiting for Confirm
	phaseDeferred              // waiting for an earlier ask of its batch
	phaseApproved              // approved by the user
	phaseReady                 // allowed
	phaseExternal              // waiting for SubmitResult
	phaseDone
)

type callState struct {
	call  Call
	e     *entry
	input Input
	// args and argsInput are the call's arguments text and what it
	// decoded to, when the text is plain (see parseArgs): see
	// Runtime.Arguments.
	args      string
	argsInput Input
	decision  permission.Decision
	resp      *Response
	// The small fields last, in one word. deferredTo is the index of the
	// call a deferred one waits for, -1 for none.
	deferredTo int32
	phase      phase
	repaired   bool
	// ran: the call was executed (or its external result submitted), so
	// a response on repaired input says it ran on a guess.
	ran      bool
	parallel bool
}

// Turn runs the tool calls of one model turn: in order-preserving batches
// (consecutive concurrency-safe calls in parallel, the others one at a
// time), suspending at confirmations and external executions until they
// are answered. A Turn is driven from one goroutine: Run, Confirm and
// SubmitResult must not be called concurrently.
type Turn struct {
	gates
	calls   []*callState
	batches [][2]int // [start, end) ranges
	cur     int
	// id and revision identify the turn's snapshots.
	id       string
	revision int
	// fresh says the first Run can use the granted rules NewTurn read
	// (one store round trip less per call).
	fresh bool
	// oneCall, oneBatch and oneState back calls and batches for a turn
	// of one call.
	oneCall  [1]*callState
	oneBatch [1][2]int
	oneState callState
}

// gates is what gates 1 to 3 of the pipeline (availability, input,
// permission) need to judge a call. A Turn embeds it; Check makes one on
// its own, without the state a turn keeps to run its calls: a check
// allocates and touches less memory.
type gates struct {
	tk      *Toolkit
	session SessionState
	opts    TurnOptions
	// granted are the session's granted rules, read from the store when
	// the gates are made and at each later Run of their turn.
	granted []permission.Rule
	emitMu  sync.Mutex
	// checkCtx holds the context of Check's one call (see withRuntime);
	// nil in a turn's gates.
	checkCtx *runtimeContext
}

// checkOnly reports whether the gates were made by Check, which never
// executes: they keep no copy of the arguments for Runtime.Arguments,
// and a denied call gets no response (Check returns the decision).
func (g *gates) checkOnly() bool { return g.checkCtx != nil }

// NewTurn prepares a turn for a session. Call IDs must be unique; empty
// ones are assigned. ctx serves only to load the session from the store;
// the context given to Run governs the calls.
func (tk *Toolkit) NewTurn(ctx context.Context, sessionID string, calls []Call, opts TurnOptions) (*Turn, error) {
	t := new(Turn)
	if err := tk.initTurn(ctx, t, sessionID, calls, opts); err != nil {
		return nil, err
	}
	return t, nil
}

// initGates prepares g, zero gates, for a session, as NewTurn describes.
func (tk *Toolkit) initGates(ctx context.Context, g *gates, sessionID string, opts TurnOptions) error {
	s, err := tk.store.Session(ctx, sessionID)
	if err != nil {
		return fmt.Errorf("session %q: %w", sessionID, err)
	}
	g.tk, g.session, g.opts = tk, s, opts
	if g.opts.MaxParallel <= 0 {
		g.opts.MaxParallel = 16
	}
	return g.loadGranted(ctx)
}

// callID returns id, or a new one for a call that has none.
func (tk *Toolkit) callID(id string) string {
	if id == "" {
		return "call_" + strconv.FormatUint(tk.callSeq.Add(1), 10)
	}
	return id
}

// initTurn prepares t, a zero Turn, as NewTurn describes.
func (tk *Toolkit) initTurn(ctx context.Context, t *Turn, sessionID string, calls []Call, opts TurnOptions) error {
	if err := tk.initGates(ctx, &t.gates, sessionID, opts); err != nil {
		return err
	}
	t.fresh = true
	if len(calls) == 1 {
		// One call (most turns): its state and batch live in the Turn,
		// one allocation instead of four.
		t.calls, t.batches = t.oneCall[:0], t.oneBatch[:0]
	}
	var seen map[string]bool
	if len(calls) > 1 { // one call cannot repeat an ID
		seen = make(map[string]bool, len(calls))
	}
	r := tk.reg.Load()
	if t.calls == nil {
		t.calls = make([]*callState, 0, len(calls))
	}
	for _, c := range calls {
		c.ID = tk.callID(c.ID)
		if seen[c.ID] {
			return fmt.Errorf("turn: duplicate call id %q", c.ID)
		}
		if seen != nil {
			seen[c.ID] = true
		}
		cs := &t.oneState
		if len(calls) > 1 {
			cs = &callState{}
		}
		*cs = callState{call: c, deferredTo: -1}
		// Unknown tools join parallel batches: they fail at once.
		e := t.resolve(r, c.Name)
		cs.parallel = e == nil || e.spec.ConcurrencySafe
		t.calls = append(t.calls, cs)
	}
	for i := 0; i < len(t.calls); {
		j := i + 1
		if t.calls[i].parallel {
			for j < len(t.calls) && t.calls[j].parallel {
				j++
			}
		}
		t.batches = append(t.batches, [2]int{i, j})
		i = j
	}
	return nil
}

// resolve finds the entry for a tool name in the turn's view.
func (g *gates) resolve(r *registry, name string) *entry {
	if sp, ok := g.opts.View.external(name); ok {
		return g.tk.viewEntry(sp)
	}
	if g.opts.View.toolkitHidden() {
		return nil
	}
	return r.lookup(name)
}

// Done reports whether every call has its final response.
func (t *Turn) Done() bool {
	for _, cs := range t.calls {
		if cs.phase != phaseDone {
			return false
		}
	}
	return true
}

// Outcomes returns the state of every call, in call order.
func (t *Turn) Outcomes() []Outcome {
	out := make([]Outcome, len(t.calls))
	for i, cs := range t.calls {
		out[i] = Outcome{Call: cs.call, Status: StatusPending}
		switch cs.phase {
		case phaseDone:
			out[i].Status, out[i].Response = StatusDone, cs.resp
		case phaseAsk:
			out[i].Status, out[i].Confirmation = StatusNeedsConfirmation, cs.confirmation()
		case phaseExternal:
			out[i].Status, out[i].External = StatusNeedsExternal, cs.external()
		}
	}
	return out
}

// Responses returns the final responses, in call order; calls not done
// yet are missing.
func (t *Turn) Responses() []*Response {
	var out []*Response
	for _, cs := range t.calls {
		if cs.phase == phaseDone {
			out = append(out, cs.resp)
		}
	}
	return out
}

func (cs *callState) confirmation() *Confirmation {
	return &Confirmation{CallID: cs.call.ID, Tool: cs.call.Name, Input: cs.input, Decision: cs.decision}
}

func (cs *callState) external() *ExternalRequest {
	return &ExternalRequest{CallID: cs.call.ID, Tool: cs.call.Name, Input: cs.input}
}

// Run advances the turn as far as it can: until every call is done, or
// until it waits for confirmations or external results. It returns nil
// when every call is done, and a *WaitingError (errors.Is(err,
// ErrWaiting)) listing what is awaited when calls wait: answer with
// Confirm and SubmitResult, then Run again, or save the turn with
// Snapshot and resume it later, elsewhere if need be (Toolkit.ResumeTurn).
// A cancelled ctx ends every call not done yet with an INTERRUPTED
// response and Run returns nil. ctx governs the calls Run executes: it
// is the context their tools see. The model's mistakes never become
// errors; they are responses (see Response.Kind).
func (t *Turn) Run(ctx context.Context) error {
	// Rules granted meanwhile (by another turn, another process) count.
	if !t.fresh {
		if err := t.loadGranted(ctx); err != nil {
			return err
		}
	}
	t.fresh = false
	for t.cur < len(t.batches) {
		if ctx.Err() != nil {
			t.interruptAll()
			return nil
		}
		b := t.batches[t.cur]
		var complete bool
		if t.calls[b[0]].parallel {
			complete = t.runParallel(ctx, b[0], b[1])
		} else {
			complete = t.runSequential(ctx, t.calls[b[0]])
		}
		if ctx.Err() != nil {
			t.interruptAll()
			return nil
		}
		if !complete {
			return t.waiting()
		}
		t.cur++
	}
	return nil
}

// ErrWaiting is matched by the error Run returns when calls of the turn
// wait for the user's confirmation or for an external result.
var ErrWaiting = errors.New("calls are waiting for confirmation or an external result")

// WaitingError is the error of a Run that stopped because calls wait:
// what each waits for. It matches ErrWaiting.
type WaitingError struct {
	Confirmations []Confirmation    `json:"confirmations,omitempty"`
	External      []ExternalRequest `json:"external,omitempty"`
	// Turn is the turn that waits (for Toolkit.Call, whose caller has no
	// other handle on it).
	Turn *Turn `json:"-"`
}

func (e *WaitingError) Error() string {
	return fmt.Sprintf("turn: %d call(s) wait for confirmation and %d for an external result", len(e.Confirmations), len(e.External))
}

// Is matches ErrWaiting.
func (e *WaitingError) Is(target error) bool { return target == ErrWaiting }

// waiting lists what the turn waits for.
func (t *Turn) waiting() *WaitingError {
	w := &WaitingError{Turn: t}
	for _, cs := range t.calls {
		switch cs.phase {
		case phaseAsk:
			w.Confirmations = append(w.Confirmations, *cs.confirmation())
		case phaseExternal:
			w.External = append(w.External, *cs.external())
		}
	}
	return w
}

// runSequential drives one call as far as it goes; true when it is done.
func (t *Turn) runSequential(ctx context.Context, cs *callState) bool {
	t.admit(ctx, cs)
	switch cs.phase {
	case phaseReady, phaseApproved:
		t.finish(cs, t.executeCall(ctx, cs))
	}
	return cs.phase == phaseDone
}

// runParallel drives a batch of concurrency-safe calls; true when all are
// done.
func (t *Turn) runParallel(ctx context.Context, start, end int) bool {
	batch := t.calls[start:end]
	for i, cs := range batch {
		before := cs.phase
		t.admitQuiet(ctx, cs)
		if cs.phase == before {
			continue
		}
		if cs.phase == phaseAsk {
			if j := coveredByEarlierAsk(batch[:i], cs, t.permissionContext()); j >= 0 {
				cs.phase, cs.deferredTo = phaseDeferred, int32(start+j)
				continue
			}
		}
		t.announce(cs)
	}
	var ready []*callState
	for _, cs := range batch {
		if cs.phase == phaseReady || cs.phase == phaseApproved {
			ready = append(ready, cs)
		}
	}
	if len(ready) == 1 {
		// No one to run alongside: spare the goroutine.
		ready[0].resp = t.executeCall(ctx, ready[0])
	} else if len(ready) > 1 {
		var wg sync.WaitGroup
		sem := make(chan struct{}, t.opts.MaxParallel)
		for _, cs := range ready {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				cs.resp = t.executeCall(ctx, cs)
			}()
		}
		wg.Wait()
	}
	for _, cs := range batch {
		if cs.resp != nil && cs.phase != phaseDone {
			t.finish(cs, cs.resp)
		}
	}
	for _, cs := range batch {
		if cs.phase != phaseDone {
			return false
		}
	}
	return true
}

// coveredByEarlierAsk returns the index of an earlier call of the batch
// still waiting for confirmation whose suggested rules would allow cs, or
// -1. Safety asks are never covered: they always reach the user.
func coveredByEarlierAsk(earlier []*callState, cs *callState, pc *permission.Context) int {
	if cs.decision.BypassImmune || cs.e == nil {
		return -1
	}
	for j, prev := range earlier {
		if prev.phase != phaseAsk {
			continue
		}
		for _, r := range prev.decision.Suggestions {
			if r.Tool == cs.e.spec.Name && cs.e.subject.CoveredBy([]permission.Rule{r}, cs.input, pc) {
				return j
			}
		}
	}
	return -1
}

// admit runs gates 1-3 for a new or edited call and announces a call that
// starts waiting.
func (t *Turn) admit(ctx context.Context, cs *callState) {
	before := cs.phase
	t.admitQuiet(ctx, cs)
	if cs.phase != before && (cs.phase == phaseAsk || cs.phase == phaseExternal) {
		t.announce(cs)
	}
}

// admitQuiet is admit without announcing (a parallel batch first decides
// whether an ask is deferred).
func (g *gates) admitQuiet(ctx context.Context, cs *callState) {
	switch cs.phase {
	case phaseNew, phaseEdited:
	case phaseReady, phaseApproved:
		if cs.e.spec.External {
			cs.phase = phaseExternal
		}
		return
	default:
		return
	}
	edited := cs.phase == phaseEdited
	r := g.tk.reg.Load()
	e := g.resolve(r, cs.call.Name)
	if e == nil {
		g.finish(cs, errorResponse(cs.call.Name, cs.call.ID, KindUnknownTool, g.unavailableMessage(ctx, r, cs.call.Name)))
		return
	}
	if !g.opts.View.hasExternal(cs.call.Name) {
		active, err := r.groupActive(ctx, g.session, e.group)
		if err != nil {
			g.finish(cs, withErr(errorResponse(cs.call.Name, cs.call.ID, KindToolError, fmt.Sprintf("The session's state could not be read (%v); call %s again.", err, cs.call.Name)), err))
			return
		}
		if !active {
			g.finish(cs, errorResponse(cs.call.Name, cs.call.ID, KindInactive, inactiveMessage(r, cs.call.Name, e.group)))
			return
		}
	}
	cs.e = e
	in, distinct, rep, err := parseArgs(cs.call.Arguments)
	cs.args, cs.argsInput = "", nil
	if !g.checkOnly() && plainArgs(in, distinct) {
		// A copy: the checks below and the middlewares get in itself,
		// and may change it.
		cs.args, cs.argsInput = cs.call.Arguments, maps.Clone(in)
	}
	if err != nil {
		g.finish(cs, withErr(errorResponse(cs.call.Name, cs.call.ID, KindInvalidInput, fmt.Sprintf("Invalid arguments for %s: %v.", cs.call.Name, err)), err))
		return
	}
	cs.repaired = rep != nil
	// A schema error on repaired arguments is most likely the repair's
	// doing (a cut-off call loses its last fields): say so.
	invalid := "Invalid arguments for %s: %v. Fix the arguments and call again."
	if rep != nil {
		invalid = "Invalid arguments for %s: %v. The arguments were not valid JSON either and were repaired before this check; send the complete arguments again as one valid JSON object."
	}
	if err := e.checkInput(in); err != nil {
		g.finish(cs, withErr(errorResponse(cs.call.Name, cs.call.ID, KindInvalidInput, fmt.Sprintf(invalid, cs.call.Name, err)), err))
		return
	}
	pc := g.permissionContext()
	if rep != nil && !safeIsReadOnly(e.subject, in, pc) {
		// The repairer guesses: a cut-off Write would write half a file,
		// a cut-off command would run its first half. Only a call that
		// changes nothing may run on a guess; the rest are refused before
		// anyone is asked to approve them.
		g.finish(cs, errorResponse(cs.call.Name, cs.call.ID, KindInvalidInput, repairRefusal(cs.call.Name, rep, edited)))
		return
	}
	cs.input = in
	d := evaluate(g.withRuntime(ctx, cs, pc), &e.subject, in, pc)
	cs.decision = d
	switch d.Behavior {
	case permission.Deny:
		if g.checkOnly() {
			cs.phase = phaseDone // resp stays nil: see Check
			return
		}
		g.finish(cs, errorResponse(cs.call.Name, cs.call.ID, KindDenied, d.Message))
		return
	case permission.Ask:
		if edited && !d.BypassImmune {
			// The user approved exactly this edited input; only a safety
			// check is worth asking about again.
			cs.phase = phaseApproved
		} else {
			cs.phase = phaseAsk
			return
		}
	default:
		cs.phase = phaseReady
	}
	if e.spec.External {
		cs.phase = phaseExternal
	}
}

// inactiveMessage tells the model that a tool's group is not active and,
// when the model can activate it, how.
func inactiveMessage(r *registry, tool, group string) string {
	if r.reset == nil {
		return fmt.Sprintf("The tool %s belongs to the tool group %q, which is not active in this session; it cannot be used now. Use the tools you have.", tool, group)
	}
	return fmt.Sprintf("The tool %s belongs to the tool group %q, which is not active. Activate it by calling %s with {%q: true} (and true for every other group you still need), then call %s again.",
		tool, group, ResetToolsName, group, tool)
}

func (v *View) hasExternal(name string) bool { _, ok := v.external(name); return ok }

// repairRefusal is the message of a call that is not read-only and whose
// arguments needed repair.
func repairRefusal(tool string, rep *repair, edited bool) string {
	whose := "The arguments"
	if edited {
		whose = "The edited arguments the user approved"
	}
	return fmt.Sprintf("%s for %s were not valid JSON %s. Nothing was run: this call of %s is not read-only, and such calls do not run on repaired arguments, which may have lost content. Send the complete arguments again as one valid JSON object.",
		whose, tool, rep.describe(), tool)
}

// repairedNote ends the response of a read-only call that ran on
// repaired arguments, so the model knows its input was guessed.
const repairedNote = "[note: the arguments were not valid JSON and were repaired before the call ran]"

// safeIsReadOnly is the tool's per-call read-only verdict; a panic in it
// is "not read-only", the verdict that runs nothing on a guess.
func safeIsReadOnly(s subject, in Input, pc *permission.Context) (ro bool) {
	defer func() {
		if recover() != nil {
			ro = false
		}
	}()
	return s.IsReadOnly(in, pc)
}

// evaluate is permission.Evaluate with the tool's methods fenced: a panic
// in a rule matcher or a read-only check is a failed check, which asks.
// s is the entry's own subject: as a pointer, it becomes the engine's
// Subject without an allocation.
func evaluate(ctx context.Context, s *subject, in Input, pc *permission.Context) (d permission.Decision) {
	defer func() {
		if p := recover(); p != nil {
			d = permission.SafetyAsk(fmt.Sprintf("The permission check of %s failed (%v); approve only if you trust this call.", s.spec.Name, p),
				"tool permission check panicked")
		}
	}()
	return permission.Evaluate(ctx, s, in, pc)
}

// checkInput is gate 2's check of a parsed input: the tool's schema,
// then the tool's own validation (InputValidator), if it has one.
func (e *entry) checkInput(in Input) error {
	if err := e.validator.validate(in); err != nil {
		return err
	}
	if v, ok := e.subject.tool.(InputValidator); ok {
		return safeValidate(v, in)
	}
	return nil
}

// safeValidate runs a tool's own input validation, turning a panic into
// an error.
func safeValidate(v InputValidator, in Input) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the input check failed: %v", p)
		}
	}()
	return v.ValidateInput(in)
}

func (g *gates) unavailableMessage(ctx context.Context, r *registry, name string) string {
	var active map[string]bool
	if !g.opts.View.toolkitHidden() {
		// Without the session's groups, the message lists the basic tools.
		active, _ = r.activeGroups(ctx, g.session)
	}
	names := r.visibleNames(active)
	if g.opts.View != nil && g.opts.View.Mode != ViewToolkitOnly {
		for _, s := range g.opts.View.External {
			names = append(names, s.Name)
		}
	}
	if g.opts.View.toolkitHidden() {
		names = names[:0]
		for _, s := range g.opts.View.External {
			names = append(names, s.Name)
		}
	}
	// A tool of an inactive group exists: say which group to activate.
	if e := r.tools[name]; e != nil && !g.opts.View.toolkitHidden() {
		return inactiveMessage(r, name, e.group)
	}
	if len(names) == 0 {
		return fmt.Sprintf("The tool %s does not exist, and no tools are available.", name)
	}
	const most = 40
	if len(names) > most {
		names = append(names[:most:most], "…")
	}
	return fmt.Sprintf("The tool %s does not exist. Available tools: %s.", name, strings.Join(names, ", "))
}

// permissionContext is the turn's permission configuration plus the
// session's granted rules: a copy when rules were granted, which a
// caller that needs it twice keeps rather than make it again.
func (g *gates) permissionContext() *permission.Context {
	base := g.opts.Permission
	if base == nil {
		base = &g.tk.opts.Permission
	}
	if len(g.granted) == 0 {
		return base
	}
	pc := base.Clone()
	pc.Allow = append(pc.Allow, g.granted...)
	return pc
}

// loadGranted reads the session's granted rules into g.
func (g *gates) loadGranted(ctx context.Context) error {
	granted, err := g.session.GrantedRules(ctx)
	if err != nil {
		return fmt.Errorf("granted rules of session %q: %w", g.session.ID(), err)
	}
	g.granted = granted
	return nil
}

// withRuntime returns ctx carrying the call's Runtime, judged under pc
// (see permissionContext). Gates made by Check hold the context
// themselves (checkCtx): they judge one call, once.
func (g *gates) withRuntime(ctx context.Context, cs *callState, pc *permission.Context) context.Context {
	rc := g.checkCtx
	if rc == nil || ctx == context.Context(rc) {
		// A turn of Run, or (never today) Check's context given back:
		// its own would then be its parent.
		rc = new(runtimeContext)
	}
	rc.Context = ctx
	rc.rt = Runtime{SessionID: g.session.ID(), CallID: cs.call.ID, Tool: cs.call.Name, Session: g.session,
		Accept: g.opts.Accept, Permission: pc, args: cs.args, argsInput: cs.argsInput}
	return rc
}

func (t *Turn) executeCall(ctx context.Context, cs *callState) *Response {
	ctx = t.withRuntime(ctx, cs, t.permissionContext())
	resp := t.tk.execute(ctx, cs.e, cs.call.ID, cs.input, func(c *Chunk) {
		t.emit(Event{Kind: EventChunk, CallID: cs.call.ID, Chunk: c})
	})
	resp.Repaired = cs.repaired
	cs.ran = true
	return resp
}

// finish gives a call its final response (after gate 5) and reports it.
func (g *gates) finish(cs *callState, resp *Response) {
	resp.CallID, resp.Tool = cs.call.ID, cs.call.Name
	resp.Repaired = resp.Repaired || cs.repaired
	if cs.decision.Behavior != "" && resp.Decision == nil {
		d := cs.decision
		resp.Decision = &d
	}
	resp.finish()
	g.tk.limitSize(resp, g.session.ID())
	if cs.ran && cs.repaired {
		// After the size limit, so that cutting a long output cannot cut
		// the note.
		resp.Content = append(slices.Clip(resp.Content), TextBlock("\n"+repairedNote))
	}
	cs.resp, cs.phase = resp, phaseDone
	g.emit(Event{Kind: EventResult, CallID: cs.call.ID, Response: resp})
}

func (t *Turn) announce(cs *callState) {
	switch cs.phase {
	case phaseAsk:
		t.emit(Event{Kind: EventConfirmation, CallID: cs.call.ID, Confirmation: cs.confirmation()})
	case phaseExternal:
		t.emit(Event{Kind: EventExternal, CallID: cs.call.ID, External: cs.external()})
	}
}

func (g *gates) emit(ev Event) {
	if g.opts.OnEvent == nil {
		return
	}
	g.emitMu.Lock()
	defer g.emitMu.Unlock()
	g.opts.OnEvent(ev)
}

func (t *Turn) interruptAll() {
	for _, cs := range t.calls {
		if cs.phase != phaseDone {
			t.finish(cs, errorResponse(cs.call.Name, cs.call.ID, KindInterrupted,
				"The call was not run: the turn was cancelled."))
		}
	}
	t.cur = len(t.batches)
}

func (t *Turn) find(callID string) (*callState, int) {
	for i, cs := range t.calls {
		if cs.call.ID == callID {
			return cs, i
		}
	}
	return nil, -1
}

// ErrNotWaiting is returned by Confirm and SubmitResult for a call that is
// not waiting for that answer.
var ErrNotWaiting = errors.New("call is not waiting for this answer")

// Confirm answers a confirmation. The turn goes on at the next Run.
func (t *Turn) Confirm(callID string, a Approval) error {
	cs, idx := t.find(callID)
	if cs == nil {
		return fmt.Errorf("confirm: no call %q in this turn", callID)
	}
	if cs.phase != phaseAsk {
		return fmt.Errorf("confirm %q: %w", callID, ErrNotWaiting)
	}
	// Granted first: when the store fails, the turn is as it was.
	if a.Approve && len(a.Rules) > 0 {
		// Confirm has no caller's context; the store bounds its own wait.
		if err := t.session.GrantRules(context.Background(), a.Rules...); err != nil {
			return fmt.Errorf("confirm %q: grant rules: %w", callID, err)
		}
		t.granted = MergeRules(t.granted, a.Rules...)
	}
	// Calls deferred behind this one are evaluated again: with the rules
	// just granted they may be allowed; otherwise they ask for themselves.
	for _, other := range t.calls {
		if other.phase == phaseDeferred && int(other.deferredTo) == idx {
			other.phase, other.deferredTo = phaseNew, -1
		}
	}
	if !a.Approve {
		msg := "The user rejected this call of " + cs.call.Name + ". Do not retry it as it is; ask the user how to go on."
		if a.Message != "" {
			msg = "The call of " + cs.call.Name + " was not run: " + a.Message
		}
		t.finish(cs, errorResponse(cs.call.Name, cs.call.ID, KindRejected, msg))
		return nil
	}
	if a.Arguments != "" {
		cs.call.Arguments = a.Arguments
		cs.phase = phaseEdited
		return nil
	}
	cs.phase = phaseApproved
	return nil
}

// SubmitResult completes a call waiting for external execution.
func (t *Turn) SubmitResult(callID string, resp *Response) error {
	cs, _ := t.find(callID)
	if cs == nil {
		return fmt.Errorf("submit result: no call %q in this turn", callID)
	}
	if cs.phase != phaseExternal {
		return fmt.Errorf("submit result %q: %w", callID, ErrNotWaiting)
	}
	if resp == nil {
		return fmt.Errorf("submit result %q: nil response", callID)
	}
	r := *resp
	// How the call ended and why is the pipeline's to say, not the
	// submitter's: the kind follows the submitted state, the decision is
	// the one the call got.
	r.Kind, r.Decision, r.err = "", nil, nil
	cs.ran = true
	t.finish(cs, &r)
	return nil
}

// viewEntry builds (and caches) the entry for a request's schema-only tool.
func (tk *Toolkit) viewEntry(sp Spec) *entry {
	sp.External = true
	if sp.Source.Kind == "" {
		sp.Source = Source{Kind: SourceExternal}
	}
	key := sp.Name + "\x00" + string(sp.InputSchema)
	tk.viewMu.Lock()
	e, ok := tk.viewCache[key]
	tk.viewMu.Unlock()
	if ok {
		return e
	}
	v, err := compileSchema(sp.Name, sp.InputSchema)
	if err != nil {
		// A bad schema from the request: accept any object rather than
		// failing every call; the caller executes the tool anyway.
		v, _ = compileSchema(sp.Name, defaultInputSchema)
	}
	t := viewTool{spec: sp}
	e = &entry{spec: sp, group: BasicGroup, validator: *v}
	e.subject = subject{tool: t, spec: &e.spec}
	tk.viewMu.Lock()
	if len(tk.viewCache) >= maxViewCache || tk.viewCache == nil {
		// Start over rather than track use: a caller's tools of the
		// moment are compiled again on their next step.
		tk.viewCache = make(map[string]*entry)
	}
	tk.viewCache[key] = e
	tk.viewMu.Unlock()
	return e
}

// maxViewCache bounds the schema-only tools a toolkit keeps compiled.
const maxViewCache = 1024

// viewTool is a request's schema-only tool: the requester executes it, so
// the host only applies the user's deny and ask rules.
type viewTool struct{ spec Spec }

func (v viewTool) Spec() Spec { return v.spec }

func (v viewTool) CheckPermissions(context.Context, Input, *permission.Context) (permission.Decision, error) {
	return permission.AllowDecision("executed by the requester"), nil
}
