package wasmtools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmtools/wasmtools/host"
	"github.com/wasmtools/wasmtools/internal/pathtree"
	"github.com/wasmtools/wasmtools/internal/watch"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/permission/pathpolicy"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/skills"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/mcp"
	"github.com/wasmtools/wasmtools/toolkit/programs"
	"github.com/wasmtools/wasmtools/toolkit/redisstore"
)

// Host is a running tool host: a toolkit holding the built-in tools, the
// program's own tools, the plugins of the plugin folders, the skill viewer
// and the tools of the MCP servers, judged by the permission context of
// the Config, with the watchers that keep the folders' tools current.
// Build it with Open and release it with Close.
//
// A Host is safe for concurrent use by any number of goroutines.
type Host struct {
	cfg  Config // resolved: paths absolute, slices owned
	log  *slog.Logger
	perm *permission.Context
	tk   *toolkit.Toolkit
	sb   *sandbox.Sandbox
	// programs finds what the host runs itself (rg, bash, MCP servers)
	// outside every folder tool calls may write.
	programs *programs.Resolver
	// writable tells the files a tool call may have written: those in or
	// below a working directory or a sandbox writable path, or reached
	// through a link there.
	writable *programs.Resolver
	// serverWritable are the writable paths of sandboxed MCP servers:
	// what such a server writes is no more the operator's than what a
	// command writes.
	serverWritable []string

	lib    *skills.Library // nil without skill folders
	viewer *skills.Viewer

	plugins *host.Host // nil without plugin folders

	// stopWatching ends the folder watchers and background loads; watches
	// counts the goroutines that must end before the folders close.
	stopWatching context.CancelFunc
	watches      sync.WaitGroup

	mu      sync.Mutex
	folders []*host.Folder // guarded by mu: background loads append
	clients []*mcp.Client
	closed  bool // guarded by mu

	// The MCP server is built on first use; onChange may run before that
	// (a background plugin load), hence the atomic pointer.
	srvMu  sync.Mutex
	srv    atomic.Pointer[mcp.Server]
	srvErr error

	// store is the session store Open opened from Config.Store (closed
	// with the host); nil when the toolkit's store came from elsewhere.
	store *redisstore.Store

	closeOnce sync.Once
	closeErr  error
}

// Open builds the host cfg describes. In order: the permission context
// (mode, working directories, rules; the host's own files protected), the
// OS sandbox of shell commands, the toolkit with the configured groups,
// the built-in tools, cfg.Register, the plugin folders, the skill folders
// and the MCP servers.
//
// A plugin that fails to load is logged and skipped (Folder.Failed lists
// it); so is an MCP server that cannot be reached: one broken part never
// stops the others. A plugin or skill folder that is not a folder, a
// malformed MCP configuration file, a group or a plugin_group that does
// not fit are errors. When Open fails it releases what it built.
//
// ctx bounds the opening (loading plugins and skills, connecting MCP
// servers), not the host: the host runs until Close.
func Open(ctx context.Context, cfg Config) (*Host, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("%s%w", cfg.where(), err)
	}
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, fmt.Errorf("%s%w", cfg.where(), err)
	}
	h := &Host{cfg: cfg, log: cmp.Or(cfg.Logger, slog.Default())}
	h.cfg.Version = cmp.Or(cfg.Version, "(devel)")
	// Reading the MCP configuration files first lets a mistake there stop
	// the host before it starts anything.
	servers, err := h.mcpServers()
	if err != nil {
		return nil, err
	}
	h.perm = h.permission()
	if err := h.build(ctx, servers); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// build does the work of Open once the configuration is resolved.
