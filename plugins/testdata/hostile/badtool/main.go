// Command badtool is a HOSTILE test plugin, on purpose: its schema
// declares a tool whose name has a space and whose input_schema is of
// type string, not object. A host must refuse the tool (and say why).
package main

import (
	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

func init() {
	// The SDK's Register refuses such a tool, so the schema is written by hand.
	guest.HandleRaw(abi.ExportSchema, func([]byte) ([]byte, error) {
		return []byte(`{"abi": 1, "name": "badtool", "tools": [{"name": "bad tool", "description": "A tool with a space in its name.", "input_schema": {"type": "string"}}]}`), nil
	})
}

func main() {}
