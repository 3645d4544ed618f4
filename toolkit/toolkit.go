package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmtools/wasmtools/permission"
)

// BasicGroup is the reserved, always-active group of tools registered
// without a group.
const BasicGroup = "basic"

// ResetToolsName is the name of the meta tool that activates groups.
const ResetToolsName = "reset_tools"

// DefaultMaxResultChars is the default cut-off for a result's text: about
// 50,000 tokens, the reference's threshold.
const DefaultMaxResultChars = 200_000

// Group is a named set of tools that a session activates and deactivates
// as a whole with reset_tools.
type Group struct {
	Name string `json:"name"`
	// Description is shown to the model in reset_tools' schema. Required.
	Description string `json:"description"`
	// Instructions are sent to the model when the group is activated.
	Instructions string `json:"instructions,omitempty"`
	// Active makes the group active in sessions that have not called
	// reset_tools yet.
	Active bool `json:"active,omitempty"`
}

// Options configure a Toolkit. The zero value is usable: in-memory
// sessions, mode default, no working directories, no rules.
type Options struct {
	// Store holds session state; nil means a new MemoryStore.
	Store SessionStore
	// Permission is the base permission configuration; rules a user grants
	// while confirming calls are added per session.
	Permission permission.Context
	// MaxResultChars cuts longer result text; the full text is written to
	// a file in OffloadDir and the model told where. 0 means
	// DefaultMaxResultChars; a negative value turns the cut off.
	MaxResultChars int
	// OffloadDir receives the full text of cut results, in a folder per
	// session removed when the session ends (EndSession). Empty means a
	// "wasmtools-results" folder in the system temporary directory.
	OffloadDir string
	// MaxOffloadBytes bounds the saved full texts of all sessions; the
	// oldest are removed first. 0 means DefaultMaxOffloadBytes.
	MaxOffloadBytes int64
	// Logger receives the toolkit's logs; nil means slog.Default().
	Logger *slog.Logger
	// NoResetTools leaves the reset_tools meta tool out even when named
	// groups exist (AgentScope's enableMetaTool off): the program
	// activates groups itself, with SetActiveGroups, and the model only
	// sees the tools of the groups active in its session.
	NoResetTools bool
	// OnChange is called after tools or groups are added or removed, on
	// the goroutine that changed them, after the change is visible.
	OnChange func(Change)
	// Middleware wraps every call of every tool the toolkit runs: built-in,
	// plugin, MCP, Go function, the Skill viewer and reset_tools alike,
	// outside each tool's own middleware (WithMiddleware); the first is
	// the outermost. It runs after the permission check, on the input the
	// check approved: it may change the input (the new input is not
	// checked again), refuse the call (Refuse), or rewrite the chunks.
	// RuntimeFrom(ctx) says which tool, call and session. External tools
	// are not run by the toolkit and are not wrapped.
	Middleware []Middleware
}

// middlewares is the chain of a tool: the toolkit's middleware outside
// the tool's own.
func (tk *Toolkit) middlewares(own []Middleware) []Middleware {
	if len(tk.opts.Middleware) == 0 {
		return own
	}
	return append(slices.Clip(tk.opts.Middleware), own...)
}

// Change describes a change of the toolkit's contents.
type Change struct {
	Added, Removed, Replaced []string // tool names
	Groups                   bool     // groups changed
}

// Toolkit holds tools and groups and runs calls through the pipeline. It is
// safe for concurrent use by any number of sessions. Reads take a
// lock-free snapshot, so registering or replacing a tool never blocks calls
// already running; they finish on the version they started with.
type Toolkit struct {
	// store, reg and the memory store come first: every call reads
	// them, and on a toolkit made for a few calls each cache line read
	// is a miss at the first call. mem is the store when the options
	// name none.
	store SessionStore
	reg   atomic.Pointer[registry]
	mem   MemoryStore
	mu    sync.Mutex // serialises writers of reg

	opts Options
	log  *slog.Logger

	callSeq atomic.Uint64
	// viewCache holds the schema-only tools of request views, by name
	// and schema, so a model step's external tools compile once. Bounded
	// (maxViewCache): every distinct schema a caller sends would stay.
	viewMu    sync.Mutex
	viewCache map[string]*entry
	offloads  *offloads
}

