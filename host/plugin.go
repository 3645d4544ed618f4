package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/wasmbin"
)

// Defaults for plugins whose grants say nothing.
const (
	DefaultMemoryMiB = 64
	DefaultTimeout   = 30 * time.Second
)

// Options configure a Host.
type Options struct {
	// CacheDir holds compiled code across restarts; empty means
	// wasmtools/compile under the user's cache directory; "off" disables
	// the disk cache.
	CacheDir string
	// Logger receives plugin logs and the host's own; nil means
	// slog.Default().
	Logger *slog.Logger
	// HTTPClient performs plugins' HTTP requests; nil means a client
	// like http.DefaultClient whose connections go only to addresses a
	// grant allows: a granted name that resolves to a loopback, private,
	// link-local or unspecified address is refused unless a grant names
	// that address (or, for loopback, "localhost"). Redirects are always
	// re-checked against grants.
	HTTPClient *http.Client
	// MaxInstances bounds the instances of one plugin (and so its parallel
	// calls); 0 means twice the number of CPUs, at least 2.
	MaxInstances int
	// Version names the host to plugins ("wasmtools/VERSION").
	Version string
	// IdleTimeout is how long a plugin keeps its compiled code and warm
	// instances after its last call (a loaded plugin holds neither until
	// its first call); the next call loads the code back from the disk
	// cache. 0 means DefaultIdleTimeout; negative keeps them for ever.
	// Without a disk cache (CacheDir "off") nothing is released: the code
	// would have to be compiled again. After loads and releases the host
	// returns the freed memory to the system (debug.FreeOSMemory, at most
	// once a second).
	IdleTimeout time.Duration
}

// Host loads and runs plugins. It is safe for concurrent use.
type Host struct {
	opts  Options
	log   *slog.Logger
	cache wazero.CompilationCache
	// transport makes plugins' HTTP connections when Options.HTTPClient
	// is nil (see grantedDialer), made on first use.
	transportOnce sync.Once
	transport     *http.Transport
	// schemaDir keeps each module's schema answer by module hash, so that
	// a restart needs no instance to know a plugin's tools; "" when the
	// disk cache is off.
	schemaDir string
	// noTimeout leaves out the termination checks that per-call timeouts
	// compile into the guest (for the benchmark that measures their cost).
	noTimeout bool
	// folderLocks serialise name changes in each granted folder across
	// all instances (see grantFS).
	folderLocks folderLocks
	// folders are the open plugin folders; claimMu serialises their
	// claims of tool names (see Folder.Sync).
	foldersMu sync.Mutex
	folders   []*Folder
	claimMu   sync.Mutex
	// trimTimer returns free memory to the system (see trimSoon).
	trimMu    sync.Mutex
	trimTimer *time.Timer
}

// New returns a host.
func New(opts Options) (*Host, error) {
	h := &Host{opts: opts, log: opts.Logger}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.opts.MaxInstances <= 0 {
		h.opts.MaxInstances = max(2, 2*runtime.GOMAXPROCS(0))
	}
	if h.opts.Version == "" {
		h.opts.Version = "dev"
	}
	switch dir := opts.CacheDir; dir {
	case "off":
		h.cache = wazero.NewCompilationCache()
	default:
		if dir == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				base = os.TempDir()
			}
			dir = filepath.Join(base, "wasmtools", "compile")
		}
		c, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			return nil, fmt.Errorf("compilation cache in %s: %w (set another directory, or \"off\")", dir, err)
		}
		h.cache = c
		h.schemaDir = filepath.Join(dir, "schemas")
	}
	return h, nil
}

// Close releases the compilation cache. Plugins must be closed first.
func (h *Host) Close(ctx context.Context) error {
	h.trimMu.Lock()
	if h.trimTimer != nil {
		h.trimTimer.Stop()
	}
	h.trimMu.Unlock()
	return h.cache.Close(ctx)
}

// Kind is the ABI a module speaks.
type Kind string

// The module kinds the host loads.
const (
	KindWasmtools Kind = "wasmtools"       // the wasmtools ABI (package abi)
	KindServlet   Kind = "servlet"         // hyper-mcp / mcp.run: describe + call
	KindManifest  Kind = "extism+manifest" // a plain Extism module named by a manifest
	KindUnknown   Kind = "unknown"         // none of these
)

