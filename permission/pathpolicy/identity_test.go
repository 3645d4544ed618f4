//go:build unix

package pathpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHardLinkToACredential (issue 27, item 2): a hard link to a file of
// the user's credential stores is that file, whatever its name and
// wherever it lies; an ordinary file with two names is not.
func TestHardLinkToACredential(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	key := filepath.Join(home, ".ssh", "id_ed25519")
	netrc := filepath.Join(home, ".netrc")
	for _, p := range []string{key, netrc, filepath.Join(work, "a.txt")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{filepath.Join(work, "notes.txt"): key, filepath.Join(work, "sub", "cfg"): netrc, filepath.Join(work, "b.txt"): filepath.Join(work, "a.txt")}
	for link, target := range links {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(target, link); err != nil {
			t.Fatal(err)
		}
	}
	p := New(Options{Home: home})
	for _, link := range []string{filepath.Join(work, "notes.txt"), filepath.Join(work, "sub", "cfg")} {
		if what, ok := p.SensitivePath(link, "/"); !ok || !strings.Contains(what, "hard link to") {
			t.Errorf("%s: %q %v, want it sensitive as a hard link", link, what, ok)
		}
	}
	if what, ok := p.SensitivePath(filepath.Join(work, "b.txt"), "/"); ok {
		t.Errorf("an ordinary file with two names is sensitive: %q", what)
	}
	if what, ok := p.TreeSensitive(work, "/", TreeOptions{Hidden: true}); !ok || !strings.Contains(what, "hard link to") {
		t.Errorf("a folder holding a hard link to a key: %q %v", what, ok)
	}
	// A scoped copy shares what the policy learnt.
	if _, ok := p.ScopedIn(work).SensitivePath(filepath.Join(work, "notes.txt"), "/"); !ok {
		t.Error("a scoped copy does not see the hard link")
	}
}

// TestLinksToCredentials finds the hard links a folder holds to the
// user's credential files, and only those.
func TestLinksToCredentials(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	key := filepath.Join(home, ".aws", "credentials")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{key, filepath.Join(work, "plain")} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(key, filepath.Join(work, "stolen")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(work, "plain"), filepath.Join(work, "plain2")); err != nil {
		t.Fatal(err)
	}
	links, complete := New(Options{Home: home}).LinksToCredentials([]string{work}, 1000)
	if !complete || len(links) != 1 || links[0] != filepath.Join(work, "stolen") {
		t.Errorf("links %q, complete %v", links, complete)
	}
	if _, complete := New(Options{Home: home}).LinksToCredentials([]string{work}, 1); complete {
		t.Error("a walk cut at its bound says it is complete")
	}
}
