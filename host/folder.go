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
	"syscall"
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
	// outside any lock.
	OnEvent func(FolderEvent)
}

// FolderEventKind says what happened to a file of a plugin folder.
type FolderEventKind string

// The folder event kinds.
const (
	EventLoaded   FolderEventKind = "loaded"   // a new module serves its tools
	EventReplaced FolderEventKind = "replaced" // a changed module serves instead of its previous version
	EventRemoved  FolderEventKind = "removed"  // a module's file is gone and so are its tools
	EventFailed   FolderEventKind = "failed"   // a module or group file is broken; the last good version, if any, serves on
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
	// hung are modules whose load ran out of time, by path: they are not
	// loaded again (each try would hold a Sync for their timeout) until
	// the module or its sidecar changes.
	hung    map[string]hungModule
	retired sync.WaitGroup // old versions closing
}

// folderModule is a module file currently serving.
type folderModule struct {
	plugin *Plugin
	group  string
	digest string // of the module and its sidecar
	stamp  string // their sizes, times and inodes, to skip hashing unchanged files
	tools  []string
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
		hung: map[string]hungModule{},
	}
	f.Sync(ctx)
	return f, nil
}

// Dir returns the folder's absolute path.
func (f *Folder) Dir() string { return f.dir }

// Failed returns the files that failed to load, with the reasons, sorted
// by path. A failed file that replaced a good one leaves that one serving.
func (f *Folder) Failed() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.failed)
}

// wantedModule is a module file found by a scan.
type wantedModule struct {
	path, group string
}

