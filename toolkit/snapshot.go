package toolkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/wasmtools/wasmtools/permission"
)

// SnapshotVersion is the version of the TurnSnapshot format this package
// writes and reads.
const SnapshotVersion = 1

// TurnSnapshot is a turn saved while it waits: every call with its parsed
// input, its permission decision and where it stands, and the responses
// of the calls already done. It is plain data (encode it with
// encoding/json) that Toolkit.ResumeTurn turns back into a Turn, in this
// process after a restart or in another replica, given a toolkit with the
// same tools.
//
// A snapshot is trusted: it records which calls the user approved. Keep
// it where neither the model nor the user can edit it (a server-side
// store), or sign it when it must travel.
//
// Done calls are never run again. To make sure a waiting call runs at
// most once when several processes may hold the same snapshot, claim it
// in the store before resuming (delete it, or compare-and-swap on ID and
// Revision) and save the snapshot the resumed turn takes next.
type TurnSnapshot struct {
	Version int `json:"version"`
	// ID names the turn; it stays the same across snapshots and resumes.
	ID string `json:"id"`
	// Revision counts the snapshots taken of this turn, in this process
	// and the ones it was resumed in: a store can refuse an older one.
	Revision  int            `json:"revision"`
	SessionID string         `json:"session_id"`
	Calls     []CallSnapshot `json:"calls"`
	// Batches are the turn's [start, end) ranges of calls run together;
	// NextBatch is the first not finished.
	Batches   [][2]int `json:"batches"`
	NextBatch int      `json:"next_batch"`
}

// CallSnapshot is one call of a TurnSnapshot.
type CallSnapshot struct {
	Call Call `json:"call"`
	// Phase is where the call stands: new (not yet checked), edited (the
	// user approved edited arguments, checked again at the next Run),
	// needs_confirmation, deferred (waits for the answer to an earlier
	// call's confirmation), approved, needs_external or done.
	Phase string `json:"phase"`
	// Input is the parsed input the decision was made on ({} for a call
	// without arguments; null before the call was checked).
	Input    Input                `json:"input"`
	Repaired bool                 `json:"repaired,omitempty"`
	Ran      bool                 `json:"ran,omitempty"`
	Decision *permission.Decision `json:"decision,omitempty"`
	// DeferredTo is the ID of the call whose confirmation this one waits
	// for (phase deferred).
	DeferredTo string `json:"deferred_to,omitempty"`
	// Parallel marks a concurrency-safe call (run with its neighbours).
	Parallel bool      `json:"parallel,omitempty"`
	Response *Response `json:"response,omitempty"`
}

var phaseNames = map[phase]string{
	phaseNew:      "new",
	phaseEdited:   "edited",
	phaseAsk:      string(StatusNeedsConfirmation),
	phaseDeferred: "deferred",
	phaseApproved: "approved",
	phaseReady:    "ready",
	phaseExternal: string(StatusNeedsExternal),
	phaseDone:     string(StatusDone),
}

func parsePhase(s string) (phase, bool) {
	for p, n := range phaseNames {
		if n == s {
			return p, true
		}
	}
	return 0, false
}

// Snapshot saves the turn as it stands between two Runs. Like the
// Turn's other methods, it must not be called while Run runs.
func (t *Turn) Snapshot() *TurnSnapshot {
	t.revision++
	s := &TurnSnapshot{
		Version:   SnapshotVersion,
		ID:        t.ID(),
		Revision:  t.revision,
		SessionID: t.session.ID(),
		Batches:   append([][2]int(nil), t.batches...),
		NextBatch: t.cur,
	}
	for _, cs := range t.calls {
		c := CallSnapshot{
			Call:     cs.call,
			Phase:    phaseNames[cs.phase],
			Input:    cs.input,
			Repaired: cs.repaired,
			Ran:      cs.ran,
			Parallel: cs.parallel,
			Response: cs.resp,
		}
		if cs.decision.Behavior != "" {
			d := cs.decision
			c.Decision = &d
		}
		if cs.phase == phaseDeferred && cs.deferredTo >= 0 {
			c.DeferredTo = t.calls[cs.deferredTo].call.ID
		}
		s.Calls = append(s.Calls, c)
	}
	return s
}

// ErrBadSnapshot is matched by ResumeTurn's error for a snapshot it
// cannot read: another version, a phase it does not know, batches that do
// not cover the calls.
var ErrBadSnapshot = errors.New("bad turn snapshot")

