package builtin

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// TestGrepWithholdsFiles: a search of a folder leaves out the files it
// must not return (sensitive ones, and those a Read deny or ask rule
// names) and says how many it left out; the other files are found.
// Both engines, in bypass mode: no mode turns a search into a way
// around asking to read those files.
func TestGrepWithholdsFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "token := 1\n")
	writeFile(t, filepath.Join(dir, ".env"), "token=hunter2\n")
	writeFile(t, filepath.Join(dir, "private", "notes.txt"), "token: swordfish\n")
	engines := []string{EngineGo}
	if _, err := (&Grep{}).rgPath(); err == nil {
		engines = append(engines, EngineRg)
	}
	for _, engine := range engines {
		for _, rule := range []string{"deny", "ask"} {
			pc := permission.Context{Mode: permission.ModeBypass, WorkingDirs: []string{dir}}
			r := permission.MustParseRule("Read(private/**)")
			if rule == "deny" {
				pc.Deny = []permission.Rule{r}
			} else {
				pc.Ask = []permission.Rule{r}
			}
			tk := toolkit.New(toolkit.Options{Permission: pc})
			if err := tk.Register(NewGrep(GrepOptions{Engine: engine})); err != nil {
				t.Fatal(err)
			}
			resp := toolkittest.Call(t, tk, "s", "Grep", map[string]any{"pattern": "token", "path": dir, "output_mode": "content"})
			text := resp.Text()
			if resp.State != toolkit.StateSuccess || !strings.Contains(text, "main.go") {
				t.Fatalf("%s, %s rule: %s %q", engine, rule, resp.State, text)
			}
			if strings.Contains(text, "hunter2") || strings.Contains(text, "swordfish") {
				t.Errorf("%s, %s rule: a withheld file's content came back: %q", engine, rule, text)
			}
			if !strings.Contains(text, "2 files not shown") {
				t.Errorf("%s, %s rule: no note of the two files left out: %q", engine, rule, text)
			}
		}
	}
}
