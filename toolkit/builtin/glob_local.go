package builtin

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/wasmtools/wasmtools/toolkit/builtin/internal/search"
)

// The local fast path of Glob. Walking through LocalBackend.Walk costs an
// lstat for every entry of the tree and visits it on one thread; on the
// local disk Glob reads directories itself instead: the entry types come
// with the directory listing, only matches are stat'ed (for the time
// Glob sorts by), and directories are read by several goroutines. It
// keeps what find does: the same files (VCS folders skipped unless the
// pattern names them, links to files listed with their target's time,
// links to directories neither listed nor followed, unreadable folders
// below the root skipped) and the same pruning of patterns without **.

// globPlan is a pattern prepared for the walk.
type globPlan struct {
	pat string
	// comps are the pattern's components when it has neither ** nor
	// braces, for pruning directories; nil otherwise.
	comps []string
	// patParts are the pattern's components, to tell which VCS folders
	// it names.
	patParts []string
	// nameOnly is set when the pattern is <literal dirs>/**/<name
	// glob>: under the walk's start, a file matches exactly when its name
	// matches name, so the relative path need not be built.
	nameOnly bool
	name     string
	// isSuffix is set when name is * followed by a plain literal,
	// suffix: a suffix test then does the matching.
	isSuffix bool
	suffix   string
}

func newGlobPlan(pat string) *globPlan {
	p := &globPlan{pat: pat, patParts: strings.Split(pat, "/")}
	if !strings.Contains(pat, "**") && !strings.ContainsAny(pat, "{}") {
		p.comps = p.patParts
	}
	// The walk starts at base, so every entry's relative path is
	// base/…, and base/**/name matches it exactly when its last
	// component matches name. For that to hold, base must be the very
	// prefix of those paths (clean, no escapes, not climbing out with
	// ..: the relative paths are then not base/… and match nothing) and
	// name must stay within one component.
	base, rest := doublestar.SplitPattern(pat)
	cleanBase := base == "." || path.Clean(base) == base && !path.IsAbs(base) &&
		!slices.Contains(strings.Split(base, "/"), "..") && !strings.Contains(base, "\\")
	name, ok := strings.CutPrefix(rest, "**/")
	if ok && cleanBase && name != "" && !strings.ContainsAny(name, "/\\") && !strings.Contains(name, "**") {
		p.nameOnly, p.name = true, name
		if lit, ok := strings.CutPrefix(name, "*"); ok && !strings.ContainsAny(lit, "*?[]{}\\") {
			p.isSuffix, p.suffix = true, lit
		}
	}
	return p
}

// matchFile reports whether a file named name, at rel (built by relOf
// only when needed), matches.
func (p *globPlan) matchFile(name string, relOf func() string) bool {
	switch {
	case p.isSuffix:
		return strings.HasSuffix(name, p.suffix)
	case p.nameOnly:
		ok, _ := doublestar.Match(p.name, name)
		return ok
	}
	return matchGlob(p.pat, relOf())
}

// enterDir reports whether the walk goes into the directory name at rel.
func (p *globPlan) enterDir(name, rel string) bool {
	// VCS internals are noise unless the pattern asks for them.
	if search.IsVCSDir(name) && !slices.Contains(p.patParts, name) {
		return false
	}
	return p.comps == nil || dirCanMatch(p.comps, rel)
}

// globDir is a directory waiting to be read.
type globDir struct {
	path, rel string
}

// findLocal is find for a LocalBackend: start is an existing directory
// (links followed) under dir, or dir itself.
func (g *Glob) findLocal(ctx context.Context, dir, start string, plan *globPlan) ([]globMatch, error) {
	workers := max(2, runtime.GOMAXPROCS(0))
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		queue   []globDir
		busy    int // directories being read
		results = make([][]globMatch, workers)
		done    bool
	)
	// visit reads one directory and handles its entries: matches are
	// added to found, the subdirectories to enter returned. Entries read
	// before an error are still handled, as filepath.WalkDir does.
	visit := func(d globDir, found []globMatch) ([]globMatch, []globDir, error) {
		f, err := os.Open(d.path)
		if err != nil {
			return found, nil, err
		}
		defer f.Close()
		entries, readErr := f.ReadDir(-1) // unsorted: the matches are sorted anyway
		var sub []globDir
		for _, e := range entries {
			name := e.Name()
			typ := e.Type()
			if typ.IsDir() {
				rel := joinRel(d.rel, name)
				if plan.enterDir(name, rel) {
					sub = append(sub, globDir{path: joinPath(d.path, name), rel: rel})
				}
				continue
			}
			if !plan.matchFile(name, func() string { return joinRel(d.rel, name) }) {
				continue
			}
			// Only matches are stat'ed, for the time Glob sorts by. A link
			// to a file is listed with its target's time; a link to a
			// directory or nowhere is not.
			p := joinPath(d.path, name)
			if typ&fs.ModeSymlink != 0 {
				fi, err := os.Stat(p)
				if err != nil || fi.IsDir() {
					continue
				}
				found = append(found, globMatch{path: p, modTime: fi.ModTime()})
				continue
			}
			mt, err := lstatTimeAt(f, e)
			if err != nil {
				continue // removed since the listing
			}
			found = append(found, globMatch{path: p, modTime: mt})
		}
		return found, sub, readErr
	}
	rootRel := ""
	if filepath.Clean(start) != filepath.Clean(dir) {
		rootRel = filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(start, dir), string(filepath.Separator)))
	}
	// Reading the root must work, as with Walk; below it, what cannot be
	// read is skipped.
	var sub []globDir
	var err error
	if results[0], sub, err = visit(globDir{path: start, rel: rootRel}, nil); err != nil {
		return nil, err
	}
	queue = append(queue, sub...)

	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				for len(queue) == 0 && !done {
					if busy == 0 {
						done = true
						cond.Broadcast()
						break
					}
					cond.Wait()
				}
				if done {
					mu.Unlock()
					return
				}
				// Depth first (the newest directory), so the queue stays
				// short.
				d := queue[len(queue)-1]
				queue = queue[:len(queue)-1]
				busy++
				mu.Unlock()

				var sub []globDir
				if ctx.Err() == nil {
					results[w], sub, _ = visit(d, results[w])
				}

				mu.Lock()
				busy--
				queue = append(queue, sub...)
				if len(sub) > 0 || busy == 0 {
					cond.Broadcast()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := 0
	for _, r := range results {
		n += len(r)
	}
	found := make([]globMatch, 0, n)
	for _, r := range results {
		found = append(found, r...)
	}
	return found, nil
}

func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}
