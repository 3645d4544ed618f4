package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/skills"
)

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
