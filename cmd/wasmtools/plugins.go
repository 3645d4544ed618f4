package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	wt "github.com/wasmtools/wasmtools" // as wt: the tests name a function wasmtools
	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/host"
)

const pluginsHelp = `Usage: wasmtools plugins trust|list|revoke [flags] [PATH...]

A plugin folder that lies where tool calls may write (a working directory,
a sandbox writable path) could hold a module an agent dropped there, or a
sidecar that grants a module more than you meant. The host serves no file
of such a folder on its own say: a module serves only once you trust it,
exactly as it is (its sha256 and the sha256 of its sidecar NAME.json), and
with the sidecar as you trusted it; a group file (group.yaml) the same.
A file that changes waits again. Folders outside the working directories
are yours and serve as they are.

The same holds for wasmtools.yaml found in the current directory (the
default working directory): the host reads it only as you trusted it.
A configuration named with --config is your word and is read as it is.
With a module, "trust" also records the grants your configuration gives
its name (--config, else wasmtools.yaml here): the module serves only
while the configuration gives exactly those.

The approvals are kept in the trust record, outside every working
directory: $WASMTOOLS_TRUST_FILE, else wasmtools/trust.json in your
configuration folder (~/.config on Linux). A running "wasmtools serve"
follows it: a module you trust serves within a moment, one you revoke
stops.

Subcommands:

	trust PATH...   trust module files, group files, configuration files
	                (.yaml), or every module and group file in a plugin
	                folder, as they are now; prints the grants being
	                trusted
	list [DIR...]   list the trusted files and whether each is still what
	                was trusted; with plugin folders, also the files in
	                them that wait for trust
	revoke PATH...  forget the approvals of files, or of every file below
	                a folder

Examples:

	wasmtools plugins trust plugins/
	wasmtools plugins trust wasmtools.yaml
	wasmtools plugins list --json plugins/ | jq '.pending'
	wasmtools plugins revoke plugins/hash.wasm

Exit status: 0 on success, 1 when a file could not be read or the record
written, 2 on a usage error.
`

func runPlugins(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, pluginsHelp)
		return &exitError{code: exitUsage}
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.stdout, pluginsHelp)
		return flag.ErrHelp
	case "trust", "list", "revoke":
	default:
		return usageErrorf("unknown plugins subcommand %q: use trust, list or revoke", sub)
	}
	fs := newFlagSet(e, "plugins "+sub, pluginsHelp)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	trustFile := fs.String("trust-file", "", "the trust record (default: $WASMTOOLS_TRUST_FILE, else wasmtools/trust.json in the user's configuration folder)")
	configPath := fs.String("config", "", "the configuration whose grants (by plugin name) are trusted with each module (default: wasmtools.yaml in the current directory, if present)")
	pos, err := parseArgs(e, fs, args)
	if err != nil {
		return err
	}
	file := *trustFile
	if file == "" {
		if file, err = host.DefaultTrustFile(); err != nil {
			return err
		}
	}
	rec, err := host.ReadTrust(file)
	if err != nil {
		return err
	}
	switch sub {
	case "trust":
		grants, err := configGrants(*configPath)
		if err != nil {
			return err
		}
		return trustPlugins(e, rec, file, pos, grants, *asJSON)
	case "revoke":
		return revokePlugins(e, rec, file, pos, *asJSON)
	}
	return listPlugins(e, rec, file, pos, *asJSON)
}

