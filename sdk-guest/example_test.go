package guest_test

import (
	"fmt"
	"strings"

	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

type shoutInput struct {
	Text  string `json:"text" jsonschema:"the text to shout"`
	Times int    `json:"times,omitempty" jsonschema:"how many times (default 1)"`
}

func init() {
	guest.SetInfo(guest.PluginInfo{Name: "shout", Version: "1.0.0"})
	guest.Register(guest.Tool[shoutInput, string]{
		Name:        "shout",
		Description: "Upper-cases text and repeats it.",
		ReadOnly:    true,
		Call: func(c *guest.Call, in shoutInput) (string, error) {
			if in.Text == "" {
				return "", fmt.Errorf("text is empty: pass some text")
			}
			c.EmitText("shouting\n")
			return strings.Repeat(strings.ToUpper(in.Text), max(in.Times, 1)), nil
		},
		Check: func(in shoutInput, _ abi.PermissionContext) abi.Decision {
			if in.Times > 1000 {
				return abi.Decision{Behavior: abi.Ask, Message: "That is a lot of shouting."}
			}
			return abi.Decision{Behavior: abi.Passthrough}
		},
	})
}

// Invoke runs a plugin's exports natively, as the host would through
// Wasm: here, the schema, a permission check and a streaming call of the
// tool registered in init above.
func ExampleInvoke() {
	schema, _ := guest.Invoke(abi.ExportSchema, []byte(`{"abi":1}`), nil)
	fmt.Println(string(schema))

	decision, _ := guest.Invoke(abi.ExportCheckPermissions, []byte(`{"abi":1,"tool":"shout","input":{"text":"hi","times":5000}}`), nil)
	fmt.Println(string(decision))

	result, _ := guest.Invoke(abi.ExportCall, []byte(`{"abi":1,"tool":"shout","input":{"text":"hi","times":2}}`), func(c abi.Chunk) {
		fmt.Printf("chunk: %q\n", c.Content[0].Text)
	})
	fmt.Println(string(result))

	result, _ = guest.Invoke(abi.ExportCall, []byte(`{"abi":1,"tool":"shout","input":{"text":""}}`), nil)
	fmt.Println(string(result))
	// Output:
	// {"abi":1,"name":"shout","version":"1.0.0","tools":[{"name":"shout","description":"Upper-cases text and repeats it.","input_schema":{"type":"object","properties":{"text":{"type":"string","description":"the text to shout"},"times":{"type":"integer","description":"how many times (default 1)"}},"required":["text"],"additionalProperties":false},"read_only":true,"hooks":[]}]}
	// {"behavior":"ask","message":"That is a lot of shouting."}
	// chunk: "shouting\n"
	// {"content":[{"type":"text","text":"HIHI"}],"state":"success"}
	// {"content":[{"type":"text","text":"text is empty: pass some text"}],"state":"error"}
}
