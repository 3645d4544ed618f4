package host

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/wasmtools/wasmtools/internal/watch"
	"github.com/wasmtools/wasmtools/toolkit"
)

// GroupFileName is the file in a plugin sub-folder that describes the
// folder's tool group.
const GroupFileName = "group.yaml"

// DefaultDebounce is how long a folder watch waits after the last file
// event before it reloads: copying or compiling a module writes it in
// several steps, and loading in between would see a partial file (which
// fails to load and is retried at the next event, so a short wait is
// safe). It is shorter than the skills' because loading a module already
// takes tens of milliseconds, and a new version should serve within
// compile time + 100 ms.
const DefaultDebounce = 30 * time.Millisecond

// FolderOptions configure a plugin folder.
type FolderOptions struct {
	// Group is the tool group of the .wasm files directly in the folder;
	// it must exist in the toolkit. Empty means the basic group.
	Group string
	// Config gives the configuration of one module file (grants, pinned
	// digest); the NAME.json sidecar beside it is merged in. Nil means
	// the sidecar alone.
	Config func(path string) Config
	// Debounce is the quiet time before a watched folder reloads; 0 means
	// DefaultDebounce.
	Debounce time.Duration
	// OnEvent is told about every load, replacement, removal and failure,
	// outside any lock, on the goroutine that applied the change (the one
	// calling Sync, or Watch's).
	OnEvent func(FolderEvent)
	// Approvals, when set, marks the folder as one tool calls may write
	// (it lies in a working directory or a sandbox writable path): its
	// module and group files serve only as the operator approved them
	// (see TrustRecord), with the sidecar as approved, and the others wait
	// (EventPending). It is called at every Sync, so that an approval or
	// a revocation given meanwhile counts; an error leaves every file of
	// the folder waiting. Nil means the folder is the operator's own: its
	// files serve as they are.
	Approvals func() (*TrustRecord, error)
	// Untrusted, with Approvals, narrows the approval to the files a
	// tool call could have written: those for which it reports true (a
	// module, its sidecar or a group file in a working directory, or
	// reached through a link into one). Nil means every file of the
	// folder.
	Untrusted func(path string) bool
}

// FolderEventKind says what happened to a file of a plugin folder.
type FolderEventKind string

// The folder event kinds.
const (
	EventLoaded   FolderEventKind = "loaded"   // a new module serves its tools
	EventReplaced FolderEventKind = "replaced" // a changed module serves instead of its previous version
	EventRemoved  FolderEventKind = "removed"  // a module's file is gone and so are its tools
	EventFailed   FolderEventKind = "failed"   // a module or group file is broken; the last good version, if any, serves on
	EventPending  FolderEventKind = "pending"  // a module or group file waits for the operator's approval (FolderOptions.Approvals)
)

// FolderEvent reports one change of a plugin folder.
type FolderEvent struct {
	Kind FolderEventKind
	// Path is the module or group file concerned.
	Path string
	// Group is the tool group of the module ("" for basic).
	Group string
	// Tools are the tools the module serves now (loaded, replaced) or
	// served (removed).
	Tools []string
	// Err says why a file failed.
	Err error
}

// Folder is a folder of plugins served on a toolkit: each .wasm file
// directly in it joins FolderOptions.Group, each sub-folder is a tool group
// of its own (described by its group.yaml) holding the .wasm files in it.
// Sync applies the folder's current contents; Watch keeps applying them as
// files change. A swap is atomic per module: the new version is loaded and
// validated first and replaces the old one only then; calls already running
// finish on the old version, and a broken file leaves the last good
// version serving.
//
// A Folder is safe for concurrent use: Sync, Failed and Close may be
// called from any goroutine while Watch runs; syncs are serialised.
type Folder struct {
	h    *Host
	tk   *toolkit.Toolkit
	dir  string
	opts FolderOptions
	log  *slog.Logger

	mu     sync.Mutex               // serialises Sync
	loaded map[string]*folderModule // by module path
	groups map[string]bool          // groups this folder created
	failed map[string]string        // path -> error, reported once
	// pending are the paths of failed whose error is that they wait for
	// the operator's approval.
	pending map[string]bool
	// hung are modules whose load ran out of time, by path: they are not
	// loaded again (each try would hold a Sync for their timeout) until
	// the module or its sidecar changes.
	hung    map[string]hungModule
	retired sync.WaitGroup // old versions closing
	closed  bool
}

// folderModule is a module file currently serving.
type folderModule struct {
	plugin *Plugin
	group  string
	// approval is the operator's approval it serves under, in a folder
	// with Approvals; nil in the operator's own folders.
	approval *TrustedModule
	digest   string // of the module and its sidecar
	stamp    string // their sizes, times and inodes, to skip hashing unchanged files
	tools    []string
}

