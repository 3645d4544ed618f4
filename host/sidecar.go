package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"strings"

	"github.com/wasmtools/wasmtools/abi"
)

// Sidecar is the optional NAME.json file beside NAME.wasm: the operator's
// grants for the plugin, an optional sha256 pin and, for a plain Extism
// module, the manifest naming its exports as tools.
type Sidecar struct {
	Name   string     `json:"name,omitempty"`
	SHA256 string     `json:"sha256,omitempty"`
	Grants abi.Grants `json:"grants,omitempty"`
	// Tools, for plain Extism modules: which exports are tools.
	Tools []ManifestTool `json:"tools,omitempty"`
}

// Manifest names the exports of a plain Extism module as tools.
type Manifest struct {
	Tools []ManifestTool `json:"tools"`
}

// ManifestTool is one export offered as a tool.
type ManifestTool struct {
	// Export is the function to run.
	Export string `json:"export"`
	// Name is the tool's name; Export when empty.
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// Input names the string property passed as the export's raw input;
	// empty passes the whole input as JSON.
	Input string `json:"input,omitempty"`
	// ReadOnly marks calls that change nothing (allowed without asking).
	ReadOnly bool `json:"read_only,omitempty"`
}

// SidecarPath returns the sidecar of a module file: NAME.json beside
// NAME.wasm.
func SidecarPath(wasmPath string) string {
	return strings.TrimSuffix(wasmPath, filepath.Ext(wasmPath)) + ".json"
}

// ReadSidecar reads the sidecar of a module file; a missing sidecar is
// an empty one.
func ReadSidecar(wasmPath string) (Sidecar, error) {
	path := SidecarPath(wasmPath)
	b, err := readPluginFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Sidecar{}, nil
	}
	if err != nil {
		return Sidecar{}, fmt.Errorf("plugin sidecar: %w", err)
	}
	return parseSidecar(path, b)
}

// parseSidecar parses the sidecar read from path.
func parseSidecar(path string, b []byte) (Sidecar, error) {
	var s Sidecar
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("plugin sidecar %s: %s (fields: name, sha256, grants, tools)", path, jsonProblem(err))
	}
	return s, nil
}

// merge combines the sidecar with the host configuration: the
// configuration's name, pin, memory and timeout win; directories, hosts,
// environment and config values add up (the configuration's values win on
// the same key).
func (s Sidecar) merge(cfg Config) Config {
	if cfg.Name == "" {
		cfg.Name = s.Name
	}
	if cfg.SHA256 == "" {
		cfg.SHA256 = s.SHA256
	}
	if cfg.Manifest == nil && len(s.Tools) > 0 {
		cfg.Manifest = &Manifest{Tools: s.Tools}
	}
	g := s.Grants
	g.Dirs = append(append([]abi.DirGrant(nil), g.Dirs...), cfg.Grants.Dirs...)
	g.HTTPHosts = append(append([]string(nil), g.HTTPHosts...), cfg.Grants.HTTPHosts...)
	g.Env = mergeMaps(g.Env, cfg.Grants.Env)
	g.Config = mergeMaps(g.Config, cfg.Grants.Config)
	if cfg.Grants.MemoryMiB > 0 {
		g.MemoryMiB = cfg.Grants.MemoryMiB
	}
	if cfg.Grants.TimeoutMS > 0 {
		g.TimeoutMS = cfg.Grants.TimeoutMS
	}
	cfg.Grants = g
	return cfg
}

func mergeMaps(a, b map[string]string) map[string]string {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}
