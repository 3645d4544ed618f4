package host

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/toolkit"
)

// TestFolderServesOnlyWhatTheOperatorTrusted walks a folder tool calls may
// write through the life of its files: nothing serves on its own say, a
// trusted module serves with the sidecar as trusted, a change waits while
// the trusted version serves on, a revocation stops it.
func TestFolderServesOnlyWhatTheOperatorTrusted(t *testing.T) {
	wasm := versionedWasm(t)
	h := newTestHost(t)
	dir := t.TempDir()
	record := filepath.Join(t.TempDir(), "trust.json")
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	var rec recorder
	ctx := context.Background()
	f, err := h.OpenFolder(ctx, tk, dir, FolderOptions{OnEvent: rec.add, Approvals: func() (*TrustRecord, error) { return ReadTrust(record) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(ctx) })

	trust := func(paths ...string) {
		t.Helper()
		r, err := ReadTrust(record)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if filepath.Base(p) == GroupFileName {
				_, err = r.TrustGroupFile(p)
			} else {
				_, err = r.TrustModule(p, abi.Grants{})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		must(t, r.Write(record))
	}
	revoke := func(p string) {
		t.Helper()
		r, err := ReadTrust(record)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Revoke(p)) == 0 {
			t.Fatalf("nothing revoked under %s", p)
		}
		must(t, r.Write(record))
	}
	v := filepath.Join(dir, "v.wasm")
	ops := filepath.Join(dir, "ops")
	steps := []struct {
		name        string
		change      func()
		wantEvents  []string
		wantCall    string // result of calling version
		wantPending []string
	}{
		{"dropped, not trusted", func() { install(t, dir, "v", wasm, "1") }, []string{"pending v.wasm"}, "ERROR: ", []string{"v.wasm"}},
		{"trusted", func() { trust(v) }, []string{"loaded v.wasm"}, "version 1", nil},
		{"sidecar rewritten: waits, the trusted version serves on", func() { install(t, dir, "v", wasm, "2") }, []string{"pending v.wasm"}, "version 1", []string{"v.wasm"}},
		{"the change trusted", func() { trust(v) }, []string{"replaced v.wasm"}, "version 2", nil},
		{"revoked", func() { revoke(v) }, []string{"pending v.wasm", "removed v.wasm"}, "ERROR: ", []string{"v.wasm"}},
		{"trusted again", func() { trust(v) }, []string{"loaded v.wasm"}, "version 2", nil},
		{"a group folder dropped beside it", func() {
			writeAtomic(t, filepath.Join(ops, GroupFileName), []byte("description: Ops.\nactive: true\n"))
			must(t, os.Remove(v))
			install(t, ops, "v", wasm, "3")
		}, []string{"pending group.yaml", "removed v.wasm"}, "ERROR: ", []string{"group.yaml"}},
		{"group file trusted: its module still waits", func() { trust(filepath.Join(ops, GroupFileName)) }, []string{"pending v.wasm"}, "ERROR: ", []string{"v.wasm"}},
		{"its module trusted", func() { trust(filepath.Join(ops, "v.wasm")) }, []string{"loaded v.wasm"}, "version 3", nil},
	}
	for i, st := range steps {
		st.change()
		syncStep(t, f, tk, &rec, i, st.name, st.wantEvents, st.wantCall)
		var pending []string
		for p, why := range f.Pending() {
			pending = append(pending, filepath.Base(p))
			if !strings.Contains(why, "wasmtools plugins trust "+p) {
				t.Errorf("step %d %s: %s waits without saying how to trust it: %s", i, st.name, p, why)
			}
		}
		slices.Sort(pending)
		if !slices.Equal(pending, st.wantPending) {
			t.Errorf("step %d %s: pending %q, want %q", i, st.name, pending, st.wantPending)
		}
		if failed := f.Failed(); len(failed) != 0 {
			t.Errorf("step %d %s: failed %v: waiting files are not failures", i, st.name, failed)
		}
	}
}

// TestApprovedModuleServesWithItsApprovedSidecar shows the sidecar is
// taken from the record, not the file: a sidecar swapped after the
// check (while the module compiles, say) grants nothing, and a module
// swapped after the check is refused by its pin.
func TestApprovedModuleServesWithItsApprovedSidecar(t *testing.T) {
	wasm := versionedWasm(t)
	h := newTestHost(t)
	dir := t.TempDir()
	install(t, dir, "v", wasm, "approved")
	path := filepath.Join(dir, "v.wasm")
	var r TrustRecord
	a, err := r.TrustModule(path, abi.Grants{})
	if err != nil {
		t.Fatal(err)
	}
	install(t, dir, "v", wasm, "swapped")
	ctx := context.Background()
	p, err := h.loadApproved(ctx, path, Config{}, &a)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if got := p.Grants().Env["VERSION"]; got != "approved" {
		t.Errorf("served with VERSION=%q, want the approved sidecar's", got)
	}
	writeAtomic(t, path, append(slices.Clone(wasm), 0, 0)) // another module
	if p, err := h.loadApproved(ctx, path, Config{}, &a); err == nil || !strings.Contains(err.Error(), "sha256") {
		if p != nil {
			p.Close(ctx)
		}
		t.Errorf("a module swapped after the check loaded (err %v)", err)
	}
}

// TestTrustRecordRejects covers what a record refuses to approve or to
// read, and what Module says of a file that is not as approved.
func TestTrustRecordRejects(t *testing.T) {
	dir := t.TempDir()
	wasm := []byte("\x00asm\x01\x00\x00\x00")
	mod := filepath.Join(dir, "m.wasm")
	must(t, os.WriteFile(mod, wasm, 0o644))
	var r TrustRecord
	if _, err := r.TrustModule(mod, abi.Grants{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Module(mod); err != nil {
		t.Errorf("unchanged module: %v", err)
	}
	// A link to the trusted file under another name is another plugin
	// (named after the link, with that name's grants): not trusted.
	link := filepath.Join(dir, "other.wasm")
	must(t, os.Symlink(mod, link))
	if _, err := r.Module(link); !errors.Is(err, ErrNotTrusted) {
		t.Errorf("a link to the trusted module under another name: %v, want it not trusted", err)
	}
	// The folder reached through a link is another place: a folder link
	// re-pointed must not carry a trusted file into another group.
	alias := filepath.Join(t.TempDir(), "alias")
	must(t, os.Symlink(dir, alias))
	if _, err := r.Module(filepath.Join(alias, "m.wasm")); !errors.Is(err, ErrNotTrusted) {
		t.Errorf("the trusted module through a link to its folder: %v, want it not trusted", err)
	}
	// Revoking by the spelling trusted works whatever the links.
	var linked TrustRecord
	if _, err := linked.TrustModule(filepath.Join(alias, "m.wasm"), abi.Grants{}); err != nil {
		t.Fatal(err)
	}
	if got := linked.Revoke(filepath.Join(alias, "m.wasm")); len(got) != 1 {
		t.Errorf("revoke through the link removed %q", got)
	}
	cases := []struct {
		name   string
		change func()
		reason string
	}{
		{"sidecar added", func() {
			must(t, os.WriteFile(filepath.Join(dir, "m.json"), []byte(`{"grants":{"http_hosts":["example.com"]}}`), 0o644))
		}, "sidecar m.json changed"},
		{"module changed", func() { must(t, os.WriteFile(mod, append(wasm, 0), 0o644)) }, "module changed"},
		{"module gone", func() { must(t, os.Remove(mod)) }, "no such file"},
	}
	for _, c := range cases {
		c.change()
		_, err := r.Module(mod)
		var pe *PendingError
		if !errors.As(err, &pe) || !errors.Is(err, ErrNotTrusted) || !strings.Contains(pe.Reason, c.reason) {
			t.Errorf("%s: err %v, want a PendingError saying %q", c.name, err, c.reason)
		}
	}
	// A record that is not JSON of the record's shape is an error that
	// says what to do, never an empty record.
	bad := filepath.Join(dir, "trust.json")
	must(t, os.WriteFile(bad, []byte(`{"modules":[{"path":"/x","sha256":"y","grants":{}}]}`), 0o600))
	if _, err := ReadTrust(bad); err == nil || !strings.Contains(err.Error(), "fix or remove") {
		t.Errorf("a record with an unknown field: %v", err)
	}
	if r, err := ReadTrust(filepath.Join(dir, "absent.json")); err != nil || len(r.Modules) != 0 {
		t.Errorf("a missing record: %v %v", r, err)
	}
}

// TestConfigGrantsBindToTheApproval: the configuration's grants follow a
// plugin's name, so a module dropped under a configured plugin's name
// would gain them unseen. The approval records them: a module trusted
// without them waits, one trusted with them serves with them.
func TestConfigGrantsBindToTheApproval(t *testing.T) {
	wasm := versionedWasm(t)
	h := newTestHost(t)
	dir := t.TempDir()
	writeAtomic(t, filepath.Join(dir, "v.wasm"), wasm) // no sidecar
	configured := abi.Grants{Env: map[string]string{"VERSION": "from-config"}}
	var record TrustRecord
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	ctx := context.Background()
	f, err := h.OpenFolder(ctx, tk, dir, FolderOptions{
		Config:    func(string) Config { return Config{Grants: configured} },
		Approvals: func() (*TrustRecord, error) { return &record, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(ctx) })

	if _, err := record.TrustModule(filepath.Join(dir, "v.wasm"), abi.Grants{}); err != nil {
		t.Fatal(err)
	}
	f.Sync(ctx)
	if why := f.Pending()[filepath.Join(dir, "v.wasm")]; !strings.Contains(why, "configuration's grants") {
		t.Errorf("trusted without the configuration's grants: pending %q", why)
	}
	if got := callVersion(tk, "s1"); !strings.HasPrefix(got, "ERROR: ") {
		t.Errorf("served anyway: %q", got)
	}
	if _, err := record.TrustModule(filepath.Join(dir, "v.wasm"), configured); err != nil {
		t.Fatal(err)
	}
	f.Sync(ctx)
	if got := callVersion(tk, "s2"); got != "version from-config" {
		t.Errorf("trusted with the configuration's grants: %q", got)
	}
}

// TestOperatorFolderReadsNoRecord: a Sync of files that need no approval
// does not read the trust record (it runs on every file event).
func TestOperatorFolderReadsNoRecord(t *testing.T) {
	h := newTestHost(t)
	dir := t.TempDir()
	install(t, dir, "v", versionedWasm(t), "1")
	reads := 0
	tk := toolkit.New(toolkit.Options{Permission: bypass})
	ctx := context.Background()
	f, err := h.OpenFolder(ctx, tk, dir, FolderOptions{
		Approvals: func() (*TrustRecord, error) { reads++; return &TrustRecord{}, nil },
		Untrusted: func(string) bool { return false },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(ctx) })
	f.Sync(ctx)
	if got := callVersion(tk, "s"); got != "version 1" || reads != 0 {
		t.Errorf("call %q, record read %d times", got, reads)
	}
}

// FuzzTrustRecord: any bytes in the trust record file read as a record
// or as an error that says to fix the file, never a panic; a record read
// writes back as the same record.
func FuzzTrustRecord(f *testing.F) {
	f.Add([]byte(`{"modules":[{"path":"/p/m.wasm","sha256":"ab","size":3,"sidecar":{"grants":{"env":{"A":"1"}}},"trusted_at":"2026-12-01T00:00:00Z"}],"groups":[{"path":"/p/g/group.yaml","sha256":"cd","trusted_at":"2026-12-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"modules":null,"configs":[{"path":"/w/wasmtools.yaml","sha256":""}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		file := filepath.Join(dir, "trust.json")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := ReadTrust(file)
		if err != nil {
			if !strings.Contains(err.Error(), "fix or remove") {
				t.Errorf("an unreadable record's error does not say what to do: %v", err)
			}
			return
		}
		again := filepath.Join(dir, "again.json")
		if err := r.Write(again); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTrust(again)
		if err != nil {
			t.Fatalf("a record written does not read back: %v", err)
		}
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(back)
		if string(a) != string(b) {
			t.Errorf("round trip changed the record:\n%s\n%s", a, b)
		}
	})
}
