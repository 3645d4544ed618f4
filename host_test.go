package wasmtools_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools"
	"github.com/wasmtools/wasmtools/internal/testdata"
	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

func TestMain(m *testing.M) {
	// Started as the sandbox helper of a shell command, become it.
	sandbox.Main()
	os.Exit(m.Run())
}

// versioned returns the bytes of the test plugin whose tool "version"
// answers "version " and its VERSION grant.
func versioned(t *testing.T) []byte {
	t.Helper()
	wasm, err := os.ReadFile(testplugins.Source(t, filepath.Join(testplugins.Root(t), "plugins", "testdata", "versioned")))
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

// writeFile writes text to dir/name, making the folders it needs.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	// Written aside and renamed, as a watcher expects a finished file.
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeSkill writes a skill folder dir/name holding a SKILL.md.
func writeSkill(t *testing.T, dir, name, description, body string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, name), "SKILL.md", []byte("---\nname: "+name+"\ndescription: "+description+"\n---\n"+body))
}

// project lays out a project folder: wasmtools.yaml naming a plugin
// folder (holding the versioned plugin as v.wasm), a skills folder
// (holding the skill "notes") and a working folder, by relative paths.
// It returns the configuration file's path.
func project(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "plugins"), "v.wasm", versioned(t))
	writeSkill(t, filepath.Join(dir, "skills"), "notes", "Take notes the house way.", "Write notes in short lines.")
	if err := os.MkdirAll(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "wasmtools.yaml", []byte(`
mode: accept_edits
working_dirs: [work]
allow: ["Bash(npm test:*)"]
deny: ["Read(secret/**)"]
plugins: [plugins]
skills: [skills]
grants:
  v: {env: {VERSION: from-yaml}}
`+extra))
}

// load reads the configuration at path with the Go-only fields a test
// needs: a quiet logger and the tests' shared compilation cache.
func load(t *testing.T, path string) wasmtools.Config {
	t.Helper()
	cfg, err := wasmtools.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	quiet(t, &cfg)
	return cfg
}

func quiet(t *testing.T, cfg *wasmtools.Config) {
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.PluginHost.CacheDir = testplugins.CompileCache(t)
}

// open opens cfg and closes the host when the test ends.
func open(t *testing.T, cfg wasmtools.Config) *wasmtools.Host {
	t.Helper()
	h, err := wasmtools.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return h
}

func toolNames(tk *toolkit.Toolkit) []string {
	var names []string
	for _, t := range tk.Tools() {
		names = append(names, t.Spec.Name)
	}
	return names
}

