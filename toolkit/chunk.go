package toolkit

import (
	"iter"
	"maps"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
)

// State is the state of a chunk or of a whole response.
type State string

// The states. A chunk is Running unless it says otherwise; a response that
// ends without an error, a denial or an interruption is Success.
const (
	StateRunning     State = "running"
	StateSuccess     State = "success"
	StateError       State = "error"
	StateInterrupted State = "interrupted"
	StateDenied      State = "denied"
)

// BlockType is the kind of a content block.
type BlockType string

// The block types.
const (
	BlockText BlockType = "text"
	BlockData BlockType = "data"
)

// Block is one piece of content: text, or bytes with a media type.
type Block struct {
	Type BlockType `json:"type"`
	// ID groups text blocks across chunks: folding concatenates text
	// blocks that share an ID (the empty ID included) into the first one.
	ID        string `json:"id,omitempty"`
	Text      string `json:"text,omitempty"`
	Data      []byte `json:"data,omitempty"` // base64 in JSON
	MediaType string `json:"media_type,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(text string) Block { return Block{Type: BlockText, Text: text} }

// DataBlock returns a data block.
func DataBlock(mediaType string, data []byte) Block {
	return Block{Type: BlockData, MediaType: mediaType, Data: data}
}

// Chunk is one piece of a streamed result.
type Chunk struct {
	Content  []Block        `json:"content,omitempty"`
	State    State          `json:"state,omitempty"` // "" means StateRunning
	Last     bool           `json:"is_last,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
	ID       string         `json:"id,omitempty"`
	// Structured is the result as data, matching the tool's
	// Spec.OutputSchema; the last chunk carrying one sets the response's.
	Structured any `json:"structured,omitempty"`
	// Progress says how far the call has come. It is news for whoever
	// watches the call (an MCP client's progress notifications) and is
	// not folded into the response.
	Progress *Progress `json:"progress,omitempty"`
}

// Progress is a running call's report of how far it has come, as an MCP
// server reports it upstream: Done out of Total (0 when unknown) and an
// optional message.
type Progress struct {
	Done    float64 `json:"done"`
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}

// TextChunk returns a running chunk holding one text block.
func TextChunk(text string) *Chunk { return &Chunk{Content: []Block{TextBlock(text)}} }

// ErrorChunk returns a chunk that makes the response an error.
func ErrorChunk(text string) *Chunk {
	return &Chunk{Content: []Block{TextBlock(text)}, State: StateError, Last: true}
}

// Stream is how every tool delivers its result: a sequence of chunks,
// possibly ending with an error. A non-nil error ends the call with
// StateError and its message as text. Consumers may stop early; the
// stream must then release what it holds.
type Stream = iter.Seq2[*Chunk, error]

// Single returns a stream of one chunk.
func Single(c *Chunk) Stream {
	return func(yield func(*Chunk, error) bool) { yield(c, nil) }
}

// Fail returns a stream that ends at once with err.
func Fail(err error) Stream {
	return func(yield func(*Chunk, error) bool) { yield(nil, err) }
}

// Response is the folded, final result of one call: the last thing every
// call produces, also on error, denial and cancellation.
type Response struct {
	CallID   string         `json:"call_id,omitempty"`
	Tool     string         `json:"tool"`
	State    State          `json:"state"`
	Content  []Block        `json:"content"`
	Metadata map[string]any `json:"metadata,omitempty"`
	// Structured is the result as data, for tools that declare an
	// OutputSchema (MCP structuredContent); nil when the call failed.
	Structured any `json:"structured,omitempty"`
	// Repaired is set when the arguments were not valid JSON and were
	// repaired. Only a read-only call runs on repaired arguments, and its
	// content then ends with a note saying so; any other call is not run
	// and its response is an error asking for the arguments again.
	Repaired bool `json:"repaired,omitempty"`
	// Kind says how the call ended: KindSuccess, or the gate that stopped
	// it (see Err).
	Kind Kind `json:"kind,omitempty"`
	// Decision is the permission decision the call got, with the rule
	// that decided when one did; nil when the call stopped before the
	// permission gate.
	Decision *permission.Decision `json:"decision,omitempty"`

	// err is the Go error behind a failure (a tool's returned error, a
	// panic, a cancelled context), reached through Err. It does not
	// cross a wire: a response read back from JSON keeps its Kind.
	err error

	// fold is Fold's bookkeeping, so that folding n chunks costs O(n)
	// and not O(n²): which block holds each text ID, and the growing
	// text of the blocks Fold extends.
	fold *folding
}

