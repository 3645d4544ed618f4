package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func writeSkill(t *testing.T, dir, name, description, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestListSkills(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "pdf", "Work with PDF files.", "body")
	if err := os.MkdirAll(filepath.Join(dir, "bad"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad", "SKILL.md"), []byte("# no header"), 0o644); err != nil {
		t.Fatal(err)
	}

	r := runBinary(t, nil, "", "list", "--json", "--skills", dir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	out := decodeObject(t, r.stdout, "tools", "groups", "skills", "broken_skills", "overridden_skills", "broken_plugins", "pending_plugins", "skills_prompt", "sandbox")
	skills, _ := out["skills"].([]any)
	if len(skills) != 1 || skills[0].(map[string]any)["name"] != "pdf" || skills[0].(map[string]any)["dir"] != filepath.Join(dir, "pdf") {
		t.Errorf("skills = %v", out["skills"])
	}
	broken, _ := out["broken_skills"].([]any)
	if len(broken) != 1 || !strings.Contains(broken[0].(map[string]any)["error"].(string), "no front matter") {
		t.Errorf("broken_skills = %v", out["broken_skills"])
	}
	if p, _ := out["skills_prompt"].(string); !strings.Contains(p, "**pdf**: Work with PDF files.") {
		t.Errorf("skills_prompt = %q", p)
	}
	if !strings.Contains(r.stdout, `"name": "Skill"`) {
		t.Error("the Skill viewer is not among the tools")
	}

	r = runBinary(t, nil, "", "list", "--skills", dir)
	if r.code != exitOK || !strings.Contains(r.stdout, "BROKEN SKILL "+filepath.Join(dir, "bad", "SKILL.md")) {
		t.Errorf("text list: %d\n%s", r.code, r)
	}
	r = runBinary(t, nil, "", "list", "--prompt", "--skills", dir)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "## Skills") {
		t.Errorf("--prompt: %d\n%s", r.code, r)
	}

	// A folder that is not there is an error, not an empty list.
	missing := filepath.Join(dir, "missing")
	if r := runBinary(t, nil, "", "list", "--skills", missing); r.code == exitOK || !strings.Contains(r.stderr, "--skills "+missing+": not a folder") {
		t.Errorf("missing folder: %d\n%s", r.code, r)
	}

	// Without skills there is no viewer and the prompt is empty.
	r = runBinary(t, nil, "", "list", "--json")
	if strings.Contains(r.stdout, `"name": "Skill"`) {
		t.Error("viewer registered without skills")
	}
}

// TestServeSkillsHotReload drives `wasmtools serve --skills` with the MCP
// SDK's client while skills are added, edited, broken and deleted.
func TestServeSkillsHotReload(t *testing.T) {
	work, skillDir := t.TempDir(), t.TempDir()
	ctx := context.Background()
	changed := make(chan struct{}, 16)
	cmd := []string{"--skills", skillDir}
	cs := serveSessionWith(t, work, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	}, cmd...)

	hasViewer := func() bool {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name == "Skill" {
				return true
			}
		}
		return false
	}
	if hasViewer() {
		t.Fatal("Skill tool listed before any skill exists")
	}
	view := func(args map[string]any) (string, bool) {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Skill", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return resultText(r), r.IsError
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	writeSkill(t, skillDir, "pdf", "PDF files.", "version one")
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the first skill appeared")
	}
	if !hasViewer() {
		t.Fatal("Skill tool not listed after a skill appeared")
	}
	if text, isErr := view(map[string]any{"skill": "pdf"}); isErr || text != "version one" {
		t.Fatalf("first read: %v %q", isErr, text)
	}

	// Skills are MCP prompts too.
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "pdf" || prompts.Prompts[0].Description != "PDF files." {
		t.Fatalf("prompts/list: %v %+v", err, prompts)
	}
	got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "pdf"})
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*sdk.TextContent).Text != "version one" {
		t.Fatalf("prompts/get: %v %+v", err, got)
	}

	writeSkill(t, skillDir, "pdf", "PDF files.", "version two")
	if text, _ := view(map[string]any{"skill": "pdf"}); text != "version two" {
		t.Errorf("edit not visible on the next call: %q", text)
	}

	if err := os.WriteFile(filepath.Join(skillDir, "pdf", "SKILL.md"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if text, isErr := view(map[string]any{"skill": "pdf"}); isErr || text != "version two" {
		t.Errorf("broken edit: %v %q, want the last good version", isErr, text)
	}

	writeSkill(t, skillDir, "xlsx", "Spreadsheets.", "cells")
	waitFor("added skill", func() bool { text, isErr := view(map[string]any{"skill": "xlsx"}); return !isErr && text == "cells" })
	// The Skill tool names the skills; a new session's instructions list
	// them as they are now.
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "Skill" && (!strings.Contains(tool.Description, "xlsx") || !strings.Contains(fmt.Sprint(tool.InputSchema), "xlsx")) {
			t.Errorf("the Skill tool does not name the new skill: %q %v", tool.Description, tool.InputSchema)
		}
	}

	waitFor("added skill's prompt", func() bool {
		p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "xlsx"})
		return err == nil && p.Messages[0].Content.(*sdk.TextContent).Text == "cells"
	})

	if err := os.RemoveAll(filepath.Join(skillDir, "xlsx")); err != nil {
		t.Fatal(err)
	}
	waitFor("deleted skill", func() bool {
		text, isErr := view(map[string]any{"skill": "xlsx"})
		// The schema's enum, or the viewer itself, names what exists.
		return isErr && (strings.Contains(text, "available skills: pdf") || strings.Contains(text, "must be 'pdf'"))
	})
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "xlsx"}); err == nil {
		t.Error("the deleted skill is still a prompt")
	}
}

