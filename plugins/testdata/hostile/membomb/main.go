// Command membomb is a HOSTILE test plugin, on purpose: its call
// allocates memory and keeps it until the linear memory cannot grow any
// more (the host's memory limit, or 4 GiB). The Go runtime then dies with
// "out of memory"; a host must end the call with an error and retire the
// instance.
package main

import guest "github.com/wasmtools/wasmtools/sdk-guest"

type input struct{}

var hoard [][]byte

func init() {
	guest.Register(guest.Tool[input, string]{
		Name:        "membomb",
		Description: "Hostile fixture: allocates until memory runs out.",
		Call: func(*guest.Call, input) (string, error) {
			for {
				b := make([]byte, 1<<20)
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1 // touch every page
				}
				hoard = append(hoard, b)
			}
		},
	})
}

func main() {}
