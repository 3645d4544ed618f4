package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/permission/pathpolicy"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin/internal/search"
)

// DefaultGrepHeadLimit is how many output entries (lines or files) Grep
// returns when the call does not say.
const DefaultGrepHeadLimit = 250

// The Grep engines, for GrepOptions.Engine.
const (
	// EngineAuto uses ripgrep when the backend is a LocalBackend and rg is
	// installed, and the pure-Go engine otherwise.
	EngineAuto = "auto"
	// EngineGo is the pure-Go engine; it works on every backend.
	EngineGo = "go"
	// EngineRg is ripgrep (`rg --json`); it needs a LocalBackend and rg.
	EngineRg = "rg"
)

// GrepOptions configure the Grep tool.
type GrepOptions struct {
	// Home is the directory ~ stands for in Read rules; empty means the
	// current user's.
	Home string
	// Cwd is the directory relative paths are resolved against; empty
	// means the call's permission context directory (its Cwd, else its
	// first working directory).
	Cwd string
	// Backend reads the files; nil means a LocalBackend.
	Backend Backend
	// Engine picks the search engine: EngineAuto (also for ""), EngineGo
	// or EngineRg. Both engines give the same results, in the same order
	// (rg is faster on large trees), but for content cut at the call's
	// head_limit without sort "path": rg then gives the first lines its
	// threads find, the pure-Go engine the first in path order.
	Engine string
	// RgPath is the rg executable; empty means "rg" looked up in PATH.
	RgPath string
	// LookPath finds rg (RgPath, or "rg"); nil means exec.LookPath.
	LookPath func(name string) (string, error)
	// Env makes rg's environment from the host's; nil means the host's.
	Env func(environ []string) []string
	// Workers bounds the pure-Go engine's parallel file reads; 0 means
	// GOMAXPROCS (at least 2).
	Workers int
}

// Grep searches file contents with a regular expression, like ripgrep:
// .gitignore honoured, hidden files searched, VCS folders and binary files
// skipped.
// MaxGrepColumns is the longest line, in characters, Grep shows in full;
// longer lines are cut with a note saying how much was left out.
const MaxGrepColumns = search.MaxColumns

type Grep struct {
	opts    GrepOptions
	backend Backend
	paths   *pathpolicy.Policy
	// rg is rg found and its environment made, once per tool.
	rg func() (search.RgEngine, error)
}

// NewGrep returns the Grep tool.
func NewGrep(opts GrepOptions) *Grep {
	g := &Grep{opts: opts, backend: opts.Backend, paths: pathpolicy.New(pathpolicy.Options{Home: opts.Home})}
	g.rg = sync.OnceValues(g.findRg)
	if g.backend == nil {
		g.backend = &LocalBackend{}
	}
	return g
}

var grepSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "The regular expression to search for (RE2/ripgrep syntax, e.g. \"log.*Error\", \"func\\s+\\w+\"). Escape literal braces and parentheses: \"interface\\{\\}\"."},
    "path": {"type": "string", "description": "File or directory to search, absolute or relative to the working directory. Defaults to the working directory."},
    "glob": {"type": "string", "description": "Only search files matching this glob, e.g. \"*.go\" or \"**/*.{ts,tsx}\"; several globs may be separated by spaces, and \"!\" excludes. As with rg --glob, a matching glob overrides .gitignore and the type filter."},
    "type": {"type": "string", "description": "Only search files of this type, e.g. \"go\", \"py\", \"js\", \"ts\", \"rust\", \"java\", \"md\" (ripgrep's type names)."},
    "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"], "description": "\"files_with_matches\" (default) lists matching files, newest first; \"content\" shows matching lines (with -n, -A, -B, -C); \"count\" shows the number of matching lines per file."},
    "-i": {"type": "boolean", "description": "Case-insensitive search."},
    "-n": {"type": "boolean", "description": "Show line numbers (content mode). Default true."},
    "-A": {"type": "integer", "minimum": 0, "description": "Lines of context after each match (content mode)."},
    "-B": {"type": "integer", "minimum": 0, "description": "Lines of context before each match (content mode)."},
    "-C": {"type": "integer", "minimum": 0, "description": "Lines of context before and after each match (content mode)."},
    "multiline": {"type": "boolean", "description": "Let the pattern span lines: . matches a newline and \\n may be used. Default false."},
    "head_limit": {"type": "integer", "minimum": 0, "description": "Return at most this many output entries (lines in content mode, files otherwise). Default 250; 0 means no limit."},
    "offset": {"type": "integer", "minimum": 0, "description": "Skip this many output entries first, to page through long results. Default 0."},
    "sort": {"type": "string", "enum": ["found", "path"], "description": "Order of content lines when the search stops at head_limit: \"found\" (default), the fastest, as ripgrep finds them on every core, which may change from call to call; \"path\", by file path, stable from call to call, for paging with offset. Complete results are always in path order."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

// Spec implements toolkit.Tool.
func (g *Grep) Spec() toolkit.Spec {
	return toolkit.Spec{
		Name: "Grep",
		Description: "Searches file contents with a regular expression (ripgrep semantics). " +
			"Respects .gitignore, searches hidden files, skips VCS folders and binary files. " +
			"Output modes: files_with_matches (default, newest first), content (matching lines as path:line:text), " +
			"count. Filter with glob or type; page with head_limit and offset (content cut at head_limit comes in the order found, " +
			"fastest; sort \"path\" makes pages stable). Paths in the output are absolute. " +
			"Use this tool instead of grep or rg in Bash.",
		InputSchema:     grepSchema,
		ConcurrencySafe: true,
		ReadOnly:        true,
		Source:          toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

// IsReadOnly implements toolkit.ReadOnlyChecker.
func (g *Grep) IsReadOnly(in toolkit.Input) bool { return g.IsReadOnlyIn(in, nil) }

// IsReadOnlyIn implements toolkit.ContextReadOnlyChecker: a search changes
// nothing; one whose path is itself sensitive (by name or through a link)
// is not automatic. Sensitive files found below a searched folder are
// left out of the results.
func (g *Grep) IsReadOnlyIn(in toolkit.Input, pc *permission.Context) bool {
	_, sensitive := g.sensitiveTarget(in, pc)
	return !sensitive
}

func (g *Grep) sensitiveTarget(in toolkit.Input, pc *permission.Context) (string, bool) {
	p, err := searchResolvePath(withPermission(pc), g.opts.Cwd, in.String("path"))
	if err != nil {
		return "", false
	}
	return g.paths.SensitivePath(p, "/")
}

// CheckPermissions implements toolkit.Tool: a search of a sensitive path
// asks (plain); any other search is allowed.
func (g *Grep) CheckPermissions(_ context.Context, in toolkit.Input, pc *permission.Context) (permission.Decision, error) {
	if what, ok := g.sensitiveTarget(in, pc); ok {
		return permission.AskDecision(fmt.Sprintf("Grep would search the sensitive path %s.", what), "sensitive path "+what), nil
	}
	return permission.AllowDecision("read-only search"), nil
}

// grepInput is Grep's input as the model sends it.
type grepInput struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	Type       string `json:"type"`
	OutputMode string `json:"output_mode"`
	IgnoreCase bool   `json:"-i"`
	LineNums   *bool  `json:"-n"`
	After      *int   `json:"-A"`
	Before     *int   `json:"-B"`
	Context    *int   `json:"-C"`
	Multiline  bool   `json:"multiline"`
	HeadLimit  *int   `json:"head_limit"`
	Offset     int    `json:"offset"`
	Sort       string `json:"sort"`
}

// Call implements toolkit.Caller.
func (g *Grep) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		chunk, err := g.run(ctx, in)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(chunk, nil)
	}
}

