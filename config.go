package wasmtools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/host"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/mcp"
	"github.com/wasmtools/wasmtools/toolkit/programs"
)

// ConfigFile is the name of the configuration file a host reads from its
// working directory (the CLI does when --config is not given). Open
// protects it in every working directory: a tool call that may write it
// asks in every mode, since the next host started there would obey it.
const ConfigFile = "wasmtools.yaml"

// configFields lists the fields of the file, for error messages.
const configFields = "mode, working_dirs, allow, deny, ask, tools, reset_tools, plugins, plugin_group, skills, grants, groups, mcp_servers, limits, sandbox, token_file, allow_origins"

// Config describes a host: what wasmtools.yaml holds (the fields with a
// yaml tag; LoadConfig reads them) and what only a program can give (the
// fields tagged yaml:"-": callbacks, a logger, toolkit options).
//
// The two kinds live in one struct rather than a Config and an Options
// beside it because Open needs both and an embedder thinks of one host:
// a program that builds its configuration in Go sets the fields it needs
// without knowing which of them a file could also hold, and a program that
// reads a file sets the few Go-only fields on the value LoadConfig
// returned. The yaml:"-" tags keep the Go-only fields out of the file (an
// attempt to set one there is an unknown-field error).
//
// Relative paths (working_dirs, plugins, skills, limits.offload_dir,
// sandbox.writable, mcp_servers' cwd, token_file, MCPConfigFiles, File)
// are relative to Dir; sandbox.writable entries and an MCP server's cwd
// may also start with ~/ for the home directory.
// The zero Config is a host with the built-in tools, mode default, the
// current directory as the working directory and no rules.
type Config struct {
	// Mode is the permission mode: default, accept_edits, explore, bypass
	// or dont_ask (upper case and hyphens are accepted); empty means
	// default.
	Mode permission.Mode `yaml:"mode"`
	// WorkingDirs are the folders edits may be allowed in; none means the
	// current directory.
	WorkingDirs []string `yaml:"working_dirs"`
	// Allow, Deny and Ask are permission rules, written in the file in
	// their text form ("Bash(npm test:*)", "Read").
	Allow Rules `yaml:"allow"`
	Deny  Rules `yaml:"deny"`
	Ask   Rules `yaml:"ask"`
	// Tools chooses the built-in tools the host offers and puts them in
	// groups.
	Tools ToolsConfig `yaml:"tools"`
	// ResetTools is on (the default) or off: off leaves the reset_tools
	// meta tool out, so the model cannot change which groups are active;
	// the groups marked active are the ones it gets (see
	// toolkit.Options.NoResetTools).
	ResetTools OnOff `yaml:"reset_tools"`
	// Plugins are folders of .wasm plugins: the files directly in a folder
	// join PluginGroup, each sub-folder is a tool group of its own (see
	// host.Folder).
	Plugins []string `yaml:"plugins"`
	// PluginGroup is the tool group of the .wasm files directly in the
	// plugin folders, one of Groups (or of the groups Register adds);
	// empty means the basic group.
	PluginGroup string `yaml:"plugin_group"`
	// Skills are folders of skills: a folder holding a SKILL.md, or one
	// holding skill folders at any depth. They are layers in this order:
	// a skill of a later folder overrides the skill of the same name of an
	// earlier one (Host.Skills().Overridden reports it), also while
	// Watch follows the folders.
	Skills []string `yaml:"skills"`
	// Grants are the capabilities of plugins, by plugin name (the file
	// name without .wasm), spelled as in a plugin's NAME.json sidecar.
	Grants Grants `yaml:"grants"`
	// Groups are the named tool groups.
	Groups []Group `yaml:"groups"`
	// MCPServers are the MCP servers whose tools the host offers, by
	// name (tools are named mcp__NAME__TOOL).
	MCPServers map[string]MCPServerConfig `yaml:"mcp_servers"`
	// Limits bound the results of tool calls.
	Limits Limits `yaml:"limits"`
	// Sandbox configures the OS sandbox of shell commands.
	Sandbox SandboxConfig `yaml:"sandbox"`
	// TokenFile holds the bearer token an HTTP server of this host
	// requires (the CLI's serve --http reads it; Open does not).
	TokenFile string `yaml:"token_file"`
	// AllowOrigins are Origin header values an HTTP server of this host
	// accepts besides its own (used by the CLI's serve --http; Open does
	// not read them).
	AllowOrigins []string `yaml:"allow_origins"`
	// Store is where sessions keep their state: "memory" (the default,
	// when empty) or a Redis URL, redis://[:PASSWORD@]HOST:PORT/DB (or
	// rediss:// for TLS), which several servers behind a load balancer
	// share (see toolkit/redisstore). Toolkit.Store, when set, wins.
	Store string `yaml:"store"`
	// StoreTTL is how long a session's state outlives its last use in a
	// shared store: the servers' session idle timeout. 0 means 30
	// minutes. The CLI's serve sets it from --session-idle.
	StoreTTL time.Duration `yaml:"-"`

	// Dir is the folder relative paths are resolved against; LoadConfig
	// sets it to the file's folder. Empty means the current directory.
	Dir string `yaml:"-"`
	// File is the configuration file: the one the Config was read from
	// (LoadConfig sets it), or the one the next start would read. Open
	// protects it, so that no tool call rewrites it unasked. Empty means
	// none.
	File string `yaml:"-"`
	// MCPConfigFiles are MCP client configuration files
	// ({"mcpServers": {...}}, see mcp.ParseServers) whose servers the host
	// connects to besides MCPServers. Open protects them.
	MCPConfigFiles []string `yaml:"-"`
	// TrustFile is the plugin trust record (see host.TrustRecord): a
	// module or group file that lies in a folder tool calls may write (a
	// working directory, a sandbox writable path) serves only as recorded
	// there, and `wasmtools plugins trust` records it. Empty means
	// host.DefaultTrustFile (WASMTOOLS_TRUST_FILE, else trust.json in the
	// user's configuration folder). A record that lies in a folder tool
	// calls may write is not read: nothing there serves. Open protects
	// the file. Not read from the configuration file, which may itself
	// lie in a working directory.
	TrustFile string `yaml:"-"`
	// Watch makes the host follow its plugin and skill folders: files
	// dropped, replaced or deleted update the tools while the host runs.
	// With Watch on, plugin folders load in the background (Open does not
	// wait for compiles; tools appear as they are ready, with OnChange) and
	// a plugin folder that does not exist yet is watched until it does.
	// Off, Open loads every folder before it returns.
	Watch bool `yaml:"-"`
	// Logger receives the logs of the host and of its parts; nil means
	// slog.Default().
	Logger *slog.Logger `yaml:"-"`
	// Version names the host to plugins and to MCP clients; empty means
	// "(devel)".
	Version string `yaml:"-"`
	// OnChange is called after tools or groups were added or removed (a
	// plugin or a skill was loaded, an MCP server's tool list changed).
	// The host's own MCP server follows such changes by itself.
	OnChange func(toolkit.Change) `yaml:"-"`
	// Toolkit are options of the toolkit (its session store, say). Open
	// replaces Permission with the context it builds from this Config;
	// Logger defaults to Config.Logger; the limits of Limits fill the
	// fields left zero; OnChange, if set, is called beside Config.OnChange.
	Toolkit toolkit.Options `yaml:"-"`
	// PluginHost are options of the Wasm plugin host (its compilation
	// cache folder, HTTP client, instance limit). Logger and Version
	// default to Config's.
	PluginHost host.Options `yaml:"-"`
	// Register, when set, registers the program's own tools and groups
	// (Go functions made with toolkit.NewFunc, say). It runs after the
	// built-in tools are registered and before plugins, skills and MCP
	// servers load, so its tools win name clashes with what loads later.
	// Tools may also be registered on Host.Toolkit after Open.
	Register func(tk *toolkit.Toolkit) error `yaml:"-"`
}

