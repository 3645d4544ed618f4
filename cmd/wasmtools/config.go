package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/mcp"
)

// defaultConfig is read from the current directory when --config is not
// given and it exists.
const defaultConfig = "wasmtools.yaml"

// config is wasmtools.yaml. Relative paths are relative to the file.
type config struct {
	Mode        string       `yaml:"mode"`
	WorkingDirs []string     `yaml:"working_dirs"`
	Allow       []configRule `yaml:"allow"`
	Deny        []configRule `yaml:"deny"`
	Ask         []configRule `yaml:"ask"`
	Plugins     []string     `yaml:"plugins"`
	// PluginGroup is the tool group of the .wasm files directly in the
	// plugin folders (sub-folders are groups of their own); one of Groups.
	PluginGroup string   `yaml:"plugin_group"`
	Skills      []string `yaml:"skills"`
	// Grants are per plugin (by name: the file name without .wasm).
	Grants     map[string]configGrants `yaml:"grants"`
	Groups     []configGroup           `yaml:"groups"`
	MCPServers map[string]configServer `yaml:"mcp_servers"`
	Limits     configLimits            `yaml:"limits"`
	// Sandbox configures the OS sandbox of shell commands.
	Sandbox configSandbox `yaml:"sandbox"`
	// TokenFile holds the bearer token serve --http requires (see
	// --token-file); relative to this file.
	TokenFile string `yaml:"token_file"`
	// AllowOrigins are Origin header values serve --http accepts besides
	// its own.
	AllowOrigins []string `yaml:"allow_origins"`
	file         string
}

type configGroup struct {
	Name         string `yaml:"name"`
	Description  string `yaml:"description"`
	Instructions string `yaml:"instructions"`
	Active       bool   `yaml:"active"`
}

type configServer struct {
	Command      string            `yaml:"command"`
	Args         []string          `yaml:"args"`
	Env          map[string]string `yaml:"env"`
	URL          string            `yaml:"url"`
	Headers      map[string]string `yaml:"headers"`
	Stateless    bool              `yaml:"stateless"`
	EnableTools  []string          `yaml:"enable_tools"`
	DisableTools []string          `yaml:"disable_tools"`
	Group        string            `yaml:"group"`
	TimeoutMS    int               `yaml:"timeout_ms"`
	// TrustReadOnlyHint lets the server's readOnlyHint make its tools
	// read-only (see mcp.ServerConfig): off, they ask like any other tool.
	TrustReadOnlyHint bool `yaml:"trust_read_only_hint"`
}

type configLimits struct {
	// MaxResultChars cuts longer results (offloading the rest).
	MaxResultChars int `yaml:"max_result_chars"`
	// OffloadDir holds the full text of cut results, a folder per
	// session; relative to this file.
	OffloadDir string `yaml:"offload_dir"`
	// MaxOffloadBytes bounds those texts, all sessions together.
	MaxOffloadBytes int64 `yaml:"max_offload_bytes"`
}

// configGrants are a plugin's grants, spelled as in its NAME.json sidecar
// (http_hosts, dirs, env, config, memory_mib, timeout_ms): the YAML is
// read through the JSON form so both files use the same names.
type configGrants struct{ abi.Grants }

func (g *configGrants) UnmarshalYAML(n *yaml.Node) error {
	var v any
	if err := n.Decode(&v); err != nil {
		return err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g.Grants); err != nil {
		return fmt.Errorf("line %d: grants: %w (fields: dirs, http_hosts, env, config, memory_mib, timeout_ms)", n.Line, err)
	}
	return nil
}

// configRule is a permission rule written in its text form; a malformed
// one is reported with its line.
type configRule struct{ permission.Rule }

func (r *configRule) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	rule, err := permission.ParseRule(s)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	r.Rule = rule
	return nil
}

// loadConfig reads a configuration file. With explicit false, a missing
// wasmtools.yaml is no configuration at all.
func loadConfig(path string, explicit bool) (*config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	var c config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) { // an empty file is no configuration
		return nil, fmt.Errorf("%s: %w (fields: mode, working_dirs, allow, deny, ask, plugins, plugin_group, skills, grants, groups, mcp_servers, limits, sandbox, token_file, allow_origins)", path, err)
	}
	c.file = path
	if c.Mode != "" {
		if _, err := permission.ParseMode(c.Mode); err != nil {
			return nil, fmt.Errorf("%s: mode: %w", path, err)
		}
	}
	for i, g := range c.Groups {
		if g.Name == "" || g.Description == "" {
			return nil, fmt.Errorf("%s: groups[%d]: a group needs a name and a description", path, i)
		}
	}
	names := make([]string, 0, len(c.MCPServers))
	for n := range c.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := c.MCPServers[n]
		if (s.Command == "") == (s.URL == "") {
			return nil, fmt.Errorf("%s: mcp_servers.%s: give command (a stdio server) or url (an HTTP server)", path, n)
		}
	}
	return &c, nil
}

// rel resolves a path of the configuration file against its folder.
func (c *config) rel(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(c.file), p)
}

// apply merges the configuration under the flags: flags win for the mode
// and the working directories, rules and folders add up.
func (c *config) apply(p *permFlags) {
	if c == nil {
		return
	}
	if !p.modeSet && c.Mode != "" {
		p.mode, _ = permission.ParseMode(c.Mode)
	}
	if len(p.workdirs) == 0 {
		for _, d := range c.WorkingDirs {
			p.workdirs = append(p.workdirs, c.rel(d))
		}
	}
	for _, r := range c.Allow {
		p.allow = append(p.allow, r.Rule)
	}
	for _, r := range c.Deny {
		p.deny = append(p.deny, r.Rule)
	}
	for _, r := range c.Ask {
		p.ask = append(p.ask, r.Rule)
	}
	for _, d := range c.Plugins {
		p.plugins = append(p.plugins, c.rel(d))
	}
	for _, d := range c.Skills {
		p.skillDirs = append(p.skillDirs, c.rel(d))
	}
	p.config = c
}

// pluginGroup returns the group of top-level plugin files, "" for basic.
func (c *config) pluginGroup() string {
	if c == nil {
		return ""
	}
	return c.PluginGroup
}

// servers returns the configured MCP servers.
func (c *config) servers() []mcp.ServerConfig {
	if c == nil {
		return nil
	}
	var out []mcp.ServerConfig
	for name, s := range c.MCPServers {
		out = append(out, mcp.ServerConfig{
			Name: name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers,
			Stateless: s.Stateless, EnableTools: s.EnableTools, DisableTools: s.DisableTools,
			Timeout:           time.Duration(s.TimeoutMS) * time.Millisecond,
			TrustReadOnlyHint: s.TrustReadOnlyHint,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// groupOf returns the group an MCP server's tools join ("" for basic).
func (c *config) groupOf(server string) string {
	if c == nil {
		return ""
	}
	return c.MCPServers[server].Group
}

// addGroups adds the configured tool groups.
func (c *config) addGroups(tk *toolkit.Toolkit) error {
	if c == nil {
		return nil
	}
	for _, g := range c.Groups {
		if err := tk.AddGroup(toolkit.Group{Name: g.Name, Description: g.Description, Instructions: g.Instructions, Active: g.Active}); err != nil {
			return fmt.Errorf("%s: groups: %w", c.file, err)
		}
	}
	return nil
}
