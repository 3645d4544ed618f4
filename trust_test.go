package wasmtools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools"
	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/host"
	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// TestChildDroppedPluginWaitsForTrust (issue 26, the chain of item 2): an
// allowed command whose child process (a build script the engine cannot
// see into) drops a module and a sidecar granting itself a folder outside
// into the plugin folder of the working directory. With the sandbox on,
// the kernel refuses the drop: the plugin folder is read-only inside the
// sandbox. With it off the drop lands, and the watching host does not
// serve it; it says it waits and how to trust it. Once the operator
// trusts it from outside the workspace, it serves with no further
// question (the usability row).
func TestChildDroppedPluginWaitsForTrust(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeAuto, sandbox.ModeOff} {
		t.Run(string(mode), func(t *testing.T) { childDroppedPlugin(t, mode) })
	}
}

func childDroppedPlugin(t *testing.T, mode sandbox.Mode) {
	work := workspace(t)
	plugins := filepath.Join(work, "plugins")
	outside := t.TempDir()
	module := testplugins.Source(t, filepath.Join(testplugins.Root(t), "plugins", "testdata", "versioned"))
	script := fmt.Sprintf("cp %q plugins/dropped.wasm\nprintf '%%s' '{\"grants\":{\"dirs\":[{\"host\":%q}],\"env\":{\"VERSION\":\"dropped\"}}}' > plugins/dropped.json\n", module, outside)
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "build.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "trust.json")
	cfg := wasmtools.Config{
		WorkingDirs: []string{work},
		Plugins:     []string{plugins},
		Watch:       true,
		TrustFile:   record,
		Allow:       wasmtools.Rules{permission.MustParseRule("Bash(sh build.sh)"), permission.MustParseRule("version")},
		Sandbox:     wasmtools.SandboxConfig{Mode: mode},
	}
	quiet(t, &cfg)
	h := open(t, cfg)
	tk := h.Toolkit()

	res, err := toolkittest.Run(t.Context(), tk, "s", "Bash", map[string]any{"command": "sh build.sh"}, toolkit.TurnOptions{})
	if err != nil || res.Outcome.Response == nil {
		t.Fatalf("sh build.sh: %+v, %v", res.Outcome, err)
	}
	dropped := filepath.Join(plugins, "dropped.wasm")
	if mode != sandbox.ModeOff && h.Sandbox().Status().Enforced {
		if text := res.Outcome.Response.Text(); !strings.Contains(text, "Read-only file system") {
			t.Errorf("the drop into the plugin folder was not refused by the kernel:\n%s", text)
		}
		if _, err := os.Stat(dropped); err == nil {
			t.Error("a confined child dropped a module into the plugin folder")
		}
		return
	}
	if res.Outcome.Response.IsError() {
		t.Fatalf("sh build.sh: %s", res.Outcome.Response.Text())
	}
	pending := func() string {
		for _, f := range h.Folders() {
			if why, ok := f.Pending()[dropped]; ok {
				return why
			}
		}
		return ""
	}
	waitFor(t, "the dropped module to be reported waiting", nil, func() bool { return pending() != "" })
	if why := pending(); !strings.Contains(why, "wasmtools plugins trust "+dropped) {
		t.Errorf("pending reason %q does not say how to trust it", why)
	}
	if slices.Contains(toolNames(tk), "version") {
		t.Fatal("the module a child process dropped is served")
	}

	// The operator trusts it, outside the workspace: the running host
	// follows the record.
	rec, err := host.ReadTrust(record)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.TrustModule(dropped, abi.Grants{}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Write(record); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the trusted module to serve", nil, func() bool { return slices.Contains(toolNames(tk), "version") })
	res, err = toolkittest.Run(t.Context(), tk, "s", "version", map[string]any{}, toolkit.TurnOptions{})
	if err != nil || res.Outcome.Response == nil || res.Outcome.Response.Text() != "version dropped" {
		t.Errorf("the trusted module: %+v, %v", res.Outcome, err)
	}
}
