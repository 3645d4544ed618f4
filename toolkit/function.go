package toolkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/wasmtools/wasmtools/permission"
)

// FuncOptions tune a tool made by NewFunc or NewStreamFunc. The zero
// value gives the reference's defaults: concurrency-safe, not read-only,
// schema inferred, every call asks (not bypass-immune).
type FuncOptions struct {
	// InputSchema replaces the inferred schema.
	InputSchema json.RawMessage
	// ReadOnly marks every call read-only (allowed without asking).
	ReadOnly bool
	// Sequential marks the tool as not concurrency-safe.
	Sequential bool
	// CheckPermissions replaces the default check (always ASK).
	CheckPermissions func(ctx context.Context, input Input, pc *permission.Context) (permission.Decision, error)
}

// NewFunc makes a tool from a Go function. Unless opts.InputSchema
// replaces it, the input schema is inferred from In by [InferSchema]:
// fields follow their json tags, the `jsonschema:"..."` tag is a field's
// description, `enum:"a,b,c"` its allowed values and `default:"..."` its
// default. The toolkit validates the arguments against it, and what fits
// is decoded into In with encoding/json (numbers in map[string]any or
// any fields as json.Number).
//
// A string result becomes a text block; json.RawMessage is sent as it is;
// any other result is encoded as JSON text. An error result ends the call
// with StateError and the error's message, which the model reads.
func NewFunc[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts FuncOptions) (Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("tool %s: nil function", name)
	}
	spec, err := funcSpec[In](name, description, opts)
	if err != nil {
		return nil, err
	}
	return &funcTool[In, Out]{spec: spec, fn: fn, check: opts.CheckPermissions}, nil
}

// funcSpec is the Spec of a function tool taking In.
func funcSpec[In any](name, description string, opts FuncOptions) (Spec, error) {
	// The caller's schema is copied: it stays theirs to change.
	schema := bytes.Clone(opts.InputSchema)
	if schema == nil {
		s, err := InferSchema[In]()
		if err != nil {
			return Spec{}, fmt.Errorf("tool %s: %w", name, err)
		}
		schema = s
	}
	return Spec{
		Name:            name,
		Description:     description,
		InputSchema:     schema,
		ConcurrencySafe: !opts.Sequential,
		ReadOnly:        opts.ReadOnly,
		Source:          Source{Kind: SourceFunction},
	}, nil
}

// funcSpecCopy returns spec with schemas of its own, so that a caller
// changing them cannot change the tool's.
func funcSpecCopy(spec Spec) Spec {
	spec.InputSchema = bytes.Clone(spec.InputSchema)
	spec.OutputSchema = bytes.Clone(spec.OutputSchema)
	return spec
}

// funcCheck is the permission check of a function tool: check when the
// options gave one, else ASK.
func funcCheck(ctx context.Context, name string, check func(context.Context, Input, *permission.Context) (permission.Decision, error), in Input, pc *permission.Context) (permission.Decision, error) {
	if check != nil {
		return check(ctx, in, pc)
	}
	return permission.AskDecision(fmt.Sprintf("Run %s?", name), "function tools ask by default"), nil
}

// decodeArgs decodes the call's arguments into arg. A failure is one the
// model can fix (the schema let through a value In cannot hold, or the
// schema was the caller's own), so its message names the field.
func decodeArgs(in Input, arg any) error {
	err := in.Decode(arg)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return &argsError{fmt.Sprintf("invalid arguments: %s cannot be a JSON %s (it is a Go %s); correct it and call again", te.Field, te.Value, te.Type), err}
	}
	return &argsError{fmt.Sprintf("invalid arguments: %v; correct them and call again", err), err}
}

// argsError is a decoding failure told to the model in its own words; it
// unwraps to encoding/json's error.
type argsError struct {
	msg string
	err error
}

func (e *argsError) Error() string { return e.msg }
func (e *argsError) Unwrap() error { return e.err }