// registry is an immutable snapshot of the toolkit's contents.
type registry struct {
	// few holds the tools, nfew of them, when there are at most
	// len(few), for lookup: on a toolkit made for a few calls, the
	// map's header and group would each be a cache miss at the first
	// call. nfew is -1 when there are more. update sets them once the
	// registry is complete.
	nfew   int
	few    [4]namedEntry
	tools  map[string]*entry
	order  []string // registration order
	groups map[string]Group
	gorder []string
	reset  *entry // the reset_tools meta tool, when a non-basic group exists
}

type namedEntry struct {
	name string
	e    *entry
}

// entry is a registered tool with everything computed once at registration.
// What gates 1 to 3 read comes first (the subject, group and validator,
// inline), and the entry takes 192 bytes, three whole cache lines
// (TestEntrySize): on a toolkit made for a few calls, each line a call
// reads is a miss at the first call.
type entry struct {
	subject   subject // the tool, and spec below
	group     string
	validator schemaValidator
	spec      Spec
	// openAI returns the input schema as OpenAI takes it (without
	// titles), made at the first export (a model step exports every
	// tool), not at registration, which most tools of a short-lived
	// toolkit never see past.
	openAI  func() json.RawMessage
	handler Next
}

// New returns an empty toolkit.
func New(opts Options) *Toolkit {
	// The toolkit and the parts every call reads in one allocation: on
	// a toolkit made for a few calls, each separate piece would be a
	// cache miss at the first call.
	parts := &struct {
		tk  Toolkit
		reg registry
		off offloads
	}{}
	tk := &parts.tk
	tk.opts, tk.store, tk.log = opts, opts.Store, opts.Logger
	tk.opts.Middleware = slices.Clone(opts.Middleware)
	if tk.store == nil {
		tk.mem.limits = DefaultReadCacheLimits
		tk.store = &tk.mem
	}
	if tk.log == nil {
		tk.log = slog.Default()
	}
	if tk.opts.MaxResultChars == 0 {
		tk.opts.MaxResultChars = DefaultMaxResultChars
	}
	if tk.opts.OffloadDir == "" {
		tk.opts.OffloadDir = filepath.Join(os.TempDir(), "wasmtools-results")
	}
	if tk.opts.MaxOffloadBytes <= 0 {
		tk.opts.MaxOffloadBytes = DefaultMaxOffloadBytes
	}
	parts.off.root, parts.off.max = tk.opts.OffloadDir, tk.opts.MaxOffloadBytes
	tk.offloads = &parts.off
	parts.reg = registry{tools: map[string]*entry{}, groups: map[string]Group{}}
	tk.reg.Store(&parts.reg)
	return tk
}

// Store returns the session store.
func (tk *Toolkit) Store() SessionStore { return tk.store }

// EndSession forgets a session: its state in the store (when the store
// can drop sessions: see SessionDropper) and its saved cut results. Call it when the client the
// session belongs to is gone; a later call with the same id starts a new
// session.
func (tk *Toolkit) EndSession(id string) {
	if d, ok := tk.store.(SessionDropper); ok {
		// EndSession runs when the client is gone: no caller's context
		// is left to bound the store's work.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := d.Drop(ctx, id); err != nil {
			tk.log.Warn("forget session", "session", id, "err", err)
		}
		cancel()
	}
	tk.offloads.endSession(id)
}

// PermissionContext returns a copy of the base permission configuration.
func (tk *Toolkit) PermissionContext() *permission.Context { return tk.opts.Permission.Clone() }

// RegisterOption adjusts one registration.
type RegisterOption func(*registration)

type registration struct {
	group       string
	middlewares []Middleware
	replace     bool
}

// InGroup puts the tool in a named group (added with AddGroup first).
func InGroup(name string) RegisterOption { return func(r *registration) { r.group = name } }

// WithMiddleware wraps the tool's calls; the first middleware given is the
// outermost.
func WithMiddleware(mws ...Middleware) RegisterOption {
	return func(r *registration) { r.middlewares = append(r.middlewares, mws...) }
}

// Replacing allows the registration to replace a tool of the same name
// (hot reload). Calls already running finish on the old version.
func Replacing() RegisterOption { return func(r *registration) { r.replace = true } }

// AddGroup adds a named group. The name "basic" is reserved, names are
// unique and the description is required.
func (tk *Toolkit) AddGroup(g Group) error {
	if err := validGroup(g); err != nil {
		return err
	}
	return tk.update(func(r *registry) (Change, error) {
		if _, dup := r.groups[g.Name]; dup {
			return Change{}, fmt.Errorf("tool group %q already exists", g.Name)
		}
		r.groups[g.Name] = g
		r.gorder = append(r.gorder, g.Name)
		return Change{Groups: true}, nil
	})
}