// TestServeNoWatch: with --no-watch the folders are read once at start.
func TestServeNoWatch(t *testing.T) {
	work, skillDir := t.TempDir(), t.TempDir()
	writeSkill(t, skillDir, "pdf", "PDF files.", "one")
	cs := serveSessionWith(t, work, &sdk.ClientOptions{}, "--skills", skillDir, "--no-watch")
	ctx := context.Background()
	writeSkill(t, skillDir, "xlsx", "Spreadsheets.", "cells")
	time.Sleep(300 * time.Millisecond) // several debounce periods
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Skill", Arguments: map[string]any{"skill": "xlsx"}})
	if err != nil || !r.IsError || !strings.Contains(resultText(r), "available skills: pdf") && !strings.Contains(resultText(r), "must be 'pdf'") {
		t.Errorf("a skill added under --no-watch was loaded: %v %q", err, resultText(r))
	}
	// The session's instructions list the skills loaded when it began.
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "pdf") || !strings.Contains(ins, "PDF files.") {
		t.Errorf("the session's instructions do not list the skills: %q", ins)
	}
}

// TestListSkillLayers lists two skill folders holding a skill of the same
// name: the later folder's serves and the earlier one is reported as
// overridden, not broken. Folders of the flags come after the file's.
func TestListSkillLayers(t *testing.T) {
	shared, mine := t.TempDir(), t.TempDir()
	writeSkill(t, shared, "review", "Shared review steps.", "shared body")
	writeSkill(t, shared, "pdf", "Work with PDF files.", "body")
	writeSkill(t, mine, "review", "My review steps.", "my body")
	config := filepath.Join(t.TempDir(), "wasmtools.yaml")
	if err := os.WriteFile(config, []byte("skills: ["+shared+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args []string
	}{
		{"two flags", []string{"--skills", shared, "--skills", mine}},
		{"file then flag", []string{"--config", config, "--skills", mine}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBinary(t, nil, "", append([]string{"list", "--json"}, tt.args...)...)
			if r.code != exitOK {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			out := decodeObject(t, r.stdout, "tools", "groups", "skills", "broken_skills", "overridden_skills", "broken_plugins", "pending_plugins", "skills_prompt", "sandbox")
			served := map[string]string{}
			for _, s := range out["skills"].([]any) {
				m := s.(map[string]any)
				served[m["name"].(string)] = m["dir"].(string)
			}
			if served["review"] != filepath.Join(mine, "review") || served["pdf"] != filepath.Join(shared, "pdf") || len(served) != 2 {
				t.Errorf("skills = %v, want review from %s and pdf from %s", served, mine, shared)
			}
			want := []any{map[string]any{"name": "review", "dir": filepath.Join(mine, "review"), "shadowed": filepath.Join(shared, "review")}}
			if got := out["overridden_skills"]; !reflect.DeepEqual(got, want) {
				t.Errorf("overridden_skills = %v, want %v", got, want)
			}
			if got := out["broken_skills"].([]any); len(got) != 0 {
				t.Errorf("broken_skills = %v, want none", got)
			}
			if p := out["skills_prompt"].(string); !strings.Contains(p, "My review steps.") || strings.Contains(p, "Shared review steps.") {
				t.Errorf("skills_prompt lists the overridden skill:\n%s", p)
			}
		})
	}

	r := runBinary(t, nil, "", "list", "--skills", shared, "--skills", mine)
	want := "OVERRIDDEN SKILL review in " + filepath.Join(shared, "review") + ": " + filepath.Join(mine, "review") + " serves instead"
	if r.code != exitOK || !strings.Contains(r.stdout, want) {
		t.Errorf("text list lacks %q:\n%s", want, r)
	}

	// The later folder's skill is the one the viewer reads.
	r = runBinary(t, nil, "", "call", "Skill", `{"skill": "review"}`, "--skills", shared, "--skills", mine)
	if r.code != exitOK || !strings.Contains(r.stdout, "my body") {
		t.Errorf("Skill review: %s", r)
	}
}
