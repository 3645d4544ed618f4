package host

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wasmtools/wasmtools/toolkit"
)

// Sync applies the folder's current contents: new modules are loaded,
// changed ones replaced, removed ones retired, groups added, updated and
// removed. Failures are logged and reported as events; they never undo
// what serves.
//
// Tool names: a module serves all its tools or none. When modules offer
// the same tool name, or names differing only by case, the one first in
// the folders' order wins, whichever loaded first, so that a restart
// gives what a live folder shows: folders of one host by absolute path,
// in a folder its files before its sub-folders, sub-folders by name,
// files by name (byte order). The others are reported failed, naming the
// winner. A name something else registered (a built-in tool, an MCP
// server's, a Go function) is never taken.
func (f *Folder) Sync(ctx context.Context) {
	r := &syncRun{f: f, ctx: ctx, stillFailing: map[string]bool{}, nextHung: map[string]hungModule{}, inWanted: map[string]bool{}, unapproved: map[string]bool{}}
	resyncOthers := false
	f.mu.Lock()
	defer func() {
		f.mu.Unlock()
		if f.opts.OnEvent != nil {
			for _, ev := range r.events {
				f.opts.OnEvent(ev)
			}
		}
		if resyncOthers {
			f.h.syncFolders(ctx, f)
		}
	}()
	if f.closed {
		return
	}
	if f.opts.Approvals != nil {
		r.trust = &trustState{fetch: f.opts.Approvals, untrusted: f.opts.Untrusted, config: f.opts.Config}
	}
	var wanted []wantedModule
	wanted, r.groups, r.failures = f.scan(r.trust)
	for p, err := range r.failures {
		r.stillFailing[p] = true
		r.fail(p, "", err)
	}
	r.putGroups()
	cands, toLoad := r.candidates(wanted)
	r.load(cands, toLoad)

	// Claim tool names, module by module in the folders' order, and apply
	// the outcome to the toolkit: one host-wide lock, so that two folders
	// never decide on the same name at once.
	f.h.claimMu.Lock()
	c := r.claim(cands)
	r.commit(c)
	f.h.claimMu.Unlock()
	resyncOthers = c.tookFromOthers || len(c.unregister) > 0

	r.dropGroups()
	f.hung = r.nextHung
}

// syncRun is the state of one Sync, phase to phase.
type syncRun struct {
	f   *Folder
	ctx context.Context
	// events are reported to FolderOptions.OnEvent once the folder's
	// lock is released.
	events []FolderEvent
	// groups and failures are what the scan found.
	groups   map[string]toolkit.Group
	failures map[string]error
	// stillFailing are the paths that failed in this Sync: the others'
	// earlier failures are forgotten.
	stillFailing map[string]bool
	// inWanted are the module files the scan found.
	inWanted map[string]bool
	// nextHung are the modules whose load timed out, not tried again
	// until they change.
	nextHung map[string]hungModule
	// trust holds the operator's approvals in a folder with Approvals;
	// nil in the operator's own folders.
	trust *trustState
	// unapproved are the modules whose serving version lost its
	// approval in this Sync.
	unapproved map[string]bool
}

// fail records a failure, logged and reported once until it changes.
func (r *syncRun) fail(path, group string, err error) {
	f := r.f
	if f.failed[path] == err.Error() {
		return // reported already
	}
	f.failed[path] = err.Error()
	if errors.Is(err, ErrNotTrusted) {
		f.pending[path] = true
		f.log.Warn("plugin file waits for the operator's approval", "file", path, "err", err)
		r.events = append(r.events, FolderEvent{Kind: EventPending, Path: path, Group: group, Err: err})
		return
	}
	delete(f.pending, path)
	f.log.Warn("plugin not loaded; the last good version, if any, keeps serving", "file", path, "err", err)
	r.events = append(r.events, FolderEvent{Kind: EventFailed, Path: path, Group: group, Err: err})
}