// settle waits until the number of goroutines is back to at most want,
// and fails with their stacks when it is not within a few seconds:
// goroutines that end when their context is cancelled need a moment.
func settle(t *testing.T, want int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%s: %d goroutines, want at most %d:\n%s", what, runtime.NumGoroutine(), want, buf[:n])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOpen opens a host from a configuration file with a plugin folder
// and a skill folder, and checks what it serves and how it judges.
func TestOpen(t *testing.T) {
	path := project(t, "")
	dir := filepath.Dir(path)
	h := open(t, load(t, path))
	tk := h.Toolkit()

	names := toolNames(tk)
	for _, want := range []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep", "TaskCreate", "AskUser", "version", "Skill"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing from %q", want, names)
		}
	}
	// The plugin runs with the grants of wasmtools.yaml.
	if resp := toolkittest.Call(t, tk, "s1", "version", map[string]any{}); resp.State != toolkit.StateSuccess || resp.Text() != "version from-yaml" {
		t.Errorf("version: %s %q", resp.State, resp.Text())
	}
	// The skill viewer serves the skill.
	if resp := toolkittest.Call(t, tk, "s1", "Skill", map[string]any{"skill": "notes"}); resp.State != toolkit.StateSuccess || !strings.Contains(resp.Text(), "short lines") {
		t.Errorf("Skill: %s %q", resp.State, resp.Text())
	}
	if lib := h.Skills(); lib == nil || len(lib.Skills()) != 1 {
		t.Errorf("Skills() = %v", lib)
	}
	if f := h.Folders(); len(f) != 1 || f[0].Dir() != filepath.Join(dir, "plugins") || len(f[0].Failed()) != 0 {
		t.Errorf("Folders() = %v", f)
	}
	if h.Sandbox() == nil {
		t.Error("Sandbox() is nil")
	}

	// The permission context: relative paths against the file's folder,
	// the host's own files protected.
	pc := h.Permission()
	if pc.Mode != permission.ModeAcceptEdits || !slices.Equal(pc.WorkingDirs, []string{filepath.Join(dir, "work")}) {
		t.Errorf("mode %s, working dirs %q", pc.Mode, pc.WorkingDirs)
	}
	if len(pc.Allow) != 1 || pc.Allow[0].String() != "Bash(npm test:*)" || len(pc.Deny) != 1 {
		t.Errorf("rules: allow %v, deny %v", pc.Allow, pc.Deny)
	}
	for _, p := range []string{path, filepath.Join(dir, "plugins"), filepath.Join(dir, "skills"), filepath.Join(dir, "work", "wasmtools.yaml")} {
		if !slices.Contains(pc.Protected, p) {
			t.Errorf("%s is not protected: %q", p, pc.Protected)
		}
	}
	// A copy: changing it changes nothing of the host.
	pc.Mode = permission.ModeBypass
	if h.Permission().Mode != permission.ModeAcceptEdits {
		t.Error("Permission() returned the host's own context")
	}
	// Writing a protected file asks, even in bypass mode.
	bypass := h.Permission()
	bypass.Mode = permission.ModeBypass
	d, err := tk.Check(t.Context(), "s2", toolkit.Call{Name: "Write", Arguments: fmt.Sprintf(`{"file_path": %q, "content": "mode: bypass"}`, path)}, toolkit.CheckOptions{Permission: bypass})
	if err != nil || d.Behavior != permission.Ask || !d.BypassImmune {
		t.Errorf("writing the configuration file: %+v, %v; want a bypass-immune ask", d, err)
	}

	c := h.Config()
	if c.File != path || c.Dir != dir || c.Plugins[0] != filepath.Join(dir, "plugins") || c.Version == "" {
		t.Errorf("Config() = %+v", c)
	}
}

// TestOpenRegister: Config.Register adds the program's tools, before the
// plugins load.
func TestOpenRegister(t *testing.T) {
	type in struct {
		Name string `json:"name"`
	}
	hello, err := toolkit.NewFunc("hello", "Greet someone.", func(_ context.Context, x in) (string, error) { return "hello " + x.Name, nil }, toolkit.FuncOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := wasmtools.Config{
		Groups:   []wasmtools.Group{{Name: "greetings", Description: "Greetings."}},
		Register: func(tk *toolkit.Toolkit) error { return tk.Register(hello, toolkit.InGroup("greetings")) },
	}
	quiet(t, &cfg)
	h := open(t, cfg)
	info := h.Toolkit().Tools()
	i := slices.IndexFunc(info, func(x toolkit.ToolInfo) bool { return x.Spec.Name == "hello" })
	if i < 0 || info[i].Group != "greetings" {
		t.Fatalf("hello not registered in greetings: %v", toolNames(h.Toolkit()))
	}
	wd, _ := os.Getwd()
	if pc := h.Permission(); pc.Mode != permission.ModeDefault || !slices.Equal(pc.WorkingDirs, []string{wd}) {
		t.Errorf("the zero Config: mode %s, working dirs %q; want default and the current directory", pc.Mode, pc.WorkingDirs)
	}

	cfg.Register = func(*toolkit.Toolkit) error { return errors.New("no luck") }
	if _, err := wasmtools.Open(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "no luck") {
		t.Errorf("a failing Register: %v", err)
	}
}

// TestServeMCP serves a watching host to the SDK's client over in-memory
// transports: the tools and the skill are listed and called, the skill
// is a prompt and in the instructions, and a plugin dropped into the
// folder reaches the client with notifications/tools/list_changed.
func TestServeMCP(t *testing.T) {
	path := project(t, "")
	dir := filepath.Dir(path)
	cfg := load(t, path)
	cfg.Watch = true
	h := open(t, cfg)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	serverT, clientT := sdk.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- h.ServeMCP(ctx, serverT) }()
	changed := make(chan struct{}, 64)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "notes") {
		t.Errorf("instructions do not name the skill: %q", ins)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "notes" {
		t.Errorf("prompts: %v, %v", prompts, err)
	}

	listed := func() []string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	// The plugin folder loads in the background: wait for its tool.
	waitFor(t, "the plugin's tool", changed, func() bool { return slices.Contains(listed(), "version") })
	if names := listed(); !slices.Contains(names, "Read") || !slices.Contains(names, "Skill") {
		t.Errorf("tools/list: %q", names)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "version", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(res) != "version from-yaml" {
		t.Errorf("call version: %v %v", text(res), err)
	}

	// A plugin dropped into a group folder: a new group, a new tool,
	// announced to the client.
	writeFile(t, filepath.Join(dir, "plugins", "extra"), "w.wasm", versioned(t))
	waitFor(t, "the extra group", changed, func() bool {
		return slices.ContainsFunc(h.Toolkit().Groups(), func(g toolkit.Group) bool { return g.Name == "extra" })
	})

	// A skill added to the folder becomes a prompt.
	writeSkill(t, filepath.Join(dir, "skills"), "review", "Review code.", "Look twice.")
	waitFor(t, "the new skill's prompt", nil, func() bool {
		p, err := cs.ListPrompts(ctx, nil)
		return err == nil && len(p.Prompts) == 2
	})

	cs.Close()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeMCP: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeMCP did not return after the client left")
	}
}

