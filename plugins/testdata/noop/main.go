// Command noop is a test plugin (not hostile): its one tool, noop, takes
// no input and returns an empty text. A call of it costs only what the
// host, the kernel and the guest SDK add around a tool's own work, which
// is what BenchmarkGuestCall in host measures.
package main

import guest "github.com/wasmtools/wasmtools/sdk-guest"

func init() {
	guest.Register(guest.Tool[struct{}, string]{
		Name:            "noop",
		Description:     "Test fixture: does nothing and returns an empty text.",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Call:            func(*guest.Call, struct{}) (string, error) { return "", nil },
	})
}

func main() {}
