// Command alloc is a test plugin (not hostile): its call allocates kib
// KiB of short-lived garbage and returns a checksum. Calling it many
// times on one instance shows whether the guest's garbage collector
// runs between calls: the SDK yields with runtime.Gosched() before every
// export returns, so linear memory stays bounded.
package main

import (
	"strconv"

	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

var sink []byte

type input struct {
	KiB int `json:"kib" jsonschema:"how much garbage to allocate, in KiB"`
}

func init() {
	guest.Register(guest.Tool[input, string]{
		Name:            "alloc",
		Description:     "Test fixture: allocates kib KiB of garbage and returns a checksum.",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Call: func(_ *guest.Call, in input) (string, error) {
			sum := 0
			for i := 0; i < in.KiB/64; i++ {
				b := make([]byte, 64<<10)
				b[i%len(b)] = byte(i)
				sink = b // escape to the heap
				sum += int(b[len(b)/2]) + len(b)
			}
			return strconv.Itoa(sum), nil
		},
	})
}

func main() {}
