package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/wasmtools/wasmtools/host"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/skills"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
	"github.com/wasmtools/wasmtools/toolkit/mcp"
)

// demoToolsEnv names the environment variable that, set to 1, registers
// the demo tools: a way to try the CLI (and to test it) before the
// built-in tools exist.
const demoToolsEnv = "WASMTOOLS_DEMO_TOOLS"

// newToolkit builds the toolkit every command works on. It is the one
// place where tools are registered: the built-in tools, the plugins of the
// --plugins folders, and (with WASMTOOLS_DEMO_TOOLS=1) the demo tools.
// A plugin that fails to load is reported and skipped: one broken file
// never stops the others. The returned function releases the plugins.
func newToolkit(ctx context.Context, e *env, opts toolkit.Options, pf *permFlags) (*toolkit.Toolkit, func(), error) {
	cfg := pf.config
	if cfg != nil && cfg.Limits.MaxResultChars != 0 && opts.MaxResultChars == 0 {
		opts.MaxResultChars = cfg.Limits.MaxResultChars
	}
	if cfg != nil && cfg.Limits.OffloadDir != "" && opts.OffloadDir == "" {
		opts.OffloadDir = cfg.rel(cfg.Limits.OffloadDir)
	}
	if cfg != nil && cfg.Limits.MaxOffloadBytes != 0 && opts.MaxOffloadBytes == 0 {
		opts.MaxOffloadBytes = cfg.Limits.MaxOffloadBytes
	}
	tk := toolkit.New(opts)
	if err := cfg.addGroups(tk); err != nil {
		return nil, nil, err
	}
	sb, err := pf.newSandbox(e.log)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range builtinTools(sb) {
		if err := tk.Register(t); err != nil {
			return nil, nil, fmt.Errorf("register the built-in tools: %w", err)
		}
	}
	if os.Getenv(demoToolsEnv) == "1" {
		if err := registerDemoTools(tk); err != nil {
			return nil, nil, fmt.Errorf("register the demo tools: %w", err)
		}
	}
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	if len(pf.plugins) > 0 {
		c, err := loadPlugins(ctx, e, tk, pf, cfg)
		if err != nil {
			return nil, nil, err
		}
		closers = append(closers, c)
	}
	if len(pf.skillDirs) > 0 {
		c, err := loadSkills(ctx, e, tk, pf)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, c)
	}
	if len(pf.mcpConfigs) > 0 || len(cfg.servers()) > 0 {
		c, err := connectMCP(ctx, e, tk, pf.mcpConfigs, cfg)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, c)
	}
	return tk, closeAll, nil
}

// builtinTools returns the built-in tools, their commands confined by sb.
func builtinTools(sb *sandbox.Sandbox) []toolkit.Tool {
	files := builtin.FileOptions{}
	tools := []toolkit.Tool{
		builtin.DefaultShellTool(builtin.BashOptions{Backend: &builtin.LocalBackend{Sandbox: sb}}, builtin.PowerShellOptions{}),
		builtin.NewRead(files), builtin.NewWrite(files), builtin.NewEdit(files),
		builtin.NewGlob(builtin.GlobOptions{}), builtin.NewGrep(builtin.GrepOptions{}),
	}
	tools = append(tools, builtin.TaskTools()...)
	return append(tools, builtin.NewAskUser())
}

// loadSkills serves the skills of the --skills folders through the Skill
// viewer, following the folders' changes when the command watches.
func loadSkills(ctx context.Context, e *env, tk *toolkit.Toolkit, pf *permFlags) (func(), error) {
	lib := skills.NewLibrary(skills.Options{Logger: e.log})
	viewer, err := skills.Attach(tk, lib)
	if err != nil {
		return nil, err
	}
	pf.library, pf.viewer = lib, viewer
	watchCtx, stop := context.WithCancel(ctx)
	for _, dir := range pf.skillDirs {
		opts := skills.DirOptions{Recursive: true}
		if pf.watch && !pf.noWatch {
			if err := skills.Watch(watchCtx, lib, dir, skills.WatchOptions{DirOptions: opts}); err != nil {
				stop()
				return nil, fmt.Errorf("--skills %s: %w", dir, err)
			}
			continue
		}
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			stop()
			return nil, fmt.Errorf("--skills %s: not a folder", dir)
		}
		if err := lib.LoadDir(dir, opts); err != nil {
			stop()
			return nil, fmt.Errorf("--skills %s: %w", dir, err)
		}
	}
	return stop, nil
}

