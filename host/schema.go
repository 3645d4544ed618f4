package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wasmtools/wasmtools/internal/jsontext"
	"github.com/wasmtools/wasmtools/toolkit"
)

// A module's tools are checked at load time as the toolkit would check
// them at registration, and a little more, so that a tool the toolkit
// would refuse makes the whole module fail to load, with the reason,
// rather than vanish when it is registered.

// checkToolName checks a tool name as the toolkit will, and refuses the
// reserved reset_tools in any case.
func checkToolName(name string) error {
	if err := toolkit.CheckToolName(name); err != nil {
		return err
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

// toolDecl is a tool as a module declares it: its name and input schema.
type toolDecl struct {
	name   string
	schema json.RawMessage
}

// checkTools checks the tools a module declares, together (checkToolSet)
// and one by one (name and schema). An error names the tool as
// "<label>: <kind> <name>", e.g. `plugin x: manifest tool "t"`.
func checkTools(plugin, label, kind string, tools []toolDecl) error {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.name
	}
	if err := checkToolSet(plugin, names); err != nil {
		return err
	}
	for _, t := range tools {
		if err := checkToolName(t.name); err != nil {
			return fmt.Errorf("%s: %s %q: %w", label, kind, t.name, err)
		}
		if err := checkSchema(t.schema); err != nil {
			return fmt.Errorf("%s: %s %q: %w", label, kind, t.name, err)
		}
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
	if err := toolkit.CheckInputSchema(raw); err != nil {
		var sve *jsonschema.SchemaValidationError
		if errors.As(err, &sve) {
			return fmt.Errorf("input_schema is not a valid JSON Schema: %s", schemaProblem(err))
		}
		return err
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
		return strings.ReplaceAll(err.Error(), "wasmtools:///tools/input_schema.json", "the schema")
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

// jsonDepth returns how deeply the objects and arrays of a JSON text
// nest, in one pass without decoding it; an error says why the text is
// not JSON.
func jsonDepth(b []byte) (int, error) {
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return 0, errors.New(jsonProblem(err))
	}
	return jsontext.Depth(b), nil
}
