package host

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/pathtree"
	"github.com/wasmtools/wasmtools/toolkit"
)

// TrustFileEnv names the environment variable that moves the trust record
// away from its default place (DefaultTrustFile).
const TrustFileEnv = "WASMTOOLS_TRUST_FILE"

// ErrNotTrusted is wrapped by the errors of module and group files that
// wait for the operator's approval (see TrustRecord).
var ErrNotTrusted = errors.New("not trusted by the operator")

// errSizeChanged is wrapped by readPluginFileSized's error for a file
// whose size is not the one expected.
var errSizeChanged = errors.New("its size changed")

// maxPluginFile bounds what is read of a module, sidecar or group file
// in a folder tool calls may write: a planted file of any size must not
// make the host read without end.
const maxPluginFile = 256 << 20

// TrustRecord is the operator's approval of plugin files that lie in a
// folder tool calls may write (a working directory, a sandbox writable
// path). Such a folder's files could have been written by an agent, so
// none of them is loaded on its own say: a module serves only when the
// record holds its path, its digest and the digest of its sidecar, and it
// serves with the sidecar as it was approved (the file is not read
// again); a group file defines its group only when approved the same way.
// Anything else waits (FolderEventKind EventPending) until the operator
// trusts it, with `wasmtools plugins trust` or TrustModule and Write.
//
// The record is a JSON file kept where no tool call writes (by default
// under the user's configuration folder, DefaultTrustFile); a host
// refuses one that lies in a folder tool calls may write.
type TrustRecord struct {
	// Modules are the approved module files.
	Modules []TrustedModule `json:"modules"`
	// Groups are the approved group files (GroupFileName).
	Groups []TrustedFile `json:"groups,omitempty"`
	// Configs are the approved configuration files: one found in the
	// agent's working directory (wasmtools.yaml) is obeyed only as
	// approved (the CLI checks; see ConfigApproved).
	Configs []TrustedFile `json:"configs,omitempty"`
}

// TrustedModule is one approved module file.
type TrustedModule struct {
	// Path is the module file: absolute, as spelled (links are not
	// resolved: see trustPath).
	Path string `json:"path"`
	// SHA256 is the module's digest, Size its length in bytes.
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// SidecarSHA256 is the digest of its sidecar file (NAME.json), ""
	// when it had none.
	SidecarSHA256 string `json:"sidecar_sha256,omitempty"`
	// Sidecar is the sidecar as approved: what the module is served
	// with (grants, manifest, name).
	Sidecar *Sidecar `json:"sidecar,omitempty"`
	// ConfigGrants are the grants the host's configuration gave the
	// plugin's name when it was trusted (the folder's
	// FolderOptions.Config): the module serves only while the
	// configuration still gives exactly these, so that a module dropped
	// under the name of a configured plugin gains nothing unseen.
	ConfigGrants *abi.Grants `json:"config_grants,omitempty"`
	// TrustedAt is when the operator approved it.
	TrustedAt time.Time `json:"trusted_at"`
}

// TrustedFile is one approved group or configuration file.
type TrustedFile struct {
	// Path is the file: absolute, as spelled.
	Path string `json:"path"`
	// SHA256 is its digest.
	SHA256 string `json:"sha256"`
	// TrustedAt is when the operator approved it.
	TrustedAt time.Time `json:"trusted_at"`
}

// DefaultTrustFile returns where the trust record is kept: the file named
// by WASMTOOLS_TRUST_FILE, else wasmtools/trust.json in the user's
// configuration folder (os.UserConfigDir).
func DefaultTrustFile() (string, error) {
	if f := os.Getenv(TrustFileEnv); f != "" {
		return filepath.Abs(f)
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no place for the plugin trust record: %w; set %s to a file outside the working directories", err, TrustFileEnv)
	}
	return filepath.Join(dir, "wasmtools", "trust.json"), nil
}

// ReadTrust reads a trust record; a file that does not exist is an empty
// record.
func ReadTrust(file string) (*TrustRecord, error) {
	r := &TrustRecord{}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plugin trust record: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(r); err != nil {
		return nil, fmt.Errorf("plugin trust record %s: %s; fix or remove the file (then trust the plugins again)", file, jsonProblem(err))
	}
	return r, nil
}

