// Command emptyschema is a HOSTILE test plugin, on purpose: it registers
// no tools, so its schema answers "tools": []. A host must refuse it: a
// plugin provides at least one tool.
package main

import (
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

func init() {
	guest.SetInfo(guest.PluginInfo{Name: "emptyschema", Version: "0.0.1"})
}

func main() {}
