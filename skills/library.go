package skills

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/wasmtools/wasmtools/internal/watch"
)

// Broken records a skill folder whose SKILL.md could not be used.
type Broken struct {
	// Path is the SKILL.md that failed.
	Path string `json:"path"`
	// Err says why.
	Err string `json:"error"`
	// Serving is the name of the last good version kept from the same
	// folder, if any. It serves unless a skill of a later folder overrides
	// it (see Override).
	Serving string `json:"serving,omitempty"`
}

// Override records a skill that is not served because a later layer holds
// a skill of the same name: skills of a folder loaded later override those
// of folders loaded before, and in-memory skills ([Library.Add]) override
// every folder. It is not an error: it is how an operator replaces a
// shared skill with their own.
type Override struct {
	// Name is the skill's name.
	Name string `json:"name"`
	// Dir is the folder of the skill that serves; empty for an in-memory
	// skill.
	Dir string `json:"dir"`
	// Shadowed is the folder of the skill that does not serve.
	Shadowed string `json:"shadowed"`
}

// DirOptions configure loading a folder of skills.
type DirOptions struct {
	// Recursive finds SKILL.md files at any depth below the root; without
	// it only the root itself and its direct sub-folders are looked at.
	Recursive bool
	// Group is the tool group of the folder's skills that do not name one
	// in their metadata; empty means always visible.
	Group string
}

// Options configure a Library.
type Options struct {
	// Logger receives the reasons skills are skipped; nil means
	// slog.Default().
	Logger *slog.Logger
	// OnChange is called after the set of skills changed, outside any
	// lock, on the goroutine that changed it (see Subscribe).
	OnChange func()
}

// Library is the set of skills a host serves. It is safe for concurrent
// use; readers take a lock-free snapshot, so a reload never blocks a
// viewer call.
//
// The skills come in layers: one per folder (root) given to LoadDir, in
// the order each root was first loaded, and on top the in-memory skills
// of Add. When two layers hold a skill of the same name, the higher one
// serves and the other is reported by Overridden; when it goes away, the
// lower one serves again. Within one root a name must be unique: a second
// skill of the same name there is Broken, since nothing says which of the
// two the operator meant.
type Library struct {
	opts Options
	log  *slog.Logger

	mu    sync.Mutex // serialises writers
	snap  atomic.Pointer[snapshot]
	hooks []func() // run after each change, guarded by mu
}

// memoryLayer is the key of the in-memory skills in snapshot.layers; no
// root is empty after resolveRoot, so it cannot clash with a folder.
const memoryLayer = ""

type snapshot struct {
	roots  []string                    // folder layers, lowest first
	layers map[string]map[string]entry // by root (memoryLayer: Add), then by skill name
	broken map[string]Broken           // by path of SKILL.md

	// Resolved from the layers by resolve.
	skills     map[string]entry // by name: the skill that serves
	overridden []Override       // sorted by name, then nearest layer first
}

type entry struct {
	skill  Skill
	source string // root folder it was loaded from; memoryLayer for in-memory
}

// NewLibrary returns an empty library.
func NewLibrary(opts Options) *Library {
	l := &Library{opts: opts, log: cmp.Or(opts.Logger, slog.Default())}
	l.snap.Store(&snapshot{layers: map[string]map[string]entry{}, skills: map[string]entry{}, broken: map[string]Broken{}})
	return l
}