func (g *Grep) run(ctx context.Context, in toolkit.Input) (*toolkit.Chunk, error) {
	var args grepInput
	if err := in.Decode(&args); err != nil {
		return nil, fmt.Errorf("the arguments do not fit Grep's input: %v", err)
	}
	q, err := buildGrepQuery(&args)
	if err != nil {
		return nil, err
	}
	target, err := g.target(ctx, args.Path)
	if err != nil {
		return nil, err
	}
	engineName, engine, err := g.engine()
	if err != nil {
		return nil, err
	}
	limit := DefaultGrepHeadLimit
	if args.HeadLimit != nil {
		limit = *args.HeadLimit
	}
	c := &grepCollector{q: q, lineNums: args.LineNums == nil || *args.LineNums, paths: g.paths, pc: permissionFrom(ctx)}
	if q.Mode == search.ModeContent && limit > 0 && !target.IsFile {
		// Content entries are lines (in path order, or in the order the
		// search finds them), so the call shows the first offset+limit
		// of them and needs one more only to know that there are more.
		// (files_with_matches lists files newest first and count totals
		// every file: both need every result. A single file is read
		// whole anyway, so its total stays exact.)
		c.stopAfter = args.Offset + limit
	}
	rg, _ := engine.(*search.RgEngine)
	switch {
	case target.IsFile && g.binaryFile(ctx, target.Root):
		// an explicitly named binary file is skipped too
	case c.stopAfter > 0 && rg != nil && args.Sort == grepSortPath:
		// rg reports files in path order and is stopped (killed) as
		// soon as the collector has enough lines.
		_, err = rg.Stream(ctx, q, target, c.add)
		if errors.Is(err, search.ErrUnordered) {
			c.reset()
			err = g.collectAll(ctx, engine, q, target, c)
		}
	case c.stopAfter > 0 && rg != nil:
		// rg searches on every core and is stopped (killed) as soon as
		// the collector has enough lines, which are then in the order
		// rg found them (the note says so). When every result came,
		// they are shown in path order, as the other ways show them.
		var found []search.FileResult
		_, err = rg.StreamFound(ctx, q, target, func(f search.FileResult) bool {
			found = append(found, f)
			return c.add(f)
		})
		if err == nil && !c.stopped {
			c.reset()
			c.addInPathOrder(found)
		}
		c.foundOrder = c.stopped
	default:
		err = g.collectAll(ctx, engine, q, target, c)
	}
	if err != nil {
		return nil, err
	}
	text, meta := formatGrep(c, limit, args.Offset)
	meta["engine"] = engineName
	if c.dropped > 0 {
		meta["withheld"] = c.dropped
		text += withheldNote(c.dropped)
	}
	return &toolkit.Chunk{Content: []toolkit.Block{toolkit.TextBlock(text)}, State: toolkit.StateSuccess, Last: true, Metadata: meta}, nil
}

// grepEngine is a Grep engine: search.GoEngine or search.RgEngine.
type grepEngine interface {
	Search(ctx context.Context, q *search.Query, t search.Target) ([]search.FileResult, error)
}

// collectAll runs the engine to the end, puts its results in output
// order and hands them to c, which may stop early (content mode) exactly
// where a streamed rg search would: both engines give the same answer.
func (g *Grep) collectAll(ctx context.Context, engine grepEngine, q *search.Query, t search.Target, c *grepCollector) error {
	found, err := engine.Search(ctx, q, t)
	if err != nil {
		return err
	}
	if q.Mode == search.ModeFiles {
		// Withheld files are dropped before their times are read; c
		// would drop them anyway.
		var dropped int
		found, dropped = withoutWithheld(ctx, g.paths, found)
		c.dropped += dropped
		g.fillModTimes(ctx, found)
		slices.SortFunc(found, func(a, b search.FileResult) int {
			if c := b.ModTime.Compare(a.ModTime); c != 0 {
				return c
			}
			return searchComparePaths(a.Path, b.Path)
		})
		c.addAll(found)
		return nil
	}
	c.addInPathOrder(found)
	return nil
}

// addInPathOrder sorts results by path and hands them to c.
func (c *grepCollector) addInPathOrder(found []search.FileResult) {
	slices.SortFunc(found, func(a, b search.FileResult) int { return searchComparePaths(a.Path, b.Path) })
	c.addAll(found)
}

// addAll hands results to c, in their order, until it has enough.
func (c *grepCollector) addAll(found []search.FileResult) {
	for _, f := range found {
		if !c.add(f) {
			return
		}
	}
}

