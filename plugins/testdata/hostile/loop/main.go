// Command loop is a HOSTILE test plugin, on purpose: its call never
// returns. A host must end it with its per-call timeout (or the caller's
// cancellation), retire the instance and keep serving.
package main

import guest "github.com/wasmtools/wasmtools/sdk-guest"

type input struct{}

var sink int

func init() {
	guest.Register(guest.Tool[input, string]{
		Name:        "loop",
		Description: "Hostile fixture: spins forever.",
		Call: func(*guest.Call, input) (string, error) {
			for i := 0; ; i++ {
				sink = i
			}
		},
	})
}

func main() {}
