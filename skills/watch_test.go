package skills

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// eventually polls cond until it holds or a generous deadline passes; file
// events are asynchronous, so a test can only wait for their effect.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestWatch(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "skills")
	writeFile(t, root, "pdf/SKILL.md", skillMD("pdf", "v1", "one"))

	changes := make(chan struct{}, 100)
	lib := NewLibrary(Options{Logger: quietLogger(), OnChange: func() { changes <- struct{}{} }})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := Watch(ctx, lib, root, WatchOptions{}); err != nil {
		t.Fatal(err)
	}
	description := func(name string) string { s, _ := lib.Skill(name); return s.Description }
	if description("pdf") != "v1" {
		t.Fatalf("initial load: %s", names(lib.Skills()))
	}

	writeFile(t, root, "xlsx/SKILL.md", skillMD("xlsx", "Spreadsheets.", ""))
	eventually(t, "added skill", func() bool { return description("xlsx") == "Spreadsheets." })

	writeFile(t, root, "pdf/SKILL.md", skillMD("pdf", "v2", "two"))
	eventually(t, "replaced skill", func() bool { return description("pdf") == "v2" })

	writeFile(t, root, "pdf/SKILL.md", "---\nname: pdf\n") // broken
	eventually(t, "broken file reported", func() bool { return len(lib.Broken()) == 1 })
	if description("pdf") != "v2" {
		t.Errorf("broken edit replaced the last good version: %q", description("pdf"))
	}

	writeFile(t, root, "pdf/SKILL.md", skillMD("pdf", "v3", "three"))
	eventually(t, "fixed skill", func() bool { return description("pdf") == "v3" && len(lib.Broken()) == 0 })

	if err := os.Rename(filepath.Join(root, "xlsx"), filepath.Join(root, "sheets")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "renamed folder", func() bool {
		s, ok := lib.Skill("xlsx")
		return ok && s.Dir == filepath.Join(root, "sheets")
	})

	if err := os.RemoveAll(filepath.Join(root, "sheets")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "deleted skill", func() bool { _, ok := lib.Skill("xlsx"); return !ok })

	// The watched folder itself goes away and comes back.
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	eventually(t, "folder deleted", func() bool { return len(lib.Skills()) == 0 })
	writeFile(t, root, "back/SKILL.md", skillMD("back", "Back again.", ""))
	eventually(t, "folder recreated", func() bool { return description("back") == "Back again." })
	writeFile(t, root, "back/SKILL.md", skillMD("back", "Edited after recreation.", ""))
	eventually(t, "edit after recreation", func() bool { return description("back") == "Edited after recreation." })

	// Editors write in steps: a burst of writes becomes few reloads.
	for len(changes) > 0 {
		<-changes
	}
	for i := range 20 {
		writeFile(t, root, "back/SKILL.md", skillMD("back", "burst "+string(rune('a'+i)), ""))
	}
	eventually(t, "burst settled", func() bool { return description("back") == "burst t" })
	time.Sleep(3 * DefaultDebounce)
	if n := len(changes); n > 5 {
		t.Errorf("20 quick writes caused %d reloads; the debounce should fold them", n)
	}
}

func TestWatchStopsWithContext(t *testing.T) {
	root := t.TempDir()
	lib := NewLibrary(Options{Logger: quietLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	if err := Watch(ctx, lib, root, WatchOptions{}); err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(50 * time.Millisecond)
	writeFile(t, root, "late/SKILL.md", skillMD("late", "Late.", ""))
	time.Sleep(4 * DefaultDebounce)
	if _, ok := lib.Skill("late"); ok {
		t.Error("a cancelled watch still loads skills")
	}
}

func TestWatchMissingParent(t *testing.T) {
	lib := NewLibrary(Options{Logger: quietLogger()})
	err := Watch(context.Background(), lib, filepath.Join(t.TempDir(), "no", "such"), WatchOptions{})
	if err == nil {
		t.Fatal("Watch of a folder without parent succeeded")
	}
}

// TestWatchLayers follows two watched roots: the later one overrides live,
// an edit under the earlier one leaves the override alone, and removing the
// winner lets the earlier skill serve again.
func TestWatchLayers(t *testing.T) {
	parent := t.TempDir()
	a, b := filepath.Join(parent, "shared"), filepath.Join(parent, "mine")
	writeFile(t, a, "x/SKILL.md", skillMD("x", "shared", ""))
	if err := os.MkdirAll(b, 0o755); err != nil {
		t.Fatal(err)
	}
	lib := NewLibrary(Options{Logger: quietLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, root := range []string{a, b} {
		if err := Watch(ctx, lib, root, WatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	description := func(name string) string { s, _ := lib.Skill(name); return s.Description }
	if description("x") != "shared" {
		t.Fatalf("initial load: x = %q", description("x"))
	}

	writeFile(t, b, "x/SKILL.md", skillMD("x", "mine", ""))
	eventually(t, "later root overrides", func() bool { return description("x") == "mine" })
	if o := lib.Overridden(); len(o) != 1 || o[0].Dir != filepath.Join(b, "x") || o[0].Shadowed != filepath.Join(a, "x") {
		t.Errorf("overrides = %+v, want mine/x over shared/x", o)
	}

	// An edit of the shadowed skill, and a new skill beside it to know
	// when the reload of the earlier root is done.
	writeFile(t, a, "x/SKILL.md", skillMD("x", "shared v2", ""))
	writeFile(t, a, "marker/SKILL.md", skillMD("marker", "Reloaded.", ""))
	eventually(t, "earlier root reloaded", func() bool { return description("marker") == "Reloaded." })
	if description("x") != "mine" {
		t.Errorf("an edit under the earlier root displaced the later skill: x = %q", description("x"))
	}

	if err := os.RemoveAll(filepath.Join(b, "x")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "earlier skill serves again", func() bool { return description("x") == "shared v2" })
	if o := lib.Overridden(); len(o) != 0 {
		t.Errorf("overrides after removing the winner = %+v, want none", o)
	}
	if br := lib.Broken(); len(br) != 0 {
		t.Errorf("broken = %+v, want none", br)
	}
}