// Rules are permission rules. In the file they are written in their text
// form; a malformed one is an error that names its line. A
// []permission.Rule is assignable to Rules.
type Rules []permission.Rule

// UnmarshalYAML reads a list of rule texts.
func (r *Rules) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		var texts []string
		return n.Decode(&texts) // null is no rules; anything else, yaml's own error with the line
	}
	out := make(Rules, 0, len(n.Content))
	for _, item := range n.Content {
		var s string
		if err := item.Decode(&s); err != nil {
			return err
		}
		rule, err := permission.ParseRule(s)
		if err != nil {
			return fmt.Errorf("line %d: %w", item.Line, err)
		}
		out = append(out, rule)
	}
	*r = out
	return nil
}

// Grants are plugins' grants by plugin name. A map[string]abi.Grants is
// assignable to Grants.
type Grants map[string]abi.Grants

// UnmarshalYAML reads each plugin's grants through their JSON form, so
// that the file and a NAME.json sidecar use the same names (http_hosts,
// dirs, env, config, memory_mib, timeout_ms) and a misspelt one is an
// error.
func (g *Grants) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		var m map[string]any
		return n.Decode(&m) // yaml's own error, with the line
	}
	out := make(Grants, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		var name string
		if err := n.Content[i].Decode(&name); err != nil {
			return err
		}
		val := n.Content[i+1]
		var v any
		if err := val.Decode(&v); err != nil {
			return err
		}
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("line %d: %w", val.Line, err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var grants abi.Grants
		if err := dec.Decode(&grants); err != nil {
			return fmt.Errorf("line %d: grants: %w (fields: dirs, http_hosts, env, config, memory_mib, timeout_ms)", val.Line, err)
		}
		out[name] = grants
	}
	*g = out
	return nil
}