// Skills returns every skill that serves, sorted by name.
func (l *Library) Skills() []Skill {
	s := l.snap.Load()
	out := make([]Skill, 0, len(s.skills))
	for _, e := range s.skills {
		out = append(out, e.skill)
	}
	slices.SortFunc(out, func(a, b Skill) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Skill returns the skill of that name that serves.
func (l *Library) Skill(name string) (Skill, bool) {
	e, ok := l.snap.Load().skills[name]
	return e.skill, ok
}

// Broken lists the skill files that failed to load, sorted by path.
func (l *Library) Broken() []Broken {
	s := l.snap.Load()
	out := make([]Broken, 0, len(s.broken))
	for _, b := range s.broken {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b Broken) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

// Overridden lists the skills that do not serve because a later folder,
// or an in-memory skill, has a skill of the same name; sorted by name,
// and for one name from the nearest layer below the serving one down.
func (l *Library) Overridden() []Override {
	return slices.Clone(l.snap.Load().overridden)
}

// Add adds or replaces an in-memory skill (or a folder skill parsed by the
// caller). Name and description are required. In-memory skills override
// folder skills of the same name.
func (l *Library) Add(s Skill) error {
	if s.Name == "" {
		return errors.New("skill: a name is required")
	}
	if s.Description == "" {
		return fmt.Errorf("skill %q: a description is required (the model reads it to decide when to use the skill)", s.Name)
	}
	l.update(func(n *snapshot) {
		n.layer(memoryLayer)[s.Name] = entry{skill: s, source: memoryLayer}
	})
	return nil
}

// Remove removes every skill of that name, in memory and in each folder
// layer, and reports whether one was serving. A later LoadDir of a folder
// that still holds the skill brings that one back.
func (l *Library) Remove(name string) bool {
	var found bool
	l.update(func(n *snapshot) {
		_, found = n.skills[name]
		for key, layer := range n.layers {
			if _, ok := layer[name]; ok {
				delete(n.layer(key), name)
			}
		}
	})
	return found
}

// LoadDir loads the skills under root, replacing what was loaded from root
// before: skills whose folder is gone are removed, changed ones replaced.
//
// The first LoadDir of a root places it above the roots loaded before: its
// skills override theirs by name (see Overridden), and the place stays
// when the root is loaded again, so reloading an earlier root never
// displaces a later one. Two skills of one name under the same root are a
// conflict: the first in walk order (lexical) serves, the other is Broken.
//
// A SKILL.md that fails to parse is recorded as Broken and logged; if an
// earlier version from the same folder was good, that version keeps
// serving. A root that does not exist holds no skills (it keeps its
// place). A root that exists but cannot be read is recorded as Broken and
// the skills loaded from it before keep serving.
func (l *Library) LoadDir(root string, opts DirOptions) error {
	root = resolveRoot(root)
	found, scanErr := scan(root, opts.Recursive)
	if errors.Is(scanErr, fs.ErrNotExist) {
		// A deleted folder serves nothing; its skills come back with it.
		l.log.Info("skills: folder does not exist (yet)", "dir", root)
		scanErr = nil
	}
	type parsed struct {
		path  string
		skill Skill
		err   error
	}
	results := make([]parsed, 0, len(found))
	for _, path := range found {
		data, err := os.ReadFile(path)
		var s Skill
		if err == nil {
			s, err = Parse(data)
		}
		s.Dir = filepath.Dir(path)
		if s.Group == "" {
			s.Group = opts.Group
		}
		results = append(results, parsed{path, s, err})
	}
	l.update(func(n *snapshot) {
		if !slices.Contains(n.roots, root) {
			n.roots = append(n.roots, root)
		}
		prevBroken := maps.Clone(n.broken)
		// Broken records of this root are rebuilt from this scan.
		for p := range n.broken {
			if watch.Within(root, p) {
				delete(n.broken, p)
			}
		}
		if scanErr != nil {
			n.broken[root] = Broken{Path: root, Err: scanErr.Error()}
			l.log.Warn("skills: folder unreadable; skills loaded from it before keep serving", "dir", root, "err", scanErr)
			return
		}
		old := n.layers[root]
		layer := map[string]entry{}
		// Good skills claim their names first, in walk order, so that a
		// broken folder's last good version never takes a name from a
		// skill that parses now.
		var failed []parsed
		for _, r := range results {
			if r.err == nil {
				if prev, dup := layer[r.skill.Name]; dup {
					r.err = fmt.Errorf("name %q is already used by the skill in %s, in the same skills folder %s: rename one of them "+
						"(a skill of a later skills folder overrides one of an earlier folder, but one folder cannot hold two)",
						r.skill.Name, prev.skill.Dir, root)
				} else {
					layer[r.skill.Name] = entry{skill: r.skill, source: root}
					continue
				}
			}
			failed = append(failed, r)
		}
		for _, r := range failed {
			b := Broken{Path: r.path, Err: r.err.Error()}
			if last, ok := skillIn(old, r.skill.Dir); ok {
				if _, taken := layer[last.Name]; !taken {
					layer[last.Name] = entry{skill: last, source: root}
					b.Serving = last.Name
				}
			}
			n.broken[r.path] = b
			if prevBroken[r.path] == b {
				continue // already reported
			}
			if b.Serving != "" {
				l.log.Warn("skills: broken skill; the last good version keeps serving", "path", r.path, "err", r.err, "serving", b.Serving)
			} else {
				l.log.Warn("skills: skipped a broken skill", "path", r.path, "err", r.err)
			}
		}
		n.layers[root] = layer
	})
	return nil
}

// refresh records that the viewer read a newer good version of s from
// disk, so that it, and not an older one, is the last good version if the
// file breaks before the watcher reloads it.
func (l *Library) refresh(s, fresh Skill) {
	l.update(func(n *snapshot) {
		e, ok := n.skills[s.Name]
		if !ok || !sameSkill(e.skill, s) || fresh.Name != s.Name {
			return // a reload got there first: its version is newer
		}
		fresh.Dir, fresh.Group, fresh.Files = s.Dir, s.Group, s.Files
		if sameSkill(e.skill, fresh) {
			return
		}
		n.layer(e.source)[s.Name] = entry{skill: fresh, source: e.source}
	})
}

// update applies f to a copy of the snapshot, resolves the layers and
// publishes the result. The hooks run only when what the library serves
// or reports changed: an edit of an overridden skill changes nothing a
// reader sees.
func (l *Library) update(f func(*snapshot)) {
	l.mu.Lock()
	old := l.snap.Load()
	n := &snapshot{
		roots:  slices.Clone(old.roots),
		layers: maps.Clone(old.layers),
		broken: maps.Clone(old.broken),
		skills: old.skills, // read by f, replaced by resolve, never written
	}
	f(n)
	n.resolve()
	changed := !sameView(old, n)
	l.snap.Store(n)
	hooks := slices.Clone(l.hooks)
	l.mu.Unlock()
	if !changed {
		return
	}
	for _, o := range n.overridden {
		if !slices.Contains(old.overridden, o) {
			l.log.Info("skills: a later skills folder overrides a skill", "skill", o.Name, "serving", cmp.Or(o.Dir, "memory"), "shadowed", o.Shadowed)
		}
	}
	for _, h := range hooks {
		h()
	}
	if l.opts.OnChange != nil {
		l.opts.OnChange()
	}
}

// Subscribe adds f to the functions called after every change of the
// library, outside any lock, beside Options.OnChange, on the goroutine
// that changed the library (a LoadDir, Add or Remove caller, or a
// watcher's goroutine).
func (l *Library) Subscribe(f func()) {
	l.mu.Lock()
	l.hooks = append(l.hooks, f)
	l.mu.Unlock()
}

// layer returns the layer of key, copied on first write: update copies
// only the outer map, and published snapshots must never change.
func (n *snapshot) layer(key string) map[string]entry {
	m := maps.Clone(n.layers[key])
	if m == nil {
		m = map[string]entry{}
	}
	n.layers[key] = m
	return m
}

// resolve computes the serving skills and the overrides from the layers:
// lowest root first, the in-memory layer last, a higher layer's skill
// replacing a lower one's of the same name.
func (n *snapshot) resolve() {
	n.skills = map[string]entry{}
	stacks := map[string][]entry{} // by name, lowest layer first
	for _, key := range append(slices.Clone(n.roots), memoryLayer) {
		for name, e := range n.layers[key] {
			stacks[name] = append(stacks[name], e)
		}
	}
	n.overridden = nil
	for _, name := range slices.Sorted(maps.Keys(stacks)) {
		stack := stacks[name]
		top := stack[len(stack)-1]
		n.skills[name] = top
		for i := len(stack) - 2; i >= 0; i-- {
			// One folder reached through two roots (a root inside another)
			// is the same skill, not an override.
			if stack[i].skill.Dir != "" && stack[i].skill.Dir == top.skill.Dir {
				continue
			}
			n.overridden = append(n.overridden, Override{Name: name, Dir: top.skill.Dir, Shadowed: stack[i].skill.Dir})
		}
	}
}

// sameView reports whether two snapshots serve and report the same.
func sameView(a, b *snapshot) bool {
	if len(a.skills) != len(b.skills) || !maps.Equal(a.broken, b.broken) || !slices.Equal(a.overridden, b.overridden) {
		return false
	}
	for name, ea := range a.skills {
		eb, ok := b.skills[name]
		if !ok || ea.source != eb.source || !sameSkill(ea.skill, eb.skill) {
			return false
		}
	}
	return true
}

// skillIn returns the skill of layer whose folder is dir.
func skillIn(layer map[string]entry, dir string) (Skill, bool) {
	for _, e := range layer {
		if e.skill.Dir == dir {
			return e.skill, true
		}
	}
	return Skill{}, false
}

func sameSkill(a, b Skill) bool {
	return a.Name == b.Name && a.Description == b.Description && a.Body == b.Body &&
		a.License == b.License && slices.Equal(a.AllowedTools, b.AllowedTools) &&
		a.Dir == b.Dir && a.Group == b.Group && a.Activates == b.Activates &&
		fmt.Sprint(a.Metadata) == fmt.Sprint(b.Metadata)
}

// resolveRoot cleans root and, when it is a symbolic link (a dotfiles
// setup), resolves it: the walk below does not enter links, and the viewer
// refuses skill folders that are links.
func resolveRoot(root string) string {
	root = filepath.Clean(root)
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		return resolved
	}
	return root
}

// scan returns the SKILL.md files under root: root's own, then those of its
// sub-folders (direct ones only unless recursive). Hidden folders and
// symbolic links to folders are not entered.
func scan(root string, recursive bool) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", root)
	}
	var out []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil // an unreadable sub-folder hides only its own skills
		}
		if d.IsDir() {
			if path != root && (d.Name()[0] == '.' || !recursive && filepath.Dir(path) != root) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() == FileName && d.Type().IsRegular() {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}