// PutGroup adds a group or, when one of that name exists, replaces its
// description, instructions and default activation while keeping its
// tools. Hot reload uses it when a group file changes.
func (tk *Toolkit) PutGroup(g Group) error {
	if err := validGroup(g); err != nil {
		return err
	}
	return tk.update(func(r *registry) (Change, error) {
		if old, ok := r.groups[g.Name]; ok && old == g {
			return Change{}, nil
		} else if !ok {
			r.gorder = append(r.gorder, g.Name)
		}
		r.groups[g.Name] = g
		return Change{Groups: true}, nil
	})
}

func validGroup(g Group) error {
	if g.Name == "" {
		return errors.New("tool group: empty name")
	}
	if g.Name == BasicGroup {
		return fmt.Errorf("tool group %q is reserved for tools registered without a group", BasicGroup)
	}
	if strings.TrimSpace(g.Description) == "" {
		return fmt.Errorf("tool group %q: a description is required (the model reads it to decide whether to activate the group)", g.Name)
	}
	return nil
}

// RemoveGroup removes a group and every tool in it.
func (tk *Toolkit) RemoveGroup(name string) error {
	return tk.update(func(r *registry) (Change, error) {
		if _, ok := r.groups[name]; !ok {
			return Change{}, fmt.Errorf("tool group %q does not exist", name)
		}
		delete(r.groups, name)
		r.gorder = slices.DeleteFunc(r.gorder, func(s string) bool { return s == name })
		ch := Change{Groups: true}
		for _, n := range slices.Clone(r.order) {
			if r.tools[n].group == name {
				delete(r.tools, n)
				r.order = slices.DeleteFunc(r.order, func(s string) bool { return s == n })
				ch.Removed = append(ch.Removed, n)
			}
		}
		return ch, nil
	})
}

// Register adds a tool. Names are unique (unless Replacing is given); the
// input schema is compiled now, so a bad schema fails here and not at the
// first call. Each Register copies the registry: to register many tools,
// Apply a Batch.
func (tk *Toolkit) Register(t Tool, opts ...RegisterOption) error {
	e, replace, err := tk.newEntry(t, opts)
	if err != nil {
		return err
	}
	return tk.update(func(r *registry) (Change, error) {
		var ch Change
		return ch, r.add(e, replace, &ch)
	})
}

// newEntry checks a tool and computes its entry; replace reports the
// Replacing option.
func (tk *Toolkit) newEntry(t Tool, opts []RegisterOption) (e *entry, replace bool, err error) {
	if t == nil {
		return nil, false, errors.New("register: nil tool")
	}
	var reg registration
	for _, o := range opts {
		o(&reg)
	}
	spec := t.Spec()
	if err := CheckToolName(spec.Name); err != nil {
		return nil, false, err
	}
	if spec.Name == ResetToolsName {
		return nil, false, fmt.Errorf("tool name %q is reserved for the group meta tool", ResetToolsName)
	}
	if spec.InputSchema == nil {
		spec.InputSchema = defaultInputSchema
	}
	v, err := compileSchema(spec.Name, spec.InputSchema)
	if err != nil {
		return nil, false, err
	}
	schema := spec.InputSchema
	e = &entry{spec: spec, group: reg.group, validator: *v,
		openAI: sync.OnceValue(func() json.RawMessage { return stripTitles(schema) })}
	if e.group == "" {
		e.group = BasicGroup
	}
	e.subject = subject{tool: t, spec: &e.spec}
	if c, ok := t.(Caller); ok {
		e.handler = chain(c.Call, tk.middlewares(reg.middlewares))
	} else if !spec.External {
		return nil, false, fmt.Errorf("tool %s: not External and has no Call method: implement toolkit.Caller", spec.Name)
	}
	return e, reg.replace, nil
}

// add puts an entry in r (a copy being prepared) and records it in ch.
func (r *registry) add(e *entry, replace bool, ch *Change) error {
	name := e.spec.Name
	if e.group != BasicGroup {
		if _, ok := r.groups[e.group]; !ok {
			return fmt.Errorf("tool %s: group %q does not exist: add it with AddGroup first", name, e.group)
		}
	}
	if _, dup := r.tools[name]; dup {
		if !replace {
			return fmt.Errorf("tool %s is already registered", name)
		}
		r.tools[name] = e
		ch.Replaced = append(ch.Replaced, name)
		return nil
	}
	r.tools[name] = e
	r.order = append(r.order, name)
	ch.Added = append(ch.Added, name)
	return nil
}

