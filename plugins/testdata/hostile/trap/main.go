// Command trap is a HOSTILE test plugin, on purpose: its call crashes.
// kind "oob" (the default) reads far outside linear memory, a real Wasm
// trap; "panic" is a Go panic, which the SDK recovers into a non-zero
// return with error_set; "goroutine" panics in another goroutine, where
// nothing recovers it: the Go runtime prints the panic and aborts with
// the Wasm instruction unreachable (a trap).
package main

import (
	"fmt"
	"runtime"
	"unsafe"

	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

type input struct {
	Kind string `json:"kind,omitempty" enum:"oob,panic,goroutine"`
}

var anchor [8]byte

func init() {
	guest.Register(guest.Tool[input, string]{
		Name:        "trap",
		Description: "Hostile fixture: crashes the call (an out-of-bounds access, a panic, or a panic in a goroutine).",
		Call: func(_ *guest.Call, in input) (string, error) {
			switch in.Kind {
			case "panic":
				panic("trap: a deliberate panic")
			case "goroutine":
				go func() { panic("trap: a deliberate panic in a goroutine") }()
				for {
					runtime.Gosched()
				}
			}
			// 3.75 GiB past a small heap address: beyond any linear
			// memory this module has, so the load traps.
			p := (*byte)(unsafe.Add(unsafe.Pointer(&anchor[0]), 0xF000_0000))
			return fmt.Sprint(*p), nil
		},
	})
}

func main() {}
