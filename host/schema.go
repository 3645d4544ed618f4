package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wasmtools/wasmtools/toolkit"
)

// A module's tools are checked at load time as the toolkit would check
// them at registration, and a little more, so that a tool the toolkit
// would refuse makes the whole module fail to load, with the reason,
// rather than vanish when it is registered.

// checkToolName checks a tool name: [A-Za-z0-9_-]{1,64}, and not the
// reserved reset_tools in any case.
func checkToolName(name string) error {
	if name == "" || len(name) > 64 {
		return errors.New("the name must be 1 to 64 characters")
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return errors.New("the name may hold only letters, digits, '_' and '-'")
		}
	}
	if strings.EqualFold(name, toolkit.ResetToolsName) {
		return fmt.Errorf("the name %s is reserved for the host's tool-group meta tool; rename the tool", toolkit.ResetToolsName)
	}
	return nil
}

// checkToolSet checks a module's tool names together: at most
// MaxToolsPerModule, and no two that are equal ignoring case.
func checkToolSet(plugin string, names []string) error {
	if len(names) > MaxToolsPerModule {
		return fmt.Errorf("plugin %s lists %d tools, more than the %d a module may provide; split it into several modules", plugin, len(names), MaxToolsPerModule)
	}
	seen := make(map[string]string, len(names))
	for _, n := range names {
		if other, dup := seen[strings.ToLower(n)]; dup {
			if other == n {
				return fmt.Errorf("plugin %s: tool %q is listed twice", plugin, n)
			}
			return fmt.Errorf("plugin %s: tools %q and %q differ only by case; tool names are unique ignoring case", plugin, other, n)
		}
		seen[strings.ToLower(n)] = n
	}
	return nil
}

// checkSchema checks a tool's input schema before anything compiles it:
// at most MaxSchemaBytes and MaxSchemaDepth (compiling is superlinear in
// the depth), a JSON object whose type, if any, is "object", and a schema
// that compiles with no resource from outside it (a $ref or $schema naming
// a file or URL is refused: the host would read it).
func checkSchema(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	if len(raw) > MaxSchemaBytes {
		return fmt.Errorf("input_schema is %d bytes, more than the %d allowed", len(raw), MaxSchemaBytes)
	}
	depth, err := jsonDepth(raw)
	if err != nil {
		return fmt.Errorf("input_schema is not valid JSON: %v", err)
	}
	if depth > MaxSchemaDepth {
		return fmt.Errorf("input_schema nests %d levels deep, more than the %d allowed (objects and arrays count)", depth, MaxSchemaDepth)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("input_schema is not valid JSON: %v", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return errors.New("input_schema must be a JSON object")
	}
	if t, has := obj["type"]; has && t != "object" {
		b, _ := json.Marshal(t)
		return fmt.Errorf(`input_schema must have "type": "object", not %s`, b)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const url = "wasmtools:///input_schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Errorf("input_schema: %v", err)
	}
	if _, err := c.Compile(url); err != nil {
		return fmt.Errorf("input_schema is not a valid JSON Schema: %s", schemaProblem(err))
	}
	return nil
}

var englishPrinter = message.NewPrinter(language.English)

// schemaProblem says what is wrong with a schema, where: the compiler's
// own message names only the metaschema.
func schemaProblem(err error) string {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &sve) || !errors.As(sve.Err, &ve) {
		return strings.ReplaceAll(err.Error(), "wasmtools:///input_schema.json", "the schema")
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, fmt.Sprintf("at /%s: %s", strings.Join(e.InstanceLocation, "/"), e.ErrorKind.LocalizedString(englishPrinter)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(leaves) > 5 {
		leaves = append(leaves[:5], fmt.Sprintf("and %d more", len(leaves)-5))
	}
	return strings.Join(leaves, "; ")
}

// noLoader refuses every resource a schema names outside itself.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside the schema: a tool's schema must be self-contained (refer to its own $defs)", url)
}

// jsonDepth returns how deeply the objects and arrays of a JSON text
// nest, in one pass without decoding it.
func jsonDepth(b []byte) (int, error) {
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return 0, errors.New(jsonProblem(err))
	}
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest, nil
}
