// Command huge is a HOSTILE test plugin, on purpose: its call returns a
// result of mib MiB of text (default 50), far more than any model should
// read. A host must cut or refuse it without running out of memory.
package main

import (
	"strings"

	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

type input struct {
	MiB int `json:"mib,omitempty" jsonschema:"the size of the result in MiB (default 50)"`
}

func init() {
	guest.Register(guest.Tool[input, string]{
		Name:        "huge",
		Description: "Hostile fixture: returns 50 MiB of text.",
		Call: func(_ *guest.Call, in input) (string, error) {
			n := in.MiB
			if n <= 0 {
				n = 50
			}
			return strings.Repeat("0123456789abcdef", n<<16), nil
		},
	})
}

func main() {}