// ResumeTurn turns a snapshot back into a Turn of the session it was
// taken in, ready for Confirm, SubmitResult and Run. Calls keep their
// parsed input and decision, and done calls their response: they never
// run again.
//
// The toolkit's tools are looked up again, and what changed since the
// snapshot is checked before anything runs: a call whose tool is gone or
// whose input no longer fits the tool's schema goes through the pipeline
// again (and fails there as it would for the model), and a waiting or
// approved call that a deny rule now matches is denied. ctx serves only to
// load the session and check permissions; Run's context governs the calls.
func (tk *Toolkit) ResumeTurn(ctx context.Context, snap *TurnSnapshot, opts TurnOptions) (*Turn, error) {
	if snap == nil {
		return nil, fmt.Errorf("resume turn: nil snapshot: %w", ErrBadSnapshot)
	}
	if snap.Version != SnapshotVersion {
		return nil, fmt.Errorf("resume turn %s: version %d, this toolkit reads version %d: %w", snap.ID, snap.Version, SnapshotVersion, ErrBadSnapshot)
	}
	s, err := tk.store.Session(ctx, snap.SessionID)
	if err != nil {
		return nil, fmt.Errorf("session %q: %w", snap.SessionID, err)
	}
	t := &Turn{gates: gates{tk: tk, session: s, opts: opts}, id: snap.ID, revision: snap.Revision, cur: snap.NextBatch}
	if err := t.loadGranted(ctx); err != nil {
		return nil, fmt.Errorf("resume turn %s: %w", snap.ID, err)
	}
	t.fresh = true
	if t.opts.MaxParallel <= 0 {
		t.opts.MaxParallel = 16
	}
	if err := t.restoreBatches(snap); err != nil {
		return nil, fmt.Errorf("resume turn %s: %w", snap.ID, err)
	}
	index := map[string]int{}
	for i, c := range snap.Calls {
		if _, dup := index[c.Call.ID]; dup || c.Call.ID == "" {
			return nil, fmt.Errorf("resume turn %s: call id %q is empty or not unique: %w", snap.ID, c.Call.ID, ErrBadSnapshot)
		}
		index[c.Call.ID] = i
	}
	r := tk.reg.Load()
	pc := t.permissionContext()
	for _, c := range snap.Calls {
		ph, ok := parsePhase(c.Phase)
		if !ok {
			return nil, fmt.Errorf("resume turn %s: call %s: unknown phase %q: %w", snap.ID, c.Call.ID, c.Phase, ErrBadSnapshot)
		}
		if (ph == phaseDone) != (c.Response != nil) {
			return nil, fmt.Errorf("resume turn %s: call %s: a response goes with phase done, and only with it: %w", snap.ID, c.Call.ID, ErrBadSnapshot)
		}
		if ph == phaseReady {
			// Never saved between two Runs; a forged or old "ready" is
			// checked again like a new call.
			ph = phaseNew
		}
		cs := &callState{call: c.Call, phase: ph, input: c.Input, repaired: c.Repaired, ran: c.Ran,
			parallel: c.Parallel, resp: c.Response, deferredTo: -1}
		if c.Decision != nil {
			cs.decision = *c.Decision
		}
		if ph == phaseDeferred {
			j, ok := index[c.DeferredTo]
			if !ok || j >= len(t.calls) || t.batchOf(j) != t.batchOf(len(t.calls)) {
				return nil, fmt.Errorf("resume turn %s: call %s waits for %q, not an earlier call of its batch: %w", snap.ID, c.Call.ID, c.DeferredTo, ErrBadSnapshot)
			}
			cs.deferredTo = int32(j)
		}
		t.calls = append(t.calls, cs)
	}
	if err := t.checkBatches(); err != nil {
		return nil, fmt.Errorf("resume turn %s: %w", snap.ID, err)
	}
	for _, cs := range t.calls {
		switch cs.phase {
		case phaseAsk, phaseApproved, phaseExternal:
			t.reattach(ctx, r, cs, pc)
		}
	}
	t.releaseDeferred()
	return t, nil
}

// batchOf returns the index of the batch holding call i.
func (t *Turn) batchOf(i int) int {
	for k, b := range t.batches {
		if b[0] <= i && i < b[1] {
			return k
		}
	}
	return -1
}

