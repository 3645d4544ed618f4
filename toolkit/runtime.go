package toolkit

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/wasmtools/wasmtools/permission"
)

// Runtime is what a running call knows about itself: which session and call
// it belongs to, the session's state, and what the caller accepts. The
// toolkit puts it in the context passed to CheckPermissions and Call.
type Runtime struct {
	SessionID string
	CallID    string
	Tool      string
	Session   SessionState
	// Accept lists the media types the caller can take as data blocks
	// (e.g. "image/png", "application/pdf"); tools fall back to text for
	// others.
	Accept []string
	// Permission is the permission configuration the call was judged
	// under: tools read the working directories from it.
	Permission *permission.Context
	// args is the call's arguments text when it is plain, and argsInput
	// what it decoded to (see Arguments).
	args      string
	argsInput Input
}

// Arguments returns the call's JSON arguments as they were sent, when in
// holds exactly what they decode to, and any JSON decoder reads them as
// those members (one object of strings, numbers, booleans and nulls, no
// key twice, no two keys that differ only by case); else ok is false. A
// tool that hands its input on as JSON (to a plugin, say) can send these
// bytes instead of encoding in again, which for a large input costs as
// much as the call's other work. in is compared member by member, so an
// input a middleware or a check replaced or changed gives ok false.
func (rt *Runtime) Arguments(in Input) (args string, ok bool) {
	if rt == nil || rt.argsInput == nil || !sameFlat(in, rt.argsInput) {
		return "", false
	}
	return rt.args, true
}

type runtimeKey struct{}

// RuntimeFrom returns the call's Runtime, or nil outside a toolkit call.
func RuntimeFrom(ctx context.Context) *Runtime {
	rt, _ := ctx.Value(runtimeKey{}).(*Runtime)
	return rt
}

// WithRuntime returns a context carrying rt. The toolkit does this for
// every call; tests of a single tool can do it by hand.
func WithRuntime(ctx context.Context, rt *Runtime) context.Context {
	return context.WithValue(ctx, runtimeKey{}, rt)
}

// runtimeContext is a context carrying a Runtime held inside it: what
// WithRuntime gives, in one allocation instead of two (the Runtime and
// the context), or none when it lives in a Check's turn.
type runtimeContext struct {
	context.Context
	rt Runtime
}

// Value implements context.Context.
func (c *runtimeContext) Value(key any) any {
	if _, ok := key.(runtimeKey); ok {
		return &c.rt
	}
	return c.Context.Value(key)
}

// Accepts reports whether the caller accepts data blocks of mediaType.
func (rt *Runtime) Accepts(mediaType string) bool {
	if rt == nil {
		return false
	}
	for _, a := range rt.Accept {
		if a == mediaType || a == "*/*" {
			return true
		}
	}
	return false
}

// panicError turns a recovered panic into an error that keeps the stack
// for the logs.
type panicErr struct {
	value any
	stack []byte
}

func (p *panicErr) Error() string { return fmt.Sprintf("the tool panicked: %v", p.value) }

// Is makes a panic match ErrPanicked.
func (p *panicErr) Is(target error) bool { return target == ErrPanicked }

func panicError(v any) error { return &panicErr{value: v, stack: debug.Stack()} }
