package host

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/wasmbin"
	"github.com/wasmtools/wasmtools/toolkit"
)

// Report describes a Wasm module: what it exports and imports, which ABI
// it speaks, its tools, and the grants it asks for against those given.
type Report struct {
	File    string         `json:"file"`
	Size    int            `json:"size"`
	SHA256  string         `json:"sha256"`
	Kind    Kind           `json:"kind"`
	Name    string         `json:"name,omitempty"`
	Version string         `json:"version,omitempty"`
	ABI     int            `json:"abi,omitempty"`
	Exports []Function     `json:"exports"`
	Imports []Function     `json:"imports"`
	Memory  *Memory        `json:"memory,omitempty"`
	Tools   []ReportedTool `json:"tools"`
	// GrantsRequested are what the plugin asks for; GrantsGiven what the
	// sidecar and configuration give; Missing what was asked and not given.
	GrantsRequested *abi.Grants `json:"grants_requested,omitempty"`
	GrantsGiven     abi.Grants  `json:"grants_given"`
	Missing         []string    `json:"missing_grants,omitempty"`
	// Loadable is false when the host would refuse the module; Problem
	// says why.
	Loadable bool   `json:"loadable"`
	Problem  string `json:"problem,omitempty"`
}

// Function is an exported or imported function.
type Function struct {
	Module   string   `json:"module,omitempty"`
	Name     string   `json:"name"`
	Params   []string `json:"params"`
	Results  []string `json:"results"`
	Provided *bool    `json:"provided,omitempty"` // imports: does the host provide it
}

// Memory describes the module's linear memory.
type Memory struct {
	MinPages uint32  `json:"min_pages"`
	MaxPages *uint32 `json:"max_pages,omitempty"`
	Exported bool    `json:"exported"`
}

// ReportedTool is a tool as Inspect shows it.
type ReportedTool struct {
	Name            string   `json:"name"`
	Description     string   `json:"description"`
	ReadOnly        bool     `json:"read_only"`
	ConcurrencySafe bool     `json:"concurrency_safe"`
	Hooks           []string `json:"hooks,omitempty"`
}

// InspectOption changes what Inspect checks.
type InspectOption func(*inspectOptions)

type inspectOptions struct {
	tk *toolkit.Toolkit
}

// AgainstToolkit makes Inspect also check the module's tool names against
// the tools of tk, as a plugin folder serving tk would: a name tk holds
// already, or one differing from it only by case, makes the module not
// loadable there (plugin folders may also hold modules that come first
// for a name; Inspect does not know them).
func AgainstToolkit(tk *toolkit.Toolkit) InspectOption {
	return func(o *inspectOptions) { o.tk = tk }
}

