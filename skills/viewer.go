package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/permission/pathpolicy"
	"github.com/wasmtools/wasmtools/toolkit"
)

// ViewerName is the name of the skill viewer tool.
const ViewerName = "Skill"

// maxListedFiles caps the file list an error message shows.
const maxListedFiles = 50

var viewerSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "skill": {"type": "string", "description": "Name of the skill, as listed in the system prompt."},
    "path": {"type": "string", "description": "A file inside the skill's folder, relative to it. Default SKILL.md."}
  },
  "required": ["skill"],
  "additionalProperties": false
}`)

// Viewer is the skill viewer tool: it returns a skill's SKILL.md body or
// one of its files, and activates the tool group bound to the skill. Like
// every tool it is safe for concurrent use by any number of sessions, and
// reads the library's current snapshot at each call.
type Viewer struct {
	lib   *Library
	tk    *toolkit.Toolkit
	paths *pathpolicy.Policy
}

var (
	_ toolkit.ForeignRuleMatcher     = (*Viewer)(nil)
	_ toolkit.ContextReadOnlyChecker = (*Viewer)(nil)
)

// NewViewer returns the viewer of lib's skills. tk is the toolkit the
// viewer is registered on: it tells which groups are active (skills of an
// inactive group are invisible) and which groups exist.
func NewViewer(lib *Library, tk *toolkit.Toolkit) *Viewer {
	return &Viewer{lib: lib, tk: tk, paths: pathpolicy.New(pathpolicy.Options{})}
}

// maxEnumSkills is how many skill names the viewer's schema lists; past
// it the schema takes any name (the description still lists the first).
const maxEnumSkills = 200

// Spec implements toolkit.Tool. The description names the skills loaded
// now and the schema's "skill" takes exactly their names, so a model sees
// which exist without reading the system prompt; Attach registers the
// viewer again when the library changes, so both follow hot reloads.
func (v *Viewer) Spec() toolkit.Spec {
	desc := "Reads a skill: its SKILL.md instructions, or another file of the skill given by path. " +
		"Skills are not tools: read a skill before doing the task it describes, then follow it."
	schema := viewerSchema
	if v.lib != nil {
		// Skills of a tool group are hidden while it is inactive: only the
		// others are named, and the names constrain the schema only when
		// there are no others.
		all := v.lib.Skills()
		var visible []Skill
		for _, s := range all {
			if s.Group == "" {
				visible = append(visible, s)
			}
		}
		names := skillNames(visible)
		if len(names) > 0 {
			shown := names
			if len(shown) > 40 {
				shown = append(shown[:40:40], fmt.Sprintf("and %d more", len(names)-40))
			}
			desc += " Skills: " + strings.Join(shown, ", ") + "."
		}
		if len(names) > 0 && len(names) == len(all) && len(names) <= maxEnumSkills {
			if b, err := viewerSchemaWithNames(names); err == nil {
				schema = b
			}
		}
	}
	return toolkit.Spec{
		Name:        ViewerName,
		Description: desc,
		InputSchema: schema,
		// Not concurrency-safe: activating a skill's group reads and
		// writes the session's active groups, as reset_tools does.
		ConcurrencySafe: false,
		ReadOnly:        true,
		Coordination:    true,
		StateInjected:   true,
		Source:          toolkit.Source{Kind: toolkit.SourceMeta, Name: "skills"},
	}
}

// skillNames returns the names of skills.
func skillNames(list []Skill) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.Name
	}
	return out
}

// viewerSchemaWithNames is the viewer's schema with "skill" limited to
// names.
func viewerSchemaWithNames(names []string) (json.RawMessage, error) {
	var schema map[string]any
	if err := json.Unmarshal(viewerSchema, &schema); err != nil {
		return nil, err
	}
	props := schema["properties"].(map[string]any)
	skill := props["skill"].(map[string]any)
	skill["enum"] = names
	return json.Marshal(schema)
}

// CheckPermissions implements toolkit.Tool: reading a skill is allowed
// (the viewer keeps reads inside the skill's folder), but a file of a
// skill's folder is judged as Read judges it: a sensitive file (a key, a
// credential store; by name or through a link) asks, and Read's deny and
// ask rules apply to it (MatchForeignRule). A skill folder is often part
// of the workspace; the viewer must not be the way around Read.
func (v *Viewer) CheckPermissions(_ context.Context, in toolkit.Input, _ *permission.Context) (permission.Decision, error) {
	if what, ok := v.sensitive(in); ok {
		return permission.AskDecision(fmt.Sprintf("Skill would read the sensitive file %s.", what), "sensitive path "+what), nil
	}
	return permission.AllowDecision("skills are read-only instructions"), nil
}

// IsReadOnlyIn implements toolkit.ContextReadOnlyChecker: reading a
// sensitive file is never automatic, as for Read.
func (v *Viewer) IsReadOnlyIn(in toolkit.Input, _ *permission.Context) bool {
	_, sensitive := v.sensitive(in)
	return !sensitive
}

// MatchForeignRule implements toolkit.ForeignRuleMatcher: a Read rule
// hits the file of a skill it names.
func (v *Viewer) MatchForeignRule(rule permission.Rule, in toolkit.Input, pc *permission.Context) permission.Match {
	if rule.Tool != "Read" {
		return permission.NoMatch
	}
	target, ok := v.target(in)
	if !ok {
		return permission.NoMatch
	}
	if rule.Content == "" {
		return permission.Matches
	}
	var dirs []string
	if pc != nil {
		dirs = pc.WorkingDirs
	}
	return permission.MatchOf(v.paths.Match(rule.Content, target, "/", dirs, pathpolicy.Loose))
}

// sensitive reports the file a call would read when it is sensitive.
func (v *Viewer) sensitive(in toolkit.Input) (string, bool) {
	target, ok := v.target(in)
	if !ok {
		return "", false
	}
	return v.paths.SensitivePath(target, "/")
}

// target is the file on disk a call names: the skill's SKILL.md or the
// file of its folder given by path; ok is false for a skill without a
// folder, or an unknown one (the call then fails without reading).
func (v *Viewer) target(in toolkit.Input) (string, bool) {
	if v.lib == nil {
		return "", false
	}
	name, file := in.String("skill"), in.String("path")
	if file == "" {
		file = FileName
	}
	for _, s := range v.lib.Skills() {
		if s.Name == name && s.Dir != "" {
			return filepath.Join(s.Dir, filepath.FromSlash(file)), true
		}
	}
	return "", false
}

// Call implements toolkit.Caller.
func (v *Viewer) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	s, text, err := v.read(ctx, in.String("skill"), in.String("path"))
	if err != nil {
		return toolkit.Fail(err)
	}
	if note := v.activate(ctx, s); note != "" {
		text += "\n\n" + note
	}
	return toolkit.Single(toolkit.TextChunk(text))
}

// Read returns a skill's instructions (path "" or SKILL.md) or one of
// its files, as the viewer tool would, but without activating the skill's
// group. Visibility follows the session in ctx, as for Visible.
func (v *Viewer) Read(ctx context.Context, name, path string) (string, error) {
	_, text, err := v.read(ctx, name, path)
	return text, err
}

func (v *Viewer) read(ctx context.Context, name, file string) (Skill, string, error) {
	visible, err := v.Visible(ctx)
	if err != nil {
		return Skill{}, "", err
	}
	for _, s := range visible {
		if s.Name == name {
			text, err := v.readFile(s, file)
			return s, text, err
		}
	}
	names := make([]string, len(visible))
	for i, s := range visible {
		names[i] = s.Name
	}
	if len(names) == 0 {
		return Skill{}, "", fmt.Errorf("skill %q does not exist, and no skill is available now", name)
	}
	return Skill{}, "", fmt.Errorf("skill %q does not exist; available skills: %s", name, strings.Join(names, ", "))
}

// Visible returns the skills visible to the calling session: those in no
// group or in an active one. Outside a toolkit call only skills in no
// group are visible.
func (v *Viewer) Visible(ctx context.Context) ([]Skill, error) {
	active := map[string]bool{"": true, toolkit.BasicGroup: true}
	if rt := toolkit.RuntimeFrom(ctx); rt != nil && v.tk != nil {
		groups, err := v.tk.ActiveGroups(ctx, rt.SessionID)
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			active[g] = true
		}
	}
	all := v.lib.Skills()
	out := all[:0]
	for _, s := range all {
		if active[s.Group] {
			out = append(out, s)
		}
	}
	return out, nil
}

// activate turns on the group bound to s for the calling session and says
// so to the model.
func (v *Viewer) activate(ctx context.Context, s Skill) string {
	rt := toolkit.RuntimeFrom(ctx)
	if s.Activates == "" || rt == nil || rt.Session == nil || v.tk == nil {
		return ""
	}
	var group *toolkit.Group
	for _, g := range v.tk.Groups() {
		if g.Name == s.Activates {
			group = &g
		}
	}
	if group == nil {
		return fmt.Sprintf("(This skill is bound to tool group %q, which does not exist in this host.)", s.Activates)
	}
	// A skill is a file; what it says must not grant more than the model
	// could take itself: where reset_tools is off, only the program
	// activates groups.
	if !v.tk.ModelActivatesGroups() {
		return fmt.Sprintf("(This skill is bound to tool group %q; on this host only the program activates tool groups, so it stays as it is.)", group.Name)
	}
	// Atomic in the store: a group another call activates meanwhile stays.
	added, err := v.tk.ActivateGroup(ctx, rt.SessionID, group.Name)
	if err != nil {
		return fmt.Sprintf("(Tool group %q could not be activated: %v. Activate it with reset_tools.)", group.Name, err)
	}
	if !added {
		return ""
	}
	note := fmt.Sprintf("Tool group %q is now active: its tools are available.", group.Name)
	if group.Instructions != "" {
		note += "\n" + group.Instructions
	}
	return note
}

// readFile returns SKILL.md's body (re-read from disk, so an edit shows on
// the next call) or another file of the skill.
func (v *Viewer) readFile(s Skill, file string) (string, error) {
	if file == "" || file == FileName {
		if s.Dir == "" {
			return s.Body, nil
		}
		data, err := readInFolder(s.Dir, FileName)
		if err != nil {
			return s.Body, nil // removed, replaced by a link or unreadable: the last good version keeps serving
		}
		fresh, err := Parse(data)
		if err != nil || fresh.Name != s.Name {
			return s.Body, nil
		}
		v.lib.refresh(s, fresh)
		return fresh.Body, nil
	}
	if err := checkRelative(file); err != nil {
		return "", fmt.Errorf("skill %q: %w", s.Name, err)
	}
	if s.Dir == "" {
		if text, ok := s.Files[path.Clean(file)]; ok {
			return text, nil
		}
		return "", notFound(s, file)
	}
	data, err := readInFolder(s.Dir, filepath.FromSlash(file))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", notFound(s, file)
	case err != nil:
		return "", fmt.Errorf("skill %q: %s: %w", s.Name, file, err)
	}
	return string(data), nil
}

// maxFileSize caps what the viewer returns from one file.
const maxFileSize = 4 << 20

// readInFolder reads a regular file inside dir and fails closed on
// everything else: dir itself must be a real folder (not a link that was
// swapped in after loading), the file may not leave it (os.Root refuses
// ".." and links out), and it must be a regular file no larger than
// maxFileSize (a FIFO would block the call forever; it is opened
// non-blocking and refused).
func readInFolder(dir, name string) ([]byte, error) {
	info, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, errors.New("the skill's folder is no longer a folder (a symbolic link?); reload the skills")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, errors.New("the path leads outside the skill's folder or cannot be opened")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if st.Size() > maxFileSize {
		return nil, fmt.Errorf("the file has %d bytes, more than the viewer returns (%d)", st.Size(), maxFileSize)
	}
	return io.ReadAll(io.LimitReader(f, maxFileSize+1))
}

// checkRelative refuses paths that could leave the skill's folder before
// any file is touched; os.Root then refuses symbolic links out.
func checkRelative(file string) error {
	if filepath.IsAbs(file) || path.IsAbs(file) || strings.HasPrefix(file, `\`) || filepath.VolumeName(file) != "" {
		return fmt.Errorf("path %q must be relative to the skill's folder", file)
	}
	for _, part := range strings.FieldsFunc(file, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return fmt.Errorf("path %q must not contain \"..\"", file)
		}
	}
	if strings.ContainsRune(file, 0) {
		return fmt.Errorf("path %q contains a NUL byte", file)
	}
	return nil
}

func notFound(s Skill, file string) error {
	files := Files(s)
	if len(files) > maxListedFiles {
		files = append(files[:maxListedFiles], fmt.Sprintf("… %d more", len(files)-maxListedFiles))
	}
	return fmt.Errorf("skill %q has no file %q; its files: %s", s.Name, file, strings.Join(files, ", "))
}

// Files lists a skill's files as slash-separated paths relative to its
// folder, SKILL.md first, then sorted. Hidden files and symbolic links are
// left out.
func Files(s Skill) []string {
	out := []string{FileName}
	var rest []string
	if s.Dir == "" {
		for p := range s.Files {
			rest = append(rest, p)
		}
	} else {
		_ = filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == s.Dir {
				return nil
			}
			if d.Name()[0] == '.' {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				rel, _ := filepath.Rel(s.Dir, p)
				if rel = filepath.ToSlash(rel); rel != FileName {
					rest = append(rest, rel)
				}
			}
			return nil
		})
	}
	slices.Sort(rest)
	return append(out, rest...)
}