// releaseDeferred sends back through the gates every deferred call whose
// earlier call no longer waits for confirmation (it was finished or
// re-admitted on resume): only Confirm releases them otherwise, and
// nothing would.
func (t *Turn) releaseDeferred() {
	for _, cs := range t.calls {
		if cs.phase == phaseDeferred && (cs.deferredTo < 0 || t.calls[cs.deferredTo].phase != phaseAsk) {
			cs.phase, cs.deferredTo = phaseNew, -1
		}
	}
}

// restoreBatches copies the snapshot's batches after checking that they
// cover its calls in order.
func (t *Turn) restoreBatches(snap *TurnSnapshot) error {
	next := 0
	for _, b := range snap.Batches {
		if b[0] != next || b[1] <= b[0] || b[1] > len(snap.Calls) {
			return fmt.Errorf("batches %v do not cover the %d calls in order: %w", snap.Batches, len(snap.Calls), ErrBadSnapshot)
		}
		next = b[1]
	}
	if next != len(snap.Calls) || snap.NextBatch < 0 || snap.NextBatch > len(snap.Batches) {
		return fmt.Errorf("batches %v (next %d) do not cover the %d calls: %w", snap.Batches, snap.NextBatch, len(snap.Calls), ErrBadSnapshot)
	}
	t.batches = append([][2]int(nil), snap.Batches...)
	return nil
}

// checkBatches refuses a snapshot whose batches Run could not drive: a
// finished batch holding a call not done (it would be skipped), a batch of
// several calls not all concurrency-safe (Run drives a sequential batch's
// first call only).
func (t *Turn) checkBatches() error {
	for k, b := range t.batches {
		for _, cs := range t.calls[b[0]:b[1]] {
			if k < t.cur && cs.phase != phaseDone {
				return fmt.Errorf("call %s is in a finished batch but not done: %w", cs.call.ID, ErrBadSnapshot)
			}
			if b[1]-b[0] > 1 && !cs.parallel {
				return fmt.Errorf("call %s is not concurrency-safe but shares batch %v: %w", cs.call.ID, b, ErrBadSnapshot)
			}
		}
	}
	return nil
}

// reattach finds the tool of a call that was past the pipeline's first
// gates when the turn was saved, and checks that what it was admitted on
// still holds: a tool gone or changed sends the call through the gates
// again, a deny rule that now matches denies it.
func (t *Turn) reattach(ctx context.Context, r *registry, cs *callState, pc *permission.Context) {
	e := t.resolve(r, cs.call.Name)
	if e == nil || cs.input == nil || e.checkInput(cs.input) != nil {
		cs.phase, cs.input, cs.decision = phaseNew, nil, permission.Decision{}
		return
	}
	cs.e = e
	if e.spec.External && cs.phase != phaseExternal && cs.phase != phaseAsk {
		cs.phase = phaseExternal
	}
	d := evaluate(t.withRuntime(ctx, cs, pc), &e.subject, cs.input, pc)
	switch {
	case d.Behavior == permission.Deny:
		cs.decision = d
		t.finish(cs, errorResponse(cs.call.Name, cs.call.ID, KindDenied, d.Message))
	case d.Behavior == permission.Ask && d.BypassImmune && !cs.decision.BypassImmune && cs.phase != phaseAsk:
		// A safety check that did not ask when the user approved (a new
		// ask rule on the host's files, a rule that may match): the user
		// must see this one.
		cs.decision, cs.phase = d, phaseAsk
	case d.Behavior == permission.Ask && cs.phase == phaseAsk:
		cs.decision = d // the question as it stands now
	}
}

// newTurnID returns a random turn ID.
func newTurnID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "turn_" + hex.EncodeToString(b[:])
}

// ID returns the turn's ID, which its snapshots keep. It is made on first
// use: most turns are never saved, and a random ID costs a system call.
func (t *Turn) ID() string {
	if t.id == "" {
		t.id = newTurnID()
	}
	return t.id
}

// Call runs one call through the whole pipeline, as a turn of that call
// alone: the same gates, the same middleware (the toolkit's and the
// tool's), the same size limit. It is how a program calls a tool
// directly. It returns the final response, whose Err says how a failed
// call failed; when the call waits for the user's confirmation or for an
// external result, it returns a *WaitingError (ErrWaiting) whose Turn
// takes the answer and runs on.
func (tk *Toolkit) Call(ctx context.Context, sessionID string, call Call, opts TurnOptions) (*Response, error) {
	t, err := tk.NewTurn(ctx, sessionID, []Call{call}, opts)
	if err != nil {
		return nil, err
	}
	if err := t.Run(ctx); err != nil {
		return nil, err
	}
	return t.calls[0].resp, nil
}
