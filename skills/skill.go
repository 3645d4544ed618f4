package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileName is the name of the file that makes a folder a skill.
const FileName = "SKILL.md"

// Skill is one parsed skill.
type Skill struct {
	// Name identifies the skill; required.
	Name string `json:"name"`
	// Description tells the model when the skill applies; required.
	Description string `json:"description"`
	// License is the front matter's license, if any.
	License string `json:"license,omitempty"`
	// AllowedTools lists the tools the skill expects to use
	// (front matter "allowed-tools", a string or a list).
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// Metadata is the front matter's free-form metadata map.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Body is the markdown after the front matter.
	Body string `json:"-"`

	// Dir is the skill's folder; empty for an in-memory skill.
	Dir string `json:"dir,omitempty"`
	// Files are the extra files of an in-memory skill, by slash-separated
	// path relative to the skill. Ignored when Dir is set.
	Files map[string]string `json:"-"`

	// Group is the tool group the skill belongs to: the skill is visible
	// only while that group is active. Empty means always visible. A
	// folder skill takes it from the front matter's metadata "group", else
	// from DirOptions.Group.
	Group string `json:"group,omitempty"`
	// Activates is the tool group that reading the skill activates for the
	// session. A folder skill takes it from the front matter's
	// metadata "tool-group".
	Activates string `json:"activates,omitempty"`
}

// frontMatter mirrors the YAML keys of a SKILL.md header.
type frontMatter struct {
	Name         string         `yaml:"name"`
	Description  string         `yaml:"description"`
	License      string         `yaml:"license"`
	AllowedTools yaml.Node      `yaml:"allowed-tools"`
	Metadata     map[string]any `yaml:"metadata"`
}

// Parse reads a SKILL.md. A UTF-8 byte-order mark and CRLF line ends are
// accepted. The front matter must open the file, between lines holding
// only "---", and must give name and description.
func Parse(data []byte) (Skill, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return Skill{}, errors.New("no front matter: the file must start with a line \"---\", the YAML header (name, description), and another \"---\"")
	}
	var header, body string
	if h, b, found := strings.Cut(rest, "\n---\n"); found {
		header, body = h, b
	} else if h, found := strings.CutSuffix(rest, "\n---"); found {
		header = h
	} else if strings.HasPrefix(rest, "---\n") || rest == "---" {
		header, body = "", strings.TrimPrefix(rest, "---")
	} else {
		return Skill{}, errors.New("front matter is not closed: add a line \"---\" after the YAML header")
	}
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(header), &fm); err != nil {
		return Skill{}, fmt.Errorf("front matter: %w", err)
	}
	s := Skill{
		Name:        strings.TrimSpace(fm.Name),
		Description: strings.TrimSpace(fm.Description),
		License:     strings.TrimSpace(fm.License),
		Metadata:    fm.Metadata,
		Body:        strings.TrimLeft(body, "\n"),
	}
	if s.Name == "" {
		return Skill{}, errors.New("front matter: \"name\" is required")
	}
	if s.Description == "" {
		return Skill{}, fmt.Errorf("skill %q: front matter \"description\" is required (the model reads it to decide when to use the skill)", s.Name)
	}
	tools, err := stringOrList(&fm.AllowedTools)
	if err != nil {
		return Skill{}, fmt.Errorf("skill %q: allowed-tools: %w", s.Name, err)
	}
	s.AllowedTools = tools
	for key, field := range map[string]*string{"tool-group": &s.Activates, "group": &s.Group} {
		if g, ok := fm.Metadata[key]; ok {
			name, isString := g.(string)
			if !isString {
				return Skill{}, fmt.Errorf("skill %q: metadata %s must be a group name, got %T", s.Name, key, g)
			}
			*field = name
		}
	}
	return s, nil
}

// stringOrList decodes a YAML scalar holding space- or comma-separated
// names, or a sequence of names.
func stringOrList(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		return strings.FieldsFunc(n.Value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }), nil
	case yaml.SequenceNode:
		var out []string
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: each entry must be a tool name", item.Line)
			}
			if v := strings.TrimSpace(item.Value); v != "" {
				out = append(out, v)
			}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("line %d: give a tool name, a list of names, or names separated by spaces", n.Line)
	}
}