func (h *Host) build(ctx context.Context, servers []mcp.ServerConfig) error {
	cfg := &h.cfg
	for _, s := range servers {
		if s.Sandbox {
			h.serverWritable = append(h.serverWritable, s.Writable...)
		}
	}
	opts := cfg.Toolkit
	opts.Permission = *h.perm.Clone()
	opts.Logger = cmp.Or(opts.Logger, h.log)
	opts.MaxResultChars = cmp.Or(opts.MaxResultChars, cfg.Limits.MaxResultChars)
	opts.OffloadDir = cmp.Or(opts.OffloadDir, cfg.Limits.OffloadDir)
	opts.MaxOffloadBytes = cmp.Or(opts.MaxOffloadBytes, cfg.Limits.MaxOffloadBytes)
	opts.OnChange = h.onChange
	opts.NoResetTools = opts.NoResetTools || cfg.ResetTools == Off
	if opts.Store == nil {
		st, err := openStore(ctx, cfg)
		if err != nil {
			return fmt.Errorf("%sstore: %w", cfg.where(), err)
		}
		if st != nil {
			h.store, opts.Store = st, st
			h.log.Info("sessions in Redis", "store", st.String(), "ttl", cmp.Or(cfg.StoreTTL, defaultStoreTTL))
		}
	}
	h.tk = toolkit.New(opts)
	for _, g := range cfg.Groups {
		if err := h.tk.AddGroup(toolkit.Group{Name: g.Name, Description: g.Description, Instructions: g.Instructions, Active: g.Active}); err != nil {
			return fmt.Errorf("%sgroups: %w", cfg.where(), err)
		}
	}
	hidden, readOnly := h.masks()
	sb, err := sandbox.New(sandbox.Options{
		Mode:      cfg.Sandbox.Mode,
		NoNetwork: cfg.Sandbox.Network == Off,
		Writable:  cfg.Sandbox.Writable,
		Hidden:    hidden,
		ReadOnly:  readOnly,
		Helper:    cfg.Sandbox.Helper,
		Logger:    h.log,
	})
	if err != nil {
		return fmt.Errorf("%ssandbox: %w", cfg.where(), err)
	}
	h.sb = sb
	h.programs = programs.FromEnvironment(h.toolWritable())
	h.writable = programs.New("", h.toolWritable())
	if dropped := h.programs.Dropped(); len(dropped) > 0 {
		var entries []string
		for _, d := range dropped {
			entries = append(entries, fmt.Sprintf("%q %s", d.Dir, d.Reason))
		}
		h.log.Info("PATH entries the host runs no program from", "entries", strings.Join(entries, "; "))
	}
	h.warnWritableSources()
	if err := registerBuiltins(h.tk, sb, h.programs, cfg.Tools); err != nil {
		return fmt.Errorf("%stools: %w", cfg.where(), err)
	}
	if cfg.Register != nil {
		if err := cfg.Register(h.tk); err != nil {
			return fmt.Errorf("register the program's tools (Config.Register): %w", err)
		}
	}
	// Watchers and background loads live as long as the host, not as
	// long as Open's context; values (a trace id) still flow to them.
	watchCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	h.stopWatching = stop
	if sb.Active() {
		h.watches.Go(h.hideCredentialLinks)
	}
	if len(cfg.Plugins) > 0 {
		if err := h.openPlugins(ctx, watchCtx); err != nil {
			return err
		}
	}
	if len(cfg.Skills) > 0 {
		if err := h.openSkills(watchCtx); err != nil {
			return err
		}
	}
	h.connectMCP(ctx, servers)
	return nil
}

// permission returns the permission context of the resolved
// configuration. The host's own files are Protected: the configuration
// file, the MCP configuration files, the plugin and skill folders, and
// each working directory's wasmtools.yaml. A tool call that may change
// one asks in every mode: otherwise an agent in bypass mode could rewrite
// what the host runs and how it decides.
func (h *Host) permission() *permission.Context {
	cfg := &h.cfg
	pc := &permission.Context{
		Mode:        cmp.Or(cfg.Mode, permission.ModeDefault),
		WorkingDirs: slices.Clone(cfg.WorkingDirs),
		Allow:       slices.Clone(cfg.Allow),
		Deny:        slices.Clone(cfg.Deny),
		Ask:         slices.Clone(cfg.Ask),
	}
	if cfg.File != "" {
		pc.Protected = append(pc.Protected, cfg.File)
	}
	pc.Protected = append(pc.Protected, cfg.MCPConfigFiles...)
	pc.Protected = append(pc.Protected, cfg.TrustFile)
	pc.Protected = append(pc.Protected, cfg.Plugins...)
	pc.Protected = append(pc.Protected, cfg.Skills...)
	ProtectWorkingDirs(pc)
	return pc
}

