package wasmtools_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/wasmtools/wasmtools"
	"github.com/wasmtools/wasmtools/toolkit"
)

// Open a host with the built-in tools only, in explore mode, and ask the
// permission engine about two calls.
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	h, err := wasmtools.Open(ctx, wasmtools.Config{
		Mode:        "explore",
		WorkingDirs: []string{dir},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	var names []string
	for _, t := range h.Toolkit().Tools() {
		names = append(names, t.Spec.Name)
	}
	fmt.Println(strings.Join(names, " "))
	for _, command := range []string{"ls -la", "rm -r build"} {
		d, err := h.Toolkit().Check(ctx, "example", toolkit.Call{Name: "Bash", Arguments: fmt.Sprintf(`{"command": %q}`, command)}, toolkit.CheckOptions{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", command, d.Behavior)
	}
	// Output:
	// Bash Read Write Edit Glob Grep TaskCreate TaskGet TaskList TaskUpdate TodoWrite AskUser
	// ls -la: allow
	// rm -r build: deny
}
