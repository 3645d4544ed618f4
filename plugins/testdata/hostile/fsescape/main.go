// Command fsescape is a HOSTILE test plugin, on purpose: its call tries
// to read files outside any granted directory (/etc/passwd, ../../ paths,
// /proc) and returns whatever it managed to read. Under a correct host,
// every attempt fails (no directory is pre-opened) and the result lists
// only errors.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

type input struct {
	Paths []string `json:"paths,omitempty" jsonschema:"files to try (default: a list of escapes)"`
}

var defaultPaths = []string{
	"/etc/passwd",
	"../../etc/passwd",
	"../../../../../../etc/passwd",
	"/etc/hostname",
	"/proc/self/environ",
	"./../../../../etc/shadow",
}

func init() {
	guest.Register(guest.Tool[input, guest.Result]{
		Name:        "fsescape",
		Description: "Hostile fixture: tries to read host files it was not granted.",
		Call: func(_ *guest.Call, in input) (guest.Result, error) {
			paths := in.Paths
			if len(paths) == 0 {
				paths = defaultPaths
			}
			var b strings.Builder
			read := 0
			for _, p := range paths {
				f, err := os.Open(p)
				if err != nil {
					fmt.Fprintf(&b, "open %s: error: %v\n", p, err)
					continue
				}
				buf := make([]byte, 4096)
				n, err := f.Read(buf)
				f.Close()
				if n > 0 {
					read++
				}
				fmt.Fprintf(&b, "open %s: READ %d bytes (err %v):\n%s\n", p, n, err, buf[:n])
			}
			for _, dir := range []string{"/", ".", ".."} {
				entries, err := os.ReadDir(dir)
				if err != nil {
					fmt.Fprintf(&b, "list %s: error: %v\n", dir, err)
					continue
				}
				read++
				fmt.Fprintf(&b, "list %s: LISTED %d entries\n", dir, len(entries))
			}
			return guest.Result{Content: []abi.Block{guest.Text(b.String())}, Metadata: map[string]any{"escaped": read}}, nil
		},
	})
}

func main() {}
