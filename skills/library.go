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
	// Serving is the name of the last good version still served from the
	// same folder, if any.
	Serving string `json:"serving,omitempty"`
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
	// lock.
	OnChange func()
}

// Library is the set of skills a host serves. It is safe for concurrent
// use; readers take a lock-free snapshot, so a reload never blocks a
// viewer call.
type Library struct {
	opts Options
	log  *slog.Logger

	mu    sync.Mutex // serialises writers
	snap  atomic.Pointer[snapshot]
	hooks []func() // run after each change, guarded by mu
}

type snapshot struct {
	skills map[string]entry  // by name
	broken map[string]Broken // by path of SKILL.md
}

type entry struct {
	skill  Skill
	source string // root folder it was loaded from; "" for in-memory
}

// NewLibrary returns an empty library.
func NewLibrary(opts Options) *Library {
	l := &Library{opts: opts, log: cmp.Or(opts.Logger, slog.Default())}
	l.snap.Store(&snapshot{skills: map[string]entry{}, broken: map[string]Broken{}})
	return l
}

// Skills returns every skill, sorted by name.
func (l *Library) Skills() []Skill {
	s := l.snap.Load()
	out := make([]Skill, 0, len(s.skills))
	for _, e := range s.skills {
		out = append(out, e.skill)
	}
	slices.SortFunc(out, func(a, b Skill) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Skill returns a skill by name.
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

// Add adds or replaces an in-memory skill (or a folder skill parsed by the
// caller). Name and description are required.
func (l *Library) Add(s Skill) error {
	if s.Name == "" {
		return errors.New("skill: a name is required")
	}
	if s.Description == "" {
		return fmt.Errorf("skill %q: a description is required (the model reads it to decide when to use the skill)", s.Name)
	}
	l.update(func(n *snapshot) bool {
		n.skills[s.Name] = entry{skill: s}
		return true
	})
	return nil
}

// Remove removes a skill by name and reports whether it existed.
func (l *Library) Remove(name string) bool {
	var found bool
	l.update(func(n *snapshot) bool {
		_, found = n.skills[name]
		delete(n.skills, name)
		return found
	})
	return found
}

// LoadDir loads the skills under root, replacing what was loaded from root
// before: skills whose folder is gone are removed, changed ones replaced.
// A SKILL.md that fails to parse is recorded as Broken and logged; if an
// earlier version from the same folder was good, that version keeps
// serving. A root that does not exist holds no skills. A root that exists
// but cannot be read is recorded as Broken and the skills loaded from it
// before keep serving.
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
	l.update(func(n *snapshot) bool {
		changed := false
		prevBroken := maps.Clone(n.broken)
		// Broken records of this root are rebuilt from this scan.
		for p := range n.broken {
			if watch.Within(root, p) {
				delete(n.broken, p)
				changed = true
			}
		}
		if scanErr != nil {
			n.broken[root] = Broken{Path: root, Err: scanErr.Error()}
			l.log.Warn("skills: folder unreadable; skills loaded from it before keep serving", "dir", root, "err", scanErr)
			return true
		}
		seen := map[string]bool{}    // folders with a SKILL.md in this scan
		named := map[string]string{} // skill name -> folder, in this scan
		for _, r := range results {
			seen[r.skill.Dir] = true
			if r.err == nil {
				if dir, dup := named[r.skill.Name]; dup {
					r.err = fmt.Errorf("name %q is already used by the skill in %s", r.skill.Name, dir)
				} else if other, dup := n.skills[r.skill.Name]; dup && other.skill.Dir != r.skill.Dir && other.source != root {
					r.err = fmt.Errorf("name %q is already used by the skill in %s", r.skill.Name, cmp.Or(other.skill.Dir, "memory"))
				} else {
					named[r.skill.Name] = r.skill.Dir
				}
			}
			if r.err != nil {
				b := Broken{Path: r.path, Err: r.err.Error()}
				if old, ok := skillIn(n, r.skill.Dir); ok {
					b.Serving = old.Name
				}
				n.broken[r.path] = b
				if prevBroken[r.path] == b {
					continue // already reported
				}
				changed = true
				if b.Serving != "" {
					l.log.Warn("skills: broken skill; the last good version keeps serving", "path", r.path, "err", r.err, "serving", b.Serving)
				} else {
					l.log.Warn("skills: skipped a broken skill", "path", r.path, "err", r.err)
				}
				continue
			}
			// A folder whose skill was renamed drops its old name.
			if old, ok := skillIn(n, r.skill.Dir); ok && old.Name != r.skill.Name {
				delete(n.skills, old.Name)
			}
			prev, had := n.skills[r.skill.Name]
			if !had || !sameSkill(prev.skill, r.skill) {
				changed = true
			}
			n.skills[r.skill.Name] = entry{skill: r.skill, source: root}
		}
		for name, e := range n.skills {
			if e.source == root && !seen[e.skill.Dir] {
				delete(n.skills, name)
				changed = true
			}
		}
		return changed
	})
	return nil
}

// refresh records that the viewer read a newer good version of s from
// disk, so that it, and not an older one, is the last good version if the
// file breaks before the watcher reloads it.
func (l *Library) refresh(s, fresh Skill) {
	l.update(func(n *snapshot) bool {
		e, ok := n.skills[s.Name]
		if !ok || !sameSkill(e.skill, s) || fresh.Name != s.Name {
			return false // a reload got there first: its version is newer
		}
		fresh.Dir, fresh.Group, fresh.Files = s.Dir, s.Group, s.Files
		if sameSkill(e.skill, fresh) {
			return false
		}
		n.skills[s.Name] = entry{skill: fresh, source: e.source}
		return true
	})
}

// update applies f to a copy of the snapshot and publishes it when f
// reports a change.
func (l *Library) update(f func(*snapshot) bool) {
	l.mu.Lock()
	old := l.snap.Load()
	n := &snapshot{skills: make(map[string]entry, len(old.skills)), broken: make(map[string]Broken, len(old.broken))}
	for k, v := range old.skills {
		n.skills[k] = v
	}
	for k, v := range old.broken {
		n.broken[k] = v
	}
	changed := f(n)
	if changed {
		l.snap.Store(n)
	}
	hooks := slices.Clone(l.hooks)
	l.mu.Unlock()
	if !changed {
		return
	}
	for _, h := range hooks {
		h()
	}
	if l.opts.OnChange != nil {
		l.opts.OnChange()
	}
}

// Subscribe adds f to the functions called after every change of the
// library, outside any lock, beside Options.OnChange.
func (l *Library) Subscribe(f func()) {
	l.mu.Lock()
	l.hooks = append(l.hooks, f)
	l.mu.Unlock()
}

func skillIn(n *snapshot, dir string) (Skill, bool) {
	for _, e := range n.skills {
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
