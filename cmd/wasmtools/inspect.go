package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	wt "github.com/wasmtools/wasmtools" // as wt: the tests name a function wasmtools
	"github.com/wasmtools/wasmtools/host"
	"github.com/wasmtools/wasmtools/sandbox"
)

const inspectHelp = `Usage: wasmtools inspect [flags] FILE.wasm

Inspect describes any WebAssembly module, plugin or not: its size and
sha256, which ABI it speaks (wasmtools, servlet, a plain Extism module
with a manifest, or none), its exports and imports (marking imports the
host does not provide), its tools, and the grants it asks for against
the grants it is given by its sidecar file (FILE.json beside FILE.wasm).
Nothing is granted to the module while it is inspected beyond what the
sidecar gives.

Examples:

	wasmtools inspect build/plugins/hash.wasm
	wasmtools inspect --json plugin.wasm | jq '.missing_grants'

The exit status is 0 when the module was inspected (loadable or not; see
"loadable" and "problem"), 1 when the file could not be read, 2 on a
usage error.
`

func runInspect(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "inspect", inspectHelp)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parseArgs(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("inspect takes one .wasm file, got %d arguments", len(pos))
	}
	h, err := host.New(host.Options{Logger: e.log, Version: versionString(), CacheDir: "off"})
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	// The module's tool names are checked against the built-in tools, as
	// a plugin folder would (a plugin's "bash" may not pose as Bash).
	// The sandbox is off: nothing runs here.
	builtins, err := wt.Open(ctx, wt.Config{Logger: e.log, Version: versionString(), Sandbox: wt.SandboxConfig{Mode: sandbox.ModeOff}})
	if err != nil {
		return err
	}
	defer builtins.Close()
	r, err := h.Inspect(ctx, pos[0], host.Config{}, host.AgainstToolkit(builtins.Toolkit()))
	if err != nil {
		return &exitError{code: exitToolError, err: err}
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	printReport(e, r)
	return nil
}

func printReport(e *env, r *host.Report) {
	w := e.stdout
	fmt.Fprintf(w, "file:     %s (%d bytes)\nsha256:   %s\nkind:     %s\n", r.File, r.Size, r.SHA256, r.Kind)
	if r.Name != "" {
		fmt.Fprintf(w, "name:     %s %s\n", r.Name, r.Version)
	}
	if r.ABI != 0 {
		fmt.Fprintf(w, "abi:      %d\n", r.ABI)
	}
	if r.Loadable {
		fmt.Fprintln(w, "loadable: yes")
	} else {
		fmt.Fprintf(w, "loadable: no\nproblem:  %s\n", r.Problem)
	}
	if len(r.Tools) > 0 {
		fmt.Fprintln(w, "\ntools:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, t := range r.Tools {
			flags := []string{}
			if t.ReadOnly {
				flags = append(flags, "read-only")
			}
			if t.ConcurrencySafe {
				flags = append(flags, "concurrency-safe")
			}
			flags = append(flags, t.Hooks...)
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, strings.Join(flags, ","), firstSentence(t.Description))
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nexports:")
	for _, f := range r.Exports {
		fmt.Fprintf(w, "  %s(%s) -> (%s)\n", f.Name, strings.Join(f.Params, ", "), strings.Join(f.Results, ", "))
	}
	fmt.Fprintln(w, "\nimports:")
	for _, f := range r.Imports {
		mark := ""
		if f.Provided != nil && !*f.Provided {
			mark = "   <- not provided by wasmtools"
		}
		fmt.Fprintf(w, "  %s.%s(%s) -> (%s)%s\n", f.Module, f.Name, strings.Join(f.Params, ", "), strings.Join(f.Results, ", "), mark)
	}
	if r.GrantsRequested != nil || len(r.Missing) > 0 {
		req, _ := json.Marshal(r.GrantsRequested)
		given, _ := json.Marshal(r.GrantsGiven)
		fmt.Fprintf(w, "\ngrants requested: %s\ngrants given:     %s\n", req, given)
		for _, m := range r.Missing {
			fmt.Fprintf(w, "  missing: %s\n", m)
		}
	}
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