// buildGrepQuery checks and normalises the input.
func buildGrepQuery(a *grepInput) (*search.Query, error) {
	if a.Pattern == "" {
		return nil, errors.New("the pattern is empty: give a regular expression to search for")
	}
	q := &search.Query{Pattern: a.Pattern, IgnoreCase: a.IgnoreCase, Multiline: a.Multiline, Mode: a.OutputMode}
	switch q.Mode {
	case "":
		q.Mode = search.ModeFiles
	case search.ModeFiles, search.ModeContent, search.ModeCount:
	default:
		return nil, fmt.Errorf("unknown output_mode %q: use files_with_matches, content or count", a.OutputMode)
	}
	if a.HeadLimit != nil && *a.HeadLimit < 0 || a.Offset < 0 {
		return nil, errors.New("head_limit and offset must not be negative")
	}
	switch a.Sort {
	case "", grepSortFound, grepSortPath:
	default:
		return nil, fmt.Errorf("unknown sort %q: use found (the fastest) or path (stable pages)", a.Sort)
	}
	if q.Mode == search.ModeContent {
		for _, n := range []*int{a.Before, a.After, a.Context} {
			if n != nil && *n < 0 {
				return nil, errors.New("-A, -B and -C must not be negative")
			}
		}
		if a.Context != nil {
			q.Before, q.After = *a.Context, *a.Context
		}
		if a.Before != nil {
			q.Before = *a.Before
		}
		if a.After != nil {
			q.After = *a.After
		}
	}
	q.Globs = search.SplitGlobs(a.Glob)
	if a.Type != "" {
		globs, ok := search.Types[strings.ToLower(a.Type)]
		if !ok {
			return nil, fmt.Errorf("unknown file type %q: use one of %s, or filter with glob instead", a.Type, search.TypeNames())
		}
		q.TypeGlobs = globs
	}
	// The pure-Go engine compiles the pattern again; checking it here
	// gives both engines the same error for a bad pattern.
	if _, err := search.CompileMatcher(q.Pattern, q.IgnoreCase, q.Multiline); err != nil {
		return nil, err
	}
	return q, nil
}

// searchCwd is the directory relative paths are resolved against: the
// tool's option, else the call's permission context directory.
func searchCwd(ctx context.Context, opt string) string {
	if opt != "" {
		return opt
	}
	if rt := toolkit.RuntimeFrom(ctx); rt != nil && rt.Permission != nil {
		return rt.Permission.Dir()
	}
	return ""
}

// searchResolvePath makes p absolute against the tool's directory; an
// empty p is that directory.
func searchResolvePath(ctx context.Context, opt, p string) (string, error) {
	cwd := searchCwd(ctx, opt)
	if p == "" {
		if cwd == "" {
			return "", errors.New("no working directory is configured: give an absolute path")
		}
		return filepath.Clean(cwd), nil
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	if cwd == "" {
		return "", fmt.Errorf("the path %q is relative and no working directory is configured: give an absolute path", p)
	}
	return filepath.Join(cwd, p), nil
}

// target resolves and checks the path argument.
func (g *Grep) target(ctx context.Context, p string) (search.Target, error) {
	abs, err := searchResolvePath(ctx, g.opts.Cwd, p)
	if err != nil {
		return search.Target{}, err
	}
	fi, err := Stat(ctx, g.backend, abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return search.Target{}, fmt.Errorf("the path %s does not exist: give an existing file or directory (absolute, or relative to %s)", abs, searchCwd(ctx, g.opts.Cwd))
		}
		return search.Target{}, fmt.Errorf("cannot search %s: %v", abs, err)
	}
	if !fi.IsDir() && !fi.Mode.IsRegular() {
		return search.Target{}, fmt.Errorf("%s is not a regular file (%s): Grep searches regular files and folders", abs, fileKind(fi.Mode))
	}
	return search.Target{Root: abs, IsFile: !fi.IsDir()}, nil
}