// trustedEntry is one approval as the plugins command prints it.
type trustedEntry struct {
	Path          string      `json:"path"`
	Kind          string      `json:"kind"` // module or group
	SHA256        string      `json:"sha256"`
	SidecarSHA256 string      `json:"sidecar_sha256,omitempty"`
	Grants        *abi.Grants `json:"grants,omitempty"`
	ConfigGrants  *abi.Grants `json:"config_grants,omitempty"`
	// Status is trusted (the file is as approved), changed or missing
	// (it waits for trust again), in list.
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func moduleEntry(m host.TrustedModule) trustedEntry {
	te := trustedEntry{Path: m.Path, Kind: "module", SHA256: m.SHA256, SidecarSHA256: m.SidecarSHA256, ConfigGrants: m.ConfigGrants}
	if m.Sidecar != nil {
		g := m.Sidecar.Grants
		te.Grants = &g
	}
	return te
}

// configGrants reads the grants of a configuration file by plugin name:
// the file given, else wasmtools.yaml in the current directory if there
// is one.
func configGrants(path string) (map[string]abi.Grants, error) {
	explicit := path != ""
	if !explicit {
		path = wt.ConfigFile
	}
	cfg, err := wt.LoadConfig(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return cfg.Grants, nil
}

func trustPlugins(e *env, rec *host.TrustRecord, file string, paths []string, grants map[string]abi.Grants, asJSON bool) error {
	if len(paths) == 0 {
		return usageErrorf("trust takes module files, group files or plugin folders")
	}
	var out []trustedEntry
	for _, p := range paths {
		if isConfigFile(p) {
			tf, err := rec.TrustConfig(p)
			if err != nil {
				return &exitError{code: exitToolError, err: err}
			}
			out = append(out, trustedEntry{Path: tf.Path, Kind: "config", SHA256: tf.SHA256})
			continue
		}
		modules, groups, err := host.PluginFiles(p)
		if err != nil {
			return &exitError{code: exitToolError, err: fmt.Errorf("%s: %w", p, err)}
		}
		if len(modules)+len(groups) == 0 {
			return &exitError{code: exitToolError, err: fmt.Errorf("%s holds no .wasm or group file to trust", p)}
		}
		for _, m := range modules {
			name := strings.TrimSuffix(filepath.Base(m), filepath.Ext(m))
			tm, err := rec.TrustModule(m, grants[name])
			if err != nil {
				return &exitError{code: exitToolError, err: err}
			}
			out = append(out, moduleEntry(tm))
		}
		for _, g := range groups {
			tf, err := rec.TrustGroupFile(g)
			if err != nil {
				return &exitError{code: exitToolError, err: err}
			}
			out = append(out, trustedEntry{Path: tf.Path, Kind: "group", SHA256: tf.SHA256})
		}
	}
	if err := rec.Write(file); err != nil {
		return &exitError{code: exitToolError, err: err}
	}
	if asJSON {
		return writeJSON(e.stdout, struct {
			TrustFile string         `json:"trust_file"`
			Trusted   []trustedEntry `json:"trusted"`
		}{file, out})
	}
	for _, te := range out {
		fmt.Fprintf(e.stdout, "trusted %s %s\n  sha256 %s\n", te.Kind, te.Path, te.SHA256)
		if te.Kind == "module" {
			fmt.Fprintf(e.stdout, "  grants: %s\n", describeGrants(te.Grants))
			if te.ConfigGrants != nil {
				fmt.Fprintf(e.stdout, "  grants of the configuration: %s\n", describeGrants(te.ConfigGrants))
			}
		}
	}
	fmt.Fprintf(e.stdout, "recorded in %s\n", file)
	return nil
}

func revokePlugins(e *env, rec *host.TrustRecord, file string, paths []string, asJSON bool) error {
	if len(paths) == 0 {
		return usageErrorf("revoke takes module files, group files or plugin folders")
	}
	var removed []string
	for _, p := range paths {
		removed = append(removed, rec.Revoke(p)...)
	}
	if len(removed) > 0 {
		if err := rec.Write(file); err != nil {
			return &exitError{code: exitToolError, err: err}
		}
	}
	if asJSON {
		return writeJSON(e.stdout, struct {
			TrustFile string   `json:"trust_file"`
			Revoked   []string `json:"revoked"`
		}{file, append([]string{}, removed...)})
	}
	if len(removed) == 0 {
		fmt.Fprintf(e.stdout, "nothing under %s was trusted (%s)\n", strings.Join(paths, ", "), file)
		return nil
	}
	for _, p := range removed {
		fmt.Fprintf(e.stdout, "revoked %s\n", p)
	}
	return nil
}

func listPlugins(e *env, rec *host.TrustRecord, file string, dirs []string, asJSON bool) error {
	trusted := []trustedEntry{}
	for _, m := range rec.Modules {
		te := moduleEntry(m)
		te.Status, te.Reason = fileStatus(func() error { _, err := rec.Module(m.Path); return err })
		trusted = append(trusted, te)
	}
	for _, g := range rec.Groups {
		te := trustedEntry{Path: g.Path, Kind: "group", SHA256: g.SHA256}
		te.Status, te.Reason = fileStatus(func() error { _, err := rec.GroupFile(g.Path); return err })
		trusted = append(trusted, te)
	}
	for _, c := range rec.Configs {
		te := trustedEntry{Path: c.Path, Kind: "config", SHA256: c.SHA256}
		te.Status, te.Reason = fileStatus(func() error {
			data, err := host.ReadConfigFile(c.Path)
			if err != nil {
				return &host.PendingError{Path: c.Path, Reason: err.Error()}
			}
			return rec.ConfigApproved(c.Path, data)
		})
		trusted = append(trusted, te)
	}
	pending := map[string]string{}
	for _, d := range dirs {
		modules, groups, err := host.PluginFiles(d)
		if err != nil {
			return &exitError{code: exitToolError, err: fmt.Errorf("%s: %w", d, err)}
		}
		for _, m := range modules {
			if _, err := rec.Module(m); err != nil {
				pending[m] = pendingReason(err)
			}
		}
		for _, g := range groups {
			if _, err := rec.GroupFile(g); err != nil {
				pending[g] = pendingReason(err)
			}
		}
	}
	if asJSON {
		type pendingFile struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		}
		out := []pendingFile{}
		for _, p := range slices.Sorted(maps.Keys(pending)) {
			out = append(out, pendingFile{p, pending[p]})
		}
		return writeJSON(e.stdout, struct {
			TrustFile string         `json:"trust_file"`
			Trusted   []trustedEntry `json:"trusted"`
			Pending   []pendingFile  `json:"pending"`
		}{file, trusted, out})
	}
	fmt.Fprintf(e.stdout, "trust record: %s\n", file)
	if len(trusted) > 0 {
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\nSTATUS\tKIND\tPATH\tGRANTS")
		for _, te := range trusted {
			grants := "-"
			if te.Kind == "module" {
				grants = describeGrants(te.Grants)
				if te.ConfigGrants != nil {
					grants += "; configuration: " + describeGrants(te.ConfigGrants)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", te.Status, te.Kind, te.Path, grants)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(e.stdout, "nothing is trusted yet")
	}
	for _, p := range slices.Sorted(maps.Keys(pending)) {
		fmt.Fprintf(e.stdout, "\nPENDING %s: %s\n", p, pending[p])
	}
	return nil
}

// fileStatus runs a check of a trusted file: trusted, or changed or
// missing with the reason.
func fileStatus(check func() error) (status, reason string) {
	err := check()
	var pe *host.PendingError
	switch {
	case err == nil:
		return "trusted", ""
	case errors.As(err, &pe) && strings.Contains(pe.Reason, "changed"):
		return "changed", pe.Reason
	case errors.As(err, &pe):
		return "missing", pe.Reason
	}
	return "missing", err.Error()
}

func pendingReason(err error) string {
	var pe *host.PendingError
	if errors.As(err, &pe) {
		return pe.Reason
	}
	return err.Error()
}

// isConfigFile reports a configuration file (.yaml or .yml, not a
// plugin folder's group file).
func isConfigFile(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return (ext == ".yaml" || ext == ".yml") && filepath.Base(p) != host.GroupFileName
}

// describeGrants says in one line what a sidecar grants.
func describeGrants(g *abi.Grants) string {
	if g == nil {
		return "none (no sidecar)"
	}
	var parts []string
	for _, d := range g.Dirs {
		mode := "read"
		if d.Write {
			mode = "read-write"
		}
		parts = append(parts, fmt.Sprintf("%s %s", mode, d.Host))
	}
	if len(g.HTTPHosts) > 0 {
		parts = append(parts, "http "+strings.Join(g.HTTPHosts, ","))
	}
	if len(g.Env) > 0 {
		parts = append(parts, "env "+strings.Join(slices.Sorted(maps.Keys(g.Env)), ","))
	}
	if len(g.Config) > 0 {
		parts = append(parts, "config "+strings.Join(slices.Sorted(maps.Keys(g.Config)), ","))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
