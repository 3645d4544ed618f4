package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/toolkit"
)

// progress sends notifications/progress for a call whose request carried
// a progress token: one per chunk the call streams (a Bash output line,
// a plugin chunk), with the chunk's text, cut, as the message.
type progress struct {
	mu    sync.Mutex
	ctx   context.Context
	ss    *sdk.ServerSession
	token any
	n     float64
}

// maxProgressMessage bounds a progress message.
const maxProgressMessage = 200

// to points the notifications at a request (nil: nowhere).
func (p *progress) to(ctx context.Context, ss *sdk.ServerSession, token any) {
	p.mu.Lock()
	p.ctx, p.ss, p.token = ctx, ss, token
	p.mu.Unlock()
}

// event is the turn's OnEvent.
func (p *progress) event(ev toolkit.Event) {
	if ev.Kind != toolkit.EventChunk || ev.Chunk == nil {
		return
	}
	p.mu.Lock()
	ctx, ss, token := p.ctx, p.ss, p.token
	if token == nil || ss == nil {
		p.mu.Unlock()
		return
	}
	p.n++
	n := p.n
	p.mu.Unlock()
	var text strings.Builder
	for _, b := range ev.Chunk.Content {
		if b.Type == toolkit.BlockText {
			text.WriteString(b.Text)
		}
	}
	msg := strings.TrimSpace(text.String())
	if pr := ev.Chunk.Progress; pr != nil && msg == "" {
		// An upstream server's progress. Its numbers go into the message:
		// the notification's own count must keep increasing across every
		// chunk of this call, whatever the upstream server sends.
		msg = pr.Message
		if msg == "" && pr.Total > 0 {
			msg = fmt.Sprintf("%g of %g", pr.Done, pr.Total)
		} else if msg == "" {
			msg = fmt.Sprintf("%g", pr.Done)
		}
	}
	if r := []rune(msg); len(r) > maxProgressMessage {
		msg = string(r[:maxProgressMessage]) + "…"
	}
	_ = ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: msg})
}

// MCP logging is deprecated from protocol 2026-07-28 (SEP-2577) but
// serves every client on the older versions, which is most of them.

// logOutcome tells the client, through MCP logging (at the level it set
// with logging/setLevel), how the permission engine and the call went.
func (s *Server) logOutcome(ctx context.Context, ss *sdk.ServerSession, out toolkit.Outcome) {
	var level sdk.LoggingLevel //lint:ignore SA1019 see above
	data := map[string]any{"tool": out.Call.Name}
	switch {
	case out.Status == toolkit.StatusNeedsConfirmation && out.Confirmation != nil:
		level = "info"
		data["decision"] = "ask"
		data["reason"] = out.Confirmation.Decision.Reason
		data["bypass_immune"] = out.Confirmation.Decision.BypassImmune
	case out.Status == toolkit.StatusDone && out.Response != nil && out.Response.State == toolkit.StateDenied:
		level = "warning"
		data["decision"] = "deny"
		data["message"] = out.Response.Text()
	case out.Status == toolkit.StatusDone && out.Response != nil:
		level = "debug"
		data["state"] = string(out.Response.State)
		if refused, ok := out.Response.Metadata[toolkit.MetaSandboxRefused].(string); ok && refused != "" {
			//lint:ignore SA1019 see above
			_ = ss.Log(ctx, &sdk.LoggingMessageParams{Level: "warning", Logger: "wasmtools.sandbox", Data: map[string]any{"tool": out.Call.Name, "refused": refused}})
		}
	default:
		return
	}
	//lint:ignore SA1019 see above
	_ = ss.Log(ctx, &sdk.LoggingMessageParams{Level: level, Logger: "wasmtools.permission", Data: data})
}

// LogAll sends a log message to every session (at the level each set):
// hot-reload events, for instance.
//
//lint:ignore SA1019 see logOutcome
func (s *Server) LogAll(level sdk.LoggingLevel, logger string, data any) {
	for ss := range s.sdk.Sessions() {
		//lint:ignore SA1019 see logOutcome
		_ = ss.Log(context.Background(), &sdk.LoggingMessageParams{Level: level, Logger: logger, Data: data})
	}
}