// Config is how one plugin is loaded.
type Config struct {
	// Name names the plugin (logs, tool sources); default: the schema's
	// name, else the file name.
	Name string
	// Grants are the capabilities given to the plugin.
	Grants abi.Grants
	// SHA256 pins the module: a module with another digest is refused.
	SHA256 string
	// Manifest names the exports of a plain Extism module as tools.
	Manifest *Manifest
	// TrustReadOnlyHint lets a servlet module's readOnlyHint make its
	// tools read-only (they then run without asking in every mode). The
	// hint is the module's own claim: off, its tools ask like any other.
	TrustReadOnlyHint bool
}

// Plugin is a loaded module. Its tools are toolkit tools (see Tools).
type Plugin struct {
	Name   string
	Kind   Kind
	SHA256 string
	// Schema is what the plugin said about itself (wasmtools kind).
	Schema abi.SchemaResponse

	host      *Host
	log       *slog.Logger
	grants    abi.Grants
	trustHint bool // Config.TrustReadOnlyHint
	timeout   time.Duration
	// interruptible reports that the module was instrumented (see
	// internal/wasmbin): calls end by setting its interrupt flag rather
	// than through wazero's termination checks.
	interruptible bool
	// src says how to compile the module again once released; code is
	// the compiled module while held (nil once released), codeUsers the
	// calls using it, and idleTimer releases it (see code.go). Guarded
	// by codeMu.
	src       codeSource
	codeMu    sync.Mutex
	code      *compiledCode
	codeUsers int
	idleTimer *time.Timer
	exports   map[string]bool
	tools     []*Tool
	// compatTools are the tools of servlets and manifest modules.
	compatTools []*compatTool

	pool *pool
	// exclusive serialises calls of tools that are not concurrency-safe:
	// they take it for writing, everything else for reading.
	exclusive sync.RWMutex
	inflight  sync.WaitGroup
	closed    atomic.Bool
	// life orders Close against calls entering: once closed is set under
	// it, no call adds to inflight, so Close's wait is sound.
	life sync.Mutex
	// successor is the plugin that replaced this one (hot reload): calls
	// that resolved this plugin's tools before the swap but start after
	// it run on the successor instead of failing. Guarded by life.
	successor *Plugin
	// file is the module file it was loaded from (LoadFile); folder the
	// plugin folder serving it, guarded by the host's claimMu.
	file   string
	folder *Folder
}

// checkReadOnlyClaim refuses a tool that says it is read-only (its flag,
// or a check_read_only hook that may say so) in a plugin whose grants let
// it change something: a read-only tool runs without a question in every
// mode, explore included, and nothing checks what its code does with a
// writable folder or a network grant.
func (p *Plugin) checkReadOnlyClaim(tool string, claims bool) error {
	if !claims {
		return nil
	}
	var powers []string
	for _, d := range p.grants.Dirs {
		if d.Write {
			powers = append(powers, "writes to "+d.Host)
		}
	}
	if len(p.grants.HTTPHosts) > 0 {
		powers = append(powers, "HTTP requests to "+strings.Join(p.grants.HTTPHosts, ", "))
	}
	if len(powers) == 0 {
		return nil
	}
	return fmt.Errorf("plugin %s: tool %q says it is read-only, but the plugin is granted %s: a read-only tool runs without asking in every mode, so the claim cannot stand beside those grants. Grant the folder read-only and no hosts, or use a build of the plugin whose tools do not claim read_only",
		p.Name, tool, strings.Join(powers, " and "))
}

// Grants returns the capabilities the plugin was given.
func (p *Plugin) Grants() abi.Grants { return p.grants }

// LoadFile loads a module from a file, with the grants (and optional
// manifest and sha256 pin) of its sidecar file NAME.json merged under the
// given configuration.
func (h *Host) LoadFile(ctx context.Context, path string, cfg Config) (*Plugin, error) {
	wasm, err := readPluginFile(path)
	if err != nil {
		return nil, fmt.Errorf("load plugin: %w", err)
	}
	side, err := ReadSidecar(path)
	if err != nil {
		return nil, err
	}
	return h.loadFromFile(ctx, path, side.merge(cfg), wasm)
}