// folding indexes a response's text blocks by ID and keeps the text Fold
// appends to with room to grow. It is rebuilt when Content was changed by
// other means than Fold.
type folding struct {
	index map[string]int // text block ID -> index of its first block
	grow  map[int]*grower
	// The Content the index describes: its first element and length.
	base *Block
	n    int
}

// describes reports whether f indexes content as it is.
func (f *folding) describes(content []Block) bool {
	return f != nil && f.n == len(content) && (f.n == 0 || f.base == &content[0])
}

func (f *folding) saw(content []Block) {
	f.n = len(content)
	if f.n > 0 {
		f.base = &content[0]
	}
}

// grower is the text of one block: last is what Fold set the block's
// Text to, so a block changed since is noticed.
type grower struct {
	b    strings.Builder
	last string
}

// Text returns the concatenated text blocks.
func (r *Response) Text() string {
	var b strings.Builder
	for _, blk := range r.Content {
		if blk.Type == BlockText {
			b.WriteString(blk.Text)
		}
	}
	return b.String()
}

// IsError reports whether the response is an error, a denial or an
// interruption.
func (r *Response) IsError() bool { return r.State != StateSuccess }

// Fold adds one chunk to the response, following the folding rules: text
// blocks with the same ID concatenate, other blocks are appended, metadata
// merges (later keys win), StateError is sticky, StateInterrupted and
// StateDenied stick unless the response is already an error.
func (r *Response) Fold(c *Chunk) {
	if c == nil {
		return
	}
	for _, blk := range c.Content {
		if blk.Type == BlockText {
			if i := r.textBlock(blk.ID); i >= 0 {
				r.appendText(i, blk.Text)
				continue
			}
		}
		r.Content = append(r.Content, blk)
		if r.fold != nil && blk.Type == BlockText {
			if _, ok := r.fold.index[blk.ID]; !ok {
				r.fold.index[blk.ID] = len(r.Content) - 1
			}
		}
		if r.fold != nil {
			r.fold.saw(r.Content)
		}
	}
	if len(c.Metadata) > 0 {
		if r.Metadata == nil {
			r.Metadata = make(map[string]any, len(c.Metadata))
		}
		maps.Copy(r.Metadata, c.Metadata)
	}
	if c.Structured != nil {
		r.Structured = c.Structured
	}
	r.foldState(c.State)
}

// textBlock returns the index of the first text block with the ID, or -1.
func (r *Response) textBlock(id string) int {
	f := r.fold
	stale := !f.describes(r.Content)
	if !stale {
		i, ok := f.index[id]
		stale = ok && (r.Content[i].Type != BlockText || r.Content[i].ID != id)
	}
	if stale {
		// New, or Content was changed by other means: index it again.
		f = &folding{index: map[string]int{}, grow: map[int]*grower{}}
		for i, b := range r.Content {
			if _, seen := f.index[b.ID]; b.Type == BlockText && !seen {
				f.index[b.ID] = i
			}
		}
		f.saw(r.Content)
		r.fold = f
	}
	if i, ok := f.index[id]; ok {
		return i
	}
	return -1
}

// appendText appends to the text of block i, amortised.
func (r *Response) appendText(i int, text string) {
	g := r.fold.grow[i]
	if g == nil || g.last != r.Content[i].Text {
		g = &grower{}
		g.b.WriteString(r.Content[i].Text)
		r.fold.grow[i] = g
	}
	g.b.WriteString(text)
	g.last = g.b.String()
	r.Content[i].Text = g.last
}

func (r *Response) foldState(s State) {
	switch s {
	case StateError:
		r.State = StateError
	case StateInterrupted, StateDenied:
		if r.State != StateError {
			r.State = s
		}
	}
}

// finish turns a response still marked running into a success.
func (r *Response) finish() {
	if r.State == "" || r.State == StateRunning || r.State == StateSuccess {
		r.State = StateSuccess
	}
	if r.Content == nil {
		r.Content = []Block{}
	}
	if r.Kind == "" || r.Kind == KindSuccess && r.State != StateSuccess {
		r.Kind = kindOf(r.State)
	}
}

// errorResponse is a response of a call stopped by a gate, holding one
// model-facing message.
func errorResponse(tool, callID string, kind Kind, msg string) *Response {
	state := StateError
	switch kind {
	case KindDenied, KindRejected, KindRefused:
		state = StateDenied
	case KindInterrupted:
		state = StateInterrupted
	}
	return &Response{CallID: callID, Tool: tool, State: state, Kind: kind, Content: []Block{TextBlock(msg)}}
}