// ToolsConfig chooses the built-in tools (see builtin.Names for their
// names) and their groups.
type ToolsConfig struct {
	// Enable names the built-in tools to offer; empty means all of them
	// (with the one shell that suits the system: Bash, or PowerShell on
	// Windows; naming both offers both).
	Enable []string `yaml:"enable"`
	// Disable names built-in tools not to offer: they are not listed, so
	// the model does not try them.
	Disable []string `yaml:"disable"`
	// Groups puts built-in tools in named tool groups (one of Groups), by
	// tool name: {Bash: shell} offers Bash only once a session activates
	// the shell group with reset_tools.
	Groups map[string]string `yaml:"groups"`
}

// Group is a named tool group.
type Group struct {
	// Name and Description are required.
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Instructions are told to the model when the group is activated.
	Instructions string `yaml:"instructions"`
	// Active groups are active in a new session.
	Active bool `yaml:"active"`
}

// MCPServerConfig says how to reach one MCP server, as mcp.ServerConfig
// does; give Command (a stdio server) or URL (an HTTP server).
type MCPServerConfig struct {
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"`
	// Cwd is a stdio server's working directory (relative: to the
	// configuration file's folder; ~/ is the home folder); empty means
	// the user's home folder, never the agent's working directory.
	Cwd          string            `yaml:"cwd"`
	URL          string            `yaml:"url"`
	Headers      map[string]string `yaml:"headers"`
	Stateless    bool              `yaml:"stateless"`
	EnableTools  []string          `yaml:"enable_tools"`
	DisableTools []string          `yaml:"disable_tools"`
	// Group is the tool group the server's tools join; empty means basic.
	Group string `yaml:"group"`
	// TimeoutMS bounds each call; 0 means 60 s.
	TimeoutMS int `yaml:"timeout_ms"`
	// TrustReadOnlyHint lets the server's readOnlyHint make its tools
	// read-only (see mcp.ServerConfig): off, they ask like any other tool.
	TrustReadOnlyHint bool `yaml:"trust_read_only_hint"`
	// Sandbox runs a stdio server inside the OS sandbox (see
	// mcp.ServerConfig.Sandbox): it writes only its temporary directory
	// and Writable, and is not started where the sandbox cannot confine.
	Sandbox bool `yaml:"sandbox"`
	// Writable are the paths a sandboxed stdio server may change
	// (relative: to the configuration file's folder; ~/ is the home
	// folder), such as ~/.npm for a server npx starts.
	Writable []string `yaml:"writable"`
}

