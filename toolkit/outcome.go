package toolkit

import (
	"errors"

	"github.com/wasmtools/wasmtools/permission"
)

// Kind says how a call ended: successfully, or which gate of the pipeline
// stopped it. Every Response carries one; [Response.Err] turns a kind
// other than KindSuccess into an error matching the kind's sentinel.
type Kind string

// The kinds of response.
const (
	// KindSuccess: the call ran and its tool reported no error.
	KindSuccess Kind = "success"
	// KindUnknownTool: no tool of that name is offered (gate 1).
	KindUnknownTool Kind = "unknown_tool"
	// KindInactive: the tool belongs to a group the session has not
	// activated with reset_tools (gate 1).
	KindInactive Kind = "inactive"
	// KindInvalidInput: the arguments are not a JSON object matching the
	// tool's schema, or needed a repair a call that changes things does
	// not run on (gate 2).
	KindInvalidInput Kind = "invalid_input"
	// KindDenied: the permission engine denied the call (gate 3); the
	// response's Decision says why and by which rule.
	KindDenied Kind = "denied"
	// KindRejected: the user answered the confirmation with no.
	KindRejected Kind = "rejected"
	// KindRefused: a toolkit middleware refused the call (see Refuse).
	KindRefused Kind = "refused"
	// KindToolError: the tool ran and failed, or panicked; Err unwraps
	// to the Go error when the tool returned one.
	KindToolError Kind = "tool_error"
	// KindInterrupted: the turn's context was cancelled before the call
	// ended.
	KindInterrupted Kind = "interrupted"
)

// The sentinel errors of the kinds: errors.Is(resp.Err(), ErrDenied)
// reports a denial, and so on.
var (
	ErrUnknownTool  = errors.New("unknown tool")
	ErrInactive     = errors.New("tool group not active")
	ErrInvalidInput = errors.New("invalid input")
	ErrDenied       = errors.New("permission denied")
	ErrRejected     = errors.New("rejected by the user")
	ErrRefused      = errors.New("refused by middleware")
	ErrToolFailed   = errors.New("tool failed")
	ErrInterrupted  = errors.New("interrupted")
	// ErrPanicked matches the error of a tool that panicked (along with
	// ErrToolFailed).
	ErrPanicked = errors.New("tool panicked")
)

// sentinel returns the sentinel error of a kind; nil for success and
// kinds this version does not know.
func (k Kind) sentinel() error {
	switch k {
	case KindUnknownTool:
		return ErrUnknownTool
	case KindInactive:
		return ErrInactive
	case KindInvalidInput:
		return ErrInvalidInput
	case KindDenied:
		return ErrDenied
	case KindRejected:
		return ErrRejected
	case KindRefused:
		return ErrRefused
	case KindToolError:
		return ErrToolFailed
	case KindInterrupted:
		return ErrInterrupted
	}
	return nil
}

// kindOf is the kind a response's state implies when no gate set one:
// what a tool's own chunks (or an external result) say.
func kindOf(s State) Kind {
	switch s {
	case StateSuccess:
		return KindSuccess
	case StateDenied:
		return KindDenied
	case StateInterrupted:
		return KindInterrupted
	}
	return KindToolError
}

// CallError is a call that did not succeed, as a Go error: its kind
// (errors.Is matches the kind's sentinel, such as ErrDenied), the text
// the model reads, the permission decision when the call reached the
// permission gate, and the Go error behind it when there is one (a
// tool's returned error, a cancelled context), which errors.Is and
// errors.As reach through Unwrap.
type CallError struct {
	Kind    Kind
	Tool    string
	CallID  string
	State   State
	Message string
	// Decision is the permission decision; nil when the call stopped
	// before the permission gate.
	Decision *permission.Decision
	// Err is the Go error behind the failure, if any.
	Err error
}

// Error returns the message the model reads (it names the tool).
func (e *CallError) Error() string { return e.Message }

// Is matches the sentinel of the error's kind.
func (e *CallError) Is(target error) bool {
	s := e.Kind.sentinel()
	return s != nil && target == s
}

// Unwrap returns the Go error behind the failure.
func (e *CallError) Unwrap() error { return e.Err }

// Err returns nil for a successful response and a *CallError otherwise.
func (r *Response) Err() error {
	if r.State == StateSuccess {
		return nil
	}
	kind := r.Kind
	if kind == "" {
		kind = kindOf(r.State)
	}
	return &CallError{Kind: kind, Tool: r.Tool, CallID: r.CallID, State: r.State, Message: r.Text(), Decision: r.Decision, Err: r.err}
}

// refusal is the error of Refuse.
type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

// Refuse returns a stream that ends a call as refused, for a toolkit
// middleware (Options.Middleware) that will not let a call run or will
// not let its result through: the response is StateDenied of
// KindRefused, and message is what the model reads.
func Refuse(message string) Stream { return Fail(&refusal{msg: message}) }

// withErr records the Go error behind a response.
func withErr(r *Response, err error) *Response {
	r.err = err
	return r
}