// ProtectWorkingDirs adds the configuration file (ConfigFile) of each of
// pc's working directories to pc.Protected: a host started there reads
// it. Open does this for the host's permission context; a program that
// judges calls under a context of its own (other working directories for
// one request, say) calls it on that context.
func ProtectWorkingDirs(pc *permission.Context) {
	for _, wd := range pc.WorkingDirs {
		f := filepath.Join(wd, ConfigFile)
		if !slices.Contains(pc.Protected, f) {
			pc.Protected = append(pc.Protected, f)
		}
	}
}

// mcpServers returns the servers of the configuration and of its MCP
// configuration files.
func (h *Host) mcpServers() ([]mcp.ServerConfig, error) {
	servers := h.cfg.servers()
	for _, file := range h.cfg.MCPConfigFiles {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("MCP configuration: %w", err)
		}
		more, err := mcp.ParseServers(file, data)
		if err != nil {
			return nil, err
		}
		servers = append(servers, more...)
	}
	return servers, nil
}

// openPlugins serves the plugin folders. With Watch on, each folder loads
// in the background and then follows its changes: an MCP handshake never
// waits for compiles, and tools appear as they are ready (OnChange).
func (h *Host) openPlugins(ctx, watchCtx context.Context) error {
	cfg := &h.cfg
	if g := cfg.PluginGroup; g != "" && !slices.ContainsFunc(h.tk.Groups(), func(x toolkit.Group) bool { return x.Name == g }) {
		return fmt.Errorf("%splugin_group %q is not one of the groups: add it under groups", cfg.where(), g)
	}
	hopts := cfg.PluginHost
	hopts.Logger = cmp.Or(hopts.Logger, h.log)
	hopts.Version = cmp.Or(hopts.Version, cfg.Version)
	ph, err := host.New(hopts)
	if err != nil {
		return fmt.Errorf("start the plugin host: %w", err)
	}
	h.plugins = ph
	grants := func(path string) host.Config {
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		return host.Config{Grants: cfg.Grants[name]}
	}
	if cfg.Watch {
		h.watches.Go(func() { h.watchTrust(watchCtx) })
	}
	for _, dir := range cfg.Plugins {
		// A folder that does not exist yet is fine to watch, not to load.
		if info, err := os.Stat(dir); err != nil && !cfg.Watch || err == nil && !info.IsDir() {
			return fmt.Errorf("plugins %s: not a folder: give a folder of .wasm files (with Watch on, one that does not exist yet is waited for)", dir)
		}
		opts := host.FolderOptions{Config: grants, Group: cfg.PluginGroup, Approvals: h.approvals, Untrusted: h.pluginFileUntrusted}
		if !cfg.Watch {
			f, err := ph.OpenFolder(ctx, h.tk, dir, opts)
			if err != nil {
				return fmt.Errorf("plugins %s: %w", dir, err)
			}
			h.addFolder(f)
			continue
		}
		h.watches.Go(func() {
			f, err := ph.OpenFolder(watchCtx, h.tk, dir, opts)
			if err != nil {
				if watchCtx.Err() == nil { // not the host closing
					h.log.Error("plugin folder not loaded", "dir", dir, "err", err)
				}
				return
			}
			if !h.addFolder(f) {
				_ = f.Close(context.Background()) // the host closed meanwhile
				return
			}
			h.log.Info("plugin folder loaded", "dir", dir, "failed", len(f.Failed()))
			if err := f.Watch(watchCtx); err != nil {
				h.log.Warn("plugin folder not watched; restart to pick up changes", "dir", dir, "err", err)
			}
		})
	}
	return nil
}

