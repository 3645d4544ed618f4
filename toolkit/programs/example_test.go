package programs_test

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/wasmtools/wasmtools/toolkit/programs"
)

// A host that works in /srv/project never runs a program from it, even
// when PATH names a folder inside it first.
func ExampleNew() {
	r := programs.New("/srv/project/.venv/bin:/usr/bin:/bin", []string{"/srv/project"})
	for _, d := range r.Dropped() {
		fmt.Printf("dropped %s: %s\n", d.Dir, d.Reason)
	}
	if path, err := r.LookPath("sh"); err == nil {
		cmd := exec.Command(path, "-c", "true")
		cmd.Env = r.Env(os.Environ()) // the filtered PATH, no loader variables into the project
		fmt.Println("sh runs:", cmd.Run() == nil)
	}
	// Output:
	// dropped /srv/project/.venv/bin: lies in or links through /srv/project, which tool calls may write
	// sh runs: true
}
