// Command wrongabi is a HOSTILE test plugin, on purpose: its schema says
// it speaks ABI version 99. A host must refuse it, naming both versions.
package main

import (
	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

func init() {
	guest.HandleRaw(abi.ExportSchema, func([]byte) ([]byte, error) {
		return []byte(`{"abi": 99, "name": "wrongabi", "tools": [{"name": "future", "description": "A tool from the future.", "input_schema": {"type": "object"}}]}`), nil
	})
}

func main() {}
