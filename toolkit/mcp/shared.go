package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionMetaStore is a session store that keeps small records beside a
// session's state (toolkit/redisstore's Store is one). Servers sharing
// it keep there what one needs to take up an MCP session another began.
type SessionMetaStore interface {
	SetSessionMeta(ctx context.Context, id, key string, value []byte) error
	SessionMeta(ctx context.Context, id, key string) ([]byte, bool, error)
}

// SessionBus is a session store that carries messages between the
// servers sharing it (toolkit/redisstore's Store, over Redis pub/sub).
// A client's answer to a server-to-client request (an elicitation) that
// lands on another server travels on it to the one that asked.
type SessionBus interface {
	Publish(ctx context.Context, session string, msg []byte) error
	// Subscribe calls deliver with every message published by any
	// server, until ctx ends.
	Subscribe(ctx context.Context, deliver func(session string, msg []byte)) error
}

// initMetaKey names a session's MCP initialisation in the store.
const initMetaKey = "mcp-initialize"

// shared is the state of a server whose sessions go on on other servers.
type shared struct {
	origin string // this server, in bus messages

	mu      sync.Mutex
	local   map[string]bool            // sessions the SDK's HTTP handler began here
	adopted map[string]*adoptedSession // sessions begun elsewhere, served here
}

type adoptedSession struct {
	t     *sdk.StreamableServerTransport
	ss    *sdk.ServerSession
	timer *time.Timer // ends the session when idle
}

func newShared() *shared {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &shared{origin: hex.EncodeToString(b[:]), local: map[string]bool{}, adopted: map[string]*adoptedSession{}}
}

// recordInit keeps each new session's initialisation in the store, so
// that any server sharing the store can take the session up, and notes
// the session as one the SDK's handler serves here.
func (s *Server) recordInit(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "initialize" || s.shared == nil {
			return res, err
		}
		ss, _ := req.GetSession().(*sdk.ServerSession)
		ir, _ := res.(*sdk.InitializeResult)
		params, _ := req.GetParams().(*sdk.InitializeParams)
		meta, _ := s.tk.Store().(SessionMetaStore)
		if ss == nil || ir == nil || params == nil || meta == nil || ss.ID() == "" {
			return res, nil
		}
		state := sdk.ServerSessionState{InitializeParams: params, InitializedParams: &sdk.InitializedParams{}, NegotiatedProtocolVersion: ir.ProtocolVersion}
		data, err := json.Marshal(state)
		if err != nil {
			return nil, fmt.Errorf("share the session: %w", err)
		}
		if err := meta.SetSessionMeta(ctx, ss.ID(), initMetaKey, data); err != nil {
			return nil, fmt.Errorf("share the session: %w", err)
		}
		id := ss.ID()
		s.shared.mu.Lock()
		s.shared.local[id] = true
		s.shared.mu.Unlock()
		go func() {
			_ = ss.Wait()
			s.shared.mu.Lock()
			delete(s.shared.local, id)
			s.shared.mu.Unlock()
		}()
		return res, nil
	}
}

// adopt returns the transport of a session begun on another server,
// connecting it here from its initialisation in the store the first
// time; nil when this server's SDK handler owns the session or the store
// does not know it (the SDK then answers 404 and the client starts over).
func (s *Server) adopt(ctx context.Context, id string, idle time.Duration) (*adoptedSession, error) {
	sh := s.shared
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.local[id] {
		return nil, nil
	}
	if a := sh.adopted[id]; a != nil {
		if a.timer != nil {
			a.timer.Reset(idle)
		}
		return a, nil
	}
	meta, ok := s.tk.Store().(SessionMetaStore)
	if !ok {
		return nil, nil
	}
	data, ok, err := meta.SessionMeta(ctx, id, initMetaKey)
	if err != nil || !ok {
		return nil, err
	}
	var state sdk.ServerSessionState
	if err := json.Unmarshal(data, &state); err != nil {
		return nil, fmt.Errorf("session %s: its initialisation in the store is damaged: %w", id, err)
	}
	t := &sdk.StreamableServerTransport{SessionID: id}
	ss, err := s.sdk.Connect(context.Background(), t, &sdk.ServerSessionOptions{State: &state})
	if err != nil {
		return nil, fmt.Errorf("take up session %s: %w", id, err)
	}
	a := &adoptedSession{t: t, ss: ss}
	if idle > 0 {
		a.timer = time.AfterFunc(idle, func() { _ = ss.Close() })
	}
	sh.adopted[id] = a
	go func() {
		_ = ss.Wait()
		if a.timer != nil {
			a.timer.Stop()
		}
		sh.mu.Lock()
		if sh.adopted[id] == a {
			delete(sh.adopted, id)
		}
		sh.mu.Unlock()
	}()
	s.log.Debug("took up a session begun on another server", "session", id)
	return a, nil
}

// onlyResponses reports whether a POST body holds JSON-RPC responses and
// nothing else: a client's answers to server-to-client requests.
func onlyResponses(body []byte) bool {
	body = bytes.TrimSpace(body)
	var msgs []map[string]json.RawMessage
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return false
		}
	} else {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil {
			return false
		}
		msgs = append(msgs, m)
	}
	for _, m := range msgs {
		if _, isCall := m["method"]; isCall {
			return false
		}
		if _, r := m["result"]; !r {
			if _, e := m["error"]; !e {
				return false
			}
		}
	}
	return len(msgs) > 0
}

// busMessage is a client's POST of responses, carried to the other
// servers.
type busMessage struct {
	Origin  string      `json:"origin"`
	Header  http.Header `json:"header"`
	Body    []byte      `json:"body"`
	Session string      `json:"session"`
}

// forward publishes a client's responses to the other servers: the
// request they answer may wait on any of them.
func (s *Server) forward(ctx context.Context, r *http.Request, id string, body []byte) {
	bus, ok := s.tk.Store().(SessionBus)
	if !ok {
		return
	}
	h := http.Header{}
	for _, k := range []string{"Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version"} {
		if v := r.Header.Values(k); len(v) > 0 {
			h[k] = v
		}
	}
	msg, _ := json.Marshal(busMessage{Origin: s.shared.origin, Header: h, Body: body, Session: id})
	if err := bus.Publish(ctx, id, msg); err != nil {
		s.log.Warn("cannot pass a client's answer to the other servers", "session", id, "err", err)
	}
}

// listen delivers the responses other servers received for sessions
// served here, as if the client had posted them here, until ctx ends.
func (s *Server) listen(ctx context.Context, sdkHandler http.Handler) {
	bus, ok := s.tk.Store().(SessionBus)
	if !ok {
		return
	}
	err := bus.Subscribe(ctx, func(session string, raw []byte) {
		var m busMessage
		if json.Unmarshal(raw, &m) != nil || m.Origin == s.shared.origin {
			return
		}
		s.shared.mu.Lock()
		local, a := s.shared.local[m.Session], s.shared.adopted[m.Session]
		s.shared.mu.Unlock()
		if !local && a == nil {
			return
		}
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(m.Body))
		req.Header = m.Header
		s.log.Debug("a client's answer came through another server", "session", m.Session)
		rec := httptest.NewRecorder()
		if a != nil {
			a.t.ServeHTTP(rec, req)
		} else {
			sdkHandler.ServeHTTP(rec, req)
		}
	})
	if err != nil && ctx.Err() == nil {
		s.log.Warn("no answers from other servers", "err", err)
	}
}
