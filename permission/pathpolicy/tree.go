package pathpolicy

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Tree scans.

// TreeOptions say which entries a recursive reader visits.
type TreeOptions struct {
	// Hidden: entries whose name starts with a dot are visited (grep -r
	// does; rg and ag do not without --hidden).
	Hidden bool
	// FollowLinks: symbolic links below the root are followed (grep -R,
	// rg -L).
	FollowLinks bool
	// SkipVCS: .git and the other version-control folders are not visited
	// (rg, git grep).
	SkipVCS bool
	// MaxEntries bounds the scan; 0 means DefaultMaxTreeEntries. A tree
	// larger than that counts as holding something sensitive.
	MaxEntries int
	// IgnoreFiles are the ignore files the reader honours (.gitignore,
	// .ignore, .rgignore for rg). A "!" line in one whitelists what it
	// would skip, hidden files included: where the tree or a folder above
	// it has one, hidden entries count as visited.
	IgnoreFiles []string
}

// DefaultMaxTreeEntries bounds a tree scan.
const DefaultMaxTreeEntries = 20_000

// TreeSensitive reports whether a recursive reader starting at root
// (relative to cwd) would read a sensitive file, and which. The scan is
// breadth-first and bounded: a tree too large to scan, or a root that
// cannot be resolved, counts as sensitive.
func (p *Policy) TreeSensitive(root, cwd string, opts TreeOptions) (string, bool) {
	if what, ok := p.SensitivePath(root, cwd); ok {
		return what, true
	}
	if !opts.Hidden && len(opts.IgnoreFiles) > 0 {
		if real, ok := p.Resolve(root, cwd); ok && p.whitelists(real, opts) {
			opts.Hidden = true
		}
	}
	found := ""
	complete := p.Walk(root, cwd, opts, func(name, real string) bool {
		if _, ok := p.Sensitive(name); ok {
			found = name
		} else if _, ok := p.Sensitive(real); ok {
			found = name + " (" + real + ")"
		} else if c, ok := p.linkedCredential(real); ok {
			found = name + " (a hard link to " + c + ")"
		}
		return found != ""
	})
	switch {
	case found != "":
		return found, true
	case !complete:
		return root + " (too large, or not resolvable, to check every file)", true
	}
	return "", false
}

// Walk visits what a recursive reader starting at root (relative to cwd)
// would visit, breadth-first: fn gets each entry's path as reached and,
// for a followed link, what it resolves to (else the same path); fn
// returning true stops the walk. It reports whether the walk was
// complete: false when the root cannot be resolved, a followed link
// cannot, or the tree has more than opts.MaxEntries entries.
func (p *Policy) Walk(root, cwd string, opts TreeOptions, fn func(name, real string) bool) bool {
	real, ok := p.Resolve(root, cwd)
	if !ok {
		return false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return true
	}
	limit := opts.MaxEntries
	if limit <= 0 {
		limit = DefaultMaxTreeEntries
	}
	seen := map[string]bool{real: true}
	queue := []string{real}
	count := 0
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			count++
			if count > limit {
				return false
			}
			name := e.Name()
			if !opts.Hidden && strings.HasPrefix(name, ".") {
				continue
			}
			if opts.SkipVCS && isVCSDir(name) {
				continue
			}
			full := dir + "/" + name
			target, isDir := full, e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if !opts.FollowLinks {
					continue
				}
				t, ok := p.resolve(full, dir, 0)
				if !ok {
					return false
				}
				target = t
				ti, err := os.Stat(t)
				isDir = err == nil && ti.IsDir()
			}
			if fn(full, target) {
				return true
			}
			if isDir && !seen[target] {
				seen[target] = true
				queue = append(queue, target)
			}
		}
	}
	return true
}

// whitelists reports an ignore file with a "!" line in root, a folder
// above it, or a folder below it (within the scan's bound).
func (p *Policy) whitelists(root string, opts TreeOptions) bool {
	has := func(dir string) bool {
		for _, name := range opts.IgnoreFiles {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || len(data) > 1<<20 {
				continue
			}
			for _, line := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "!") {
					return true
				}
			}
		}
		return false
	}
	for dir := root; ; dir = filepath.Dir(dir) {
		if has(dir) {
			return true
		}
		if dir == "/" || dir == "." {
			break
		}
	}
	found := false
	scan := opts
	scan.Hidden = true // ignore files are themselves dot files
	p.Walk(root, "/", scan, func(name, real string) bool {
		if fi, err := os.Stat(real); err == nil && fi.IsDir() && has(real) {
			found = true
		}
		return found
	})
	return found
}

func isVCSDir(name string) bool {
	switch name {
	case ".git", ".svn", ".hg", ".bzr", ".jj", ".sl":
		return true
	}
	return false
}