// Write saves the record to file, replacing it in one step (a reader
// sees the old record or the new one), readable by its owner only.
func (r *TrustRecord) Write(file string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("plugin trust record: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("plugin trust record: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".trust-*.json")
	if err != nil {
		return fmt.Errorf("plugin trust record: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, nothing is left to remove
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("plugin trust record: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("plugin trust record: %w", err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("plugin trust record: %w", err)
	}
	return nil
}

// TrustModule approves the module file at path as it is now, with its
// sidecar and with configGrants, the grants the host's configuration
// gives its name (the zero Grants when none), replacing an earlier
// approval of the same path. It returns what was recorded: show the
// operator the grants being approved.
func (r *TrustRecord) TrustModule(path string, configGrants abi.Grants) (TrustedModule, error) {
	at, err := trustPath(path)
	if err != nil {
		return TrustedModule{}, err
	}
	wasm, err := readPluginFile(at)
	if err != nil {
		return TrustedModule{}, fmt.Errorf("trust %s: %w", path, err)
	}
	tm := TrustedModule{Path: at, SHA256: digestOf(wasm), Size: int64(len(wasm)), TrustedAt: time.Now().UTC().Truncate(time.Second)}
	side, sideDigest, err := readSidecarOnce(at)
	if err != nil {
		return TrustedModule{}, fmt.Errorf("trust %s: %w", path, err)
	}
	tm.Sidecar, tm.SidecarSHA256 = side, sideDigest
	if !grantsEmpty(configGrants) {
		tm.ConfigGrants = &configGrants
	}
	r.Modules = slices.DeleteFunc(r.Modules, func(m TrustedModule) bool { return m.Path == at })
	r.Modules = append(r.Modules, tm)
	slices.SortFunc(r.Modules, func(a, b TrustedModule) int { return strings.Compare(a.Path, b.Path) })
	return tm, nil
}

// TrustGroupFile approves the group file at path as it is now.
func (r *TrustRecord) TrustGroupFile(path string) (TrustedFile, error) {
	return trustFile(&r.Groups, path, func(at string, data []byte) error {
		_, err := parseGroupFile(filepath.Base(filepath.Dir(at)), data)
		return err
	})
}

// TrustConfig approves the configuration file at path as it is now.
func (r *TrustRecord) TrustConfig(path string) (TrustedFile, error) {
	return trustFile(&r.Configs, path, nil)
}

// ConfigApproved returns nil when data, read from the configuration
// file at path, is what the operator approved; otherwise an error that
// wraps ErrNotTrusted and says why.
func (r *TrustRecord) ConfigApproved(path string, data []byte) error {
	return fileApproved(r.Configs, path, data, "the configuration")
}

// trustFile approves the file at path as it is now in list, replacing
// an earlier approval of the same path; check, when set, refuses
// contents that are not what the file should hold.
func trustFile(list *[]TrustedFile, path string, check func(at string, data []byte) error) (TrustedFile, error) {
	at, err := trustPath(path)
	if err != nil {
		return TrustedFile{}, err
	}
	data, err := readPluginFile(at)
	if err == nil && check != nil {
		err = check(at, data)
	}
	if err != nil {
		return TrustedFile{}, fmt.Errorf("trust %s: %w", path, err)
	}
	tf := TrustedFile{Path: at, SHA256: digestOf(data), TrustedAt: time.Now().UTC().Truncate(time.Second)}
	*list = slices.DeleteFunc(*list, func(f TrustedFile) bool { return f.Path == at })
	*list = append(*list, tf)
	slices.SortFunc(*list, func(a, b TrustedFile) int { return strings.Compare(a.Path, b.Path) })
	return tf, nil
}

// fileApproved returns nil when data, read from path, is what list
// approves; otherwise an error that wraps ErrNotTrusted and says why
// (what names the file in it).
func fileApproved(list []TrustedFile, path string, data []byte, what string) error {
	at, err := trustPath(path)
	if err != nil {
		return &PendingError{Path: path, Reason: err.Error()}
	}
	i := slices.IndexFunc(list, func(f TrustedFile) bool { return f.Path == at })
	switch {
	case i < 0:
		return &PendingError{Path: path, Reason: "the operator has not trusted it"}
	case list[i].SHA256 != digestOf(data):
		return &PendingError{Path: path, Reason: what + " changed since the operator trusted it"}
	}
	return nil
}

// ReadConfigFile reads a configuration file as a plugin file is read:
// a regular file of bounded size, never blocking on a FIFO.
func ReadConfigFile(path string) ([]byte, error) { return readPluginFile(path) }

// Revoke removes the approvals of path (a module, group or configuration
// file) and of every file below it (a folder), and returns the paths
// removed.
func (r *TrustRecord) Revoke(path string) []string {
	target, err := trustPath(path)
	if err != nil {
		return nil
	}
	var removed []string
	drop := func(p string) bool {
		if pathtree.Holds(target, p) {
			removed = append(removed, p)
			return true
		}
		return false
	}
	r.Modules = slices.DeleteFunc(r.Modules, func(m TrustedModule) bool { return drop(m.Path) })
	r.Groups = slices.DeleteFunc(r.Groups, func(f TrustedFile) bool { return drop(f.Path) })
	r.Configs = slices.DeleteFunc(r.Configs, func(f TrustedFile) bool { return drop(f.Path) })
	slices.Sort(removed)
	return removed
}

// Module returns the approval of the module file at path, when the file
// and its sidecar are still what was approved; otherwise an error that
// wraps ErrNotTrusted and says why.
func (r *TrustRecord) Module(path string) (TrustedModule, error) {
	at, err := trustPath(path)
	if err != nil {
		return TrustedModule{}, &PendingError{Path: path, Reason: err.Error()}
	}
	i := slices.IndexFunc(r.Modules, func(m TrustedModule) bool { return m.Path == at })
	if i < 0 {
		return TrustedModule{}, &PendingError{Path: path, Reason: "the operator has not trusted it"}
	}
	tm := r.Modules[i]
	wasm, err := readPluginFile(at)
	if err != nil {
		return TrustedModule{}, &PendingError{Path: path, Reason: err.Error()}
	}
	if digestOf(wasm) != tm.SHA256 {
		return TrustedModule{}, &PendingError{Path: path, Reason: "the module changed since the operator trusted it"}
	}
	_, sideDigest, err := readSidecarOnce(at)
	if err != nil {
		return TrustedModule{}, &PendingError{Path: path, Reason: err.Error()}
	}
	if sideDigest != tm.SidecarSHA256 {
		return TrustedModule{}, &PendingError{Path: path, Reason: "its sidecar " + filepath.Base(SidecarPath(path)) + " changed since the operator trusted it"}
	}
	return tm, nil
}

// groupFile returns nil when data, read from the group file at path, is
// what was approved; otherwise an error that wraps ErrNotTrusted.
func (r *TrustRecord) groupFile(path string, data []byte) error {
	return fileApproved(r.Groups, path, data, "the group file")
}

// PendingError says that a plugin file waits for the operator's
// approval. It wraps ErrNotTrusted.
type PendingError struct {
	// Path is the module or group file.
	Path string
	// Reason says why it is not (or no longer) approved.
	Reason string
}

func (e *PendingError) Error() string {
	return fmt.Sprintf("%s is not served: %s. It lies where a tool call (or another user) may have written it, so it serves only as the operator trusted it; review it, then run: wasmtools plugins trust %s",
		e.Path, e.Reason, e.Path)
}

func (e *PendingError) Unwrap() error { return ErrNotTrusted }

// trustPath is what a record names a file by: its absolute path as
// spelled, links not resolved. The spelling binds: a plugin is named
// after its file, it joins the group of its sub-folder, and the
// configuration's grants follow its name, so a link planted under another
// name to a trusted module, or a folder link re-pointed so that a trusted
// file appears at another place, is not what was trusted. (Its contents
// are checked by digest wherever the path leads.)
func trustPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.Clean(abs), nil
}

// readSidecarOnce reads the sidecar of a module file once: the parsed
// sidecar (nil when there is none) and the digest of the bytes parsed.
func readSidecarOnce(wasmPath string) (*Sidecar, string, error) {
	path := SidecarPath(wasmPath)
	data, err := readPluginFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	s, err := parseSidecar(path, data)
	if err != nil {
		return nil, "", err
	}
	return &s, digestOf(data), nil
}

// readPluginFile reads a regular file of at most maxPluginFile bytes. A
// FIFO, device or folder planted under a plugin's name is refused
// without blocking on it.
func readPluginFile(path string) ([]byte, error) { return readPluginFileSized(path, -1) }

// readPluginFileSized is readPluginFile of a file that must be size
// bytes long (any size when size is negative): a file of another size is
// refused before it is read.
func readPluginFileSized(path string, size int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if info.Size() > maxPluginFile {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxPluginFile>>20)
	}
	if size >= 0 && info.Size() != size {
		return nil, fmt.Errorf("%s is %d bytes long, not %d: %w", path, info.Size(), size, errSizeChanged)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPluginFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPluginFile {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxPluginFile>>20)
	}
	return data, nil
}

