package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wasmtools/wasmtools/internal/jsontext"
)

// MaxFrameBytes is the longest line (one JSON-RPC message) the stdio
// transport accepts; a longer one is answered with an error and skipped,
// reading it in bounded pieces.
const MaxFrameBytes = 16 << 20

// MaxFrameDepth bounds the nesting of a message's JSON.
const MaxFrameDepth = 1000

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// GuardedIOTransport is a newline-delimited JSON-RPC transport over a
// reader and a writer (standard input and output for `serve`) that never
// lets one bad line end the server. A line that is not JSON is answered
// with a parse error (-32700); a batch, a "jsonrpc" other than "2.0", an
// id that is neither a string nor an integer, a method that is not a
// string, nesting deeper than MaxFrameDepth, or a line longer than
// MaxFrameBytes with an invalid-request error (-32600); and the server
// goes on with the next line. An error reply without a code (the SDK
// sends code 0 for some protocol violations) gets -32603.
type GuardedIOTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// Logger receives a line per refused frame; nil means slog.Default().
	Logger *slog.Logger
}

// Connect implements sdk.Transport.
func (t *GuardedIOTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	log := t.Logger
	if log == nil {
		log = slog.Default()
	}
	out := &frameWriter{w: t.Writer}
	pr, pw := io.Pipe()
	go func() {
		err := filterFrames(t.Reader, pw, out, log)
		_ = pw.CloseWithError(err)
	}()
	inner := &sdk.IOTransport{Reader: pr, Writer: out, MaxLineLength: MaxFrameBytes + 1}
	return inner.Connect(ctx)
}

// frameWriter writes whole lines only, under a lock shared with the
// error replies, so a reply never lands inside another message; it also
// gives code-less error replies a code.
type frameWriter struct {
	mu      sync.Mutex
	w       io.WriteCloser
	pending []byte
}

func (f *frameWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = append(f.pending, p...)
	for {
		i := bytes.IndexByte(f.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := fixErrorCode(f.pending[:i])
		if _, err := f.w.Write(append(line, '\n')); err != nil {
			return 0, err
		}
		f.pending = f.pending[i+1:]
	}
}

func (f *frameWriter) Close() error { return f.w.Close() }

// reply writes one error response.
func (f *frameWriter) reply(id json.RawMessage, code int, msg string) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err = f.w.Write(append(data, '\n'))
	return err
}

// fixErrorCode gives an error response with code 0 (or none) the code
// -32603.
func fixErrorCode(line []byte) []byte {
	if !bytes.Contains(line, []byte(`"error"`)) {
		return line
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || msg["error"] == nil {
		return line
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(msg["error"], &e) != nil {
		return line
	}
	if c, ok := e["code"]; ok && string(c) != "0" {
		return line
	}
	e["code"] = json.RawMessage(fmt.Sprint(codeInternalError))
	msg["error"], _ = json.Marshal(e)
	fixed, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return fixed
}

// filterFrames copies valid lines from r to w and answers the others.
func filterFrames(r io.Reader, w io.Writer, out *frameWriter, log *slog.Logger) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxFrameBytes)
		if tooLong {
			log.Warn("MCP frame refused", "reason", "longer than the limit", "limit_bytes", MaxFrameBytes)
			if werr := out.reply(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: the message is longer than %d MiB", MaxFrameBytes>>20)); werr != nil {
				return werr
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			if id, code, why := checkFrame(line); code != 0 {
				log.Warn("MCP frame refused", "reason", why)
				if werr := out.reply(id, code, why); werr != nil {
					return werr
				}
			} else if _, werr := w.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line without its newline; a line longer than max
// is skipped to its end and reported as tooLong, holding at most max
// bytes at a time.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > max+1 {
				tooLong, line = true, nil
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return line, tooLong, err
		}
		return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), tooLong, nil
	}
}

// checkFrame validates one message; code is 0 for a valid one. id is the
// message's id when it could be read (for the reply).
func checkFrame(line []byte) (id json.RawMessage, code int, why string) {
	if d := jsontext.Depth(line); d > MaxFrameDepth {
		return nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: JSON nested %d deep (at most %d)", d, MaxFrameDepth)
	}
	trimmed := bytes.TrimSpace(line)
	if !json.Valid(trimmed) {
		return nil, codeParseError, "Parse error: the line is not valid JSON"
	}
	if trimmed[0] == '[' {
		return nil, codeInvalidRequest, "Invalid Request: batches are not supported; send one message per line"
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &msg); err != nil {
		return nil, codeInvalidRequest, "Invalid Request: a message must be a JSON object"
	}
	id = msg["id"]
	if id != nil && !validID(id) {
		return nil, codeInvalidRequest, "Invalid Request: the id must be a string or an integer"
	}
	if string(msg["jsonrpc"]) != `"2.0"` {
		return id, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`
	}
	if m, ok := msg["method"]; ok {
		var s string
		if json.Unmarshal(m, &s) != nil {
			return id, codeInvalidRequest, "Invalid Request: the method must be a string"
		}
	} else if msg["result"] == nil && msg["error"] == nil {
		return id, codeInvalidRequest, "Invalid Request: neither a method nor a result"
	}
	return id, 0, ""
}

func validID(id json.RawMessage) bool {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return true
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.UseNumber()
	if dec.Decode(&n) != nil {
		return false
	}
	_, err := n.Int64()
	return err == nil
}