// Unregister removes a tool. Calls already running finish.
func (tk *Toolkit) Unregister(name string) error {
	return tk.update(func(r *registry) (Change, error) {
		if _, ok := r.tools[name]; !ok {
			return Change{}, fmt.Errorf("tool %s is not registered", name)
		}
		delete(r.tools, name)
		r.order = slices.DeleteFunc(r.order, func(s string) bool { return s == name })
		return Change{Removed: []string{name}}, nil
	})
}

// CheckToolName reports whether Register would accept name: 1 to 64
// letters, digits, '_' and '-' (the names every model API takes).
func CheckToolName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("tool name %q: must be 1 to 64 characters", name)
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return fmt.Errorf("tool name %q: use only letters, digits, '_' and '-'", name)
		}
	}
	return nil
}

// update applies f to a copy of the registry and publishes it.
func (tk *Toolkit) update(f func(*registry) (Change, error)) error {
	tk.mu.Lock()
	old := tk.reg.Load()
	r := &registry{
		tools:  make(map[string]*entry, len(old.tools)+1),
		order:  slices.Clone(old.order),
		groups: make(map[string]Group, len(old.groups)+1),
		gorder: slices.Clone(old.gorder),
	}
	for k, v := range old.tools {
		r.tools[k] = v
	}
	for k, v := range old.groups {
		r.groups[k] = v
	}
	ch, err := f(r)
	if err != nil || !ch.Groups && len(ch.Added)+len(ch.Removed)+len(ch.Replaced) == 0 {
		tk.mu.Unlock()
		return err // an error, or nothing changed
	}
	if ch.Groups || old.reset == nil && len(r.groups) > 0 {
		r.reset = tk.newResetEntry(r)
	} else {
		r.reset = old.reset
	}
	if len(r.groups) == 0 || tk.opts.NoResetTools {
		r.reset = nil
	}
	r.indexFew()
	tk.reg.Store(r)
	tk.mu.Unlock()
	if tk.opts.OnChange != nil {
		tk.opts.OnChange(ch)
	}
	return nil
}

// ToolInfo describes a registered tool.
type ToolInfo struct {
	Spec  Spec   `json:"spec"`
	Group string `json:"group"`
}

// Tools lists the registered tools in registration order, reset_tools
// last when it exists. The schemas in the specs are copies.
func (tk *Toolkit) Tools() []ToolInfo {
	r := tk.reg.Load()
	out := make([]ToolInfo, 0, len(r.order)+1)
	for _, n := range r.order {
		e := r.tools[n]
		out = append(out, ToolInfo{Spec: e.spec, Group: e.group})
	}
	if r.reset != nil {
		out = append(out, ToolInfo{Spec: r.reset.spec, Group: BasicGroup})
	}
	detachSchemas(out)
	return out
}

// Tool returns a registered tool by name.
func (tk *Toolkit) Tool(name string) (Tool, bool) {
	e := tk.reg.Load().lookup(name)
	if e == nil {
		return nil, false
	}
	return e.subject.tool, true
}

// Groups lists the named groups in the order they were added.
func (tk *Toolkit) Groups() []Group {
	r := tk.reg.Load()
	out := make([]Group, 0, len(r.gorder))
	for _, n := range r.gorder {
		out = append(out, r.groups[n])
	}
	return out
}

func (r *registry) lookup(name string) *entry {
	if name == ResetToolsName && r.reset != nil {
		return r.reset
	}
	if r.nfew < 0 {
		return r.tools[name]
	}
	for _, t := range r.few[:r.nfew] {
		if t.name == name {
			return t.e
		}
	}
	return nil
}

// indexFew fills few from tools, once r is complete.
func (r *registry) indexFew() {
	if len(r.tools) > len(r.few) {
		r.nfew = -1
		return
	}
	r.nfew = 0
	for name, e := range r.tools {
		r.few[r.nfew] = namedEntry{name, e}
		r.nfew++
	}
}

// groupActive reports whether one group is active, as activeGroups
// would, without building the set (gate 1 asks it for every call).
func (r *registry) groupActive(ctx context.Context, s SessionState, group string) (bool, error) {
	if group == BasicGroup {
		return true, nil
	}
	names, set, err := s.ActiveGroups(ctx)
	if err != nil {
		return false, fmt.Errorf("active groups of session %q: %w", s.ID(), err)
	}
	if !set {
		g, ok := r.groups[group]
		return ok && g.Active, nil
	}
	if _, ok := r.groups[group]; !ok {
		return false, nil
	}
	return slices.Contains(names, group), nil
}