// Limits bound the results of tool calls.
type Limits struct {
	// MaxResultChars cuts longer results, offloading the rest; 0 means
	// the toolkit's default.
	MaxResultChars int `yaml:"max_result_chars"`
	// OffloadDir holds the full text of cut results, a folder per
	// session.
	OffloadDir string `yaml:"offload_dir"`
	// MaxOffloadBytes bounds those texts, all sessions together.
	MaxOffloadBytes int64 `yaml:"max_offload_bytes"`
}

// SandboxConfig configures the OS sandbox of shell commands.
type SandboxConfig struct {
	// Mode is auto, required or off; empty means auto.
	Mode sandbox.Mode `yaml:"mode"`
	// Network is on (the default) or off: off takes the network from
	// every command, not only in explore mode.
	Network OnOff `yaml:"network"`
	// Writable are more files and folders every command may change
	// (not in explore mode); relative to Config.Dir, or to the home
	// directory when they start with ~/.
	Writable []string `yaml:"writable"`
	// Helper is the program that confines itself and runs a command (see
	// sandbox.Options.Helper); empty means this program, whose main must
	// then call sandbox.Main first thing.
	Helper string `yaml:"-"`
}

// UnmarshalYAML reads the section and checks the mode, naming the line.
// (Fields are checked here because a custom unmarshaler's nodes are not
// decoded with the file's strict decoder.)
func (c *SandboxConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k := n.Content[i]; k.Value {
			case "mode", "network", "writable":
			default:
				return fmt.Errorf("line %d: sandbox: unknown field %q (fields: mode, network, writable)", k.Line, k.Value)
			}
		}
	}
	type plain SandboxConfig
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	m, err := sandbox.ParseMode(string(p.Mode))
	if err != nil {
		return fmt.Errorf("line %d: sandbox.mode: %w", n.Line, err)
	}
	if p.Mode != "" {
		p.Mode = m
	}
	*c = SandboxConfig(p)
	return nil
}

// OnOff is a switch: "on", "off", or "" for the default. The file may
// also say true, false, yes or no.
type OnOff string

// The values of an OnOff.
const (
	On  OnOff = "on"
	Off OnOff = "off"
)

// UnmarshalYAML accepts on, off, true, false, yes and no.
func (o *OnOff) UnmarshalYAML(n *yaml.Node) error {
	switch strings.ToLower(n.Value) {
	case "on", "true", "yes":
		*o = On
	case "off", "false", "no":
		*o = Off
	default:
		return fmt.Errorf("line %d: %q: write on or off", n.Line, n.Value)
	}
	return nil
}

// LoadConfig reads a configuration file. Unknown fields and malformed
// values are errors that name the line; an empty file is the zero
// Config. Dir is set to the file's folder and File to the file, both
// absolute. A missing file is an error that wraps fs.ErrNotExist.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("configuration: %w", err)
	}
	return ParseConfig(path, data)
}

// LoadFoundConfig reads a configuration file a program found, rather
// than one the operator named: wasmtools.yaml in the current directory,
// say. That folder is usually the agent's working directory, so a tool
// call could have written (or created) the file, and it is obeyed only as
// the operator approved it in the plugin trust record
// (host.DefaultTrustFile; `wasmtools plugins trust wasmtools.yaml`): its
// digest must be there, and the record must not lie in the current
// directory, in workingDirs, or in the working directories or writable
// paths the file names. The error says what to do otherwise; a missing
// file is an error that wraps fs.ErrNotExist. Read a file the operator
// named with LoadConfig.
func LoadFoundConfig(path string, workingDirs []string) (Config, error) {
	data, err := host.ReadConfigFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("configuration: %w", err)
	}
	record, err := host.DefaultTrustFile()
	if err != nil {
		return Config{}, err
	}
	cwd, err := filepath.Abs(".")
	if err != nil {
		return Config{}, err
	}
	// A record a tool call could write approves nothing: judged as the
	// host judges its own (Host.approvals), links included.
	recordIn := func(dirs []string) error {
		if programs.New("", dirs).Untrusted(record) {
			return fmt.Errorf("the trust record %s lies in %s, or is reached through a link there, where tool calls may write, so it approves no configuration; keep it outside (set %s)", record, strings.Join(dirs, ", "), host.TrustFileEnv)
		}
		return nil
	}
	if err := recordIn(append([]string{cwd}, workingDirs...)); err != nil {
		return Config{}, err
	}
	rec, err := host.ReadTrust(record)
	if err != nil {
		return Config{}, err
	}
	if err := rec.ConfigApproved(path, data); err != nil {
		abs, _ := filepath.Abs(path)
		reason := err.Error()
		var pe *host.PendingError
		if errors.As(err, &pe) {
			reason = pe.Reason
		}
		return Config{}, fmt.Errorf("%s was found, not named, where tool calls may write, and is not obeyed: %s. Review it, then run: wasmtools plugins trust %s (or name it with --config)", abs, reason, abs)
	}
	cfg, err := ParseConfig(path, data)
	if err != nil {
		return cfg, err
	}
	var named []string
	for _, d := range slices.Concat(cfg.WorkingDirs, cfg.Sandbox.Writable) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cfg.Dir, d)
		}
		named = append(named, filepath.Clean(d))
	}
	if err := recordIn(named); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// ParseConfig is LoadConfig of data read from path: a program that
