package main

import (
	"encoding/json"
	"github.com/wasmtools/wasmtools/internal/testdata"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// inspector runs the MCP Inspector's CLI (@modelcontextprotocol/inspector,
// installed by .ci/run under build/npm) against `wasmtools serve` in dir.
func inspector(t *testing.T, dir string, args ...string) map[string]any {
	t.Helper()
	bin := testdata.NPMPeer(t, ".bin", "mcp-inspector")
	cmd := exec.Command(bin, append([]string{"--cli", binary, "serve", "--workdir", dir}, args...)...)
	cmd.Dir = dir
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the inspector did not finish")
	}
	// The inspector exits non-zero for a result with isError; its output
	// is still the result.
	var res map[string]any
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		t.Fatalf("inspector %v: %v, output: %v\n%s", args, err, jerr, out)
	}
	if err != nil && res["isError"] != true {
		t.Fatalf("inspector %v: %v\n%s", args, err, out)
	}
	return res
}

func TestInspectorCLI(t *testing.T) {
	dir := t.TempDir()
	list := inspector(t, dir, "--method", "tools/list")
	b, _ := json.Marshal(list)
	for _, want := range []string{`"Bash"`, `"Read"`, `"Grep"`, `"TaskCreate"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	res := inspector(t, dir, "--method", "tools/call", "--tool-name", "Bash", "--tool-arg", "command=pwd")
	b, _ = json.Marshal(res)
	if !strings.Contains(string(b), dir) || res["isError"] == true {
		t.Errorf("pwd: %s", b)
	}
	// The inspector cannot elicit: a call that needs approval is refused
	// with the rule that would allow it, and does not run.
	res = inspector(t, dir, "--method", "tools/call", "--tool-name", "Bash", "--tool-arg", "command=touch made.txt")
	b, _ = json.Marshal(res)
	if res["isError"] != true || !strings.Contains(string(b), "Bash(touch:*)") {
		t.Errorf("touch: %s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Error("the refused command ran")
	}
}