// hungModule is a module version that ran out of time while loading.
type hungModule struct {
	digest string // of the module and its sidecar
	err    error
}

// groupFile is the YAML of group.yaml.
type groupFile struct {
	Description  string `yaml:"description"`
	Instructions string `yaml:"instructions"`
	Active       bool   `yaml:"active"`
}

// OpenFolder serves the plugins of dir on tk and returns the folder after
// a first Sync. A folder that does not exist yet serves nothing until it
// appears (with Watch).
func (h *Host) OpenFolder(ctx context.Context, tk *toolkit.Toolkit, dir string, opts FolderOptions) (*Folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("plugin folder %s: %w", dir, err)
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	f := &Folder{
		h: h, tk: tk, dir: abs, opts: opts, log: h.log.With("plugin_folder", abs),
		loaded: map[string]*folderModule{}, groups: map[string]bool{}, failed: map[string]string{},
		pending: map[string]bool{}, hung: map[string]hungModule{},
	}
	h.foldersMu.Lock()
	h.folders = append(h.folders, f)
	h.foldersMu.Unlock()
	f.Sync(ctx)
	return f, nil
}

// Dir returns the folder's absolute path.
func (f *Folder) Dir() string { return f.dir }

// Failed returns the files that failed to load, with the reasons. A
// failed file that replaced a good one leaves that one serving. Files
// that wait for the operator's approval are not failures: see Pending.
func (f *Folder) Failed() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := maps.Clone(f.failed)
	maps.DeleteFunc(out, func(p, _ string) bool { return f.pending[p] })
	return out
}

// Pending returns the module and group files that wait for the
// operator's approval (FolderOptions.Approvals), with the reasons: new
// files, files changed since they were approved, approvals revoked.
func (f *Folder) Pending() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for p := range f.pending {
		out[p] = f.failed[p]
	}
	return out
}

// wantedModule is a module file found by a scan.
type wantedModule struct {
	path, group string
}

// scan lists the folder's module files and sub-folder groups. A missing
// folder is empty.
func (f *Folder) scan(trust *trustState) ([]wantedModule, map[string]toolkit.Group, map[string]error) {
	var mods []wantedModule
	groups := map[string]toolkit.Group{}
	failures := map[string]error{}
	top, err := ModuleFiles(f.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		failures[f.dir] = err
	}
	for _, p := range top {
		mods = append(mods, wantedModule{p, f.opts.Group})
	}
	entries, _ := os.ReadDir(f.dir)
	for _, e := range entries {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue
		}
		sub := filepath.Join(f.dir, e.Name())
		g, err := trust.readGroupFile(e.Name(), sub)
		if err != nil {
			failures[filepath.Join(sub, GroupFileName)] = err
			continue // the group's modules stay as they were
		}
		groups[g.Name] = g
		files, err := ModuleFiles(sub)
		if err != nil {
			failures[sub] = err
		}
		for _, p := range files {
			mods = append(mods, wantedModule{p, g.Name})
		}
	}
	return mods, groups, failures
}

func readGroupFile(name, dir string) (toolkit.Group, error) {
	data, err := readPluginFile(filepath.Join(dir, GroupFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return defaultGroup(name), nil
	}
	if err != nil {
		return defaultGroup(name), err
	}
	return parseGroupFile(name, data)
}

// defaultGroup is the group of a sub-folder without a group file.
func defaultGroup(name string) toolkit.Group {
	return toolkit.Group{Name: name, Description: "Tools of the plugins in the folder " + name + "."}
}

// parseGroupFile parses the group file of the sub-folder name.
func parseGroupFile(name string, data []byte) (toolkit.Group, error) {
	g := defaultGroup(name)
	var gf groupFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&gf); err != nil && !errors.Is(err, io.EOF) {
		return g, fmt.Errorf("%s: %w (fields: description, instructions, active)", GroupFileName, err)
	}
	g.Description = cmp.Or(gf.Description, g.Description)
	g.Instructions, g.Active = gf.Instructions, gf.Active
	return g, nil
}

