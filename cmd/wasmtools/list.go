package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/wasmtools/wasmtools/host"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/skills"
	"github.com/wasmtools/wasmtools/toolkit"
)

const listHelp = `Usage: wasmtools list [flags]

List prints the registered tools, the named tool groups and the skills
of the --skills folders (broken ones with the reason, overridden ones
with the folder that overrides them). A tool is
active when its group is active in a new session: tools without a group
(the "basic" group) always are; a named group is active by default when
its configuration says so, and a session switches groups on and off by
calling reset_tools. The permission flags are accepted as by call and
check; they do not change what is listed.

Examples:

	wasmtools list
	wasmtools list --json | jq -r '.tools[] | select(.read_only) | .name'
	wasmtools list --skills ./skills --prompt >> system-prompt.md

--prompt prints only the system-prompt fragment that lists the skills a
new session sees and tells the model to read them with the Skill tool.

With --json the output is one object:

	{"tools": [{"name", "group", "active", "read_only", "concurrency_safe", "source",
	            "plugin_name", "plugin_version"}],
	 "groups": [{"name", "description", "active"}],
	 "skills": [{"name", "description", "dir", "group", "activates", "allowed_tools", "license", "metadata"}],
	 "broken_skills": [{"path", "error", "serving"}],
	 "overridden_skills": [{"name", "dir", "shadowed"}],
	 "broken_plugins": [{"path", "error"}],
	 "skills_prompt": "...",
	 "sandbox": {"mode", "enforced", "supported", "abi", "network",
	             "network_confinement", "writable", "reason"}}

Skill folders are layers, in the order given (the file's skills: first,
then each --skills): a skill of a later folder overrides the skill of
the same name of an earlier folder. "overridden_skills" lists each skill
that does not serve for that reason: its name, the folder of the skill
that serves ("dir") and its own folder ("shadowed"). Two skills of one
name in the same folder are a conflict, listed in "broken_skills".

"sandbox" is the OS sandbox of shell commands (--sandbox, sandbox: in
wasmtools.yaml): its mode (auto, required, off), whether commands run
confined, the kernel's Landlock ABI version (0: none), whether the
network is on for calls that are not read-only, how it is turned off,
the paths writable besides the working directories, and why commands
are not confined when they are not.
`

// listedTool is a tool as list prints it.
type listedTool struct {
	Name            string `json:"name"`
	Group           string `json:"group"`
	Active          bool   `json:"active"`
	ReadOnly        bool   `json:"read_only"`
	ConcurrencySafe bool   `json:"concurrency_safe"`
	Source          string `json:"source"`
	// PluginName and PluginVersion are what a Wasm plugin says of itself
	// (its schema's name and version), when it does.
	PluginName    string `json:"plugin_name,omitempty"`
	PluginVersion string `json:"plugin_version,omitempty"`
}

// listedGroup is a tool group as list prints it.
type listedGroup struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Active      bool   `json:"active"`
}