// grantsEmpty reports grants that give nothing.
func grantsEmpty(g abi.Grants) bool {
	return len(g.Dirs) == 0 && len(g.HTTPHosts) == 0 && len(g.Env) == 0 && len(g.Config) == 0 && g.MemoryMiB == 0 && g.TimeoutMS == 0
}

// sameGrants reports whether the configuration's grants now are those
// approved.
func sameGrants(approved *abi.Grants, now abi.Grants) bool {
	if approved == nil || grantsEmpty(*approved) {
		return grantsEmpty(now)
	}
	a, errA := json.Marshal(approved)
	b, errB := json.Marshal(now)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// trustState is what one Sync of a folder with Approvals knows of the
// operator's approvals. A nil *trustState is an operator's own folder:
// everything in it is approved.
type trustState struct {
	// fetch is FolderOptions.Approvals, called once, by the first file
	// that needs an approval: a Sync of files that need none reads no
	// record.
	fetch   func() (*TrustRecord, error)
	fetched bool
	rec     *TrustRecord
	err     error // the record could not be read: nothing is approved
	// untrusted is FolderOptions.Untrusted.
	untrusted func(path string) bool
	// config is FolderOptions.Config: the grants an approval must match.
	config func(path string) Config
}

// record returns the operator's approvals, or, when they cannot be read,
// the error that keeps path waiting.
func (t *trustState) record(path string) (*TrustRecord, error) {
	if !t.fetched {
		t.fetched = true
		t.rec, t.err = t.fetch()
		if t.err == nil && t.rec == nil {
			t.rec = &TrustRecord{}
		}
	}
	if t.err != nil {
		return nil, &PendingError{Path: path, Reason: "the trust record cannot be read (" + t.err.Error() + ")"}
	}
	return t.rec, nil
}

// needs reports whether the file at path needs the operator's approval.
func (t *trustState) needs(path string) bool {
	return t.untrusted == nil || t.untrusted(path)
}

// moduleNeeds reports whether the module file at path, or its sidecar,
// needs the operator's approval.
func (t *trustState) moduleNeeds(path string) bool {
	return t.needs(path) || t.needs(SidecarPath(path))
}

// decide settles a candidate module of the Sync: the approval of the
// file as it is now (or the error that keeps it waiting), and whether
// the version serving may serve on.
func (t *trustState) decide(c *candidate) {
	if !t.moduleNeeds(c.path) {
		c.approval = nil
		return // the operator's own file
	}
	oldOK := c.old != nil && t.approves(c.path, c.old)
	switch {
	case c.err != nil:
	case oldOK && c.old.digest == c.digest:
		c.approval = c.old.approval // unchanged, and still approved
	default:
		c.approval, c.err = t.module(c.path)
		// The version serving may serve on under a new approval only when
		// the approval is of the very bytes it was loaded with (which its
		// own approval recorded): the file may have changed again since
		// it was hashed above.
		if c.err == nil && c.old != nil && c.old.approval != nil &&
			c.old.approval.SHA256 == c.approval.SHA256 && c.old.approval.SidecarSHA256 == c.approval.SidecarSHA256 {
			c.old.approval, oldOK = c.approval, true
		}
	}
	c.dropOld = c.old != nil && !oldOK
}

// precheck refuses, without reading it, a module file that no approval
// can fit: none names its path, or the approved size differs.
func (t *trustState) precheck(path string) error {
	if !t.moduleNeeds(path) {
		return nil
	}
	rec, err := t.record(path)
	if err != nil {
		return err
	}
	at, err := trustPath(path)
	if err != nil {
		return &PendingError{Path: path, Reason: err.Error()}
	}
	i := slices.IndexFunc(rec.Modules, func(m TrustedModule) bool { return m.Path == at })
	if i < 0 {
		return &PendingError{Path: path, Reason: "the operator has not trusted it"}
	}
	if info, err := os.Stat(path); err == nil && info.Size() != rec.Modules[i].Size {
		return &PendingError{Path: path, Reason: "the module changed since the operator trusted it"}
	}
	return nil
}

// module returns the approval of the module file at path as it is now.
func (t *trustState) module(path string) (*TrustedModule, error) {
	rec, err := t.record(path)
	if err != nil {
		return nil, err
	}
	tm, err := rec.Module(path)
	if err != nil {
		return nil, err
	}
	var now abi.Grants
	if t.config != nil {
		now = t.config(path).Grants
	}
	if !sameGrants(tm.ConfigGrants, now) {
		return nil, &PendingError{Path: path, Reason: "the configuration's grants for its name differ from those the operator trusted with it"}
	}
	return &tm, nil
}

// approves reports whether the record still approves the version m
// of the module file at path serves: an approval revoked or replaced
// since stops it.
func (t *trustState) approves(path string, m *folderModule) bool {
	if t == nil || !t.moduleNeeds(path) {
		return true
	}
	rec, err := t.record(path)
	if err != nil || m.approval == nil {
		return false
	}
	a := m.approval
	return slices.ContainsFunc(rec.Modules, func(r TrustedModule) bool {
		return r.Path == a.Path && r.SHA256 == a.SHA256 && r.SidecarSHA256 == a.SidecarSHA256
	})
}

// readGroupFile reads the group file of the sub-folder dir (named name)
// when the record approves it as it is; a missing file is the default
// group, which needs no approval (it binds nothing).
func (t *trustState) readGroupFile(name, dir string) (toolkit.Group, error) {
	if t == nil {
		return readGroupFile(name, dir)
	}
	path := filepath.Join(dir, GroupFileName)
	if !t.needs(path) {
		return readGroupFile(name, dir)
	}
	data, err := readPluginFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return defaultGroup(name), nil
	}
	if err != nil {
		return defaultGroup(name), err
	}
	rec, err := t.record(path)
	if err == nil {
		err = rec.groupFile(path, data)
	}
	if err != nil {
		return defaultGroup(name), err
	}
	return parseGroupFile(name, data)
}

