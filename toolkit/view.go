package toolkit

import (
	"context"
	"encoding/json"
	"fmt"
)

// ViewMode says how a request's own schema-only tools combine with the
// toolkit's.
type ViewMode int

// The view modes.
const (
	// ViewMerge lists the request's external tools first, then the
	// toolkit's; an external tool shadows a toolkit tool of the same name.
	ViewMerge ViewMode = iota
	// ViewExternalOnly offers only the request's external tools.
	ViewExternalOnly
	// ViewToolkitOnly ignores the request's external tools.
	ViewToolkitOnly
)

// View is a per-request set of tools: schema-only tools the requester
// executes itself (each call suspends with an external-execution request),
// combined with the toolkit's tools.
type View struct {
	External []Spec
	Mode     ViewMode
}

func (v *View) external(name string) (Spec, bool) {
	if v == nil || v.Mode == ViewToolkitOnly {
		return Spec{}, false
	}
	for _, s := range v.External {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

func (v *View) toolkitHidden() bool { return v != nil && v.Mode == ViewExternalOnly }

// Definition is a tool as offered to a model.
type Definition struct {
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	InputSchema     json.RawMessage `json:"input_schema"`
	OutputSchema    json.RawMessage `json:"output_schema,omitempty"`
	ReadOnly        bool            `json:"read_only"`
	ConcurrencySafe bool            `json:"concurrency_safe"`
	External        bool            `json:"external"`
	Group           string          `json:"group"`
	Source          Source          `json:"source"`

	// openAI is InputSchema as OpenAI takes it, made when the tool was
	// registered; nil when not known. It stands only while InputSchema
	// is the slice it was made from (see openAIParameters).
	openAI, openAIFrom json.RawMessage
}

// Definitions returns the tools a session sees: tools of its active groups
// (and reset_tools, whose schema shows the groups active now), combined
// with the view's external tools. view may be nil. The schemas are
// copies: the caller may change them.
func (tk *Toolkit) Definitions(ctx context.Context, sessionID string, view *View) ([]Definition, error) {
	s, err := tk.store.Session(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("session %q: %w", sessionID, err)
	}
	r := tk.reg.Load()
	var out []Definition
	seen := map[string]bool{}
	if view != nil && view.Mode != ViewToolkitOnly {
		for _, sp := range view.External {
			out = append(out, definitionOf(sp, "", true))
			seen[sp.Name] = true
		}
	}
	if view.toolkitHidden() {
		return out, nil
	}
	active, err := r.activeGroups(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, n := range r.order {
		e := r.tools[n]
		if !active[e.group] || seen[n] {
			continue
		}
		d := definitionOf(e.spec, e.group, e.spec.External)
		d.openAI, d.openAIFrom = e.openAI(), d.InputSchema
		out = append(out, d)
	}
	if r.reset != nil && !seen[ResetToolsName] {
		d := definitionOf(r.reset.spec, BasicGroup, false)
		d.InputSchema = resetSchema(r, active)
		out = append(out, d)
	}
	detachDefinitions(out)
	return out, nil
}

func definitionOf(s Spec, group string, external bool) Definition {
	schema := s.InputSchema
	if schema == nil {
		schema = defaultInputSchema
	}
	return Definition{
		Name: s.Name, Description: s.Description, InputSchema: schema, OutputSchema: s.OutputSchema,
		ReadOnly: s.ReadOnly, ConcurrencySafe: s.ConcurrencySafe, External: external,
		Group: group, Source: s.Source,
	}
}

// OpenAIFunction is the OpenAI function-calling format of a tool.
type OpenAIFunction struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// AnthropicTool is the Anthropic Messages API format of a tool.
type AnthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// MCPTool is the Model Context Protocol format of a tool (tools/list).
type MCPTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *MCPAnnotations `json:"annotations,omitempty"`
}

// MCPAnnotations are the MCP tool hints wasmtools knows.
type MCPAnnotations struct {
	ReadOnlyHint bool `json:"readOnlyHint,omitempty"`
}

// OpenAI converts definitions to the OpenAI function format, with "title"
// keys stripped from the schemas as OpenAI expects. For the definitions
// of registered tools the stripped schema is made once, at registration:
// a model step costs what Anthropic's format does. Like the other
// formats, the result shares its schemas' bytes with defs.
func OpenAI(defs []Definition) []OpenAIFunction {
	out := make([]OpenAIFunction, len(defs))
	for i, d := range defs {
		out[i].Type = "function"
		out[i].Function.Name = d.Name
		out[i].Function.Description = d.Description
		out[i].Function.Parameters = d.openAIParameters()
	}
	return out
}

// openAIParameters returns the input schema without titles: the one made
// at registration when the definition still holds the schema it was made
// from (a caller may have replaced it), else made now.
func (d *Definition) openAIParameters() json.RawMessage {
	if d.openAIFresh() {
		return d.openAI
	}
	return stripTitles(d.InputSchema)
}

// openAIFresh reports whether openAI was made from the input schema the
// definition holds now.
func (d *Definition) openAIFresh() bool {
	return d.openAI != nil && len(d.InputSchema) > 0 && len(d.InputSchema) == len(d.openAIFrom) && &d.InputSchema[0] == &d.openAIFrom[0]
}

// Anthropic converts definitions to the Anthropic tool format.
func Anthropic(defs []Definition) []AnthropicTool {
	out := make([]AnthropicTool, len(defs))
	for i, d := range defs {
		out[i] = AnthropicTool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema}
	}
	return out
}

// MCP converts definitions to the MCP tool format.
func MCP(defs []Definition) []MCPTool {
	out := make([]MCPTool, len(defs))
	for i, d := range defs {
		out[i] = MCPTool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema, OutputSchema: d.OutputSchema}
		if d.ReadOnly {
			out[i].Annotations = &MCPAnnotations{ReadOnlyHint: true}
		}
	}
	return out
}

// stripTitles removes "title" keywords from a schema. A property that is
// itself called "title" is kept: only the keyword goes.
func stripTitles(schema json.RawMessage) json.RawMessage {
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		return schema
	}
	stripSchemaTitles(v)
	b, err := json.Marshal(v)
	if err != nil {
		return schema
	}
	return b
}

func stripSchemaTitles(v any) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["title"].(string); ok {
			delete(v, "title")
		}
		for k, child := range v {
			if k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" {
				if m, ok := child.(map[string]any); ok {
					for _, sub := range m {
						stripSchemaTitles(sub)
					}
				}
				continue
			}
			if k == "enum" || k == "const" || k == "default" || k == "examples" {
				continue // values, not schemas
			}
			stripSchemaTitles(child)
		}
	case []any:
		for _, x := range v {
			stripSchemaTitles(x)
		}
	}
}
