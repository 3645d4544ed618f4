package toolkit

import "context"

// Next runs the rest of a middleware chain (ending in the tool's Call).
type Next func(ctx context.Context, input Input) Stream

// Middleware wraps one tool's calls. It may rewrite the input before
// calling next, transform or filter the chunks next streams, return its own
// stream without calling next (short-circuit), or call next again (retry).
// Middlewares form an onion: the first registered is the outermost.
type Middleware func(ctx context.Context, input Input, next Next) Stream

// chain builds the handler for a tool: mws[0] outermost, call innermost.
func chain(call Next, mws []Middleware) Next {
	h := call
	for i := len(mws) - 1; i >= 0; i-- {
		mw, next := mws[i], h
		h = func(ctx context.Context, in Input) Stream { return mw(ctx, in, next) }
	}
	return h
}

// MapChunks is a helper for middleware that transforms each chunk of a
// stream; returning nil drops the chunk.
func MapChunks(s Stream, f func(*Chunk) *Chunk) Stream {
	return func(yield func(*Chunk, error) bool) {
		for c, err := range s {
			if err != nil {
				yield(nil, err)
				return
			}
			if c = f(c); c != nil && !yield(c, nil) {
				return
			}
		}
	}
}
