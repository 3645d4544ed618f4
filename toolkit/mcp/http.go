package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler is the streamable HTTP handler for the server: the SDK's,
// and a client's DELETE of its session cancels the session's running
// calls at once (the SDK ends the session only when they return).
//
// With ServerOptions.SharedSessions, any server sharing the store serves
// any session: a request for a session begun elsewhere takes it up here
// (see SessionMetaStore), and a client's answers to server-to-client
// requests are passed to the other servers too (see SessionBus).
func (s *Server) HTTPHandler(opts *sdk.StreamableHTTPOptions) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, opts)
	var idle time.Duration
	if opts != nil {
		idle = opts.SessionTimeout
	}
	if s.shared != nil {
		ctx, cancel := context.WithCancel(context.Background())
		s.mu.Lock()
		s.stopShared = append(s.stopShared, cancel)
		s.mu.Unlock()
		go s.listen(ctx, h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		if r.Method == http.MethodDelete && id != "" {
			s.cancelCalls(id)
			if s.shared != nil {
				// The client is done with the session on every server.
				defer s.tk.EndSession(id)
			}
		}
		var serve http.Handler = h
		if s.shared != nil && id != "" {
			a, err := s.adopt(r.Context(), id, idle)
			if err != nil {
				s.log.Warn("cannot take up a session", "session", id, "err", err)
				http.Error(w, "the session cannot be served here: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
			if a != nil {
				if r.Method == http.MethodDelete {
					_ = a.ss.Close()
					w.WriteHeader(http.StatusNoContent)
					return
				}
				serve = a.t
			}
		}
		if r.Method != http.MethodPost || r.Body == nil {
			serve.ServeHTTP(w, r)
			return
		}
		// An unknown method gets the JSON-RPC answer (-32601), as over
		// stdio, not the SDK's plain-text HTTP 400.
		body, err := io.ReadAll(io.LimitReader(r.Body, sdk.DefaultMaxRequestBodyBytes+1))
		r.Body.Close()
		if err != nil {
			http.Error(w, "cannot read the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if s.shared != nil && id != "" && onlyResponses(body) {
			// The request answered may wait on another server.
			s.forward(r.Context(), r, id, body)
		}
		rw := &methodNotFoundWriter{ResponseWriter: w, body: body}
		serve.ServeHTTP(rw, r)
		rw.finish()
	})
}

// methodNotFoundWriter passes a response through, except the SDK's
// plain-text 400 for a method it does not handle, which it turns into a
// JSON-RPC error response.
type methodNotFoundWriter struct {
	http.ResponseWriter
	body     []byte // the request
	held     bool   // a 400 is being held back
	heldBody bytes.Buffer
}

func (m *methodNotFoundWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest && strings.HasPrefix(m.Header().Get("Content-Type"), "text/plain") {
		m.held = true
		return
	}
	m.ResponseWriter.WriteHeader(code)
}

func (m *methodNotFoundWriter) Write(p []byte) (int, error) {
	if m.held {
		return m.heldBody.Write(p)
	}
	return m.ResponseWriter.Write(p)
}

// Flush keeps streamed responses (server-sent events) flowing.
func (m *methodNotFoundWriter) Flush() {
	if f, ok := m.ResponseWriter.(http.Flusher); ok && !m.held {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (m *methodNotFoundWriter) Unwrap() http.ResponseWriter { return m.ResponseWriter }

func (m *methodNotFoundWriter) finish() {
	if !m.held {
		return
	}
	text := m.heldBody.String()
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if !strings.Contains(text, "not handled") || json.Unmarshal(m.body, &req) != nil || len(req.ID) == 0 {
		m.ResponseWriter.WriteHeader(http.StatusBadRequest)
		_, _ = m.ResponseWriter.Write(m.heldBody.Bytes())
		return
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
		"error": map[string]any{"code": -32601, "message": fmt.Sprintf("Method not found: %q", req.Method)}})
	m.Header().Set("Content-Type", "application/json")
	m.Header().Del("Content-Length")
	m.Header().Del("X-Content-Type-Options")
	m.ResponseWriter.WriteHeader(http.StatusOK)
	_, _ = m.ResponseWriter.Write(out)
}