// masks returns what the OS sandbox hides from every command (the token
// file, the user's credential stores, the sockets that start programs
// outside the sandbox: Docker's, D-Bus's, systemd's) and what it keeps
// read-only even inside a working directory (the host's own files: the
// configuration, MCP configurations, plugin and skill folders, the trust
// record, each working directory's wasmtools.yaml). A path that holds a
// working directory or a writable path is left out, with a warning:
// covering it would cover the workspace.
func (h *Host) masks() (hidden, readOnly []string) {
	cfg := &h.cfg
	home, _ := os.UserHomeDir()
	if cfg.TokenFile != "" {
		hidden = append(hidden, cfg.TokenFile)
	}
	hidden = append(hidden, pathpolicy.Credentials(home)...)
	runtimeDir := os.Getenv("XDG_RUNTIME_DIR")
	if runtimeDir == "" {
		runtimeDir = fmt.Sprintf("/run/user/%d", os.Getuid())
	}
	hidden = append(hidden, pathpolicy.Sockets(runtimeDir)...)
	hidden = append(hidden, readRulePaths(cfg, home)...)
	for _, p := range h.perm.Protected {
		if p != cfg.TokenFile {
			readOnly = append(readOnly, p)
		}
	}
	writable := h.toolWritable()
	keep := func(kind string, paths []string) []string {
		var out []string
		for _, p := range paths {
			if w := slices.IndexFunc(writable, func(w string) bool { return pathtree.Holds(p, w) }); w >= 0 {
				h.log.Warn("the sandbox cannot cover a path that holds a working directory or writable path", "path", p, "kind", kind, "holds", writable[w])
				continue
			}
			out = append(out, p)
		}
		return out
	}
	return keep("hidden", hidden), keep("read-only", readOnly)
}

// readRulePaths returns the files and folders the configuration's Read
// deny and ask rules name literally (Read(//srv/keys/**),
// Read(~/secrets)): the sandbox hides them, so a command reads them no
// more than Read may. A pattern with a wildcard before its end
// (Read(//etc/*.key)) names no folder that could be hidden whole; the
// permission engine alone judges it.
func readRulePaths(cfg *Config, home string) []string {
	pp := pathpolicy.New(pathpolicy.Options{Home: home})
	var out []string
	for _, r := range slices.Concat(cfg.Deny, cfg.Ask) {
		if r.Tool != "Read" || r.Content == "" {
			continue
		}
		for _, pat := range pp.Patterns(r.Content, cfg.WorkingDirs) {
			lit := strings.TrimSuffix(strings.TrimSuffix(pat, "/**"), "/")
			if lit == "" || strings.ContainsAny(lit, "*?[{\\") {
				continue
			}
			if lit = filepath.Clean(lit); !slices.Contains(out, lit) {
				out = append(out, lit)
			}
		}
	}
	return out
}

// maxLinkScan bounds the entries hideCredentialLinks visits.
const maxLinkScan = 200_000

// hideCredentialLinks finds, in the background, the hard links the
// working directories and writable paths hold to the user's credential
// files (a key linked in under an innocent name), and has the sandbox
// hide them too. Commands started before it is done, and links made
// later by a process outside the sandbox (inside it, the credential is
// hidden and cannot be linked), are not covered; the static policy still
// judges such a link by its identity.
func (h *Host) hideCredentialLinks() {
	home, _ := os.UserHomeDir()
	start := time.Now()
	links, complete := pathpolicy.New(pathpolicy.Options{Home: home}).LinksToCredentials(h.toolWritable(), maxLinkScan)
	if !complete {
		h.log.Warn("the scan for hard links to credentials in the working directories stopped early (too many files, or unreadable folders); links it did not reach are not hidden from commands", "entries", maxLinkScan)
	}
	if len(links) == 0 {
		h.log.Debug("no hard links to credentials in the working directories", "took", time.Since(start).Round(time.Millisecond))
		return
	}
	if err := h.sb.Hide(links...); err != nil {
		h.log.Warn("hard links to credentials not hidden", "err", err)
		return
	}
	h.log.Warn("hard links to credentials found in the working directories; commands cannot read them", "links", links, "took", time.Since(start).Round(time.Millisecond))
}