// checks a configuration's bytes (against an approval, say) parses the
// very bytes it checked.
func ParseConfig(path string, data []byte) (Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) { // an empty file is no configuration
		return Config{}, fmt.Errorf("%s: %w (fields: %s)", path, err, configFields)
	}
	if err := c.validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Config{}, fmt.Errorf("configuration %s: %w", path, err)
	}
	c.File, c.Dir = abs, filepath.Dir(abs)
	return c, nil
}

// validate checks what the types do not: the mode, the groups, the MCP
// servers and the sandbox mode. Mode and Sandbox.Mode are normalised.
func (c *Config) validate() error {
	if c.Mode != "" {
		m, err := permission.ParseMode(string(c.Mode))
		if err != nil {
			return fmt.Errorf("mode: %w", err)
		}
		c.Mode = m
	}
	for i, g := range c.Groups {
		if g.Name == "" || g.Description == "" {
			return fmt.Errorf("groups[%d]: a group needs a name and a description", i)
		}
	}
	for _, n := range sortedKeys(c.MCPServers) {
		s := c.MCPServers[n]
		if (s.Command == "") == (s.URL == "") {
			return fmt.Errorf("mcp_servers.%s: give command (a stdio server) or url (an HTTP server)", n)
		}
		if s.URL != "" && (s.Sandbox || len(s.Writable) > 0) {
			return fmt.Errorf("mcp_servers.%s: sandbox and writable are for stdio servers (command); an HTTP server runs elsewhere", n)
		}
	}
	if c.Sandbox.Mode != "" {
		m, err := sandbox.ParseMode(string(c.Sandbox.Mode))
		if err != nil {
			return fmt.Errorf("sandbox.mode: %w", err)
		}
		c.Sandbox.Mode = m
	}
	if c.Sandbox.Network != "" && c.Sandbox.Network != On && c.Sandbox.Network != Off {
		return fmt.Errorf("sandbox.network: %q: write on or off", c.Sandbox.Network)
	}
	return nil
}