// putGroups adds and updates the groups first, so that their tools can be
// registered. A sub-folder named like a group defined elsewhere (the
// configuration) joins it but may not redefine or remove it.
func (r *syncRun) putGroups() {
	f := r.f
	foreign := map[string]bool{}
	for _, g := range f.tk.Groups() {
		if !f.groups[g.Name] {
			foreign[g.Name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.groups)) {
		if foreign[name] {
			continue
		}
		if err := f.tk.PutGroup(r.groups[name]); err != nil {
			r.stillFailing[filepath.Join(f.dir, name)] = true
			r.fail(filepath.Join(f.dir, name), name, err)
			delete(r.groups, name)
			continue
		}
		f.groups[name] = true
	}
}

// candidates returns the modules this Sync decides on, and the paths of
// those to load: new or changed ones (by digest, or group). A module that
// hung at load is not tried again until it changes.
func (r *syncRun) candidates(wanted []wantedModule) (cands []*candidate, toLoad []string) {
	f := r.f
	for _, w := range wanted {
		if w.group != f.opts.Group {
			if _, ok := r.groups[w.group]; !ok {
				continue // its group failed
			}
		}
		r.inWanted[w.path] = true
		c := &candidate{wantedModule: w, old: f.loaded[w.path]}
		c.stamp = fileStamp(w.path)
		switch {
		case c.old != nil && c.stamp != "" && c.stamp == c.old.stamp:
			c.digest = c.old.digest // not touched since it was hashed
		case r.trust != nil:
			// A file no approval can fit is not read at all: planted
			// files must not make every Sync hash gigabytes.
			if c.err = r.trust.precheck(w.path); c.err == nil {
				c.digest, c.err = fileDigest(w.path)
			}
		default:
			c.digest, c.err = fileDigest(w.path)
		}
		if hung, ok := f.hung[w.path]; ok && c.err == nil && hung.digest == c.digest {
			c.err = hung.err
			r.nextHung[w.path] = hung
		}
		if r.trust != nil {
			r.trust.decide(c)
		}
		if c.err == nil && (c.old == nil || c.old.digest != c.digest || c.old.group != w.group) {
			c.load = len(toLoad)
			toLoad = append(toLoad, w.path)
		} else {
			c.load = -1
		}
		cands = append(cands, c)
	}
	// Modules of a group whose group file broke keep serving as they were.
	for path, m := range f.loaded {
		if _, broken := r.failures[filepath.Join(filepath.Dir(path), GroupFileName)]; broken && m.group != f.opts.Group && !r.inWanted[path] && r.trust.approves(path, m) {
			cands = append(cands, &candidate{wantedModule: wantedModule{path, m.group}, old: m, digest: m.digest, stamp: m.stamp, load: -1})
		}
	}
	return cands, toLoad
}

// load loads the changed modules in parallel, the way a host starts:
// compiling is the slow part.
func (r *syncRun) load(cands []*candidate, toLoad []string) {
	ctx := r.ctx
	approved := map[string]*TrustedModule{}
	for _, c := range cands {
		if c.load >= 0 && c.approval != nil {
			approved[c.path] = c.approval
		}
	}
	h := r.f.h
	plugins, loadErrs := h.loadEach(ctx, toLoad, func(path string) (*Plugin, error) {
		var cfg Config
		if r.f.opts.Config != nil {
			cfg = r.f.opts.Config(path)
		}
		if a := approved[path]; a != nil {
			return h.loadApproved(ctx, path, cfg, a)
		}
		return h.LoadFile(ctx, path, cfg)
	})
	for _, c := range cands {
		if c.load < 0 {
			continue
		}
		c.plugin, c.err = plugins[c.load], loadErrs[c.load]
		if c.err != nil && errors.Is(c.err, context.DeadlineExceeded) && ctx.Err() == nil {
			c.err = fmt.Errorf("%w (not tried again until the file or its sidecar changes)", c.err)
			r.nextHung[c.path] = hungModule{digest: c.digest, err: c.err}
		}
		if c.err == nil && len(c.plugin.Tools()) == 0 {
			c.err = errors.New("the module offers no tools")
		}
		if c.err != nil && c.plugin != nil {
			_ = c.plugin.Close(ctx)
			c.plugin = nil
		}
	}
}

// claimed is what claiming names decided.
type claimed struct {
	next           map[string]*folderModule // what serves after the Sync, by path
	swaps          []swap
	unregister     []string
	tookFromOthers bool
}

// claim decides, module by module in the folders' order, which version
// of each serves (its new one, else its last good one; all of its tools
// or nothing) and which names this folder gives up. The caller holds the
// host's claim lock.
func (r *syncRun) claim(cands []*candidate) claimed {
	f, ctx := r.f, r.ctx
	slices.SortFunc(cands, func(a, b *candidate) int { return f.rank(a.path).compare(f.rank(b.path)) })
	held := toolHolders(f.tk)
	names := map[string]string{} // lower-case name -> module path
	out := claimed{next: map[string]*folderModule{}}
	for _, c := range cands {
		if c.err != nil {
			r.stillFailing[c.path] = true
			r.fail(c.path, c.group, c.err)
		}
		var options []*folderModule
		if c.plugin != nil {
			options = append(options, &folderModule{plugin: c.plugin, group: c.group, approval: c.approval, digest: c.digest, stamp: c.stamp, tools: toolNames(c.plugin)})
		}
		if c.dropOld {
			r.unapproved[c.path] = true
		}
		if c.old != nil && !c.dropOld {
			options = append(options, c.old)
		}
		for _, m := range options {
			taken, err := f.checkNames(c.path, m.tools, names, held)
			if err != nil {
				if !r.stillFailing[c.path] {
					r.stillFailing[c.path] = true
					r.fail(c.path, c.group, err)
				}
				continue
			}
			for _, n := range m.tools {
				names[strings.ToLower(n)] = c.path
			}
			for _, t := range taken {
				out.tookFromOthers = true
				if !slices.Contains(m.tools, t) {
					out.unregister = append(out.unregister, t) // another folder's, in another case
				}
			}
			out.next[c.path] = m
			// Register it if it is new, or if any of its names is not
			// (or no longer) held by it.
			if m != c.old || slices.ContainsFunc(m.tools, func(n string) bool { return held.by[n] != m.plugin }) {
				out.swaps = append(out.swaps, swap{path: c.path, old: c.old, new: m})
			}
			break
		}
		if c.plugin != nil && (out.next[c.path] == nil || out.next[c.path].plugin != c.plugin) {
			_ = c.plugin.Close(ctx)
		}
	}
	for p := range f.failed {
		if !r.stillFailing[p] {
			delete(f.failed, p)
			delete(f.pending, p)
		}
	}
	// Names this folder served and serves no more, unless another folder
	// has taken them since.
	servedExact := map[string]bool{}
	for _, m := range out.next {
		for _, t := range m.tools {
			servedExact[t] = true
		}
	}
	for _, m := range f.loaded {
		for _, t := range m.tools {
			if p := held.by[t]; !servedExact[t] && p != nil && p.folder == f {
				out.unregister = append(out.unregister, t)
			}
		}
	}
	return out
}

// commit applies what claim decided to the toolkit, reports it, and
// retires what serves no more; calls caught in the swap run on the module
// that now serves their tool. The caller holds the host's claim lock.
func (r *syncRun) commit(c claimed) {
	f, ctx := r.f, r.ctx
	swaps, failedSwaps := f.apply(c.swaps, c.unregister)
	for _, fs := range failedSwaps {
		r.fail(fs.path, fs.new.group, fs.err)
		delete(c.next, fs.path)
		if fs.new.plugin != fs.oldPlugin() {
			_ = fs.new.plugin.Close(ctx)
		}
	}
	for _, s := range swaps {
		s.new.plugin.folder = f
		if s.new.plugin == s.oldPlugin() {
			continue // the same version, registering names again
		}
		kind := EventLoaded
		if s.old != nil {
			kind = EventReplaced
		}
		f.log.Info("plugin "+string(kind), "file", s.path, "group", s.new.group, "tools", s.new.tools)
		r.events = append(r.events, FolderEvent{Kind: kind, Path: s.path, Group: s.new.group, Tools: s.new.tools})
	}
	servedBy := map[string]*Plugin{}
	for _, m := range c.next {
		for _, t := range m.tools {
			servedBy[t] = m.plugin
		}
	}
	for path, m := range f.loaded {
		n, ok := c.next[path]
		switch {
		case !ok && !r.inWanted[path]:
			f.log.Info("plugin removed", "file", path, "tools", m.tools)
			r.events = append(r.events, FolderEvent{Kind: EventRemoved, Path: path, Group: m.group, Tools: m.tools})
			f.retire(m.plugin, successorOf(m, servedBy))
		case !ok && r.unapproved[path]:
			f.log.Info("plugin removed: the operator's approval of the version serving was revoked or replaced", "file", path, "tools", m.tools)
			r.events = append(r.events, FolderEvent{Kind: EventRemoved, Path: path, Group: m.group, Tools: m.tools})
			f.retire(m.plugin, successorOf(m, servedBy))
		case !ok:
			f.retire(m.plugin, successorOf(m, servedBy)) // failed: reported above
		case n.plugin != m.plugin:
			f.retire(m.plugin, n.plugin)
		}
	}
	f.loaded = c.next
}

// dropGroups removes the groups whose folder is gone.
func (r *syncRun) dropGroups() {
	f := r.f
	for name := range f.groups {
		if _, ok := r.groups[name]; !ok && !r.stillFailing[filepath.Join(f.dir, name, GroupFileName)] {
			if err := f.tk.RemoveGroup(name); err != nil {
				f.log.Warn("tool group not removed", "group", name, "err", err)
			}
			delete(f.groups, name)
		}
	}
}

// candidate is a module file found by a Sync, with what loading it gave.
type candidate struct {
	wantedModule
	old    *folderModule
	digest string
	stamp  string
	load   int // index in the Sync's loads; -1 when not loaded again
	err    error
	plugin *Plugin
	// approval is the operator's approval of the file as it is now, in
	// a folder with Approvals.
	approval *TrustedModule
	// dropOld is set when the version serving is no longer approved: it
	// may not serve on as the last good version.
	dropOld bool
}

// swap is a module whose serving version changes (or that serves names
// again).
type swap struct {
	path string
	old  *folderModule
	new  *folderModule
	err  error
}

func (s swap) oldPlugin() *Plugin {
	if s.old == nil {
		return nil
	}
	return s.old.plugin
}