func runList(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "list", listHelp)
	var pf permFlags
	pf.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	promptOnly := fs.Bool("prompt", false, "print only the skills' system-prompt fragment")
	pos, err := parseArgs(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("list takes no arguments, got %q", pos)
	}
	h, err := pf.open(ctx, e, false, toolkit.Options{})
	if err != nil {
		return err
	}
	defer h.Close()
	tk := h.Toolkit()
	active, err := tk.ActiveGroups(ctx, "cli")
	if err != nil {
		return err
	}

	tools := []listedTool{}
	for _, t := range tk.Tools() {
		lt := listedTool{
			Name:            t.Spec.Name,
			Group:           t.Group,
			Active:          t.Group == toolkit.BasicGroup || slices.Contains(active, t.Group),
			ReadOnly:        t.Spec.ReadOnly,
			ConcurrencySafe: t.Spec.ConcurrencySafe,
			Source:          t.Spec.Source.String(),
		}
		if tool, ok := tk.Tool(t.Spec.Name); ok {
			if pt, ok := tool.(*host.Tool); ok {
				lt.PluginName, lt.PluginVersion = pt.Plugin().Schema.Name, pt.Plugin().Schema.Version
			}
		}
		tools = append(tools, lt)
	}
	groups := []listedGroup{}
	for _, g := range tk.Groups() {
		groups = append(groups, listedGroup{Name: g.Name, Description: g.Description, Active: slices.Contains(active, g.Name)})
	}

	visible, broken, overridden := []skills.Skill{}, []skills.Broken{}, []skills.Override{}
	if lib := h.Skills(); lib != nil {
		for _, s := range lib.Skills() {
			if s.Group == "" || slices.Contains(active, s.Group) {
				visible = append(visible, s)
			}
		}
		broken = lib.Broken()
		overridden = lib.Overridden()
	}
	brokenPlugins, pendingPlugins := []brokenPlugin{}, []brokenPlugin{}
	for _, f := range h.Folders() {
		failed := f.Failed()
		for _, p := range slices.Sorted(maps.Keys(failed)) {
			brokenPlugins = append(brokenPlugins, brokenPlugin{p, failed[p]})
		}
		pending := f.Pending()
		for _, p := range slices.Sorted(maps.Keys(pending)) {
			pendingPlugins = append(pendingPlugins, brokenPlugin{p, pending[p]})
		}
	}
	prompt := skills.Prompt(visible)
	if *promptOnly {
		_, err := io.WriteString(e.stdout, prompt)
		return err
	}

	if *asJSON {
		return writeJSON(e.stdout, struct {
			Tools            []listedTool      `json:"tools"`
			Groups           []listedGroup     `json:"groups"`
			Skills           []skills.Skill    `json:"skills"`
			BrokenSkills     []skills.Broken   `json:"broken_skills"`
			OverriddenSkills []skills.Override `json:"overridden_skills"`
			BrokenPlugins    []brokenPlugin    `json:"broken_plugins"`
			PendingPlugins   []brokenPlugin    `json:"pending_plugins"`
			SkillsPrompt     string            `json:"skills_prompt"`
			Sandbox          sandbox.Status    `json:"sandbox"`
		}{tools, groups, visible, broken, overridden, brokenPlugins, pendingPlugins, prompt, h.Sandbox().Status()})
	}
	defer printSandbox(e.stdout, h.Sandbox().Status())
	defer printSkills(e.stdout, visible, broken, overridden, brokenPlugins, pendingPlugins)
	if len(tools) == 0 {
		fmt.Fprintf(e.stdout, "No tools are registered. The built-in tools and plugins are not in this build yet;\nset %s=1 to try the two demo tools.\n", demoToolsEnv)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tGROUP\tACTIVE\tREAD-ONLY\tCONCURRENCY-SAFE\tSOURCE")
	for _, t := range tools {
		source := t.Source
		if about := strings.TrimSpace(t.PluginName + " " + t.PluginVersion); about != "" {
			source += " (" + about + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Group, yesNo(t.Active), yesNo(t.ReadOnly), yesNo(t.ConcurrencySafe), source)
	}
	if err := tw.Flush(); err != nil || len(groups) == 0 {
		return err
	}
	fmt.Fprintln(e.stdout)
	tw = tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tACTIVE\tDESCRIPTION")
	for _, g := range groups {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", g.Name, yesNo(g.Active), g.Description)
	}
	return tw.Flush()
}

// printSkills prints the skills table, the broken and the overridden
// skills and the broken plugins and those waiting for trust, if any.
func printSkills(w io.Writer, visible []skills.Skill, broken []skills.Broken, overridden []skills.Override, brokenPlugins, pendingPlugins []brokenPlugin) {
	if len(visible) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SKILL\tGROUP\tACTIVATES\tDESCRIPTION")
		for _, s := range visible {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, cmp.Or(s.Group, "-"), cmp.Or(s.Activates, "-"), s.Description)
		}
		_ = tw.Flush()
	}
	for _, b := range broken {
		fmt.Fprintf(w, "\nBROKEN SKILL %s: %s", b.Path, b.Err)
		if b.Serving != "" {
			fmt.Fprintf(w, " (still serving the last good version of %s)", b.Serving)
		}
		fmt.Fprintln(w)
	}
	for _, o := range overridden {
		// Not a fault, but worth a line: an operator who edits the
		// shadowed copy would otherwise wonder why nothing changes.
		fmt.Fprintf(w, "\nOVERRIDDEN SKILL %s in %s: %s serves instead (a later skills folder wins)\n", o.Name, o.Shadowed, cmp.Or(o.Dir, "an in-memory skill"))
	}
	for _, b := range brokenPlugins {
		fmt.Fprintf(w, "\nBROKEN PLUGIN %s: %s\n", b.Path, b.Err)
	}
	for _, b := range pendingPlugins {
		fmt.Fprintf(w, "\nPENDING PLUGIN %s\n", b.Err)
	}
}

// brokenPlugin is a plugin file that failed to load, or waits for the
// operator's trust, as list prints it.
type brokenPlugin struct {
	Path string `json:"path"`
	Err  string `json:"error"`
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// writeJSON writes v as indented JSON, without escaping <, > and &.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