// pluginFileUntrusted reports whether a plugin file may have been
// written by someone other than the operator: it lies where a tool call
// may write (or is reached through a link there), or it or its folder
// belongs to another user, or its folder is one everyone may write (a
// plugin folder under /tmp that another user made first).
func (h *Host) pluginFileUntrusted(path string) bool {
	return h.writable.Untrusted(path) || othersMayHaveWritten(path)
}

// approvals reads the plugin trust record, for the plugin folders (see
// host.FolderOptions.Approvals). A record that lies where a tool call
// may write approves nothing: an agent could approve its own module.
func (h *Host) approvals() (*host.TrustRecord, error) {
	file := h.cfg.TrustFile
	if h.writable.Untrusted(file) {
		return nil, fmt.Errorf("the trust record %s lies in a folder tool calls may write, so the host does not read it; keep it outside the working directories and writable paths (set %s)", file, host.TrustFileEnv)
	}
	return host.ReadTrust(file)
}

// watchTrust syncs the plugin folders when the trust record changes,
// so that `wasmtools plugins trust` and `revoke` take effect on a
// running host. It runs until ctx ends.
func (h *Host) watchTrust(ctx context.Context) {
	// The watch needs the record's folder; making it (for its owner
	// only) is what the first `wasmtools plugins trust` would do.
	_ = os.MkdirAll(filepath.Dir(h.cfg.TrustFile), 0o700)
	w, err := watch.New(h.cfg.TrustFile, watch.Options{Depth: 0, Debounce: host.DefaultDebounce, Logger: h.log})
	if err != nil {
		h.log.Warn("plugin trust record not watched; approvals take effect at the next change of a plugin folder or restart", "file", h.cfg.TrustFile, "err", err)
		return
	}
	w.Run(ctx, func() {
		for _, f := range h.Folders() {
			f.Sync(ctx)
		}
	})
}

// addFolder records f for Folders and Close; false when the host has
// closed, and f is the caller's to close.
func (h *Host) addFolder(f *host.Folder) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.folders = append(h.folders, f)
	return true
}

// openSkills serves the skills of the skill folders through the skill
// viewer, following the folders' changes with Watch on. The folders are
// loaded in the order of the Config, which makes that order the
// library's layering: a later folder's skill overrides an earlier one's.
func (h *Host) openSkills(watchCtx context.Context) error {
	h.lib = skills.NewLibrary(skills.Options{Logger: h.log})
	viewer, err := skills.Attach(h.tk, h.lib)
	if err != nil {
		return fmt.Errorf("serve the skills: %w", err)
	}
	h.viewer = viewer
	for _, dir := range h.cfg.Skills {
		opts := skills.DirOptions{Recursive: true}
		if h.cfg.Watch {
			if err := skills.Watch(watchCtx, h.lib, dir, skills.WatchOptions{DirOptions: opts}); err != nil {
				return fmt.Errorf("skills %s: %w", dir, err)
			}
			continue
		}
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return fmt.Errorf("skills %s: not a folder: give a folder holding a SKILL.md, or skill folders", dir)
		}
		if err := h.lib.LoadDir(dir, opts); err != nil {
			return fmt.Errorf("skills %s: %w", dir, err)
		}
	}
	return nil
}