// engine picks the search engine for this call.
func (g *Grep) engine() (string, grepEngine, error) {
	_, local := g.backend.(*LocalBackend)
	goEngine := &search.GoEngine{FS: backendFS{g.backend}, Local: local, Workers: g.opts.Workers}
	switch g.opts.Engine {
	case EngineGo:
		return EngineGo, goEngine, nil
	case "", EngineAuto:
		if local {
			if rg, err := g.rg(); err == nil {
				return EngineRg, &rg, nil
			}
		}
		return EngineGo, goEngine, nil
	case EngineRg:
		if !local {
			return "", nil, errors.New("grep: the rg engine works only with a LocalBackend")
		}
		rg, err := g.rg()
		if err != nil {
			return "", nil, fmt.Errorf("grep: the rg engine was requested but rg is not installed: %v", err)
		}
		return EngineRg, &rg, nil
	}
	return "", nil, fmt.Errorf("grep: unknown engine %q: use auto, go or rg", g.opts.Engine)
}

// findRg finds rg and makes its environment: once per tool (see
// NewGrep), as the host resolves the programs it runs once, at start.
func (g *Grep) findRg() (search.RgEngine, error) {
	p, err := g.rgPath()
	if err != nil {
		return search.RgEngine{}, err
	}
	rg := search.RgEngine{Path: p}
	if g.opts.Env != nil {
		rg.Env = g.opts.Env(os.Environ())
	}
	return rg, nil
}

func (g *Grep) rgPath() (string, error) {
	lookPath := g.opts.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	name := g.opts.RgPath
	if name == "" {
		name = "rg"
	}
	return lookPath(name)
}

// binaryFile reports whether an explicitly named file is binary. Both
// engines skip binary files found in a tree; rg would search one named
// explicitly, so the check is made here, the same for both.
func (g *Grep) binaryFile(ctx context.Context, p string) bool {
	data, err := g.backend.ReadFile(ctx, p)
	return err == nil && search.IsBinary(data)
}

// fillModTimes stats the files whose engine did not report a time.
func (g *Grep) fillModTimes(ctx context.Context, found []search.FileResult) {
	for i := range found {
		if found[i].ModTime.IsZero() {
			if fi, err := Stat(ctx, g.backend, found[i].Path); err == nil {
				found[i].ModTime = fi.ModTime
			}
		}
	}
}

func searchComparePaths(a, b string) int {
	switch {
	case a == b:
		return 0
	case search.PathLess(a, b):
		return -1
	}
	return 1
}

// grepCollector turns the results of a search, handed over in output
// order, into Grep's output entries: files in files_with_matches and
// count modes, lines in content mode. Files the permission rules
// withhold are dropped here and do not count toward the limit. With
// stopAfter set it asks for no more results once it holds more than
// stopAfter entries, at a file's end: the caller then knows that the
// entries up to stopAfter are final and that more follow.
type grepCollector struct {
	q        *search.Query
	lineNums bool
	paths    *pathpolicy.Policy
	pc       *permission.Context
	// stopAfter is offset+limit in content mode, 0 for no early stop.
	stopAfter int

	entries  []string
	numFiles int // files with entries, withheld ones excluded
	numLines int // matching lines of those files (count and content modes)
	dropped  int // files withheld
	stopped  bool
	// foundOrder: the entries are in the order rg found the files, not
	// in path order (a search stopped at the limit without sort path).
	foundOrder bool
	prevPath   string
	prevNum    int
}

// Grep's orders of content lines at a limit (the sort input).
const (
	grepSortFound = "found"
	grepSortPath  = "path"
)

// add takes one file's results and reports whether to go on.
func (c *grepCollector) add(f search.FileResult) bool {
	if withheld(c.paths, f.Path, c.pc) {
		c.dropped++
		return true
	}
	c.numFiles++
	switch c.q.Mode {
	case search.ModeFiles:
		c.entries = append(c.entries, f.Path)
	case search.ModeCount:
		c.entries = append(c.entries, f.Path+":"+strconv.Itoa(f.Count))
		c.numLines += f.Count
	case search.ModeContent:
		// Context lines use "-" where matches use ":", and "--" separates
		// runs of lines that are not adjacent, as rg and grep print them.
		withContext := c.q.Before > 0 || c.q.After > 0
		for _, l := range f.Lines {
			sep := "-"
			if l.Match {
				sep = ":"
				c.numLines++
			}
			var b strings.Builder
			if withContext && len(c.entries) > 0 && (f.Path != c.prevPath || l.Num != c.prevNum+1) {
				b.WriteString("--\n")
			}
			b.WriteString(f.Path)
			b.WriteString(sep)
			if c.lineNums {
				b.WriteString(strconv.Itoa(l.Num))
				b.WriteString(sep)
			}
			b.WriteString(l.Text)
			c.entries = append(c.entries, b.String())
			c.prevPath, c.prevNum = f.Path, l.Num
		}
	}
	if c.stopAfter > 0 && len(c.entries) > c.stopAfter {
		c.stopped = true
		return false
	}
	return true
}

