package wasmtools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/skills"
	"github.com/wasmtools/wasmtools/toolkit/mcp"
)

// MCPServer returns the host's MCP server, built on the first call: it
// offers the toolkit's tools (each MCP session a toolkit session, asks put
// to the user through elicitation), tells each new session the skills as
// they are when it starts, offers the skills of no tool group as MCP
// prompts, and sends notifications/tools/list_changed when the tools
// change. Every call returns the same server; serve it on any number of
// transports (ServeMCP, HTTPHandler, or its SDK server directly). Close
// shuts it down. After Close, MCPServer returns an error.
func (h *Host) MCPServer() (*mcp.Server, error) {
	h.srvMu.Lock()
	defer h.srvMu.Unlock()
	if srv := h.srv.Load(); srv != nil {
		return srv, nil
	}
	if h.srvErr != nil {
		return nil, h.srvErr
	}
	opts := mcp.ServerOptions{Name: "wasmtools", Version: h.cfg.Version, Logger: h.log, SharedSessions: h.store != nil,
		// Without a token, any local process can be an HTTP client.
		OpenHTTP: h.cfg.TokenFile == ""}
	if lib := h.lib; lib != nil {
		// Each new session learns the skills as they are when it starts.
		opts.MoreInstructions = func() string { return skills.Prompt(lib.Skills()) }
	}
	srv := mcp.NewServer(h.tk, opts)
	// Stored before the first refresh: a change that lands in between
	// refreshes again, so none is missed.
	h.srv.Store(srv)
	if err := srv.Refresh(context.Background()); err != nil {
		h.srv.Store(nil)
		return nil, fmt.Errorf("offer the tools over MCP: %w", err)
	}
	if h.lib != nil {
		offerSkillPrompts(srv.SDK(), h.lib, h.viewer, h.log)
	}
	return srv, nil
}

// ServeMCP serves the host's MCP server (see MCPServer) to one client
// over t until the client disconnects or ctx ends; it returns nil then.
// For standard input and output, mcp.GuardedIOTransport answers a
// malformed line with a JSON-RPC error instead of ending the session.
func (h *Host) ServeMCP(ctx context.Context, t sdk.Transport) error {
	srv, err := h.MCPServer()
	if err != nil {
		return err
	}
	err = srv.SDK().Run(ctx, t)
	if err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil) {
		return nil
	}
	return err
}

// HTTPHandler returns a streamable HTTP handler for the host's MCP server
// (see MCPServer): the SDK's, with a client's DELETE of its session
// cancelling the session's running calls. opts may be nil; a command-line
// server sets SessionTimeout, to end idle sessions, and
// PropagateRequestCancellation, so that a client's cancelled request
// cancels its call. The handler checks no Host or Origin header and no
// token: put it behind such a guard when it listens beyond loopback.
func (h *Host) HTTPHandler(opts *sdk.StreamableHTTPOptions) (http.Handler, error) {
	srv, err := h.MCPServer()
	if err != nil {
		return nil, err
	}
	return srv.HTTPHandler(opts), nil
}

// offerSkillPrompts offers the skills that belong to no tool group as MCP
// prompts, so that a user can pull a skill into the conversation from
// their client's prompt menu; the model reaches every skill, grouped ones
// included, through the Skill tool. The prompt list follows the library
// (the SDK tells clients with notifications/prompts/list_changed).
func offerSkillPrompts(srv *sdk.Server, lib *skills.Library, viewer *skills.Viewer, log *slog.Logger) {
	var mu sync.Mutex
	offered := map[string]string{} // name -> description
	reconcile := func() {
		mu.Lock()
		defer mu.Unlock()
		now := map[string]string{}
		for _, s := range lib.Skills() {
			if s.Group != "" {
				continue // a prompt list is not per session; grouped skills stay with the viewer
			}
			now[s.Name] = s.Description
			if d, ok := offered[s.Name]; !ok || d != s.Description {
				srv.AddPrompt(&sdk.Prompt{Name: s.Name, Title: s.Name, Description: s.Description}, skillPrompt(viewer, s.Name))
			}
		}
		var gone []string
		for name := range offered {
			if _, ok := now[name]; !ok {
				gone = append(gone, name)
			}
		}
		if len(gone) > 0 {
			srv.RemovePrompts(gone...)
		}
		offered = now
		log.Debug("skill prompts offered", "count", len(now))
	}
	lib.Subscribe(reconcile) // first, so that no change slips between the two
	reconcile()
}

// skillPrompt answers prompts/get with the skill's instructions, read
// fresh through the viewer.
func skillPrompt(viewer *skills.Viewer, name string) sdk.PromptHandler {
	return func(ctx context.Context, _ *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		text, err := viewer.Read(ctx, name, "")
		if err != nil {
			return nil, fmt.Errorf("skill %s: %w", name, err)
		}
		return &sdk.GetPromptResult{
			Description: "The skill " + name + ": follow these instructions.",
			Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}},
		}, nil
	}
}
