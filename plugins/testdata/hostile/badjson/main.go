// Command badjson is a HOSTILE test plugin, on purpose: its schema export
// returns a document that is not valid JSON. A host must refuse the
// module with an error quoting the first bytes.
package main

import (
	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

func init() {
	guest.HandleRaw(abi.ExportSchema, func([]byte) ([]byte, error) {
		return []byte(`{"abi": 1, "tools": [{"name": "broken", "description": "unterminated`), nil
	})
}

func main() {}
