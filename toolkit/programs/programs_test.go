package programs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layout makes, under a temporary folder: safe/ (a trusted PATH entry),
// ws/ (a working directory) with ws/bin and ws/.venv/bin, and world/ (a
// folder everyone may write), each holding the executables named.
func layout(t *testing.T) (root string) {
	t.Helper()
	root = t.TempDir()
	for _, dir := range []string{"safe", "ws/bin", "ws/.venv/bin", "world", "other"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "world"), 0o777); err != nil {
		t.Fatal(err)
	}
	exe := func(p string) {
		if err := os.WriteFile(filepath.Join(root, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe("safe/git")
	exe("safe/rg")
	exe("ws/bin/rg")
	exe("ws/bin/planted")
	exe("ws/.venv/bin/python")
	exe("world/fromworld")
	exe("other/tool")
	// safe/npx is a link to a program inside the working directory;
	// other-link is a PATH entry that is a link to ws/bin.
	if err := os.Symlink(filepath.Join(root, "ws/bin/planted"), filepath.Join(root, "safe/npx")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "ws/bin"), filepath.Join(root, "other-link")); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestLookPath(t *testing.T) {
	root := layout(t)
	in := func(p string) string { return filepath.Join(root, p) }
	path := strings.Join([]string{in("ws/bin"), in("ws/.venv/bin"), "", ".", "bin", in("other-link"), in("world"), in("safe"), in("other")}, string(os.PathListSeparator))
	r := New(path, []string{in("ws")})

	tests := []struct {
		name    string
		want    string // the path found, or "" for an error
		wantErr []string
	}{
		{"rg", in("safe/rg"), nil},   // the planted ws/bin/rg comes first on PATH, and is passed over
		{"git", in("safe/git"), nil}, // ordinary lookup
		{"tool", in("other/tool"), nil},
		{"planted", "", []string{"found only at " + in("ws/bin/planted"), "which tool calls may write", "install planted"}},
		{"python", "", []string{"found only at " + in("ws/.venv/bin/python")}},
		{"fromworld", "", []string{"everyone may write"}},
		{"npx", "", []string{"links through " + in("ws")}},
		{"absent", "", []string{"executable file not found"}},
		{in("safe/git"), in("safe/git"), nil},
		{in("ws/bin/rg"), "", []string{"does not run programs from " + in("ws")}},
		{in("other-link/rg"), "", []string{"does not run programs from " + in("ws")}},
		{"./rg", "", []string{"relative program path"}},
		{"bin/rg", "", []string{"relative program path"}},
	}
	for _, tt := range tests {
		got, err := r.LookPath(tt.name)
		if tt.want != "" {
			if err != nil || got != tt.want {
				t.Errorf("LookPath(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("LookPath(%q) = %q, want an error", tt.name, got)
			continue
		}
		for _, w := range tt.wantErr {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("LookPath(%q): %v\nwant it to say %q", tt.name, err, w)
			}
		}
	}

	if got, want := r.Path(), in("safe")+string(os.PathListSeparator)+in("other"); got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
	var dropped []string
	for _, d := range r.Dropped() {
		dropped = append(dropped, d.Dir)
	}
	if want := []string{in("ws/bin"), in("ws/.venv/bin"), "", ".", "bin", in("other-link"), in("world")}; strings.Join(dropped, "|") != strings.Join(want, "|") {
		t.Errorf("Dropped() = %q, want %q", dropped, want)
	}
}

// TestUntrustedRoot: with / untrusted (a host whose working directory
// is the root), nothing is found.
func TestUntrustedRoot(t *testing.T) {
	root := layout(t)
	r := New(filepath.Join(root, "safe"), []string{"/"})
	if p, err := r.LookPath("git"); err == nil {
		t.Errorf("found %s with / untrusted", p)
	}
}

// TestFromEnvironment: the temporary folder is never a source of
// programs, whatever PATH says.
func TestFromEnvironment(t *testing.T) {
	root := layout(t) // under the temporary folder
	t.Setenv("PATH", filepath.Join(root, "safe"))
	r := FromEnvironment(nil)
	if p, err := r.LookPath("git"); err == nil {
		t.Errorf("found %s in the temporary folder", p)
	}
	if len(r.Dropped()) != 1 || !strings.Contains(r.Dropped()[0].Reason, "tool calls may write") {
		t.Errorf("dropped: %+v", r.Dropped())
	}
}

// TestLinkTricks: links a tool call could re-point, ".." after a link,
// and links that lead nowhere.
func TestLinkTricks(t *testing.T) {
	root := layout(t)
	in := func(p string) string { return filepath.Join(root, p) }
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, in(name)); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(p string) {
		t.Helper()
		if err := os.MkdirAll(in(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// trusted/tool -> ws/cur/tool -> other/tool: passes through a link
	// inside the workspace that a call can re-point after the check.
	mkdir("trusted")
	link(in("other"), "ws/cur")
	link(in("ws/cur/tool"), "trusted/tool")
	// trusted/up -> ws/sub, so the entry trusted/up/../bin is ws/bin.
	mkdir("ws/sub")
	link(in("ws/sub"), "trusted/up")
	// trusted/gone -> a folder that does not exist yet.
	link(in("ws/later"), "trusted/gone")

	r := New(strings.Join([]string{in("trusted"), in("trusted/up") + "/../bin", in("trusted/gone"), in("safe")}, string(os.PathListSeparator)), []string{in("ws")})
	if p, err := r.LookPath("tool"); err == nil || !strings.Contains(err.Error(), "links through "+in("ws")) {
		t.Errorf("a program reached through a link in the workspace: %q, %v", p, err)
	}
	if p, err := r.LookPath("planted"); err == nil {
		t.Errorf("found %s through trusted/up/../bin", p)
	}
	if got, want := r.Path(), in("trusted")+string(os.PathListSeparator)+in("safe"); got != want {
		t.Errorf("Path() = %q, want %q (the .. entry and the dangling one dropped)", got, want)
	}
	if !r.Untrusted(in("trusted/up/x")) || r.Untrusted(in("safe/git")) {
		t.Errorf("Untrusted: trusted/up/x %v, safe/git %v", r.Untrusted(in("trusted/up/x")), r.Untrusted(in("safe/git")))
	}
}

// TestEnv: a program the host starts gets the filtered PATH, and no
// variable that would load code from the workspace.
func TestEnv(t *testing.T) {
	root := layout(t)
	in := func(p string) string { return filepath.Join(root, p) }
	r := New(in("ws/bin")+string(os.PathListSeparator)+in("safe"), []string{in("ws")})
	env := r.Env([]string{
		"HOME=/home/u",
		"PATH=" + in("ws/bin") + ":/usr/bin",
		"PYTHONPATH=/opt/lib:" + in("ws/lib"),
		"NODE_OPTIONS=--max-old-space-size=4096",
		"NODE_OPTIONS_KEPT=--require " + in("ws/evil.js"), // not a loader variable
		"LD_PRELOAD=" + in("ws/evil.so"),
		"BASH_ENV=./rc",
		"npm_config_prefix=" + in("ws/npm"),
		"PERL5LIB=/usr/share/perl5",
	})
	want := []string{
		"HOME=/home/u",
		"NODE_OPTIONS=--max-old-space-size=4096",
		"NODE_OPTIONS_KEPT=--require " + in("ws/evil.js"),
		"PERL5LIB=/usr/share/perl5",
		"PATH=" + in("safe"),
	}
	if strings.Join(env, "\n") != strings.Join(want, "\n") {
		t.Errorf("Env:\n%s\nwant:\n%s", strings.Join(env, "\n"), strings.Join(want, "\n"))
	}
}

// TestRelativeUntrusted: a relative untrusted folder is taken from the
// current folder, never ignored.
func TestRelativeUntrusted(t *testing.T) {
	root := layout(t)
	t.Chdir(root)
	r := New(filepath.Join(root, "ws", "bin"), []string{"ws"})
	if p, err := r.LookPath("planted"); err == nil {
		t.Errorf("found %s with the workspace given as a relative path", p)
	}
}