// waitFor polls cond, also when a notification arrives on ping, for up to
// 20 s.
func waitFor(t *testing.T, what string, ping chan struct{}, cond func() bool) {
	t.Helper()
	// A bound on liveness, not a speed target: generous, for a loaded
	// machine under the race detector; the stacks say what hung.
	deadline := time.After(60 * time.Second)
	for !cond() {
		select {
		case <-ping:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			buf := make([]byte, 1<<20)
			t.Fatalf("timed out waiting for %s; goroutines:\n%s", what, buf[:runtime.Stack(buf, true)])
		}
	}
}

func text(r *sdk.CallToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestCloseReleases: Close stops every goroutine the host started — the
// folder watchers, the skill watcher, the MCP server's sessions — and is
// safe to call twice; the MCP server is gone after it.
func TestCloseReleases(t *testing.T) {
	path := project(t, "")
	cfg := load(t, path)
	cfg.Watch = true
	// Warm up what stays for the process (the compilation cache's and the
	// runtime's own goroutines) before counting.
	warm := open(t, cfg)
	waitFor(t, "the plugin folder", nil, func() bool { return len(warm.Folders()) == 1 })
	if err := warm.Close(); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()

	h, err := wasmtools.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the plugin folder", nil, func() bool { return len(h.Folders()) == 1 })
	serverT, clientT := sdk.NewInMemoryTransports()
	go func() { _ = h.ServeMCP(context.Background(), serverT) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "version", Arguments: map[string]any{}}); err != nil || text(res) != "version from-yaml" {
		t.Fatalf("call version: %v %v", text(res), err)
	}
	if runtime.NumGoroutine() <= before {
		t.Fatal("the host runs no goroutine: the test tests nothing")
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	cs.Close()
	settle(t, before, "after Close")
	if _, err := h.MCPServer(); err == nil {
		t.Error("MCPServer after Close: no error")
	}
	if names := toolNames(h.Toolkit()); slices.Contains(names, "version") {
		t.Errorf("the plugin's tool outlived Close: %q", names)
	}
}

// TestOpenFailsHalfway: an Open that fails after it started parts
// returns an error and leaves nothing running.
func TestOpenFailsHalfway(t *testing.T) {
	path := project(t, "")
	warm := open(t, load(t, path)) // see TestCloseReleases
	if err := warm.Close(); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()

	// plugin_group names no group: nothing is loaded.
	bad := load(t, project(t, "plugin_group: nope\n"))
	bad.Watch = true
	_, err := wasmtools.Open(t.Context(), bad)
	if err == nil || !strings.Contains(err.Error(), `plugin_group "nope" is not one of the groups: add it under groups`) {
		t.Errorf("bad plugin_group: %v", err)
	}
	settle(t, before, "after a bad plugin_group")

	// Watching: the plugin folder loads and is watched, the skill watcher
	// runs, then a skill folder that cannot be watched (its parent is
	// missing) stops the opening.
	cfg := load(t, path)
	cfg.Watch = true
	unwatchable := filepath.Join(t.TempDir(), "no", "such", "skills")
	cfg.Skills = append(cfg.Skills, unwatchable)
	if h, err := wasmtools.Open(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "skills "+unwatchable) {
		t.Errorf("an unwatchable skill folder: %v", err)
		if h != nil {
			h.Close()
		}
	}
	settle(t, before, "after a failed watching Open")

	// Loading once: the plugin folder is loaded, then a missing skill
	// folder stops the opening.
	cfg = load(t, path)
	missing := filepath.Join(t.TempDir(), "missing")
	cfg.Skills = append(cfg.Skills, missing)
	if _, err := wasmtools.Open(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "skills "+missing+": not a folder") {
		t.Errorf("a missing skill folder: %v", err)
	}
	settle(t, before, "after a failed Open")

	// A missing MCP configuration file stops it before anything starts.
	cfg = load(t, path)
	cfg.MCPConfigFiles = []string{"missing.json"}
	if _, err := wasmtools.Open(t.Context(), cfg); err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(filepath.Dir(path), "missing.json")) {
		t.Errorf("a missing MCP configuration file: %v", err)
	}
	settle(t, before, "after a missing MCP configuration")
}

