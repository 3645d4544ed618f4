package toolkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"
)

// execute runs gate 4 for an allowed call of a tool with a Call method:
// the tool's middleware chain, streaming each chunk to emit, folding them
// into the response. A panic anywhere in the chain becomes an ERROR
// response; a cancelled context an INTERRUPTED one.
func (tk *Toolkit) execute(ctx context.Context, e *entry, callID string, in Input, emit func(*Chunk)) *Response {
	resp := &Response{CallID: callID, Tool: e.spec.Name}
	func() {
		defer func() {
			if p := recover(); p != nil {
				pe := panicError(p).(*panicErr)
				tk.log.Error("tool panicked", slog.String("tool", e.spec.Name), slog.String("call_id", callID),
					slog.Any("panic", p), slog.String("stack", string(pe.stack)))
				resp.Fold(ErrorChunk(fmt.Sprintf("%s failed: %v. This is a bug in the tool; try another approach.", e.spec.Name, pe)))
				resp.Kind, resp.err = KindToolError, pe
			}
		}()
		for c, err := range e.handler(ctx, in) {
			if err != nil {
				switch {
				case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
					resp.Fold(interruptedChunk())
					resp.Kind = KindInterrupted
				case errors.Is(err, ErrRefused):
					resp.Fold(&Chunk{Content: []Block{TextBlock(err.Error())}, State: StateDenied, Last: true})
					resp.Kind = KindRefused
				default:
					resp.Fold(ErrorChunk(err.Error()))
					resp.Kind = KindToolError
				}
				resp.err = err
				return
			}
			if c == nil {
				continue
			}
			resp.Fold(c)
			if emit != nil {
				emit(c)
			}
			if err := ctx.Err(); err != nil {
				resp.Fold(interruptedChunk())
				resp.Kind, resp.err = KindInterrupted, err
				return
			}
		}
	}()
	resp.finish()
	return resp
}

func interruptedChunk() *Chunk {
	return &Chunk{Content: []Block{TextBlock("\n[interrupted: the call was cancelled before it finished]")}, State: StateInterrupted, Last: true}
}

// limitSize is gate 5: text beyond MaxResultChars is cut; the full text is
// written to a file the model can read, and a note says where.
func (tk *Toolkit) limitSize(resp *Response, session string) {
	limit := tk.opts.MaxResultChars
	if limit < 0 {
		return
	}
	total := 0
	for _, b := range resp.Content {
		if b.Type == BlockText {
			total += len(b.Text) // bytes >= runes: a cheap first test
		}
	}
	if total <= limit {
		return
	}
	full := resp.Text()
	chars := utf8.RuneCountInString(full)
	if chars <= limit {
		return
	}
	kept := full[:byteOffsetOfRune(full, limit)]
	note := fmt.Sprintf("\n\n[output cut: %d of %d characters shown.", limit, chars)
	if src, ok := resp.Metadata[MetaSourcePath].(string); ok && src != "" {
		// The source can serve the rest: no copy is saved.
		note += fmt.Sprintf(" Read %s in smaller parts (offset and limit) to see the rest.]", src)
	} else if path, err := tk.offloads.save(session, resp.Tool, resp.CallID, full); err != nil {
		tk.log.Warn("could not save a cut result", slog.String("tool", resp.Tool), slog.Any("err", err))
		note += " The rest could not be saved; narrow the request to see less at once.]"
	} else {
		note += fmt.Sprintf(" The full output is in %s: read it in parts with the Read tool (offset and limit), or search it with Grep.]", path)
		if resp.Metadata == nil {
			resp.Metadata = map[string]any{}
		}
		resp.Metadata["full_output_path"] = path
	}
	out := []Block{{Type: BlockText, Text: kept + note}}
	for _, b := range resp.Content {
		if b.Type != BlockText {
			out = append(out, b)
		}
	}
	resp.Content = out
}

func byteOffsetOfRune(s string, n int) int {
	i := 0
	for off := range s {
		if i == n {
			return off
		}
		i++
	}
	return len(s)
}

func safeFileName(s string) string {
	if s == "" {
		return "call"
	}
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, s)
}