// apply registers the tools of the swapped modules and unregisters
// names, in one toolkit batch. Should the batch fail (a tool the
// toolkit refuses although the load checked it, a group removed
// meanwhile), each module is applied alone and those that fail are
// returned, none of their tools registered.
func (f *Folder) apply(swaps []swap, unregister []string) (ok, failed []swap) {
	add := func(b *toolkit.Batch, s swap) {
		for _, t := range s.new.plugin.Tools() {
			opts := []toolkit.RegisterOption{toolkit.Replacing()}
			if s.new.group != "" {
				opts = append(opts, toolkit.InGroup(s.new.group))
			}
			b.Register(t, opts...)
		}
	}
	var all toolkit.Batch
	for _, n := range unregister {
		all.Unregister(n)
	}
	for _, s := range swaps {
		add(&all, s)
	}
	if all.Len() == 0 {
		return swaps, nil
	}
	if err := f.tk.Apply(&all); err == nil {
		return swaps, nil
	}
	var rm toolkit.Batch
	for _, n := range unregister {
		rm.Unregister(n)
	}
	if err := f.tk.Apply(&rm); err != nil {
		f.log.Error("plugin tools not unregistered", "tools", unregister, "err", err)
	}
	for _, s := range swaps {
		var one toolkit.Batch
		add(&one, s)
		if err := f.tk.Apply(&one); err != nil {
			s.err = fmt.Errorf("its tools could not be registered: %w", err)
			// Its last version may hold names still: they go too.
			var gone toolkit.Batch
			if s.old != nil {
				for _, t := range s.old.tools {
					if tool, ok := f.tk.Tool(t); ok && pluginOf(tool) == s.old.plugin {
						gone.Unregister(t)
					}
				}
			}
			_ = f.tk.Apply(&gone)
			failed = append(failed, s)
			continue
		}
		ok = append(ok, s)
	}
	return ok, failed
}

// checkNames checks that a module may serve names: none claimed in this
// Sync by a module before it, none held by another source, and none held
// by another folder's module that comes before it. taken lists names
// held by another folder's module that comes after it: this module takes
// them.
func (f *Folder) checkNames(path string, names []string, claimed map[string]string, held holders) (taken []string, err error) {
	me := f.rank(path)
	for _, n := range names {
		lower := strings.ToLower(n)
		if other, ok := claimed[lower]; ok {
			return nil, fmt.Errorf("tool %s is served by %s, which comes first in the folder (its files before its sub-folders, each by name); tool names are unique ignoring case", n, f.relName(other))
		}
		for _, hn := range held.fold[lower] {
			p := held.by[hn]
			switch {
			case p == nil:
				return nil, takenError(n, hn)
			case p.folder == f:
				// Ours: the claims of this Sync decide.
			case p.folder.rank(p.file).compare(me) < 0:
				return nil, fmt.Errorf("tool %s is served by %s, which comes first (plugin folders by path, then a folder's files before its sub-folders, each by name); tool names are unique ignoring case", n, p.file)
			default:
				taken = append(taken, hn)
			}
		}
	}
	return taken, nil
}

// takenError says that a tool name n is held by another source as held
// (the same name, or one differing only by case).
func takenError(n, held string) error {
	if held == n {
		return fmt.Errorf("tool %s is already registered by another source (a built-in tool, an MCP server or the embedding program); rename the plugin's tool", n)
	}
	return fmt.Errorf("tool %s differs only by case from %s, which another source registered (a built-in tool, an MCP server or the embedding program); tool names are unique ignoring case: rename the plugin's tool", n, held)
}

// holders are the toolkit's tool names and the plugins serving them.
type holders struct {
	by   map[string]*Plugin  // name -> its folder plugin; nil for any other source
	fold map[string][]string // lower-case name -> names
}

func toolHolders(tk *toolkit.Toolkit) holders {
	h := holders{by: map[string]*Plugin{}, fold: map[string][]string{}}
	for _, info := range tk.Tools() {
		n := info.Spec.Name
		var p *Plugin
		if t, ok := tk.Tool(n); ok {
			if p = pluginOf(t); p != nil && p.folder == nil {
				p = nil // a plugin registered by hand: another source
			}
		}
		h.by[n] = p
		h.fold[strings.ToLower(n)] = append(h.fold[strings.ToLower(n)], n)
	}
	return h
}

// pluginOf returns the plugin a tool belongs to, or nil.
func pluginOf(t toolkit.Tool) *Plugin {
	switch t := t.(type) {
	case *Tool:
		return t.p
	case *compatTool:
		return t.p
	}
	return nil
}

func toolNames(p *Plugin) []string {
	var names []string
	for _, t := range p.Tools() {
		names = append(names, t.Spec().Name)
	}
	return names
}

// moduleRank orders module files when they offer the same tool name:
// folders by path, then a folder's own files before its sub-folders',
// sub-folders by name, files by name.
type moduleRank struct {
	folder string
	sub    int
	dir    string
	file   string
}