// connectMCP connects to the MCP servers of the configuration files and
// registers their tools; a server that cannot be reached is reported and
// skipped. When a server's tool list changes, the toolkit follows.
func connectMCP(ctx context.Context, e *env, tk *toolkit.Toolkit, files []string, cfg *config) (func(), error) {
	var clients []*mcp.Client
	servers := cfg.servers()
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--mcp-config: %w", err)
		}
		more, err := mcp.ParseServers(file, data)
		if err != nil {
			return nil, err
		}
		servers = append(servers, more...)
	}
	{
		for _, s := range servers {
			var regOpts []toolkit.RegisterOption
			if g := cfg.groupOf(s.Name); g != "" {
				regOpts = append(regOpts, toolkit.InGroup(g))
			}
			registered := map[string]bool{}
			sync := func(c *mcp.Client) {
				now := map[string]bool{}
				for _, t := range c.Tools() {
					now[t.Spec().Name] = true
					if err := tk.Register(t, append(regOpts, toolkit.Replacing())...); err != nil {
						e.log.Warn("MCP tool not registered", "server", c.Name(), "tool", t.Spec().Name, "err", err)
					}
				}
				for name := range registered {
					if !now[name] {
						_ = tk.Unregister(name)
					}
				}
				registered = now
			}
			c, err := mcp.Connect(ctx, s, mcp.ClientOptions{Logger: e.log, OnToolsChanged: sync})
			if err != nil {
				e.log.Warn("MCP server not connected", "server", s.Name, "err", err)
				continue
			}
			clients = append(clients, c)
		}
	}
	return func() {
		for _, c := range clients {
			c.Close()
		}
	}, nil
}

// loadPlugins serves the plugin folders: the .wasm files directly in a
// folder join the basic group, each sub-folder is a tool group of its own
// (see host.Folder). A module that fails to load is reported and skipped:
// one broken file never stops the others. When the command watches, each
// folder follows its changes until the returned function is called.
func loadPlugins(ctx context.Context, e *env, tk *toolkit.Toolkit, pf *permFlags, cfg *config) (func(), error) {
	if g := cfg.pluginGroup(); g != "" && !slices.ContainsFunc(tk.Groups(), func(x toolkit.Group) bool { return x.Name == g }) {
		return nil, fmt.Errorf("%s: plugin_group %q is not one of the groups: add it under groups", cfg.file, g)
	}
	h, err := host.New(host.Options{Logger: e.log, Version: versionString()})
	if err != nil {
		return nil, err
	}
	grants := func(path string) host.Config {
		// Grants from the configuration, by plugin (file) name.
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if cfg != nil {
			return host.Config{Grants: cfg.Grants[name].Grants}
		}
		return host.Config{}
	}
	watch := pf.watch && !pf.noWatch
	watchCtx, stopWatching := context.WithCancel(ctx)
	var folders []*host.Folder
	var foldersMu sync.Mutex // background loads append to folders
	var watches sync.WaitGroup
	closeAll := func() {
		stopWatching()
		watches.Wait()
		for _, f := range folders {
			_ = f.Close(context.Background())
		}
		h.Close(context.Background())
	}
	for _, dir := range pf.plugins {
		// A folder that does not exist yet is fine to watch, not to load.
		if info, err := os.Stat(dir); err != nil && !watch || err == nil && !info.IsDir() {
			closeAll()
			return nil, fmt.Errorf("--plugins %s: not a folder", dir)
		}
		opts := host.FolderOptions{Config: grants, Group: cfg.pluginGroup()}
		if watch {
			// serve: the MCP handshake never waits for compiles. The
			// folder loads in the background (modules whose compiled code
			// is cached in moments, others as they compile) and its tools
			// appear with notifications/tools/list_changed.
			watches.Go(func() {
				f, err := h.OpenFolder(watchCtx, tk, dir, opts)
				if err != nil {
					e.log.Error("plugin folder not loaded", "dir", dir, "err", err)
					return
				}
				foldersMu.Lock()
				folders = append(folders, f)
				foldersMu.Unlock()
				e.log.Info("plugin folder loaded", "dir", dir, "failed", len(f.Failed()))
				if err := f.Watch(watchCtx); err != nil {
					e.log.Warn("plugin folder not watched; restart to pick up changes", "dir", dir, "err", err)
				}
			})
			continue
		}
		f, err := h.OpenFolder(ctx, tk, dir, opts)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("--plugins %s: %w", dir, err)
		}
		folders = append(folders, f)
	}
	pf.folders = folders
	return closeAll, nil
}

// textInput is the input of the demo tools.
type textInput struct {
	Text string `json:"text" jsonschema:"the text to work on"`
}

// registerDemoTools registers echo, a read-only tool of the basic group,
// and upper, which asks before it runs, in the group "text".
func registerDemoTools(tk *toolkit.Toolkit) error {
	echo, err := toolkit.NewFunc("echo", "Return the text unchanged.",
		func(_ context.Context, in textInput) (string, error) { return in.Text, nil },
		toolkit.FuncOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	upper, err := toolkit.NewFunc("upper", "Return the text in upper case.",
		func(_ context.Context, in textInput) (string, error) { return strings.ToUpper(in.Text), nil },
		toolkit.FuncOptions{})
	if err != nil {
		return err
	}
	if err := tk.AddGroup(toolkit.Group{Name: "text", Description: "Text transformations", Active: true}); err != nil {
		return err
	}
	if err := tk.Register(echo); err != nil {
		return err
	}
	return tk.Register(upper, toolkit.InGroup("text"))
}
