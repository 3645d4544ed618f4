package mcp

import (
	"context"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionID maps an MCP session to a wasmtools session.
func (s *Server) sessionID(ss *sdk.ServerSession) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.sessions[ss]; ok {
		return id
	}
	id := ss.ID()
	if id == "" {
		id = fmt.Sprintf("mcp-%d", s.seq.Add(1))
		if s.shared != nil {
			// Sessions without an MCP id (stdio) of two processes must
			// not meet in a shared store.
			id += "-" + s.shared.origin
		}
	}
	s.sessions[ss] = id
	go s.endWhenClosed(ss, id)
	return id
}

// endWhenClosed frees what a session holds once it ends (closed by the
// client, DELETEd over HTTP, expired by the idle timeout, or the
// connection lost): its entry here, its calls waiting for confirmation,
// and its state in the toolkit's store.
func (s *Server) endWhenClosed(ss *sdk.ServerSession, id string) {
	_ = ss.Wait()
	s.mu.Lock()
	delete(s.sessions, ss)
	delete(s.changed, id)
	// Calls still running for a session that is gone (DELETE, a dropped
	// connection, expiry) are cancelled: nobody will read their results.
	s.cancelCallsLocked(id)
	for token, p := range s.pending {
		if p.session == id {
			delete(s.pending, token)
		}
	}
	s.mu.Unlock()
	if !s.opts.SharedSessions {
		s.tk.EndSession(id)
	}
	s.log.Debug("MCP session ended", "session", id)
}

// runningCall is a call in progress.
type runningCall struct {
	session string
	cancel  context.CancelFunc
}

// startCall registers a call so that Shutdown can cancel it; ok is false
// once Shutdown began.
func (s *Server) startCall(ctx context.Context, session string) (context.Context, func(), bool) {
	ctx, cancel := context.WithCancel(ctx)
	rc := &runningCall{session: session, cancel: cancel}
	s.mu.Lock()
	if s.running == nil {
		s.mu.Unlock()
		cancel()
		return ctx, func() {}, false
	}
	s.running[rc] = struct{}{}
	s.calls.Add(1)
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.running, rc)
		s.mu.Unlock()
		cancel()
		s.calls.Done()
	}, true
}

// Shutdown cancels every running call (a Bash command's whole process
// group is killed), waits up to timeout for them to return, and closes
// every session (ending their streams). Calls that arrive afterwards are
// refused. It is safe to call more than once.
func (s *Server) Shutdown(timeout time.Duration) {
	defer func() {
		for ss := range s.sdk.Sessions() {
			_ = ss.Close()
		}
	}()
	s.mu.Lock()
	for rc := range s.running {
		rc.cancel()
	}
	s.running = nil
	for _, stop := range s.stopShared {
		stop()
	}
	s.stopShared = nil
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.calls.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		s.log.Warn("calls still running after shutdown", "waited", timeout)
	}
}

// cancelCalls cancels the running calls of a session.
func (s *Server) cancelCalls(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelCallsLocked(session)
}

// cancelCallsLocked is cancelCalls for a caller that holds s.mu.
func (s *Server) cancelCallsLocked(session string) {
	for rc := range s.running {
		if rc.session == session {
			rc.cancel()
		}
	}
}

// Sessions reports how many MCP sessions the server holds state for.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}
