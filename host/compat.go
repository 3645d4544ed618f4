package host

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// Servlets (hyper-mcp, mcp.run) describe their tools MCP-style and take
// MCP calls.

type servletDescription struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations *struct {
			ReadOnlyHint bool `json:"readOnlyHint"`
		} `json:"annotations,omitempty"`
	} `json:"tools"`
}

type servletCall struct {
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

type mcpResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
		Resource *struct {
			URI      string `json:"uri"`
			Text     string `json:"text"`
			Blob     string `json:"blob"`
			MimeType string `json:"mimeType"`
		} `json:"resource"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (p *Plugin) loadServlet(ctx context.Context) error {
	out, err := p.callExport(ctx, "describe", nil, nil, false)
	if err != nil {
		return p.loadError("describe", err)
	}
	var d servletDescription
	if err := p.decode("describe", out, &d); err != nil {
		return err
	}
	if len(d.Tools) == 0 {
		return fmt.Errorf("plugin %s (servlet): describe lists no tools", p.Name)
	}
	decls := make([]toolDecl, len(d.Tools))
	for i, t := range d.Tools {
		decls[i] = toolDecl{t.Name, t.InputSchema}
	}
	if err := checkTools(p.Name, "plugin "+p.Name+" (servlet)", "tool", decls); err != nil {
		return err
	}
	for _, t := range d.Tools {
		spec := toolkit.Spec{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			ReadOnly: p.trustHint && t.Annotations != nil && t.Annotations.ReadOnlyHint,
			Source:   toolkit.Source{Kind: toolkit.SourceWasm, Name: p.Name},
		}
		p.compatTools = append(p.compatTools, &compatTool{p: p, spec: spec, export: "call", servlet: true})
	}
	return nil
}

func (p *Plugin) loadManifest(m *Manifest) error {
	if len(m.Tools) == 0 {
		return fmt.Errorf("plugin %s: its manifest names no tools", p.Name)
	}
	decls := make([]toolDecl, len(m.Tools))
	for i, t := range m.Tools {
		decls[i] = toolDecl{cmp.Or(t.Name, t.Export), t.InputSchema}
	}
	if err := checkTools(p.Name, "plugin "+p.Name, "manifest tool", decls); err != nil {
		return err
	}
	for _, t := range m.Tools {
		if !p.exports[t.Export] {
			return fmt.Errorf("plugin %s: the manifest names the export %q, which the module lacks (it exports %s)", p.Name, t.Export, exportList(p.exports))
		}
		name := t.Name
		if name == "" {
			name = t.Export
		}
		schema := t.InputSchema
		if schema == nil && t.Input != "" {
			schema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string"}},"required":[%q]}`, t.Input, t.Input))
		}
		spec := toolkit.Spec{
			Name: name, Description: t.Description, InputSchema: schema, ReadOnly: t.ReadOnly,
			Source: toolkit.Source{Kind: toolkit.SourceWasm, Name: p.Name},
		}
		p.compatTools = append(p.compatTools, &compatTool{p: p, spec: spec, export: t.Export, inputProp: t.Input})
	}
	return nil
}

// compatTool is a tool of a servlet or of a manifest-described module:
// the module has no permission check of its own, so every call that is not
// read-only asks.
type compatTool struct {
	p         *Plugin
	spec      toolkit.Spec
	export    string
	inputProp string
	servlet   bool
}

func (t *compatTool) Spec() toolkit.Spec { return t.spec }

func (t *compatTool) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	return permission.AskDecision(fmt.Sprintf("Run %s from the plugin %s?", t.spec.Name, t.p.Name), "plugin without a permission check"), nil
}

func (t *compatTool) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		var input []byte
		var err error
		switch {
		case t.servlet:
			var c servletCall
			c.Params.Name = t.spec.Name
			c.Params.Arguments, err = json.Marshal(in)
			if err == nil {
				input, err = json.Marshal(c)
			}
		case t.inputProp != "":
			input = []byte(in.String(t.inputProp))
		default:
			input, err = json.Marshal(in)
		}
		if err != nil {
			yield(nil, err)
			return
		}
		out, err := t.p.callExport(ctx, t.export, input, nil, true)
		if err != nil {
			yield(nil, err)
			return
		}
		if !t.servlet {
			yield(&toolkit.Chunk{Content: []toolkit.Block{toolkit.TextBlock(string(out))}, State: toolkit.StateSuccess, Last: true}, nil)
			return
		}
		var res mcpResult
		if err := t.p.decode(t.export, out, &res); err != nil {
			yield(nil, err)
			return
		}
		c := &toolkit.Chunk{State: toolkit.StateSuccess, Last: true}
		if res.IsError {
			c.State = toolkit.StateError
		}
		for _, b := range res.Content {
			switch {
			case b.Type == "text":
				c.Content = append(c.Content, toolkit.TextBlock(b.Text))
			case b.Type == "image" || b.Type == "audio":
				data, err := base64.StdEncoding.DecodeString(b.Data)
				if err != nil {
					c.Content = append(c.Content, toolkit.TextBlock("[undecodable "+b.Type+"]"))
					continue
				}
				c.Content = append(c.Content, toolkit.DataBlock(b.MimeType, data))
			case b.Resource != nil && b.Resource.Text != "":
				c.Content = append(c.Content, toolkit.TextBlock(b.Resource.Text))
			case b.Resource != nil:
				data, _ := base64.StdEncoding.DecodeString(b.Resource.Blob)
				c.Content = append(c.Content, toolkit.DataBlock(b.Resource.MimeType, data))
			default:
				c.Content = append(c.Content, toolkit.TextBlock(strings.TrimSpace(fmt.Sprintf("[%s content]", b.Type))))
			}
		}
		yield(c, nil)
	}
}
