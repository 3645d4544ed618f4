// Command versioned is a test plugin for hot reload: its tool "version"
// answers with the VERSION environment variable its grants give it, so a
// test can tell which version of the plugin served a call.
package main

import (
	"os"

	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

type input struct{}

func init() {
	guest.Register(guest.Tool[input, string]{
		Name:            "version",
		Description:     "Returns the version of the plugin that served the call.",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Call: func(*guest.Call, input) (string, error) {
			return "version " + os.Getenv("VERSION"), nil
		},
	})
}

func main() {}