// reset forgets everything added, for a search run again.
func (c *grepCollector) reset() {
	*c = grepCollector{q: c.q, lineNums: c.lineNums, paths: c.paths, pc: c.pc, stopAfter: c.stopAfter}
}

// formatGrep renders the collected entries for the model and describes
// them in metadata. head_limit and offset apply to the output entries.
// When the collector stopped early the total is not known: the note gives
// the entries read as a lower bound and says how to see more, and the
// metadata counts what was read (stopped_at_limit is set, and
// total_entries is left out).
func formatGrep(c *grepCollector, limit, offset int) (string, map[string]any) {
	q, entries := c.q, c.entries
	meta := map[string]any{"mode": q.Mode, "num_files": c.numFiles}
	if q.Mode != search.ModeFiles {
		meta["num_lines"] = c.numLines
	}
	total := len(entries)
	if total == 0 {
		if q.Mode == search.ModeFiles {
			return "No files found", meta
		}
		return "No matches found", meta
	}
	start := min(offset, total)
	end := total
	if limit > 0 {
		end = min(start+limit, total)
	}
	shown := entries[start:end]
	if len(shown) > 0 {
		shown[0] = strings.TrimPrefix(shown[0], "--\n")
	}
	kind := "file"
	if q.Mode == search.ModeContent {
		kind = "line"
	}
	var b strings.Builder
	if q.Mode == search.ModeFiles {
		fmt.Fprintf(&b, "Found %d file%s\n", total, grepPlural(total))
	}
	b.WriteString(strings.Join(shown, "\n"))
	if q.Mode == search.ModeCount {
		fmt.Fprintf(&b, "\n\nFound %d matching line%s in %d file%s.", c.numLines, grepPlural(c.numLines), c.numFiles, grepPlural(c.numFiles))
	}
	switch {
	case len(shown) == 0:
		verb := "are"
		if total == 1 {
			verb = "is"
		}
		fmt.Fprintf(&b, "[offset %d is past the end: there %s %d %s%s in all.]", offset, verb, total, kind, grepPlural(total))
	case c.stopped && c.foundOrder:
		// As below, in the order rg's threads found the files: another
		// call may find others first, so offset pages are not stable.
		again := ""
		if start > 0 {
			again = " This page may repeat or miss lines of the pages before it."
		}
		fmt.Fprintf(&b, "\n\n[Showing %ss %d-%d of at least %d (the search stopped there), in the order the search found them, "+
			"which may change from call to call.%s Narrow the search with path, glob or type, or page in a stable order "+
			"with sort \"path\" and offset, from offset 0.]", kind, start+1, end, total, again)
	case c.stopped:
		// The search stopped once it held more entries than offset+limit
		// (so end < total), at the end of a file: the files after it
		// were not searched and the total is a lower bound.
		fmt.Fprintf(&b, "\n\n[Showing %ss %d-%d of at least %d (the search stopped there). "+
			"Use offset %d to see the next ones, or narrow the search with path, glob or type.]", kind, start+1, end, total, end)
	case start > 0 || end < total:
		fmt.Fprintf(&b, "\n\n[Showing %ss %d-%d of %d.", kind, start+1, end, total)
		if end < total {
			fmt.Fprintf(&b, " Use offset %d to see the next ones, or narrow the search with path, glob or type.", end)
		}
		b.WriteString("]")
	}
	if c.foundOrder {
		meta["order"] = grepSortFound
	} else if q.Mode == search.ModeContent {
		meta["order"] = grepSortPath
	}
	if c.stopped {
		meta["stopped_at_limit"] = true
	} else {
		meta["total_entries"] = total
	}
	meta["shown_entries"] = len(shown)
	meta["truncated"] = end < total
	return b.String(), meta
}

func grepPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