// TestOpenMCPServers connects to the reference MCP server (its tools join
// the configured group) and skips, with a log line, a server that cannot
// start; Close ends the connection.
func TestOpenMCPServers(t *testing.T) {
	server := testdata.NPMPeer(t, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	path := writeConfig(t, fmt.Sprintf(`
groups:
  - {name: demo, description: The reference server's tools., active: true}
mcp_servers:
  everything: {command: node, args: [%q, stdio], group: demo, enable_tools: [echo]}
  broken: {command: %q}
`, server, filepath.Join(t.TempDir(), "no-such-server")))
	cfg := load(t, path)
	var logs strings.Builder
	var mu sync.Mutex
	cfg.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	before := runtime.NumGoroutine()
	h, err := wasmtools.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	info := h.Toolkit().Tools()
	i := slices.IndexFunc(info, func(x toolkit.ToolInfo) bool { return x.Spec.Name == "mcp__everything__echo" })
	if i < 0 || info[i].Group != "demo" {
		t.Errorf("mcp__everything__echo not in group demo: %q", toolNames(h.Toolkit()))
	}
	mu.Lock()
	if !strings.Contains(logs.String(), "MCP server not connected") || !strings.Contains(logs.String(), "server=broken") {
		t.Errorf("the broken server was not logged:\n%s", logs.String())
	}
	mu.Unlock()
	allow := h.Permission()
	allow.Allow = append(allow.Allow, permission.MustParseRule("mcp__everything__echo"))
	res, err := toolkittest.Run(t.Context(), h.Toolkit(), "s", "mcp__everything__echo", map[string]any{"message": "hi"}, toolkit.TurnOptions{Permission: allow})
	if err != nil || res.Outcome.Response == nil || !strings.Contains(res.Outcome.Response.Text(), "hi") {
		t.Errorf("call echo: %+v, %v", res.Outcome, err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	settle(t, before, "after Close")
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  *strings.Builder
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestOpenSkillLayers opens a host whose configuration names two skill
// folders and follows them: the later folder's skill serves through the
// viewer, live, and the earlier one's comes back when it goes.
func TestOpenSkillLayers(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, filepath.Join(dir, "shared"), "review", "Shared review steps.", "shared body")
	if err := os.MkdirAll(filepath.Join(dir, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, dir, "wasmtools.yaml", []byte("skills: [shared, mine]\n"))
	cfg := load(t, path)
	cfg.Watch = true
	h := open(t, cfg)
	read := func() string {
		return toolkittest.Call(t, h.Toolkit(), "s", "Skill", map[string]any{"skill": "review"}).Text()
	}
	poll := func(what string, cond func() bool) {
		t.Helper()
		waitFor(t, what, nil, cond)
	}
	if got := read(); got != "shared body" {
		t.Fatalf("before the override: %q", got)
	}

	writeSkill(t, filepath.Join(dir, "mine"), "review", "My review steps.", "my body")
	poll("the later folder's skill to serve", func() bool { return read() == "my body" })
	if o := h.Skills().Overridden(); len(o) != 1 || o[0].Dir != filepath.Join(dir, "mine", "review") || o[0].Shadowed != filepath.Join(dir, "shared", "review") {
		t.Errorf("Overridden() = %+v", o)
	}

	if err := os.RemoveAll(filepath.Join(dir, "mine", "review")); err != nil {
		t.Fatal(err)
	}
	poll("the earlier folder's skill to serve again", func() bool { return read() == "shared body" })
	if o := h.Skills().Overridden(); len(o) != 0 {
		t.Errorf("Overridden() after removing the winner = %+v", o)
	}
}