// scan lists the folder's module files and sub-folder groups. A missing
// folder is empty.
func (f *Folder) scan() ([]wantedModule, map[string]toolkit.Group, map[string]error) {
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
		g, err := readGroupFile(e.Name(), sub)
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
	g := toolkit.Group{Name: name, Description: "Tools of the plugins in the folder " + name + "."}
	data, err := os.ReadFile(filepath.Join(dir, GroupFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return g, nil
	}
	if err != nil {
		return g, err
	}
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

// Sync applies the folder's current contents: new modules are loaded,
// changed ones replaced, removed ones retired, groups added, updated and
// removed. Failures are logged and reported as events; they never undo
// what serves.
func (f *Folder) Sync(ctx context.Context) {
	var events []FolderEvent
	f.mu.Lock()
	defer func() {
		f.mu.Unlock()
		if f.opts.OnEvent != nil {
			for _, ev := range events {
				f.opts.OnEvent(ev)
			}
		}
	}()
	fail := func(path, group string, err error) {
		if f.failed[path] == err.Error() {
			return // reported already
		}
		f.failed[path] = err.Error()
		f.log.Warn("plugin not loaded; the last good version, if any, keeps serving", "file", path, "err", err)
		events = append(events, FolderEvent{Kind: EventFailed, Path: path, Group: group, Err: err})
	}

	wanted, groups, failures := f.scan()
	stillFailing := map[string]bool{}
	for p, err := range failures {
		stillFailing[p] = true
		fail(p, "", err)
	}
	// Groups first, so that their tools can be registered. A sub-folder
	// named like a group defined elsewhere (the configuration) joins it
	// but may not redefine or remove it.
	foreign := map[string]bool{}
	for _, g := range f.tk.Groups() {
		if !f.groups[g.Name] {
			foreign[g.Name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		if foreign[name] {
			continue
		}
		if err := f.tk.PutGroup(groups[name]); err != nil {
			stillFailing[filepath.Join(f.dir, name)] = true
			fail(filepath.Join(f.dir, name), name, err)
			delete(groups, name)
			continue
		}
		f.groups[name] = true
	}

	next := map[string]*folderModule{}
	owner := map[string]string{} // tool name -> module path, in next
	type swap struct {
		path string
		old  *folderModule
		new  *folderModule
	}
	var swaps []swap
	// Modules of a group whose group file broke keep serving as they were.
	for path, m := range f.loaded {
		if _, broken := failures[filepath.Join(filepath.Dir(path), GroupFileName)]; broken && m.group != f.opts.Group {
			next[path] = m
			for _, t := range m.tools {
				owner[t] = path
			}
		}
	}
	// Which modules changed? Those are loaded in parallel, the way a
	// host starts: compiling is the slow part.
	type candidate struct {
		wantedModule
		old    *folderModule
		digest string
		stamp  string
		err    error
		plugin *Plugin
	}
	var cands []*candidate
	var toLoad []string
	nextHung := map[string]hungModule{}
	for _, w := range wanted {
		if w.group != f.opts.Group {
			if _, ok := groups[w.group]; !ok {
				continue // its group failed
			}
		}
		c := &candidate{wantedModule: w, old: f.loaded[w.path]}
		c.stamp = fileStamp(w.path)
		if c.old != nil && c.stamp != "" && c.stamp == c.old.stamp {
			c.digest = c.old.digest // not touched since it was hashed
		} else {
			c.digest, c.err = fileDigest(w.path)
		}
		if hung, ok := f.hung[w.path]; ok && c.err == nil && hung.digest == c.digest {
			c.err = hung.err
			nextHung[w.path] = hung
		}
		if c.err == nil && (c.old == nil || c.old.digest != c.digest || c.old.group != w.group) {
			toLoad = append(toLoad, w.path)
		}
		cands = append(cands, c)
	}
	loadedNow := map[string]int{}
	for i, p := range toLoad {
		loadedNow[p] = i
	}
	plugins, loadErrs := f.h.LoadFiles(ctx, toLoad, f.opts.Config)
	// Unchanged modules keep their tool names first, so that a new module
	// cannot take a name from one that serves on.
	for _, c := range cands {
		if _, changed := loadedNow[c.path]; !changed && c.err == nil {
			next[c.path] = c.old
			for _, t := range c.old.tools {
				owner[t] = c.path
			}
			delete(f.failed, c.path)
		}
	}
	// Names this folder registered: only those may be replaced. Any other
	// name in the toolkit (a built-in, another folder's, an MCP tool) is
	// not ours to take.
	ours := map[string]bool{}
	for _, m := range f.loaded {
		for _, t := range m.tools {
			ours[t] = true
		}
	}
	keepOld := func(c *candidate, err error) {
		stillFailing[c.path] = true
		fail(c.path, c.group, err)
		if c.old == nil {
			return
		}
		kept := *c.old
		kept.tools = nil
		for _, t := range c.old.tools {
			if _, taken := owner[t]; !taken {
				owner[t] = c.path
				kept.tools = append(kept.tools, t)
			}
		}
		next[c.path] = &kept
	}
	// Broken files next: their last good versions keep their names too.
	var good []*candidate
	for _, c := range cands {
		i, changed := loadedNow[c.path]
		switch {
		case !changed && c.err == nil:
			continue
		case changed:
			c.plugin, c.err = plugins[i], loadErrs[i]
			if c.err != nil && errors.Is(c.err, context.DeadlineExceeded) && ctx.Err() == nil {
				c.err = fmt.Errorf("%w (not tried again until the file or its sidecar changes)", c.err)
				nextHung[c.path] = hungModule{digest: c.digest, err: c.err}
			}
		}
		if c.err == nil && len(c.plugin.Tools()) == 0 {
			c.err = errors.New("the module offers no tools")
		}
		if c.err != nil {
			if c.plugin != nil {
				_ = c.plugin.Close(ctx)
			}
			keepOld(c, c.err)
			continue
		}
		good = append(good, c)
	}
	// New versions of serving modules claim their names before new files.
	slices.SortStableFunc(good, func(a, b *candidate) int {
		return cmp.Compare(boolInt(a.old == nil), boolInt(b.old == nil))
	})
	for _, c := range good {
		var names []string
		var err error
		for _, t := range c.plugin.Tools() {
			name := t.Spec().Name
			if other, taken := owner[name]; taken && other != c.path {
				err = fmt.Errorf("tool %s is already served by %s", name, other)
				break
			}
			if _, exists := f.tk.Tool(name); exists && !ours[name] {
				err = fmt.Errorf("tool %s is already registered by another source (a built-in tool, another folder or an MCP server); rename the plugin's tool", name)
				break
			}
			names = append(names, name)
		}
		if err != nil {
			_ = c.plugin.Close(ctx)
			keepOld(c, err)
			continue
		}
		m := &folderModule{plugin: c.plugin, group: c.group, digest: c.digest, stamp: c.stamp, tools: names}
		next[c.path] = m
		for _, t := range names {
			owner[t] = c.path
		}
		delete(f.failed, c.path)
		swaps = append(swaps, swap{c.path, c.old, m})
	}
	for p := range f.failed {
		if !stillFailing[p] {
			delete(f.failed, p)
		}
	}

	// Register new versions, then drop tools nobody serves any more.
	for _, s := range swaps {
		for _, t := range s.new.plugin.Tools() {
			opts := []toolkit.RegisterOption{toolkit.Replacing()}
			if s.new.group != "" {
				opts = append(opts, toolkit.InGroup(s.new.group))
			}
			if err := f.tk.Register(t, opts...); err != nil {
				f.log.Error("plugin tool not registered", "file", s.path, "tool", t.Spec().Name, "err", err)
			}
		}
		kind := EventLoaded
		if s.old != nil {
			kind = EventReplaced
		}
		f.log.Info("plugin "+string(kind), "file", s.path, "group", s.new.group, "tools", s.new.tools)
		events = append(events, FolderEvent{Kind: kind, Path: s.path, Group: s.new.group, Tools: s.new.tools})
	}
	for path, m := range f.loaded {
		for _, t := range m.tools {
			if _, served := owner[t]; !served {
				_ = f.tk.Unregister(t)
			}
		}
		switch n, ok := next[path]; {
		case !ok:
			f.log.Info("plugin removed", "file", path, "tools", m.tools)
			events = append(events, FolderEvent{Kind: EventRemoved, Path: path, Group: m.group, Tools: m.tools})
			f.retire(m.plugin, f.successor(m, next))
		case n.plugin != m.plugin:
			f.retire(m.plugin, n.plugin)
		}
	}
	// Groups whose folder is gone.
	for name := range f.groups {
		if _, ok := groups[name]; !ok && !stillFailing[filepath.Join(f.dir, name, GroupFileName)] {
			if err := f.tk.RemoveGroup(name); err != nil {
				f.log.Warn("tool group not removed", "group", name, "err", err)
			}
			delete(f.groups, name)
		}
	}
	f.loaded = next
	f.hung = nextHung
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// successor finds the module that now serves the tools of a removed one
// (a renamed or moved file), so that calls caught in the swap run there.
func (f *Folder) successor(m *folderModule, next map[string]*folderModule) *Plugin {
	for _, n := range next {
		for _, t := range m.tools {
			if slices.Contains(n.tools, t) {
				return n.plugin
			}
		}
	}
	return nil
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
// waiting for running calls.
func (f *Folder) Close(ctx context.Context) error {
	f.mu.Lock()
	for _, m := range f.loaded {
		for _, t := range m.tools {
			_ = f.tk.Unregister(t)
		}
		f.retire(m.plugin, nil)
	}
	for name := range f.groups {
		_ = f.tk.RemoveGroup(name)
	}
	f.loaded, f.groups = map[string]*folderModule{}, map[string]bool{}
	f.mu.Unlock()
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
	wasm, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(wasm)
	if side, err := os.ReadFile(SidecarPath(path)); err == nil {
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
		var ino uint64
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			ino = st.Ino
		}
		fmt.Fprintf(&b, "%d:%d:%d;", info.Size(), info.ModTime().UnixNano(), ino)
	}
	return b.String()
}

// Watch applies the folder's changes until ctx ends: file events are
// debounced, then Sync runs. The watch survives the folder being deleted
// and created again. It returns when ctx ends, or at once with an error
// when the folder's parent cannot be watched.
func (f *Folder) Watch(ctx context.Context) error {
	w, err := watch.New(f.dir, watch.Options{Depth: 1, Debounce: f.opts.Debounce, Logger: f.log})
	if err != nil {
		return err
	}
	f.Sync(ctx) // catch what changed before the watch was set up
	w.Run(ctx, func() { f.Sync(ctx) })
	return nil
}
