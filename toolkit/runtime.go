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