// connectMCP connects to the MCP servers and registers their tools; a
// server that cannot be reached is logged and skipped. When a server's
// tool list changes, the toolkit follows.
func (h *Host) connectMCP(ctx context.Context, servers []mcp.ServerConfig) {
	for _, s := range servers {
		var regOpts []toolkit.RegisterOption
		if g := h.cfg.MCPServers[s.Name].Group; g != "" {
			regOpts = append(regOpts, toolkit.InGroup(g))
		}
		regOpts = append(regOpts, toolkit.Replacing())
		var mu sync.Mutex // tool list changes may be reported concurrently
		registered := map[string]bool{}
		follow := func(c *mcp.Client) {
			mu.Lock()
			defer mu.Unlock()
			now := map[string]bool{}
			for _, t := range c.Tools() {
				now[t.Spec().Name] = true
				if err := h.tk.Register(t, regOpts...); err != nil {
					h.log.Warn("MCP tool not registered", "server", c.Name(), "tool", t.Spec().Name, "err", err)
				}
			}
			for name := range registered {
				if !now[name] {
					_ = h.tk.Unregister(name)
				}
			}
			registered = now
		}
		if s.Command != "" && s.Dir == "" {
			s.Dir = h.serverDir()
		} else if s.Command != "" && h.programs.Untrusted(s.Dir) {
			h.log.Warn("MCP server starts in a folder tool calls may write: npx, node and uvx there load packages a call may have planted; give it a cwd outside the workspace",
				"server", s.Name, "cwd", s.Dir)
		}
		c, err := mcp.Connect(ctx, s, mcp.ClientOptions{Logger: h.log, OnToolsChanged: follow, Programs: h.programs, Sandbox: h.sb, Workspace: h.toolWritable()})
		if err != nil {
			h.log.Warn("MCP server not connected", "server", s.Name, "err", err)
			continue
		}
		h.mu.Lock()
		h.clients = append(h.clients, c)
		h.mu.Unlock()
	}
}

// toolWritable returns the folders a tool call may write: the working
// directories, the sandbox's writable paths and those of sandboxed MCP
// servers. (programs.FromEnvironment adds the temporary folder.)
func (h *Host) toolWritable() []string {
	return slices.Concat(h.cfg.WorkingDirs, h.cfg.Sandbox.Writable, h.serverWritable)
}

// warnWritableSources warns, once at start, about what the host loads or
// runs from a folder tool calls may write: plugin and skill folders (a
// module or SKILL.md a call drops there is served, and a skill may bind a
// tool group), and writable paths that hold a package launcher's cache
// or configuration (npx, uvx, pip and go run later run what a confined
// command put there, as the host's user).
func (h *Host) warnWritableSources() {
	for _, dir := range h.cfg.Plugins {
		if h.programs.Untrusted(dir) {
			h.log.Warn("plugin folder lies in a folder tool calls may write: its modules serve only once the operator trusts them (wasmtools plugins trust); keep plugin folders outside the working directories and writable paths",
				"folder", dir, "trust_record", h.cfg.TrustFile)
		}
	}
	for _, dir := range h.cfg.Skills {
		if h.programs.Untrusted(dir) {
			h.log.Warn("skill folder lies in a folder tool calls may write: a SKILL.md a call drops there is served, and can bind a tool group; keep skill folders outside the working directories and writable paths",
				"folder", dir)
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return
	}
	for _, w := range slices.Concat(h.cfg.Sandbox.Writable, h.serverWritable) {
		for _, launcher := range []string{".npm", ".npmrc", ".cache/uv", ".cache/pip", ".local/share/uv", "go/pkg/mod", ".cargo", ".m2"} {
			p := filepath.Join(home, launcher)
			if p == w || strings.HasPrefix(p, w+string(filepath.Separator)) || strings.HasPrefix(w, p+string(filepath.Separator)) {
				h.log.Warn("a sandbox writable path holds a package launcher's cache or configuration: a confined command can change code that npx, uvx, pip, cargo or go run later run unconfined",
					"writable", w, "launcher", p)
			}
		}
	}
}

// serverDir is the working directory of a stdio MCP server whose
// configuration names none: the user's home folder, or the root where
// that lies in a folder tool calls may write. Never the agent's working
// directory: npx, node and uvx resolve packages from the current folder.
func (h *Host) serverDir() string {
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) || h.programs.Untrusted(home) {
		return string(filepath.Separator)
	}
	return home
}

// onChange follows changes of the toolkit: the MCP server, if one was
// built, refreshes its tool list and tells its clients; then the
// program's callbacks run.
func (h *Host) onChange(ch toolkit.Change) {
	if srv := h.srv.Load(); srv != nil {
		if err := srv.Refresh(context.Background()); err != nil {
			h.log.Warn("tool list refresh failed", "err", err)
		}
		srv.LogAll("info", "wasmtools.reload", map[string]any{"added": ch.Added, "removed": ch.Removed, "replaced": ch.Replaced, "groups_changed": ch.Groups})
	}
	if f := h.cfg.OnChange; f != nil {
		f(ch)
	}
	if f := h.cfg.Toolkit.OnChange; f != nil {
		f(ch)
	}
}

