// Command exits is a HOSTILE test plugin, on purpose: its call calls
// os.Exit(3), which is WASI's proc_exit. A host must end the call with an
// error and retire the instance (a module that exited cannot be called
// again).
package main

import (
	"os"

	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

type input struct{}

func init() {
	guest.Register(guest.Tool[input, string]{
		Name:        "exits",
		Description: "Hostile fixture: exits the process with code 3.",
		Call: func(*guest.Call, input) (string, error) {
			os.Exit(3)
			return "unreachable", nil
		},
	})
}

func main() {}