// activeGroups returns the set of active groups of a session, basic
// included.
func (r *registry) activeGroups(ctx context.Context, s SessionState) (map[string]bool, error) {
	names, set, err := s.ActiveGroups(ctx)
	if err != nil {
		return nil, fmt.Errorf("active groups of session %q: %w", s.ID(), err)
	}
	return r.activeOf(names, set), nil
}

// activeOf is activeGroups given the session's stored groups.
func (r *registry) activeOf(names []string, set bool) map[string]bool {
	active := map[string]bool{BasicGroup: true}
	if !set {
		for n, g := range r.groups {
			if g.Active {
				active[n] = true
			}
		}
		return active
	}
	for _, n := range names {
		if _, ok := r.groups[n]; ok {
			active[n] = true
		}
	}
	return active
}

// ActiveGroups returns the active named groups of a session, in the order
// the groups were added.
func (tk *Toolkit) ActiveGroups(ctx context.Context, sessionID string) ([]string, error) {
	s, err := tk.store.Session(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("session %q: %w", sessionID, err)
	}
	r := tk.reg.Load()
	active, err := r.activeGroups(ctx, s)
	if err != nil {
		return nil, err
	}
	return r.inOrder(active), nil
}

// inOrder returns the named groups in set, in the order they were added.
func (r *registry) inOrder(set map[string]bool) []string {
	var out []string
	for _, n := range r.gorder {
		if set[n] {
			out = append(out, n)
		}
	}
	return out
}

// ModelActivatesGroups reports whether the model may activate tool groups
// itself: false with Options.NoResetTools, where only the program does
// (SetActiveGroups). Tools that activate groups on the model's behalf,
// such as the skill viewer, follow it.
func (tk *Toolkit) ModelActivatesGroups() bool { return !tk.opts.NoResetTools }

// SetActiveGroups sets the named groups active in a session, and every
// other group inactive, as a reset_tools call of the model would. It is
// how a program activates groups itself (see Options.NoResetTools).
// Unknown group names are an error and change nothing.
func (tk *Toolkit) SetActiveGroups(ctx context.Context, sessionID string, names []string) error {
	s, err := tk.store.Session(ctx, sessionID)
	if err != nil {
		return fmt.Errorf("session %q: %w", sessionID, err)
	}
	r := tk.reg.Load()
	want := map[string]bool{}
	for _, n := range names {
		if _, ok := r.groups[n]; !ok {
			return fmt.Errorf("set active groups: no tool group %q (the groups are: %s)", n, strings.Join(r.gorder, ", "))
		}
		want[n] = true
	}
	if err := s.SetActiveGroups(ctx, r.inOrder(want)); err != nil {
		return fmt.Errorf("set active groups of session %q: %w", sessionID, err)
	}
	return nil
}

// ActivateGroup makes the named group active in a session, keeping the
// groups already active (the defaults, when the session never chose):
// a skill bound to the group does this when read. The change is atomic
// in the store, so two activations at once, in two processes even, both
// stay. It reports whether the group was inactive before.
func (tk *Toolkit) ActivateGroup(ctx context.Context, sessionID, name string) (bool, error) {
	s, err := tk.store.Session(ctx, sessionID)
	if err != nil {
		return false, fmt.Errorf("session %q: %w", sessionID, err)
	}
	r := tk.reg.Load()
	if _, ok := r.groups[name]; !ok {
		return false, fmt.Errorf("activate group: no tool group %q (the groups are: %s)", name, strings.Join(r.gorder, ", "))
	}
	var added bool
	err = s.UpdateActiveGroups(ctx, func(names []string, set bool) []string {
		active := r.activeOf(names, set)
		added = !active[name]
		active[name] = true
		return r.inOrder(active)
	})
	if err != nil {
		return false, fmt.Errorf("activate group %q in session %q: %w", name, sessionID, err)
	}
	return added, nil
}

// sortedNames returns the tool names visible to a session, sorted, for
// error messages.
func (r *registry) visibleNames(active map[string]bool) []string {
	var out []string
	for n, e := range r.tools {
		if active[e.group] {
			out = append(out, n)
		}
	}
	if r.reset != nil {
		out = append(out, ResetToolsName)
	}
	sort.Strings(out)
	return out
}