// Toolkit returns the toolkit the host serves: run calls through it
// (NewTurn, Check), or register more tools.
func (h *Host) Toolkit() *toolkit.Toolkit { return h.tk }

// Permission returns a copy of the permission context the host judges
// calls under: the Config's mode, working directories and rules, with the
// host's own files protected.
func (h *Host) Permission() *permission.Context { return h.perm.Clone() }

// Config returns the configuration the host runs on: the Config given to
// Open with every path absolute, the working directories defaulted and
// Version set.
func (h *Host) Config() Config {
	return h.cfg.clone()
}

// Skills returns the skill library, or nil when the Config names no
// skill folder.
func (h *Host) Skills() *skills.Library { return h.lib }

// Folders returns the plugin folders loaded so far. With Watch on,
// folders load in the background: one appears here once its first load
// is done.
func (h *Host) Folders() []*host.Folder {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.folders)
}

// Sandbox returns the OS sandbox that confines the shell commands of the
// built-in tools.
func (h *Host) Sandbox() *sandbox.Sandbox { return h.sb }

// Close stops the host: the MCP server's running calls are cancelled and
// its sessions closed, the watchers stop, the plugin folders close
// (waiting for running calls), then the plugin host and the MCP clients.
// It returns the errors met. It is safe to call more than once, and
// from any goroutine; Open calls it itself on the parts it built when it
// fails.
func (h *Host) Close() error {
	h.closeOnce.Do(func() { h.closeErr = h.close() })
	return h.closeErr
}

// closeTimeout bounds how long Close waits for the MCP server's running
// calls once they are cancelled.
const closeTimeout = 5 * time.Second

func (h *Host) close() error {
	h.srvMu.Lock()
	srv := h.srv.Swap(nil)
	h.srvErr = errors.New("wasmtools: the host is closed")
	h.srvMu.Unlock()
	if srv != nil {
		srv.Shutdown(closeTimeout)
	}
	if h.stopWatching != nil {
		h.stopWatching()
	}
	h.watches.Wait()
	h.mu.Lock()
	h.closed = true
	folders, clients := h.folders, h.clients
	h.folders, h.clients = nil, nil
	h.mu.Unlock()
	var errs []error
	for _, f := range folders {
		if err := f.Close(context.Background()); err != nil {
			errs = append(errs, fmt.Errorf("close plugin folder %s: %w", f.Dir(), err))
		}
	}
	if h.plugins != nil {
		if err := h.plugins.Close(context.Background()); err != nil {
			errs = append(errs, fmt.Errorf("close the plugin host: %w", err))
		}
	}
	if h.store != nil {
		if err := h.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close the session store: %w", err))
		}
	}
	for _, c := range clients {
		// Ending a stdio server may report how its process ended: news
		// for the log, not a failure of Close.
		if err := c.Close(); err != nil {
			h.log.Debug("MCP server closed", "server", c.Name(), "err", err)
		}
	}
	if err := h.sb.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close the sandbox: %w", err))
	}
	return errors.Join(errs...)
}

// defaultStoreTTL is how long a session's state outlives its last use in
// a shared store when Config.StoreTTL is 0: serve's default idle timeout.
const defaultStoreTTL = 30 * time.Minute

// openStore opens the shared session store Config.Store names; nil for
// the in-memory default.
func openStore(ctx context.Context, cfg *Config) (*redisstore.Store, error) {
	switch {
	case cfg.Store == "" || cfg.Store == "memory":
		return nil, nil
	case strings.HasPrefix(cfg.Store, "redis://") || strings.HasPrefix(cfg.Store, "rediss://"):
		return redisstore.Open(ctx, cfg.Store, redisstore.Options{TTL: cmp.Or(cfg.StoreTTL, defaultStoreTTL)})
	default:
		return nil, fmt.Errorf("%q is not a store: use memory or redis://HOST:PORT/DB", cfg.Store)
	}
}
