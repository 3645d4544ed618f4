package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/permission/pathpolicy"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin/internal/search"
)

// DefaultGlobLimit is how many files Glob lists at most when its options
// do not say.
const DefaultGlobLimit = 100

// GlobOptions configure the Glob tool.
type GlobOptions struct {
	// Home is the directory ~ stands for in Read rules; empty means the
	// current user's.
	Home string
	// Cwd is the directory searched when the call gives no path, and
	// against which a relative path is resolved; empty means the call's
	// permission context directory (its Cwd, else its first working
	// directory).
	Cwd string
	// Backend lists the files; nil means a LocalBackend.
	Backend Backend
	// MaxResults caps the files listed; 0 means DefaultGlobLimit.
	MaxResults int
}

// Glob finds files by name pattern: doublestar globs (** crosses
// directories), dotfiles included, newest first.
type Glob struct {
	opts    GlobOptions
	backend Backend
	paths   *pathpolicy.Policy
}

// NewGlob returns the Glob tool.
func NewGlob(opts GlobOptions) *Glob {
	g := &Glob{opts: opts, backend: opts.Backend, paths: pathpolicy.New(pathpolicy.Options{Home: opts.Home})}
	if g.backend == nil {
		g.backend = &LocalBackend{}
	}
	if g.opts.MaxResults <= 0 {
		g.opts.MaxResults = DefaultGlobLimit
	}
	return g
}

var globSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "The glob to match file paths against, relative to the search directory, e.g. \"**/*.go\", \"src/**/*.{ts,tsx}\", \"*.md\". ** matches any number of directories; * and ? stay within one; dotfiles are matched too."},
    "path": {"type": "string", "description": "The directory to search, absolute or relative to the working directory. Omit it to search the working directory."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

// Spec implements toolkit.Tool.
func (g *Glob) Spec() toolkit.Spec {
	return toolkit.Spec{
		Name: "Glob",
		Description: "Finds files whose path matches a glob pattern (e.g. \"**/*.go\", \"src/**/*.{ts,tsx}\") " +
			"and lists their absolute paths, most recently modified first. " +
			fmt.Sprintf("At most %d files are listed; narrow the pattern or path when there are more. ", g.opts.MaxResults) +
			"Use it to find files by name; use Grep to search their contents.",
		InputSchema:     globSchema,
		ConcurrencySafe: true,
		ReadOnly:        true,
		Source:          toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

// IsReadOnly implements toolkit.ReadOnlyChecker.
func (g *Glob) IsReadOnly(in toolkit.Input) bool { return g.IsReadOnlyIn(in, nil) }

// IsReadOnlyIn implements toolkit.ContextReadOnlyChecker: listing files
// changes nothing; listing a sensitive folder (~/.ssh, by name or through
// a link) is not automatic, as `ls ~/.ssh` is not for Bash.
func (g *Glob) IsReadOnlyIn(in toolkit.Input, pc *permission.Context) bool {
	_, sensitive := g.sensitiveBase(in, pc)
	return !sensitive
}

// base is the folder a call lists: its path, with the literal leading
// folders of its pattern.
func (g *Glob) base(in toolkit.Input, pc *permission.Context) (string, error) {
	pattern := filepath.ToSlash(in.String("pattern"))
	dir := "/"
	if !filepath.IsAbs(pattern) {
		var err error
		if dir, err = searchResolvePath(withPermission(pc), g.opts.Cwd, in.String("path")); err != nil {
			return "", err
		}
	}
	base, _ := doublestar.SplitPattern(strings.TrimPrefix(pattern, "/"))
	if base == "." || base == "" {
		return dir, nil
	}
	return filepath.Join(dir, filepath.FromSlash(base)), nil
}

func (g *Glob) sensitiveBase(in toolkit.Input, pc *permission.Context) (string, bool) {
	b, err := g.base(in, pc)
	if err != nil {
		return "", false
	}
	return g.paths.SensitivePath(b, "/")
}

// CheckPermissions implements toolkit.Tool: listing a sensitive folder
// asks (plain); any other listing is allowed.
func (g *Glob) CheckPermissions(_ context.Context, in toolkit.Input, pc *permission.Context) (permission.Decision, error) {
	if what, ok := g.sensitiveBase(in, pc); ok {
		return permission.AskDecision(fmt.Sprintf("Glob would list the sensitive folder %s.", what), "sensitive path "+what), nil
	}
	return permission.AllowDecision("read-only file listing"), nil
}

// MatchForeignRule implements toolkit.ForeignRuleMatcher: a Read rule hits
// a Glob whose folder it names; files it names below are left out of the
// results.
func (g *Glob) MatchForeignRule(rule permission.Rule, in toolkit.Input, pc *permission.Context) permission.Match {
	b, err := g.base(in, pc)
	if err != nil {
		return permission.NoMatch
	}
	return matchReadRule(g.paths, rule, b, pc)
}

// Call implements toolkit.Caller.
func (g *Glob) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		chunk, err := g.run(ctx, in)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(chunk, nil)
	}
}

// globMatch is one file found, with the time Glob sorts by.
type globMatch struct {
	path    string
	modTime time.Time
}

func (g *Glob) run(ctx context.Context, in toolkit.Input) (*toolkit.Chunk, error) {
	pattern := in.String("pattern")
	if strings.TrimSpace(pattern) == "" {
		return nil, errors.New("the pattern is empty: give a glob such as \"**/*.go\"")
	}
	if !doublestar.ValidatePattern(filepath.ToSlash(pattern)) {
		return nil, fmt.Errorf("the pattern %q is not a valid glob: check its brackets [] and braces {}", pattern)
	}
	// An absolute pattern names its own directory; a relative one is
	// relative to the search directory.
	pat := filepath.ToSlash(pattern)
	dir := string(filepath.Separator)
	if filepath.IsAbs(pattern) {
		pat = strings.TrimPrefix(pat, "/")
	} else {
		var err error
		if dir, err = g.searchDir(ctx, in.String("path")); err != nil {
			return nil, err
		}
		for strings.HasPrefix(pat, "./") {
			pat = pat[2:]
		}
	}

	found, err := g.find(ctx, dir, pat)
	if err != nil {
		return nil, err
	}
	var pc *permission.Context
	if rt := toolkit.RuntimeFrom(ctx); rt != nil {
		pc = rt.Permission
	}
	kept, dropped := found[:0], 0
	for _, m := range found {
		// Names of files a Read rule covers are left out. (Names of
		// sensitive files are listed, as find -name lists them; their
		// contents are what Read and Grep guard.)
		if readRuleCovers(g.paths, m.path, pc) {
			dropped++
			continue
		}
		kept = append(kept, m)
	}
	found = kept
	total := len(found)
	// Newest first, ties in path order. Only the first MaxResults are
	// listed, so only they are put in order.
	found = globNewest(found, g.opts.MaxResults)
	meta := map[string]any{"num_files": total, "truncated": total > g.opts.MaxResults}
	note := ""
	if dropped > 0 {
		meta["withheld"] = dropped
		note = fmt.Sprintf("\n[%d file%s not listed: covered by a Read rule]", dropped, grepPlural(dropped))
	}
	if len(found) == 0 {
		return &toolkit.Chunk{Content: []toolkit.Block{toolkit.TextBlock("No files found" + note)}, State: toolkit.StateSuccess, Last: true, Metadata: meta}, nil
	}
	var b strings.Builder
	for _, m := range found {
		b.WriteString(m.path)
		b.WriteByte('\n')
	}
	if more := total - len(found); more > 0 {
		fmt.Fprintf(&b, "(Results are truncated: %d more file%s not shown. Use a more specific pattern or path.)\n",
			more, grepPlural(more))
	}
	return &toolkit.Chunk{
		Content: []toolkit.Block{toolkit.TextBlock(strings.TrimSuffix(b.String(), "\n") + note)},
		State:   toolkit.StateSuccess, Last: true, Metadata: meta,
	}, nil
}

// searchDir resolves and checks the path argument.
func (g *Glob) searchDir(ctx context.Context, p string) (string, error) {
	dir, err := searchResolvePath(ctx, g.opts.Cwd, p)
	if err != nil {
		return "", err
	}
	fi, err := Stat(ctx, g.backend, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("the directory %s does not exist: give an existing directory as path, or omit path to search %s", dir, searchCwd(ctx, g.opts.Cwd))
	case err != nil:
		return "", fmt.Errorf("cannot search %s: %v", dir, err)
	case !fi.IsDir():
		return "", fmt.Errorf("the path %s is a file, not a directory: give the directory to search in path and the file name in pattern", dir)
	}
	return dir, nil
}

// find walks dir and returns the files whose slash-separated path
// relative to dir matches pat. The walk starts at the pattern's literal
// leading directories and, for patterns without **, stops at the
// pattern's depth, so "src/*.go" never walks the whole tree.
func (g *Glob) find(ctx context.Context, dir, pat string) ([]globMatch, error) {
	base, _ := doublestar.SplitPattern(pat)
	start := dir
	if base != "." && base != "" {
		start = filepath.Join(dir, filepath.FromSlash(base))
	}
	startInfo, err := Stat(ctx, g.backend, start)
	if err != nil {
		return nil, nil // the literal part names nothing: no file can match
	}
	if _, local := g.backend.(*LocalBackend); local && startInfo.IsDir() {
		return g.findLocal(ctx, dir, start, newGlobPlan(pat))
	}
	// Components of a pattern with neither ** nor braces can be matched
	// one by one against directories, to prune the walk.
	var comps []string
	if !strings.Contains(pat, "**") && !strings.ContainsAny(pat, "{}") {
		comps = strings.Split(pat, "/")
	}
	walkRoot := start
	if !strings.HasSuffix(walkRoot, string(filepath.Separator)) {
		walkRoot += string(filepath.Separator) // enter a linked directory
	}
	var found []globMatch
	err = Walk(ctx, g.backend, walkRoot, func(fi FileInfo) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := filepath.Clean(fi.Path)
		rel := search.RelSlash(dir, p)
		if p == filepath.Clean(start) {
			if !fi.IsDir() && matchGlob(pat, rel) {
				found = append(found, globMatch{path: p, modTime: fi.ModTime})
			}
			return nil
		}
		name := filepath.Base(p)
		if fi.IsDir() {
			// VCS internals are noise unless the pattern asks for them.
			if search.IsVCSDir(name) && !slices.Contains(strings.Split(pat, "/"), name) {
				return fs.SkipDir
			}
			if comps != nil && !dirCanMatch(comps, rel) {
				return fs.SkipDir
			}
			return nil
		}
		if !matchGlob(pat, rel) {
			return nil
		}
		if fi.Mode&fs.ModeSymlink != 0 {
			// A link to a file is listed (with its target's time); a
			// link to a directory or nowhere is not.
			target, err := Stat(ctx, g.backend, p)
			if err != nil || target.IsDir() {
				return nil
			}
			fi = target
		}
		found = append(found, globMatch{path: p, modTime: fi.ModTime})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// globBefore orders matches newest first, ties in path order.
func globBefore(a, b *globMatch) bool {
	if c := a.modTime.Compare(b.modTime); c != 0 {
		return c > 0
	}
	return search.PathLess(a.path, b.path)
}

// globNewest returns the first k matches in globBefore order, in that
// order, reusing found's storage. With far more matches than k (a ** over
// a large tree), a bounded heap picks them in about one comparison per
// match, where sorting them all cost more than the walk's stats.
func globNewest(found []globMatch, k int) []globMatch {
	if len(found) <= k || k <= 0 {
		slices.SortFunc(found, func(a, b globMatch) int {
			if globBefore(&a, &b) {
				return -1
			}
			if globBefore(&b, &a) {
				return 1
			}
			return 0
		})
		return found
	}
	// found[:k] is a heap whose root is the match that sorts last among
	// them; a later match that sorts before the root replaces it.
	h := found[:k]
	less := func(i, j int) bool { return globBefore(&h[j], &h[i]) } // i sorts after j
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= k {
				return
			}
			c := l
			if r := l + 1; r < k && less(r, l) {
				c = r
			}
			if !less(c, i) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for i := k; i < len(found); i++ {
		if globBefore(&found[i], &h[0]) {
			h[0] = found[i]
			down(0)
		}
	}
	return globNewest(h, k) // k matches: sorted above
}

func matchGlob(pat, rel string) bool {
	ok, _ := doublestar.Match(pat, rel)
	return ok
}

// dirCanMatch reports whether files under the directory rel can match a
// pattern given as components without **: rel must be shallower than the
// pattern and match its leading components.
func dirCanMatch(comps []string, rel string) bool {
	parts := strings.Split(rel, "/")
	if len(parts) >= len(comps) {
		return false
	}
	for i, part := range parts {
		if ok, _ := doublestar.Match(comps[i], part); !ok {
			return false
		}
	}
	return true
}