func (f *Folder) rank(path string) moduleRank {
	dir, file := filepath.Split(path)
	dir = filepath.Clean(dir)
	if dir == f.dir {
		return moduleRank{f.dir, 0, "", file}
	}
	return moduleRank{f.dir, 1, filepath.Base(dir), file}
}

func (a moduleRank) compare(b moduleRank) int {
	return cmp.Or(strings.Compare(a.folder, b.folder), cmp.Compare(a.sub, b.sub), strings.Compare(a.dir, b.dir), strings.Compare(a.file, b.file))
}

// relName names a module file relative to the folder.
func (f *Folder) relName(path string) string {
	if rel, err := filepath.Rel(f.dir, path); err == nil {
		return rel
	}
	return path
}

// successorOf finds the plugin that now serves the tools of a module that
// serves no more (a renamed or moved file), so that calls caught in the
// swap run there.
func successorOf(m *folderModule, servedBy map[string]*Plugin) *Plugin {
	for _, t := range m.tools {
		if p := servedBy[t]; p != nil {
			return p
		}
	}
	return nil
}

// syncFolders syncs the host's other folders after one took or released
// tool names, so that each shows what a restart would give.
func (h *Host) syncFolders(ctx context.Context, from *Folder) {
	h.foldersMu.Lock()
	others := slices.DeleteFunc(slices.Clone(h.folders), func(g *Folder) bool { return g == from })
	h.foldersMu.Unlock()
	for _, g := range others {
		g.Sync(ctx)
	}
}

// retire closes an old version once its running calls are done, without
// holding up the swap.
func (f *Folder) retire(old, next *Plugin) {
	f.retired.Add(1)
	go func() {
		defer f.retired.Done()
		_ = old.retire(context.Background(), next)
	}()
}

// Close unregisters the folder's tools and groups and closes its plugins,
// waiting for running calls. Another folder of the host may then serve
// tool names this one held.
func (f *Folder) Close(ctx context.Context) error {
	f.h.foldersMu.Lock()
	f.h.folders = slices.DeleteFunc(f.h.folders, func(g *Folder) bool { return g == f })
	f.h.foldersMu.Unlock()
	f.mu.Lock()
	f.closed = true
	f.h.claimMu.Lock()
	held := toolHolders(f.tk)
	var gone toolkit.Batch
	for _, m := range f.loaded {
		for _, t := range m.tools {
			if held.by[t] == m.plugin {
				gone.Unregister(t)
			}
		}
		f.retire(m.plugin, nil)
	}
	if err := f.tk.Apply(&gone); err != nil {
		f.log.Warn("plugin tools not unregistered", "err", err)
	}
	f.h.claimMu.Unlock()
	for name := range f.groups {
		_ = f.tk.RemoveGroup(name)
	}
	f.loaded, f.groups = map[string]*folderModule{}, map[string]bool{}
	f.mu.Unlock()
	if gone.Len() > 0 {
		f.h.syncFolders(ctx, f)
	}
	done := make(chan struct{})
	go func() { f.retired.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fileDigest hashes a module and its sidecar, so that a change of either
// reloads the module.
func fileDigest(path string) (string, error) {
	wasm, err := readPluginFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(wasm)
	if side, err := readPluginFile(SidecarPath(path)); err == nil {
		h.Write([]byte{0})
		h.Write(side)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fileStamp describes a module and its sidecar as stat sees them (size,
// modification time, inode), so that a Sync after an event elsewhere in
// the folder does not re-read and re-hash every module. "" when the module
// cannot be stat'ed.
func fileStamp(path string) string {
	var b strings.Builder
	for _, p := range []string{path, SidecarPath(path)} {
		info, err := os.Stat(p)
		if err != nil {
			if p == path {
				return ""
			}
			b.WriteString("-")
			continue
		}
		fmt.Fprintf(&b, "%d:%d:%d;", info.Size(), info.ModTime().UnixNano(), inode(info))
	}
	return b.String()
}

// Watch applies the folder's changes until ctx ends: file events are
// debounced, then Sync runs, on Watch's goroutine. The watch survives the
// folder being deleted and created again. It blocks: it returns when ctx
// ends, or at once with an error when the folder's parent cannot be
// watched; run it in a goroutine of its own. (skills.Watch differs: it
// loads first and returns, watching in a goroutine it starts, because
// a host needs the skills before it lists them.)
func (f *Folder) Watch(ctx context.Context) error {
	w, err := watch.New(f.dir, watch.Options{Depth: 1, Debounce: f.opts.Debounce, Logger: f.log})
	if err != nil {
		return err
	}
	f.Sync(ctx) // catch what changed before the watch was set up
	w.Run(ctx, func() { f.Sync(ctx) })
	return nil
}