// GroupFile returns the approval of the group file at path, when the
// file is still what was approved; otherwise an error that wraps
// ErrNotTrusted and says why.
func (r *TrustRecord) GroupFile(path string) (TrustedFile, error) {
	data, err := readPluginFile(path)
	if err != nil {
		return TrustedFile{}, &PendingError{Path: path, Reason: err.Error()}
	}
	if err := r.groupFile(path, data); err != nil {
		return TrustedFile{}, err
	}
	at, _ := trustPath(path) // made absolute by groupFile already
	i := slices.IndexFunc(r.Groups, func(g TrustedFile) bool { return g.Path == at })
	return r.Groups[i], nil
}

// PluginFiles lists what a plugin folder serves, as a Folder scans it:
// the .wasm files in it and in its sub-folders (hidden ones skipped), and
// the sub-folders' group files that exist. A file (a module or a group
// file) lists itself.
func PluginFiles(path string) (modules, groupFiles []string, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !info.IsDir() {
		if filepath.Base(path) == GroupFileName {
			return nil, []string{path}, nil
		}
		return []string{path}, nil, nil
	}
	modules, err = ModuleFiles(path)
	if err != nil {
		return nil, nil, err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := filepath.Join(path, e.Name())
		if _, err := os.Stat(filepath.Join(sub, GroupFileName)); err == nil {
			groupFiles = append(groupFiles, filepath.Join(sub, GroupFileName))
		}
		more, err := ModuleFiles(sub)
		if err != nil {
			return nil, nil, err
		}
		modules = append(modules, more...)
	}
	return modules, groupFiles, nil
}
