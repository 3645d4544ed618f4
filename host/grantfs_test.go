package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/testplugins"
	"github.com/wasmtools/wasmtools/toolkit"
)

// fsOp is one operation of the fsops fixture, with what must come of it.
type fsOp struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	To     string `json:"to,omitempty"`
	Data   string `json:"data,omitempty"`
	Offset int64  `json:"offset,omitempty"`

	ok   bool   // the operation must succeed (else fail)
	want string // and, when set, its data must contain this
}

type fsResult struct {
	Op, Path string
	OK       bool
	Data     string
	Err      string
}

// fsTree lays out a grant folder beside a folder outside it, with links of
// every kind in the grant:
//
//	base/outside/secret.txt
//	base/grant/inside.txt, a/b/c/deep.txt
//	a/b/c/up -> ../../..          inside (the grant itself), ".." at depth
//	a/b/c/esc -> ../../../..      outside (base)
//	etclink -> /etc               absolute, outside (only ever read)
//	absout -> BASE/outside        absolute, outside
//	outlink -> ../outside         relative, outside
//	abslink -> BASE/grant/inside.txt   absolute, though inside
//	dirlink -> a/b                inside, a directory
//	chain1 -> chain2 -> dirlink   a chain inside
//	linkout -> outlink            a link to a link that leads out
//	dangout -> ../outside/new.txt a dangling link that leads out
func fsTree(t *testing.T) (base, grant string) {
	t.Helper()
	base = t.TempDir()
	grant = filepath.Join(base, "grant")
	for _, d := range []string{"outside", "grant/a/b/c"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{
		"outside/secret.txt":     "outside secret",
		"grant/inside.txt":       "inside text",
		"grant/a/b/c/deep.txt":   "deep text",
		"grant/a/b/c/sample.txt": "0123456789",
	} {
		if err := os.WriteFile(filepath.Join(base, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"a/b/c/up":  "../../..",
		"a/b/c/esc": "../../../..",
		"etclink":   "/etc",
		"absout":    filepath.Join(base, "outside"),
		"outlink":   "../outside",
		"abslink":   filepath.Join(grant, "inside.txt"),
		"dirlink":   "a/b",
		"chain1":    "chain2",
		"chain2":    "dirlink",
		"linkout":   "outlink",
		"dangout":   "../outside/new.txt",
	} {
		if err := os.Symlink(target, filepath.Join(grant, name)); err != nil {
			t.Fatal(err)
		}
	}
	return base, grant
}

// runFS runs ops in the fsops fixture with grants and checks each result.
func runFS(t *testing.T, h *Host, grants abi.Grants, ops []fsOp) []fsResult {
	t.Helper()
	path := testplugins.Source(t, filepath.Join(testplugins.Root(t), "plugins", "testdata", "hostile", "fsops"))
	p := loadPlugin(t, h, path, Config{Grants: grants})
	in, _ := json.Marshal(map[string]any{"ops": ops})
	r := runTool(t, p, "fsops", string(in))
	if r.State != toolkit.StateSuccess {
		t.Fatalf("fsops: %s %q", r.State, r.Text())
	}
	var res []fsResult
	if err := json.Unmarshal([]byte(r.Text()), &res); err != nil || len(res) != len(ops) {
		t.Fatalf("fsops answered %q (%v)", r.Text(), err)
	}
	for i, o := range ops {
		got := res[i]
		if strings.Contains(got.Data, "outside secret") || strings.Contains(got.Data, "root:") {
			t.Errorf("%s %s %s: read outside the grant: %q", o.Op, o.Path, o.To, got.Data)
		}
		switch {
		case got.OK != o.ok:
			t.Errorf("%s %s %s: ok=%v (data %q, err %q), want ok=%v", o.Op, o.Path, o.To, got.OK, got.Data, got.Err, o.ok)
		case o.want != "" && !strings.Contains(got.Data, o.want):
			t.Errorf("%s %s %s: data %q, want %q", o.Op, o.Path, o.To, got.Data, o.want)
		}
	}
	return res
}

// succeeds is an operation that must succeed, its data holding want.
func succeeds(op, path, to, want string) fsOp {
	return fsOp{Op: op, Path: path, To: to, ok: true, want: want}
}

// fails is an operation that must fail.
func fails(op, path, to string) fsOp { return fsOp{Op: op, Path: path, To: to} }

// TestGrantReadOnlyConfined: a read-only grant reads inside, follows links
// only while they stay inside (".." at depth, chains, links to
// directories), and writes nothing at all.
func TestGrantReadOnlyConfined(t *testing.T) {
	h := newTestHost(t)
	base, grant := fsTree(t)
	before := snapshot(t, base)
	ops := []fsOp{
		succeeds("read", "/data/inside.txt", "", "inside text"),
		succeeds("read", "/data/a/b/c/deep.txt", "", "deep text"),
		succeeds("read", "/data/a/b/c/up/inside.txt", "", "inside text"),
		succeeds("read", "/data/a/b/c/up/a/b/c/up/inside.txt", "", "inside text"),
		succeeds("read", "/data/a/b/c/../c/deep.txt", "", "deep text"),
		succeeds("read", "/data/a/b/c/../../../inside.txt", "", "inside text"),
		succeeds("read", "/data/dirlink/c/deep.txt", "", "deep text"),
		succeeds("read", "/data/chain1/c/deep.txt", "", "deep text"),
		succeeds("readdir", "/data/a/b/c", "", "deep.txt,esc@,sample.txt,up@"),
		succeeds("readdir", "/data/dirlink", "", "c/"),
		succeeds("readdir", "/data", "", "a/,abslink@,absout@,chain1@"),
		succeeds("stat", "/data/dirlink", "", "dir"),
		succeeds("lstat", "/data/etclink", "", "symlink"),
		succeeds("readlink", "/data/etclink", "", "/etc"),
		{Op: "readat", Path: "/data/a/b/c/sample.txt", Offset: 3, ok: true, want: "3456789"},
		{Op: "seekread", Path: "/data/a/b/c/sample.txt", Offset: 6, ok: true, want: "6789"},
		fails("read", "/data/etclink/passwd", ""),
		fails("read", "/data/outlink/secret.txt", ""),
		fails("read", "/data/linkout/secret.txt", ""),
		fails("read", "/data/a/b/c/esc/outside/secret.txt", ""),
		fails("read", "/data/a/b/c/up/../outside/secret.txt", ""),
		fails("read", "/data/../outside/secret.txt", ""),
		fails("read", "/data/abslink", ""),
		fails("read", "/data/absout/secret.txt", ""),
		fails("read", "/data/dangout", ""),
		fails("readdir", "/data/etclink", ""),
		fails("readdir", "/data/a/b/c/esc", ""),
		fails("stat", "/data/etclink", ""),
		fails("open_nofollow", "/data/dirlink", ""),
		// Nothing is written, whatever the call.
		fails("write", "/data/new.txt", ""),
		fails("write", "/data/inside.txt", ""),
		fails("append", "/data/inside.txt", ""),
		fails("create_excl", "/data/new2.txt", ""),
		fails("truncate", "/data/inside.txt", ""),
		fails("mkdir", "/data/newdir", ""),
		fails("remove", "/data/inside.txt", ""),
		fails("remove", "/data/etclink", ""),
		fails("remove", "/data/a/b/c", ""),
		fails("rename", "/data/inside.txt", "/data/moved.txt"),
		fails("symlink", "/data/newlink", "inside.txt"),
		fails("link", "/data/inside.txt", "/data/hard.txt"),
		fails("chtimes", "/data/inside.txt", ""),
		// WASI has no chmod: Go's answers from a stat (the snapshot below
		// shows that nothing changed).
		succeeds("chmod", "/data/inside.txt", "", ""),
	}
	res := runFS(t, h, abi.Grants{Dirs: []abi.DirGrant{{Host: grant, Guest: "/data"}}}, ops)
	for _, r := range res {
		if r.Op == "write" && r.Path == "/data/new.txt" && !strings.Contains(strings.ToLower(r.Err), "read-only") {
			t.Errorf("a write to a read-only grant fails with %q, want a read-only file system error", r.Err)
		}
	}
	if after := snapshot(t, base); after != before {
		t.Errorf("the read-only grant changed on the host:\nbefore %s\nafter  %s", before, after)
	}
}

// TestGrantWritableConfined: a writable grant works for ordinary files,
// directories and links that stay inside, and refuses every way out: a
// link made to point out (relative, absolute, climbing), writes through
// links already there, a dangling link that leads out, hard links of
// files outside or of escaping links, and moves that would turn a link
// into one that leads out.
func TestGrantWritableConfined(t *testing.T) {
	h := newTestHost(t)
	base, grant := fsTree(t)
	ops := []fsOp{
		// Links made by the plugin: only ones leading down.
		fails("symlink", "/data/rel-etc", "../../../../../../etc"),
		fails("read", "/data/rel-etc/passwd", ""),
		fails("symlink", "/data/abs-etc", "/etc"),
		fails("symlink", "/data/a/b/c/up2", "../../.."),
		fails("symlink", "/data/sneaky", "a/../../outside"),
		fails("symlink", "/data/alias", "etclink"),
		fails("symlink", "/data/alias2", "a/b/c/esc/outside"),
		fails("symlink", "/data/a/b/c/alias3", "esc"),
		succeeds("symlink", "/data/a/b/c/inside-alias", "up/inside.txt", ""),
		succeeds("read", "/data/a/b/c/inside-alias", "", "inside text"),
		succeeds("symlink", "/data/down", "a/b/c", ""),
		succeeds("read", "/data/down/deep.txt", "", "deep text"),
		succeeds("symlink", "/data/a/b/c/sib", "deep.txt", ""),
		succeeds("read", "/data/a/b/c/sib", "", "deep text"),
		succeeds("symlink", "/data/dangling", "made-later.txt", ""),
		succeeds("write", "/data/dangling", "", ""),
		succeeds("read", "/data/made-later.txt", "", ""),
		// Writes through links already in the folder.
		fails("write", "/data/outlink/pwned.txt", ""),
		fails("write", "/data/linkout/pwned.txt", ""),
		fails("write", "/data/a/b/c/esc/outside/pwned.txt", ""),
		fails("write", "/data/absout/pwned.txt", ""),
		fails("write", "/data/dangout", ""),
		fails("append", "/data/dangout", ""),
		fails("mkdir", "/data/outlink/newdir", ""),
		fails("mkdir", "/data/absout/newdir", ""),
		fails("symlink", "/data/outlink/l", "x"),
		succeeds("write", "/data/a/b/c/up/via-up.txt", "", ""),
		// Hard links: only of what is inside, never of an escaping link.
		fails("link", "/data/absout/secret.txt", "/data/pw"),
		fails("link", "/data/outlink/secret.txt", "/data/sec"),
		fails("link", "/data/etclink", "/data/etc2"),
		fails("link", "/data/a/b/c/esc", "/data/esc2"),
		succeeds("link", "/data/inside.txt", "/data/hard.txt", ""),
		succeeds("read", "/data/hard.txt", "", "inside text"),
		succeeds("link", "/data/down", "/data/down2", ""),
		// Moves that would change where a link leads.
		fails("rename", "/data/a/b/c/up", "/data/up"),
		fails("rename", "/data/outlink", "/data/a/outlink"),
		fails("rename", "/data/a", "/data/z"),
		fails("rename", "/data/inside.txt", "/data/outlink/inside.txt"),
		succeeds("mkdir", "/data/m", "", ""),
		succeeds("write", "/data/m/f", "", ""),
		succeeds("symlink", "/data/m/l", "f", ""),
		succeeds("rename", "/data/m", "/data/a/n", ""),
		succeeds("lstat", "/data/a/n/l", "", "symlink"),
		succeeds("rename", "/data/a/n/l", "/data/a/n/l2", ""),
		// Ordinary work.
		{Op: "write", Path: "/data/a/b/c/new.txt", Data: "hello", ok: true},
		{Op: "append", Path: "/data/a/b/c/new.txt", Data: " world", ok: true},
		succeeds("read", "/data/a/b/c/new.txt", "", "hello world"),
		{Op: "truncate", Path: "/data/a/b/c/new.txt", Offset: 5, ok: true},
		succeeds("read", "/data/a/b/c/new.txt", "", "hello"),
		succeeds("create_excl", "/data/excl.txt", "", ""),
		fails("create_excl", "/data/excl.txt", ""),
		fails("create_excl", "/data/dangling", ""),
		succeeds("chtimes", "/data/excl.txt", "", ""),
		succeeds("stat", "/data/excl.txt", "", "file 0 "),
		succeeds("rename", "/data/excl.txt", "/data/a/moved.txt", ""),
		succeeds("readdir", "/data/a", "", "b/,moved.txt,n/"),
		succeeds("remove", "/data/a/moved.txt", "", ""),
		fails("remove", "/data/a", ""),
		succeeds("remove", "/data/etclink", "", ""),
		succeeds("mkdir", "/data/empty", "", ""),
		succeeds("remove", "/data/empty", "", ""),
	}
	runFS(t, h, abi.Grants{Dirs: []abi.DirGrant{{Host: grant, Guest: "/data", Write: true}}}, ops)

	// On the host: nothing outside changed, no escaping link exists, and
	// the inside work happened.
	entries, _ := os.ReadDir(filepath.Join(base, "outside"))
	if len(entries) != 1 {
		t.Errorf("the folder outside the grant holds %d entries, want only secret.txt", len(entries))
	}
	for _, name := range []string{"rel-etc", "abs-etc", "a/b/c/up2", "sneaky", "alias", "alias2", "a/b/c/alias3", "pw", "sec", "etc2", "esc2", "up", "a/outlink", "z"} {
		if _, err := os.Lstat(filepath.Join(grant, name)); err == nil {
			t.Errorf("%s exists in the grant", name)
		}
	}
	if b, err := os.ReadFile(filepath.Join(grant, "a", "via-up.txt")); err == nil {
		t.Errorf("via-up.txt landed in a/: %q", b)
	}
	if _, err := os.Stat(filepath.Join(grant, "via-up.txt")); err != nil {
		t.Errorf("a write through a/b/c/up (-> ../../..) did not land at the grant's top: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(grant, "a", "n", "l2")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("a/n/l2: %v %v", fi, err)
	}
	fi, err := os.Stat(filepath.Join(grant, "a", "b", "c", "up"))
	if err != nil || !fi.IsDir() {
		t.Errorf("a/b/c/up was moved or broken: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(grant, "made-later.txt")); err != nil || fi.Size() != 0 {
		t.Errorf("a write through a dangling link inside did not create its target: %v", err)
	}
}

// TestGrantTimes: chtimes sets the times of the host file.
func TestGrantTimes(t *testing.T) {
	h := newTestHost(t)
	grant := t.TempDir()
	file := filepath.Join(grant, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	runFS(t, h, abi.Grants{Dirs: []abi.DirGrant{{Host: grant, Guest: "/w", Write: true}}}, []fsOp{
		succeeds("chtimes", "/w/f.txt", "", ""),
	})
	fi, err := os.Stat(file)
	if err != nil || !fi.ModTime().Equal(time.Unix(1_000_000_000, 0)) {
		t.Errorf("after chtimes: %v %v", fi.ModTime(), err)
	}
}

// TestGrantSpecialFiles: a FIFO in the folder is refused at once instead
// of blocking the host (a blocked host call cannot be timed out).
func TestGrantSpecialFiles(t *testing.T) {
	h := newTestHost(t)
	grant := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(grant, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	start := time.Now()
	runFS(t, h, abi.Grants{Dirs: []abi.DirGrant{{Host: grant, Guest: "/w", Write: true}}, TimeoutMS: 5000}, []fsOp{
		fails("read", "/w/fifo", ""),
		fails("write", "/w/fifo", ""),
		succeeds("lstat", "/w/fifo", "", ""),
	})
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("opening a FIFO took %s", d)
	}
}

// TestGrantMoveRace: two instances of one plugin race: one moves p/up to
// the top of the folder (after making good/up a plain file), the other
// re-points the link p between good and a/b/c, whose "up" is a link
// climbing three levels (../../..: the folder itself). Were the check of
// what is moved and the move itself apart, the climbing link would land at
// the top of the folder, pointing three levels above it.
func TestGrantMoveRace(t *testing.T) {
	h := newTestHost(t)
	_, grant := fsTree(t)
	if err := os.MkdirAll(filepath.Join(grant, "good"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(grant, "good", "up"), []byte("plain"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("good", filepath.Join(grant, "p")); err != nil {
		t.Fatal(err)
	}
	path := testplugins.Source(t, filepath.Join(testplugins.Root(t), "plugins", "testdata", "hostile", "fsops"))
	p := loadPlugin(t, h, path, Config{Grants: abi.Grants{Dirs: []abi.DirGrant{{Host: grant, Guest: "/data", Write: true}}}})
	var mover, swapper []fsOp
	for i := range 1000 {
		mover = append(mover, fsOp{Op: "write", Path: "/data/good/up"}, fsOp{Op: "rename", Path: "/data/p/up", To: fmt.Sprintf("/data/stolen-%d", i)})
		swapper = append(swapper,
			fsOp{Op: "remove", Path: "/data/p"}, fsOp{Op: "symlink", Path: "/data/p", To: "a/b/c"},
			fsOp{Op: "remove", Path: "/data/p"}, fsOp{Op: "symlink", Path: "/data/p", To: "good"})
	}
	var wg sync.WaitGroup
	for _, ops := range [][]fsOp{mover, swapper} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, _ := json.Marshal(map[string]any{"ops": ops})
			req, _ := json.Marshal(abi.CallRequest{ABI: abi.Version, Tool: "fsops", Input: in})
			if _, err := p.callExport(context.Background(), abi.ExportCall, req, nil, false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	err := filepath.Walk(grant, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return err
		}
		target, _ := os.Readlink(p)
		if filepath.IsAbs(target) {
			return nil // the fixture's own absolute links
		}
		if rel, _ := filepath.Rel(grant, filepath.Join(filepath.Dir(p), target)); strings.HasPrefix(rel, "..") && filepath.Base(p) != "esc" && filepath.Base(p) != "outlink" && filepath.Base(p) != "dangout" {
			t.Errorf("after the race, %s -> %s leads out of the grant", p, target)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGrantLinkChains: a path may pass through at most 8 links (as
// documented); a longer chain fails instead of looping.
func TestGrantLinkChains(t *testing.T) {
	h := newTestHost(t)
	grant := t.TempDir()
	if err := os.WriteFile(filepath.Join(grant, "target.txt"), []byte("end of chain"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		next := fmt.Sprintf("l%d", i+1)
		if i == 9 {
			next = "target.txt"
		}
		if err := os.Symlink(next, filepath.Join(grant, fmt.Sprintf("l%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("loop", filepath.Join(grant, "loop")); err != nil {
		t.Fatal(err)
	}
	runFS(t, h, abi.Grants{Dirs: []abi.DirGrant{{Host: grant, Guest: "/w"}}}, []fsOp{
		succeeds("read", "/w/l2", "", "end of chain"),
		fails("read", "/w/l1", ""),
		fails("read", "/w/loop", ""),
	})
}

// TestGrantLargeDir: a listing longer than one fd_readdir buffer arrives
// whole, across several calls (cookies, rewinds).
func TestGrantLargeDir(t *testing.T) {
	h := newTestHost(t)
	grant := t.TempDir()
	const n = 700
	for i := range n {
		if err := os.WriteFile(filepath.Join(grant, fmt.Sprintf("file-with-a-longish-name-%04d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := runFS(t, h, abi.Grants{Dirs: []abi.DirGrant{{Host: grant, Guest: "/w"}}}, []fsOp{
		succeeds("readdir", "/w", "", "file-with-a-longish-name-0699.txt"),
		succeeds("readdir", "/w", "", "file-with-a-longish-name-0000.txt"),
	})
	for _, r := range res {
		if got := len(strings.Split(r.Data, ",")); got != n {
			t.Errorf("listed %d entries, want %d", got, n)
		}
	}
}

// TestGrantOpenFiles: one instance holds at most maxOpenFiles files of a
// grant open (the host's descriptors are shared by every tool); closing
// them makes room again.
func TestGrantOpenFiles(t *testing.T) {
	h := newTestHost(t)
	grant := t.TempDir()
	if err := os.WriteFile(filepath.Join(grant, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runFS(t, h, abi.Grants{Dirs: []abi.DirGrant{{Host: grant, Guest: "/w"}}}, []fsOp{
		{Op: "openmany", Path: "/w/f", Offset: maxOpenFiles + 100},
		{Op: "openmany", Path: "/w/f", Offset: 100, ok: true, want: "100"},
	})
	if n, _ := strconv.Atoi(res[0].Data); n < maxOpenFiles-10 || n >= maxOpenFiles || !strings.Contains(strings.ToLower(res[0].Err), "try again") {
		t.Errorf("opened %s files before %q, want about %d", res[0].Data, res[0].Err, maxOpenFiles)
	}
}

// TestGrantMissingFolder: a grant of a folder that does not exist is an
// error that names it, not an empty file system.
func TestGrantMissingFolder(t *testing.T) {
	h := newTestHost(t)
	path := testplugins.Source(t, filepath.Join(testplugins.Root(t), "plugins", "testdata", "hostile", "fsops"))
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := h.LoadFile(t.Context(), path, Config{Grants: abi.Grants{Dirs: []abi.DirGrant{{Host: missing}}}})
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "create the folder") {
		t.Fatalf("load with a missing folder: %v", err)
	}
}

// snapshot describes every entry under dir (names, link targets, sizes,
// modes, modification times), to tell whether anything changed.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		target, _ := os.Readlink(p)
		if rel == "." {
			return nil // the folder's own times change when the test reads it
		}
		fmt.Fprintf(&b, "%s|%s|%s|%s|%d;", rel, target, fi.Mode(), fi.ModTime(), fi.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