// NewStreamFunc makes a streaming tool from a Go function: the input is
// inferred, validated and decoded as for [NewFunc], and fn sends the
// result as chunks through emit, in order; the toolkit streams each one
// as an EventChunk and folds them into the call's Response.
//
// emit returns an error once no more chunks are wanted: ctx is done (the
// error wraps ctx.Err()), or whoever reads the stream stopped reading
// ([ErrStopped], returned by the emit of the last chunk read and every
// one after; it wraps ctx.Err() too when the reader stopped because ctx
// was done meanwhile). fn should then return at once; when the reader stopped,
// what it returns is dropped. emit may be called from several goroutines,
// one chunk at a time, but not after fn has returned, and a chunk must
// not be changed once emitted. A nil chunk is skipped.
//
// fn returning an error ends the call with StateError and the error's
// message after the chunks emitted so far; a cancelled ctx ends it with
// StateInterrupted.
func NewStreamFunc[In any](name, description string, fn func(ctx context.Context, in In, emit func(*Chunk) error) error, opts FuncOptions) (Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("tool %s: nil function", name)
	}
	spec, err := funcSpec[In](name, description, opts)
	if err != nil {
		return nil, err
	}
	return &streamFuncTool[In]{spec: spec, fn: fn, check: opts.CheckPermissions}, nil
}

// ErrStopped is what a stream function's emit returns once the stream's
// reader has stopped reading.
var ErrStopped = errors.New("the stream's reader stopped")

type streamFuncTool[In any] struct {
	spec  Spec
	fn    func(context.Context, In, func(*Chunk) error) error
	check func(context.Context, Input, *permission.Context) (permission.Decision, error)
}

// Spec returns a copy of the tool's spec.
func (t *streamFuncTool[In]) Spec() Spec { return funcSpecCopy(t.spec) }

// CheckPermissions answers with FuncOptions.CheckPermissions, or ASK.
func (t *streamFuncTool[In]) CheckPermissions(ctx context.Context, in Input, pc *permission.Context) (permission.Decision, error) {
	return funcCheck(ctx, t.spec.Name, t.check, in, pc)
}

// Call decodes the arguments and runs the function, yielding what it
// emits.
func (t *streamFuncTool[In]) Call(ctx context.Context, in Input) Stream {
	return func(yield func(*Chunk, error) bool) {
		var arg In
		if err := decodeArgs(in, &arg); err != nil {
			yield(nil, err)
			return
		}
		// yield may not be called concurrently, after it returned false,
		// or after this function returns (the range loop would panic):
		// mu and closed keep emit to that, whatever fn does.
		var (
			mu     sync.Mutex
			closed error
		)
		emit := func(c *Chunk) error {
			mu.Lock()
			defer mu.Unlock()
			if closed != nil {
				return closed
			}
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("chunk not sent: %w", err)
			}
			if c != nil && !yield(c, nil) {
				closed = ErrStopped
				if err := ctx.Err(); err != nil {
					// The reader stopped because the call was cancelled
					// meanwhile: the error says both.
					closed = fmt.Errorf("%w: %w", ErrStopped, err)
				}
				return closed
			}
			return nil
		}
		err := t.fn(ctx, arg, emit)
		mu.Lock()
		defer mu.Unlock()
		stopped := closed != nil
		closed = errors.New("emit called after the stream function returned")
		if err != nil && !stopped {
			yield(nil, err)
		}
	}
}

type funcTool[In, Out any] struct {
	spec  Spec
	fn    func(context.Context, In) (Out, error)
	check func(context.Context, Input, *permission.Context) (permission.Decision, error)
}

// Spec returns a copy of the tool's spec.
func (t *funcTool[In, Out]) Spec() Spec { return funcSpecCopy(t.spec) }

// CheckPermissions answers with FuncOptions.CheckPermissions, or ASK.
func (t *funcTool[In, Out]) CheckPermissions(ctx context.Context, in Input, pc *permission.Context) (permission.Decision, error) {
	return funcCheck(ctx, t.spec.Name, t.check, in, pc)
}

// Call decodes the arguments and runs the function.
func (t *funcTool[In, Out]) Call(ctx context.Context, in Input) Stream {
	return func(yield func(*Chunk, error) bool) {
		var arg In
		if err := decodeArgs(in, &arg); err != nil {
			yield(nil, err)
			return
		}
		out, err := t.fn(ctx, arg)
		if err != nil {
			yield(nil, err)
			return
		}
		text, err := resultText(out)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(&Chunk{Content: []Block{TextBlock(text)}, State: StateSuccess, Last: true}, nil)
	}
}

func resultText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.RawMessage:
		return string(v), nil
	case fmt.Stringer:
		if reflect.TypeOf(v).Kind() != reflect.Struct {
			return v.String(), nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode result: %w", err)
	}
	return string(b), nil
}