// Inspect describes any Wasm module, plugin or not. It compiles the
// module and, when it is a plugin, loads it (sandboxed, as always) to read
// its tools; the module is never given more than cfg grants. A module the
// host would refuse, or whose tools a plugin folder would refuse, is
// reported not loadable, with the reason in Problem.
func (h *Host) Inspect(ctx context.Context, path string, cfg Config, opts ...InspectOption) (*Report, error) {
	var o inspectOptions
	for _, opt := range opts {
		opt(&o)
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	side, err := ReadSidecar(path)
	if err != nil {
		return nil, err
	}
	cfg = side.merge(cfg)
	if cfg.Name == "" {
		cfg.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	sum := sha256.Sum256(wasm)
	r := &Report{File: path, Size: len(wasm), SHA256: hex.EncodeToString(sum[:]), GrantsGiven: cfg.Grants, Exports: []Function{}, Imports: []Function{}, Tools: []ReportedTool{}}
	if err := wasmbin.Check(wasm); err != nil {
		r.Kind = KindUnknown
		r.Problem = "not a valid WebAssembly module: " + err.Error()
		return r, nil
	}
	// The interpreter decodes and validates as the compiler does, at a
	// fraction of the cost: only the module's shape is read here, and
	// the load below compiles it (or takes it from the cache).
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	m, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		r.Kind = KindUnknown
		r.Problem = "not a valid WebAssembly module: " + err.Error()
		return r, nil
	}
	kernel := kernelFunctions()
	exports := map[string]bool{}
	for name, def := range m.ExportedFunctions() {
		exports[name] = true
		r.Exports = append(r.Exports, Function{Name: name, Params: typeNames(def.ParamTypes()), Results: typeNames(def.ResultTypes())})
	}
	slices.SortFunc(r.Exports, func(a, b Function) int { return strings.Compare(a.Name, b.Name) })
	for _, def := range m.ImportedFunctions() {
		mod, name, _ := def.Import()
		provided := mod == abi.ModuleWASI || (mod == abi.ModuleUser && name == abi.ImportEmit)
		if mod == abi.ModuleEnv {
			_, provided = kernel[name]
		}
		r.Imports = append(r.Imports, Function{Module: mod, Name: name, Params: typeNames(def.ParamTypes()), Results: typeNames(def.ResultTypes()), Provided: &provided})
	}
	for _, mem := range m.ExportedMemories() {
		mx, hasMax := mem.Max()
		r.Memory = &Memory{MinPages: mem.Min(), Exported: true}
		if hasMax {
			r.Memory.MaxPages = &mx
		}
	}
	r.Kind = kindOf(exports, cfg.Manifest != nil)
	p, err := h.Load(ctx, wasm, cfg)
	if err != nil {
		r.Problem = err.Error()
		return r, nil
	}
	defer p.Close(ctx)
	r.Loadable = true
	if o.tk != nil {
		held := toolHolders(o.tk)
		for _, t := range p.Tools() {
			n := t.Spec().Name
			for _, hn := range held.fold[strings.ToLower(n)] {
				if r.Loadable {
					r.Loadable, r.Problem = false, takenError(n, hn).Error()
				}
			}
		}
	}
	r.Kind, r.Name = p.Kind, p.Name
	if p.Kind == KindWasmtools {
		r.ABI, r.Version = p.Schema.ABI, p.Schema.Version
		if p.Schema.Name != "" {
			r.Name = p.Schema.Name
		}
		r.GrantsRequested = p.Schema.Grants
		r.Missing = missingGrants(p.Schema.Grants, cfg.Grants)
	}
	for _, t := range p.Tools() {
		sp := t.Spec()
		rt := ReportedTool{Name: sp.Name, Description: sp.Description, ReadOnly: sp.ReadOnly, ConcurrencySafe: sp.ConcurrencySafe}
		if tool, ok := t.(*Tool); ok {
			for hook := range tool.hooks {
				rt.Hooks = append(rt.Hooks, hook)
			}
			slices.Sort(rt.Hooks)
		}
		r.Tools = append(r.Tools, rt)
	}
	return r, nil
}

func typeNames(ts []api.ValueType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = api.ValueTypeName(t)
	}
	return out
}

// missingGrants lists what was asked for and not given.
func missingGrants(asked *abi.Grants, given abi.Grants) []string {
	if asked == nil {
		return nil
	}
	var out []string
	for _, host := range asked.HTTPHosts {
		if !slices.Contains(given.HTTPHosts, host) {
			out = append(out, "http_hosts: "+host)
		}
	}
	// A plugin asks for a folder by the path it will use (guest); the
	// operator maps a host folder there. An old-style request naming only
	// host is taken as that path.
	for _, d := range asked.Dirs {
		want := cmp.Or(d.Guest, d.Host)
		found := false
		for _, g := range given.Dirs {
			if cmp.Or(g.Guest, g.Host) == want && (g.Write || !d.Write) {
				found = true
			}
		}
		if !found {
			mode := "read-only"
			if d.Write {
				mode = "read-write"
			}
			out = append(out, fmt.Sprintf("dirs: %s (%s)", want, mode))
		}
	}
	for k := range asked.Env {
		if _, ok := given.Env[k]; !ok {
			out = append(out, "env: "+k)
		}
	}
	for k := range asked.Config {
		if _, ok := given.Config[k]; !ok {
			out = append(out, "config: "+k)
		}
	}
	if asked.MemoryMiB > max(given.MemoryMiB, DefaultMemoryMiB) {
		out = append(out, fmt.Sprintf("memory_mib: %d", asked.MemoryMiB))
	}
	slices.Sort(out)
	return out
}