// resolve returns a clone of c with every path absolute (relative ones
// joined to Dir, ~/ in sandbox.writable expanded) and the working
// directories defaulted to the current directory.
func (c Config) resolve() (Config, error) {
	c = c.clone()
	dir := c.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return c, fmt.Errorf("find the current directory: %w; set Config.Dir (or give absolute paths and working_dirs)", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return c, fmt.Errorf("configuration folder %s: %w", dir, err)
	}
	c.Dir = abs
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(c.Dir, p)
	}
	rels := func(ps []string) []string {
		if ps == nil {
			return nil
		}
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = rel(p)
		}
		return out
	}
	c.WorkingDirs = rels(c.WorkingDirs)
	if len(c.WorkingDirs) == 0 {
		// The process's folder, not the configuration file's: a host
		// works where it was started, as the command line does.
		wd, err := os.Getwd()
		if err != nil {
			return c, fmt.Errorf("find the current directory: %w; give the working directories (working_dirs)", err)
		}
		c.WorkingDirs = []string{wd}
	}
	c.Plugins = rels(c.Plugins)
	c.Skills = rels(c.Skills)
	c.MCPConfigFiles = rels(c.MCPConfigFiles)
	if c.File != "" {
		c.File = rel(c.File)
	}
	if c.TrustFile == "" {
		f, err := host.DefaultTrustFile()
		if err != nil {
			return c, err
		}
		c.TrustFile = f
	}
	c.TrustFile = rel(c.TrustFile)
	if c.TokenFile != "" {
		c.TokenFile = rel(c.TokenFile)
	}
	if c.Limits.OffloadDir != "" {
		c.Limits.OffloadDir = rel(c.Limits.OffloadDir)
	}
	if len(c.MCPServers) > 0 {
		servers := make(map[string]MCPServerConfig, len(c.MCPServers))
		for name, s := range c.MCPServers {
			if rest, ok := strings.CutPrefix(s.Cwd, "~/"); ok {
				home, err := os.UserHomeDir()
				if err != nil {
					return c, fmt.Errorf("mcp_servers.%s.cwd %s: %w", name, s.Cwd, err)
				}
				s.Cwd = filepath.Join(home, rest)
			}
			if s.Cwd != "" {
				s.Cwd = rel(s.Cwd)
			}
			var writable []string
			for _, w := range s.Writable {
				if rest, ok := strings.CutPrefix(w, "~/"); ok {
					home, err := os.UserHomeDir()
					if err != nil {
						return c, fmt.Errorf("mcp_servers.%s.writable %s: %w", name, w, err)
					}
					w = filepath.Join(home, rest)
				}
				writable = append(writable, rel(w))
			}
			s.Writable = writable
			servers[name] = s
		}
		c.MCPServers = servers
	}
	var writable []string
	for _, w := range c.Sandbox.Writable {
		if rest, ok := strings.CutPrefix(w, "~/"); ok {
			home, err := os.UserHomeDir()
			if err != nil {
				return c, fmt.Errorf("sandbox.writable %s: %w", w, err)
			}
			w = filepath.Join(home, rest)
		}
		writable = append(writable, rel(w))
	}
	c.Sandbox.Writable = writable
	return c, nil
}

// clone returns c with its own copies of the slices and maps that Open
// resolves or keeps (not of the values inside them), so that a host never
// shares them with its caller.
func (c Config) clone() Config {
	c.WorkingDirs = slices.Clone(c.WorkingDirs)
	c.Allow, c.Deny, c.Ask = slices.Clone(c.Allow), slices.Clone(c.Deny), slices.Clone(c.Ask)
	c.Plugins, c.Skills = slices.Clone(c.Plugins), slices.Clone(c.Skills)
	c.Groups = slices.Clone(c.Groups)
	c.MCPConfigFiles = slices.Clone(c.MCPConfigFiles)
	c.AllowOrigins = slices.Clone(c.AllowOrigins)
	c.Sandbox.Writable = slices.Clone(c.Sandbox.Writable)
	c.Grants = maps.Clone(c.Grants)
	c.MCPServers = maps.Clone(c.MCPServers)
	return c
}

// servers returns the configured MCP servers, by name.
func (c *Config) servers() []mcp.ServerConfig {
	var out []mcp.ServerConfig
	for _, name := range sortedKeys(c.MCPServers) {
		s := c.MCPServers[name]
		out = append(out, mcp.ServerConfig{
			Name: name, Command: s.Command, Args: s.Args, Env: s.Env, Dir: s.Cwd, URL: s.URL, Headers: s.Headers,
			Stateless: s.Stateless, EnableTools: s.EnableTools, DisableTools: s.DisableTools,
			Timeout:           time.Duration(s.TimeoutMS) * time.Millisecond,
			TrustReadOnlyHint: s.TrustReadOnlyHint, Sandbox: s.Sandbox, Writable: s.Writable,
		})
	}
	return out
}

// where prefixes an error message with the configuration file, if any.
func (c *Config) where() string {
	if c.File == "" {
		return ""
	}
	return c.File + ": "
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
