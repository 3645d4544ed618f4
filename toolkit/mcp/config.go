package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// ParseServers reads the MCP server configuration that MCP clients use:
//
//	{"mcpServers": {"NAME": {"command": "...", "args": [...], "env": {...}},
//	                "OTHER": {"url": "https://...", "headers": {...}}}}
//
// Beside the usual fields a server may set enable_tools, disable_tools,
// stateless, trust_read_only_hint, sandbox and writable (see the fields
// of [ServerConfig]; relative cwd and writable paths are taken from the
// file's folder).
//
// Errors name the file position or the server and field at fault.
func ParseServers(file string, data []byte) ([]ServerConfig, error) {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, jsonError(file, data, err)
	}
	if doc.MCPServers == nil {
		return nil, fmt.Errorf("%s: no \"mcpServers\" object", file)
	}
	names := make([]string, 0, len(doc.MCPServers))
	for n := range doc.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []ServerConfig
	for _, name := range names {
		var s struct {
			Type         string            `json:"type"`
			Command      string            `json:"command"`
			Args         []string          `json:"args"`
			Env          map[string]string `json:"env"`
			Cwd          string            `json:"cwd"`
			URL          string            `json:"url"`
			Headers      map[string]string `json:"headers"`
			EnableTools  []string          `json:"enable_tools"`
			DisableTools []string          `json:"disable_tools"`
			Stateless    bool              `json:"stateless"`
			TrustHint    bool              `json:"trust_read_only_hint"`
			Sandbox      bool              `json:"sandbox"`
			Writable     []string          `json:"writable"`
		}
		dec := json.NewDecoder(bytes.NewReader(doc.MCPServers[name]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s: mcpServers.%s: %v (fields: command, args, env, cwd, url, headers, type, enable_tools, disable_tools, stateless, trust_read_only_hint, sandbox, writable)", file, name, err)
		}
		switch {
		case s.Command == "" && s.URL == "":
			return nil, fmt.Errorf("%s: mcpServers.%s: give \"command\" (a stdio server) or \"url\" (an HTTP server)", file, name)
		case s.Command != "" && s.URL != "":
			return nil, fmt.Errorf("%s: mcpServers.%s: give \"command\" or \"url\", not both", file, name)
		}
		if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
			s.Cwd = filepath.Join(filepath.Dir(file), s.Cwd) // as written beside the file
		}
		if (s.Sandbox || len(s.Writable) > 0) && s.Command == "" {
			return nil, fmt.Errorf("%s: mcpServers.%s: sandbox and writable are for stdio servers (command); an HTTP server runs elsewhere", file, name)
		}
		for i, w := range s.Writable {
			if !filepath.IsAbs(w) {
				s.Writable[i] = filepath.Join(filepath.Dir(file), w)
			}
		}
		out = append(out, ServerConfig{
			Name: name, Command: s.Command, Args: s.Args, Env: s.Env, Dir: s.Cwd, URL: s.URL, Headers: s.Headers,
			EnableTools: s.EnableTools, DisableTools: s.DisableTools, Stateless: s.Stateless,
			TrustReadOnlyHint: s.TrustHint, Sandbox: s.Sandbox, Writable: s.Writable,
		})
	}
	return out, nil
}

// jsonError turns a decoding error into FILE:LINE:COLUMN words.
func jsonError(file string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 {
		return fmt.Errorf("%s: %v", file, err)
	}
	before := data[:min(int(off), len(data))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("%s:%d:%d: %v", file, line, col, strings.TrimPrefix(err.Error(), "json: "))
}
