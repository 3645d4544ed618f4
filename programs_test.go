package wasmtools_test

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmtools/wasmtools"
	"github.com/wasmtools/wasmtools/internal/testdata"
	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/programs"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// workspace returns a new working directory, outside the temporary
// folders where it can be (the host distrusts those anyway, and the test
// is of the rule on working directories): in the repository's build/
// folder, else in the home folder's cache.
func workspace(t *testing.T) string {
	t.Helper()
	base := filepath.Join(testplugins.Root(t), "build", "test-workspaces")
	if home, err := os.UserHomeDir(); err == nil && underTemp(base) && !underTemp(home) {
		base = filepath.Join(home, ".cache", "wasmtools-tests", "workspaces")
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, "ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// underTemp reports whether p lies in a temporary folder, which the host
// treats as written by tool calls whatever the working directories.
func underTemp(p string) bool {
	probe := programs.FromEnvironment(nil)
	return probe.Untrusted(p)
}

// plant writes an executable shell script that leaves a marker file
// when it runs, and returns the marker's path.
func plant(t *testing.T, path, then string) (marker string) {
	t.Helper()
	marker = path + ".ran"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\ntouch %q\n%s\n", marker, then)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return marker
}

// TestPlantedProgramsNeverRun: an allowed call could write a program into
// a folder of the working directory that is on PATH (an activated
// virtualenv, node_modules/.bin); the host must never run it as itself —
// not as Grep's rg, not as an MCP server — and must not start stdio
// servers in the agent's working directory.
func TestPlantedProgramsNeverRun(t *testing.T) {
	work := workspace(t)
	rgMarker := plant(t, filepath.Join(work, ".venv", "bin", "rg"), `echo "planted.txt:1:the planted rg ran"`)
	serverMarker := plant(t, filepath.Join(work, "node_modules", ".bin", "planted-server"), "")
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("a needle here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(work, ".venv", "bin")+string(os.PathListSeparator)+
		filepath.Join(work, "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))

	server := testdata.NPMPeer(t, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	cwdFile := filepath.Join(t.TempDir(), "cwd")
	cfg := wasmtools.Config{
		WorkingDirs: []string{work},
		MCPServers: map[string]wasmtools.MCPServerConfig{
			"planted": {Command: "planted-server"},
			// Records the folder it starts in, then serves.
			"everything": {Command: "sh", Args: []string{"-c", fmt.Sprintf("pwd > %q; exec node %q stdio", cwdFile, server)}, EnableTools: []string{"echo"}},
		},
	}
	quiet(t, &cfg)
	var logs strings.Builder
	var mu sync.Mutex
	cfg.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	h := open(t, cfg)

	allow := h.Permission()
	allow.Allow = append(allow.Allow, permission.MustParseRule("Grep"), permission.MustParseRule("mcp__everything__echo"))
	res, err := toolkittest.Run(t.Context(), h.Toolkit(), "s", "Grep",
		map[string]any{"pattern": "needle", "path": work, "output_mode": "content"}, toolkit.TurnOptions{Permission: allow})
	if err != nil || res.Outcome.Response == nil {
		t.Fatalf("Grep: %+v, %v", res.Outcome, err)
	}
	if text := res.Outcome.Response.Text(); !strings.Contains(text, "a needle here") || strings.Contains(text, "planted") {
		t.Errorf("Grep answered %q", text)
	}
	if _, err := os.Stat(rgMarker); err == nil {
		t.Error("Grep ran the rg planted in the working directory")
	}

	// The planted server was refused, saying where it was found.
	if _, err := os.Stat(serverMarker); err == nil {
		t.Error("the host started the MCP server planted in the working directory")
	}
	mu.Lock()
	logged := logs.String()
	mu.Unlock()
	for _, want := range []string{"server=planted", "found only at " + filepath.Join(work, "node_modules", ".bin", "planted-server"), "PATH entries the host runs no program from"} {
		if !strings.Contains(logged, want) {
			t.Errorf("the log lacks %q:\n%s", want, logged)
		}
	}

	// The operator's server works, started outside the working directory.
	res, err = toolkittest.Run(t.Context(), h.Toolkit(), "s", "mcp__everything__echo", map[string]any{"message": "hi"}, toolkit.TurnOptions{Permission: allow})
	if err != nil || res.Outcome.Response == nil || !strings.Contains(res.Outcome.Response.Text(), "hi") {
		t.Errorf("call echo: %+v, %v", res.Outcome, err)
	}
	b, err := os.ReadFile(cwdFile)
	if err != nil {
		t.Fatal(err)
	}
	if cwd := strings.TrimSpace(string(b)); cwd == work || strings.HasPrefix(cwd, work+"/") {
		t.Errorf("the MCP server started in the working directory %s", cwd)
	}
}

// TestShimFindsNoPlantedInterpreter: a trusted rg that is a script
// (version managers install such shims: "#!/usr/bin/env bash") must not
// find its interpreter in a working-directory folder on the host's PATH.
func TestShimFindsNoPlantedInterpreter(t *testing.T) {
	realRg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("rg is not installed (.ci/run installs ripgrep)")
		}
		t.Skip("rg is not installed")
	}
	work, trusted := workspace(t), workspace(t)
	shim := filepath.Join(trusted, "rg")
	if err := os.WriteFile(shim, []byte("#!/usr/bin/env bash\nexec "+realRg+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bashMarker := plant(t, filepath.Join(work, ".venv", "bin", "bash"), `exec /bin/sh "$@"`)
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("a needle here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(work, ".venv", "bin")+string(os.PathListSeparator)+trusted+string(os.PathListSeparator)+os.Getenv("PATH"))

	cfg := wasmtools.Config{WorkingDirs: []string{work}}
	quiet(t, &cfg)
	h := open(t, cfg)
	allow := h.Permission()
	allow.Allow = append(allow.Allow, permission.MustParseRule("Grep"))
	res, err := toolkittest.Run(t.Context(), h.Toolkit(), "s", "Grep",
		map[string]any{"pattern": "needle", "path": work, "output_mode": "content"}, toolkit.TurnOptions{Permission: allow})
	if err != nil || res.Outcome.Response == nil || !strings.Contains(res.Outcome.Response.Text(), "a needle here") {
		t.Fatalf("Grep: %+v, %v", res.Outcome, err)
	}
	if _, err := os.Stat(bashMarker); err == nil {
		t.Error("the rg shim ran the bash planted in the working directory")
	}
}

// TestWritableSourcesWarned: plugin and skill folders a tool call can
// write, and writable paths that hold a launcher's cache, are warned
// about at start; folders outside are not.
func TestWritableSourcesWarned(t *testing.T) {
	work, outside := workspace(t), workspace(t)
	home := t.TempDir()
	outsideInTemp := underTemp(outside) // a clone in /tmp: the host rightly distrusts it too
	t.Setenv("HOME", home)
	for _, dir := range []string{filepath.Join(work, "plugins"), filepath.Join(work, "skills"), filepath.Join(outside, "plugins")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := wasmtools.Config{
		WorkingDirs: []string{work},
		Plugins:     []string{filepath.Join(work, "plugins"), filepath.Join(outside, "plugins")},
		Skills:      []string{filepath.Join(work, "skills")},
		Sandbox:     wasmtools.SandboxConfig{Writable: []string{"~/.npm"}},
	}
	quiet(t, &cfg)
	var logs strings.Builder
	var mu sync.Mutex
	cfg.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	open(t, cfg)
	mu.Lock()
	logged := logs.String()
	mu.Unlock()
	for _, want := range []string{
		"writable paths\" folder=" + filepath.Join(work, "plugins"),
		"skill folder lies in a folder tool calls may write",
		"launcher=" + filepath.Join(home, ".npm"),
	} {
		if !strings.Contains(logged, want) {
			t.Errorf("the log lacks %q:\n%s", want, logged)
		}
	}
	if warned := strings.Contains(logged, "folder="+filepath.Join(outside, "plugins")); warned != outsideInTemp {
		t.Errorf("plugin folder outside the workspace (in a temporary folder: %v) warned about: %v\n%s", outsideInTemp, warned, logged)
	}
}

// TestMCPServerCwdResolved: a server's cwd is taken relative to the
// configuration's folder, ~/ is the home folder, and none leaves it to
// the host (which starts the server outside the working directory).
func TestMCPServerCwdResolved(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	cfg := wasmtools.Config{
		Dir: dir,
		MCPServers: map[string]wasmtools.MCPServerConfig{
			"rel":  {URL: "http://127.0.0.1:1/mcp", Cwd: "servers"},
			"home": {URL: "http://127.0.0.1:1/mcp", Cwd: "~/mcp"},
			"none": {URL: "http://127.0.0.1:1/mcp"},
		},
	}
	quiet(t, &cfg)
	got := open(t, cfg).Config().MCPServers
	for name, want := range map[string]string{"rel": filepath.Join(dir, "servers"), "home": filepath.Join(home, "mcp"), "none": ""} {
		if got[name].Cwd != want {
			t.Errorf("%s: cwd %q, want %q", name, got[name].Cwd, want)
		}
	}
}

// TestSandboxedMCPServer (issue 26, item 1): a stdio server marked
// sandbox runs confined: what it writes outside its writable paths is
// refused by the kernel, what it writes in them lands, and it serves its
// tools with no extra question. Where the sandbox is off, it is not
// started at all.
func TestSandboxedMCPServer(t *testing.T) {
	server := testdata.NPMPeer(t, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	outside, writable := t.TempDir(), t.TempDir()
	escape, kept := filepath.Join(outside, "escape"), filepath.Join(writable, "kept")
	// The server's own start leaves a trace of what it may write.
	start := fmt.Sprintf("echo x > %q 2>/dev/null; echo y > %q; exec node %q stdio", escape, kept, server)
	servers := map[string]wasmtools.MCPServerConfig{
		"boxed": {Command: "sh", Args: []string{"-c", start}, Sandbox: true, Writable: []string{writable}, EnableTools: []string{"echo"}},
	}

	cfg := wasmtools.Config{WorkingDirs: []string{workspace(t)}, MCPServers: servers}
	quiet(t, &cfg)
	h := open(t, cfg)
	allow := h.Permission()
	allow.Allow = append(allow.Allow, permission.MustParseRule("mcp__boxed__echo"))
	res, err := toolkittest.Run(t.Context(), h.Toolkit(), "s", "mcp__boxed__echo", map[string]any{"message": "hi"}, toolkit.TurnOptions{Permission: allow})
	if err != nil || res.Outcome.Response == nil || !strings.Contains(res.Outcome.Response.Text(), "hi") {
		t.Fatalf("call echo on the sandboxed server: %+v, %v", res.Outcome, err)
	}
	if _, err := os.Stat(escape); err == nil {
		t.Error("the sandboxed server wrote outside its writable paths")
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the sandboxed server could not write its writable path: %v", err)
	}

	// With the sandbox off the server is not started, and the log says
	// why.
	os.Remove(kept)
	var logs strings.Builder
	var mu sync.Mutex
	off := wasmtools.Config{WorkingDirs: []string{workspace(t)}, MCPServers: servers, Sandbox: wasmtools.SandboxConfig{Mode: "off"}}
	quiet(t, &off)
	off.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	h = open(t, off)
	if slices.Contains(toolNames(h.Toolkit()), "mcp__boxed__echo") {
		t.Error("a server marked sandbox serves with the sandbox off")
	}
	if _, err := os.Stat(kept); err == nil {
		t.Error("a server marked sandbox was started with the sandbox off")
	}
	mu.Lock()
	logged := logs.String()
	mu.Unlock()
	if !strings.Contains(logged, "cannot confine it here") {
		t.Errorf("the log does not say why the server was not started:\n%s", logged)
	}
}

// TestHardLinkedCredential (issue 27, item 2): a hard link in the working
// directory to a private key, under an innocent name, is the key: Read
// asks for it (and explore denies it), Grep leaves it out of its results,
// and a confined command reads it as empty.
func TestHardLinkedCredential(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	work := workspace(t)
	key := filepath.Join(home, ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("SECRET-KEY-MATERIAL\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(work, "notes.txt")
	if err := os.Link(key, link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "show.sh"), []byte("cat notes.txt; echo shown\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := wasmtools.Config{WorkingDirs: []string{work}, Mode: permission.ModeBypass}
	quiet(t, &cfg)
	h := open(t, cfg)
	tk := h.Toolkit()

	explore := h.Permission()
	explore.Mode = permission.ModeExplore
	if res, err := toolkittest.Run(t.Context(), tk, "s", "Read", map[string]any{"file_path": link}, toolkit.TurnOptions{Permission: explore}); err != nil || res.Outcome.Response == nil || strings.Contains(res.Outcome.Response.Text(), "SECRET") {
		t.Errorf("Read of the link in explore: %+v, %v", res.Outcome, err)
	}
	res, err := toolkittest.Run(t.Context(), tk, "s", "Grep", map[string]any{"pattern": "SECRET", "path": work, "output_mode": "content"}, toolkit.TurnOptions{})
	if err != nil || res.Outcome.Response == nil || strings.Contains(res.Outcome.Response.Text(), "SECRET-KEY") {
		t.Errorf("Grep over the working directory: %+v, %v", res.Outcome, err)
	}
	if !h.Sandbox().Status().Enforced {
		return // the kernel's part needs the sandbox
	}
	waitFor(t, "the link to be hidden", nil, func() bool { return slices.Contains(h.Sandbox().Status().Hidden, link) })
	res, err = toolkittest.Run(t.Context(), tk, "s", "Bash", map[string]any{"command": "sh show.sh"}, toolkit.TurnOptions{})
	if err != nil || res.Outcome.Response == nil {
		t.Fatalf("sh show.sh: %+v, %v", res.Outcome, err)
	}
	if text := res.Outcome.Response.Text(); strings.Contains(text, "SECRET") || !strings.Contains(text, "shown") {
		t.Errorf("a confined script read the linked key:\n%s", text)
	}
}

// TestReadRulesHoldInTheSandbox (issue 27, item 1): what a Read deny or
// ask rule names literally, a confined command cannot read either, even
// from a script the engine cannot see into; a pattern with a wildcard
// inside is left to the engine.
func TestReadRulesHoldInTheSandbox(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	work, outside := workspace(t), t.TempDir()
	files := map[string]string{
		filepath.Join(outside, "private", "db.key"): "SECRET-DENIED",
		filepath.Join(home, "notes.txt"):            "SECRET-ASKED",
		filepath.Join(work, "secrets", "token"):     "SECRET-RELATIVE",
		filepath.Join(outside, "public.txt"):        "visible",
	}
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var script strings.Builder
	for p := range files {
		fmt.Fprintf(&script, "cat %q\n", p)
	}
	if err := os.WriteFile(filepath.Join(work, "show.sh"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := wasmtools.Config{
		WorkingDirs: []string{work},
		Mode:        permission.ModeBypass,
		Deny:        wasmtools.Rules{permission.MustParseRule("Read(/" + filepath.Join(outside, "private") + "/**)"), permission.MustParseRule("Read(secrets/**)")},
		Ask:         wasmtools.Rules{permission.MustParseRule("Read(~/notes.txt)")},
	}
	quiet(t, &cfg)
	h := open(t, cfg)
	if !h.Sandbox().Status().Enforced {
		t.Skip("SKIPPED: the kernel's part needs the sandbox")
	}
	res, err := toolkittest.Run(t.Context(), h.Toolkit(), "s", "Bash", map[string]any{"command": "sh show.sh"}, toolkit.TurnOptions{})
	if err != nil || res.Outcome.Response == nil {
		t.Fatalf("sh show.sh: %+v, %v", res.Outcome, err)
	}
	text := res.Outcome.Response.Text()
	if strings.Contains(text, "SECRET") {
		t.Errorf("a confined script read what a Read rule names:\n%s", text)
	}
	if !strings.Contains(text, "visible") {
		t.Errorf("a file no rule names was not read:\n%s", text)
	}
}