// loadFromFile loads wasm, read from path, named after the file unless
// cfg names it.
func (h *Host) loadFromFile(ctx context.Context, path string, cfg Config, wasm []byte) (*Plugin, error) {
	if cfg.Name == "" {
		cfg.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	p, err := h.load(ctx, wasm, cfg, path)
	if err == nil {
		p.file = path
	}
	return p, err
}

// Load compiles and validates a module, asks it for its tools, and keeps
// one warm instance.
func (h *Host) Load(ctx context.Context, wasm []byte, cfg Config) (*Plugin, error) {
	return h.load(ctx, wasm, cfg, "")
}

// load is Load of a module read from file ("" when it came as bytes,
// which the plugin then keeps to compile them again; see code.go).
func (h *Host) load(ctx context.Context, wasm []byte, cfg Config, file string) (*Plugin, error) {
	sum := sha256.Sum256(wasm)
	digest := hex.EncodeToString(sum[:])
	name := cfg.Name
	if name == "" {
		name = "plugin-" + digest[:8]
	}
	if cfg.SHA256 != "" && !strings.EqualFold(cfg.SHA256, digest) {
		return nil, fmt.Errorf("plugin %s: sha256 is %s, but the configuration pins %s: refusing to load it", name, digest, cfg.SHA256)
	}
	for _, g := range cfg.Grants.HTTPHosts {
		if _, _, err := splitHostGrant(g); err != nil {
			return nil, fmt.Errorf("plugin %s: its grants: %w", name, err)
		}
	}
	// The granted folders must exist now: an instance made later (the
	// schema may come from the cache) would fail every call instead.
	gs, err := h.openGrants(cfg.Grants.Dirs)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	closeGrants(gs)
	p := &Plugin{Name: name, SHA256: digest, host: h, grants: cfg.Grants, trustHint: cfg.TrustReadOnlyHint}
	p.log = h.log.With(slog.String("plugin", name))
	p.timeout = DefaultTimeout
	if cfg.Grants.TimeoutMS > 0 {
		p.timeout = time.Duration(cfg.Grants.TimeoutMS) * time.Millisecond
	}
	memMiB := cfg.Grants.MemoryMiB
	if memMiB <= 0 {
		memMiB = DefaultMemoryMiB
	}
	if pages, ok := wasmbin.MemoryMinimum(wasm); ok && pages > uint64(memMiB)*16 {
		need := (pages + 15) / 16
		return nil, fmt.Errorf("plugin %s: its linear memory starts at %d MiB (%d pages of 64 KiB), more than the %d MiB it may use: grant memory_mib ≥ %d (in the grants of its sidecar file %s or of the configuration), or build it with a smaller initial memory", name, need, pages, memMiB, need, name+".json")
	}
	// Termination: the module is instrumented so that a call can be
	// stopped by setting a flag the guest checks at every function entry
	// and loop iteration (see internal/wasmbin). A module that cannot be
	// instrumented, or whose rewrite the compiler refuses (a bug there),
	// runs as it is with wazero's own checks, which are as safe but leave
	// the machine code for Go at every loop iteration; a module the
	// compiler refuses as it is, is reported as such.
	p.src = codeSource{file: file, size: int64(len(wasm)), memMiB: memMiB}
	if file == "" {
		p.src.wasm = wasm
	}
	p.interruptible = !h.noTimeout
	c, err := p.compile(ctx, wasm)
	if err != nil && p.interruptible {
		p.interruptible, p.src.checks = false, true
		var err2 error
		if c, err2 = p.compile(ctx, wasm); err2 != nil {
			return nil, err2
		}
		p.log.Warn("the module runs with wazero's slower termination checks: it could not be instrumented", "err", err)
		err = nil
	}
	if err != nil {
		return nil, err
	}
	// Load uses the code until it returns; then, with a disk cache to
	// load it from again, it is released until the first call.
	p.code, p.codeUsers = c, 1
	p.pool = newPool(p, h.opts.MaxInstances)
	ok := false
	defer func() {
		if !ok {
			p.closeCode()
			return
		}
		p.codeMu.Lock()
		p.codeUsers = 0
		release := p.releasable()
		p.codeMu.Unlock()
		if release {
			p.releaseIdle()
		}
	}()
	compiled := c.compiled
	if err := checkImports(name, compiled); err != nil {
		return nil, err
	}
	p.exports = map[string]bool{}
	for n := range compiled.ExportedFunctions() {
		if n != wasmbin.StartExport {
			p.exports[n] = true
		}
	}
	p.Kind = kindOf(p.exports, cfg.Manifest != nil)

	switch p.Kind {
	case KindWasmtools:
		err = p.loadWasmtools(ctx)
	case KindServlet:
		err = p.loadServlet(ctx)
	case KindManifest:
		if err = p.loadManifest(cfg.Manifest); err == nil {
			err = p.warm(ctx)
		}
	default:
		err = fmt.Errorf("plugin %s: it exports neither the wasmtools ABI (%s) nor the servlet ABI (describe, call); its exports are %s. A plain Extism module needs a manifest naming its exports as tools (see abi/README.md, section 9)",
			name, strings.Join(abi.RequiredExports, ", "), exportList(p.exports))
	}
	if err != nil {
		return nil, err
	}
	ok = true
	return p, nil
}

// warm starts one instance and keeps it, so that a module that cannot
// start (its start section loops, traps or exits) fails its load rather
// than every call.
func (p *Plugin) warm(ctx context.Context) error {
	inst, err := p.pool.get(ctx, p.code)
	if err != nil {
		return err
	}
	p.pool.put(inst, true)
	return nil
}

func kindOf(exports map[string]bool, manifest bool) Kind {
	switch {
	case manifest:
		return KindManifest
	case exports[abi.ExportSchema] || exports[abi.ExportCheckPermissions]:
		return KindWasmtools
	case exports["describe"] && exports["call"]:
		return KindServlet
	}
	return KindUnknown
}

func exportList(exports map[string]bool) string {
	var names []string
	for n := range exports {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// checkImports refuses modules that import what the host does not
// provide, naming the import.
func checkImports(name string, m wazero.CompiledModule) error {
	kernel := kernelFunctions()
	for _, f := range m.ImportedFunctions() {
		mod, fn, _ := f.Import()
		switch mod {
		case abi.ModuleEnv:
			if _, ok := kernel[fn]; !ok {
				return fmt.Errorf("plugin %s imports %s.%s, which is not an Extism kernel function", name, mod, fn)
			}
		case abi.ModuleUser:
			if fn != abi.ImportEmit {
				return fmt.Errorf("plugin %s imports the host function %s.%s, which wasmtools does not provide (only %s)", name, mod, fn, abi.ImportEmit)
			}
		case abi.ModuleWASI:
		default:
			return fmt.Errorf("plugin %s imports %s.%s: wasmtools provides only %s, %s and %s", name, mod, fn, abi.ModuleEnv, abi.ModuleUser, abi.ModuleWASI)
		}
	}
	return nil
}

// loadWasmtools checks the required exports and reads the schema.
func (p *Plugin) loadWasmtools(ctx context.Context) error {
	if p.exports["_start"] && !p.exports["_initialize"] {
		return fmt.Errorf("plugin %s is a WASI command (it exports _start and no _initialize): it would run once and exit. Build it as a reactor (Go: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared; Rust: crate-type cdylib)", p.Name)
	}
	var missing []string
	for _, e := range abi.RequiredExports {
		if !p.exports[e] {
			missing = append(missing, e)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("plugin %s lacks the required export(s) %s (it exports %s)", p.Name, strings.Join(missing, ", "), exportList(p.exports))
	}
	for name, def := range p.code.compiled.ExportedFunctions() {
		if !isABIExport(name) {
			continue
		}
		if len(def.ParamTypes()) != 0 || !slices.Equal(def.ResultTypes(), []api.ValueType{api.ValueTypeI32}) {
			return fmt.Errorf("plugin %s: export %s must have the type () -> i32", p.Name, name)
		}
	}
	out, cached := p.host.cachedSchema(p.SHA256)
	var err error
	if !cached {
		req, _ := json.Marshal(abi.SchemaRequest{ABI: abi.Version, Host: "wasmtools/" + p.host.opts.Version})
		out, err = p.callExport(ctx, abi.ExportSchema, req, nil, false)
	}
	if err != nil {
		if p.exports["_start"] && !p.exports["_initialize"] {
			return fmt.Errorf("plugin %s: schema failed (%v); the module is a WASI command (it exports _start): build it as a reactor (Go: -buildmode=c-shared; Rust: crate-type cdylib)", p.Name, err)
		}
		return p.loadError(abi.ExportSchema, err)
	}
	var s abi.SchemaResponse
	if err := p.decode(abi.ExportSchema, out, &s); err != nil {
		return err
	}
	if s.ABI != abi.Version {
		return fmt.Errorf("plugin %s speaks ABI version %d; this host supports version %d", p.Name, s.ABI, abi.Version)
	}
	if len(s.Tools) == 0 {
		return fmt.Errorf("plugin %s: its schema lists no tools", p.Name)
	}
	decls := make([]toolDecl, len(s.Tools))
	for i, t := range s.Tools {
		decls[i] = toolDecl{t.Name, t.InputSchema}
	}
	if err := checkTools(p.Name, "plugin "+p.Name, "tool", decls); err != nil {
		return err
	}
	for _, t := range s.Tools {
		if err := checkHooks(t.Hooks); err != nil {
			return fmt.Errorf("plugin %s: tool %q: %w", p.Name, t.Name, err)
		}
	}
	for _, t := range s.Tools {
		p.tools = append(p.tools, newTool(p, t))
	}
	for _, t := range p.tools {
		if err := p.checkReadOnlyClaim(t.spec.Name, t.spec.ReadOnly || t.hooks[abi.ExportCheckReadOnly]); err != nil {
			return err
		}
	}
	p.Schema = s
	if !cached {
		p.host.storeSchema(p.SHA256, out)
	}
	return nil
}

// loadError describes a failed export call while loading: one that ran
// out of time says which timeout and what to do.
func (p *Plugin) loadError(export string, err error) error {
	var pe *PluginError
	if errors.As(err, &pe) && pe.Export == export && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("plugin %s: %s did not answer within the plugin's timeout of %s; it must answer at once: fix the export, or raise timeout_ms in its grants if it needs longer: %w", p.Name, export, p.timeout, err)
	}
	return fmt.Errorf("plugin %s: %s failed: %w", p.Name, export, err)
}

func isABIExport(name string) bool {
	switch name {
	case abi.ExportSchema, abi.ExportCheckPermissions, abi.ExportCall, abi.ExportCheckReadOnly, abi.ExportMatchRule, abi.ExportGenerateSuggestions:
		return true
	}
	return false
}

// checkHooks refuses hooks the ABI does not define.
func checkHooks(hooks []string) error {
	for _, h := range hooks {
		switch h {
		case abi.ExportCheckReadOnly, abi.ExportMatchRule, abi.ExportGenerateSuggestions:
		default:
			return fmt.Errorf("unknown hook %q (hooks are %s, %s and %s)", h, abi.ExportCheckReadOnly, abi.ExportMatchRule, abi.ExportGenerateSuggestions)
		}
	}
	return nil
}

func quote(b []byte) string {
	if len(b) > 200 {
		return fmt.Sprintf("%q…", b[:200])
	}
	return fmt.Sprintf("%q", b)
}

// Close releases the plugin once its running calls have finished (or ctx
// ends). Calls after Close fail.
func (p *Plugin) Close(ctx context.Context) error {
	return p.retire(ctx, nil)
}

// retire closes p like Close, sending calls that arrive afterwards to next
// when next is not nil.
func (p *Plugin) retire(ctx context.Context, next *Plugin) error {
	p.life.Lock()
	if p.closed.Load() {
		p.life.Unlock()
		return nil
	}
	p.successor = next
	p.closed.Store(true)
	p.life.Unlock()
	done := make(chan struct{})
	go func() { p.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return p.closeCode()
}
