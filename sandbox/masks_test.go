//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// maskScene is a home folder with credentials and a working directory
// holding host files, as a command meets them.
type maskScene struct {
	home, work                string
	key, netrc, config, plugs string
}

func newMaskScene(t *testing.T, base string) maskScene {
	t.Helper()
	s := maskScene{home: filepath.Join(base, "home"), work: filepath.Join(base, "work")}
	s.key = filepath.Join(s.home, ".ssh", "id_rsa")
	s.netrc = filepath.Join(s.home, ".netrc")
	s.config = filepath.Join(s.work, "wasmtools.yaml")
	s.plugs = filepath.Join(s.work, "plugins")
	for p, data := range map[string]string{s.key: "SECRET-KEY\n", s.netrc: "machine x password SECRET-NETRC\n", s.config: "mode: default\n", filepath.Join(s.plugs, "a.wasm"): "module"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// script tries every way around the masks a shell has at hand (the
// host's own view of the file system through /proc included), then does
// what must still work.
func (s maskScene) script() string {
	return fmt.Sprintf(`cat %[1]q; ls %[2]q; cat %[3]q; cat %[2]q/../.ssh/id_rsa
cat /proc/%[7]d/root%[1]s; cat /proc/%[7]d/cwd/../home/.ssh/id_rsa
umount %[2]q 2>&1 || echo umount-refused
echo evil >> %[4]q; mv %[4]q %[5]q/moved; rm -f %[4]q
touch %[6]q/dropped.wasm; mv %[6]q %[5]q/elsewhere; rm -rf %[6]q
echo ok > %[5]q/other && echo other-ok
echo uid=$(id -u)`, s.key, filepath.Dir(s.key), s.netrc, s.config, s.work, s.plugs, os.Getpid())
}

func (s maskScene) check(t *testing.T, res outcome, uid int) {
	t.Helper()
	if strings.Contains(res.out, "SECRET") {
		t.Errorf("a hidden credential was read:\n%s", res.out)
	}
	if !strings.Contains(res.out, "umount-refused") {
		t.Errorf("the command unmounted a mask:\n%s", res.out)
	}
	if b, err := os.ReadFile(s.config); err != nil || string(b) != "mode: default\n" {
		t.Errorf("the read-only configuration changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(s.plugs, "dropped.wasm")); err == nil {
		t.Error("a module was dropped into the read-only plugin folder")
	}
	if _, err := os.Stat(filepath.Join(s.plugs, "a.wasm")); err != nil {
		t.Errorf("the read-only plugin folder was moved or removed: %v", err)
	}
	if !strings.Contains(res.out, "other-ok") {
		t.Errorf("the rest of the working directory is no longer writable:\n%s", res.out)
	}
	if !strings.Contains(res.out, "uid="+strconv.Itoa(uid)+"\n") && !strings.HasSuffix(strings.TrimSpace(res.out), "uid="+strconv.Itoa(uid)) {
		t.Errorf("the command does not run as the user %d:\n%s", uid, res.out)
	}
	// Outside the command nothing changed: the host still reads them.
	if b, _ := os.ReadFile(s.key); string(b) != "SECRET-KEY\n" {
		t.Errorf("the host's own view of the key changed: %q", b)
	}
}

// TestHiddenAndReadOnly (issue 27, items 1 and 4; issue 26, item 4): a
// confined command cannot read hidden credentials, nor change, replace
// or remove host files that lie inside its working directory, nor undo
// either; it still writes the rest of the working directory, as the
// user.
func TestHiddenAndReadOnly(t *testing.T) {
	needLandlock(t)
	s := newMaskScene(t, t.TempDir())
	sb := newSandbox(t, Options{Hidden: []string{filepath.Dir(s.key), s.netrc}, ReadOnly: []string{s.config, s.plugs}})
	if why := sb.maskSupport(); why != "" {
		t.Fatalf("this kernel gives no user and mount namespaces: %s", why)
	}
	res := run(t, sb, Policy{WorkingDirs: []string{s.work}}, s.work, s.script())
	s.check(t, res, os.Getuid())
	if st := sb.Status(); st.Masking != "mount namespace" || len(st.Hidden) != 2 || len(st.ReadOnly) != 2 {
		t.Errorf("status: %+v", st)
	}
}

// TestHiddenAndReadOnlyAsAUser runs TestHiddenAndReadOnly's scene from a
// host that is not root, the common case: the helper must be root in its
// own user namespace to mount, and the command must run as the user
// again. The test binary runs itself as the nobody user.
func TestHiddenAndReadOnlyAsAUser(t *testing.T) {
	needLandlock(t)
	if os.Getenv("WASMTOOLS_MASK_CHILD") != "" {
		base := os.Getenv("WASMTOOLS_MASK_CHILD")
		s := maskScene{home: filepath.Join(base, "home"), work: filepath.Join(base, "work")}
		s.key, s.netrc = filepath.Join(s.home, ".ssh", "id_rsa"), filepath.Join(s.home, ".netrc")
		s.config, s.plugs = filepath.Join(s.work, "wasmtools.yaml"), filepath.Join(s.work, "plugins")
		sb := newSandbox(t, Options{Hidden: []string{filepath.Dir(s.key), s.netrc}, ReadOnly: []string{s.config, s.plugs}, Helper: os.Getenv("WASMTOOLS_MASK_HELPER")})
		if why := sb.maskSupport(); why != "" {
			t.Fatalf("no masks for a user: %s", why)
		}
		s.check(t, run(t, sb, Policy{WorkingDirs: []string{s.work}}, s.work, s.script()), os.Getuid())
		return
	}
	if os.Getuid() != 0 {
		// Already a user: the first test covers it.
		t.Skip("SKIPPED here, covered by TestHiddenAndReadOnly: the test runs as a user already")
	}
	const nobody = 65534
	// A folder the user owns, with a copy of the test binary it may run.
	base, err := os.MkdirTemp("", "masks-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "sandbox.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	scene := filepath.Join(base, "scene")
	newMaskScene(t, scene)
	for _, dir := range []string{base, scene} {
		if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, nobody, nobody)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^TestHiddenAndReadOnlyAsAUser$", "-test.v")
	cmd.Env = append(os.Environ(), "WASMTOOLS_MASK_CHILD="+scene, "WASMTOOLS_MASK_HELPER="+bin, "HOME="+filepath.Join(scene, "home"), "TMPDIR="+base)
	cmd.Dir = base
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestHiddenAndReadOnlyAsAUser") {
		t.Fatalf("as the nobody user: %v\n%s", err, out)
	}
}

// TestDenyConnect (issue 26, item 5): no confined command reaches the
// ports of the host's own server, whatever the address it names; other
// ports still answer.
func TestDenyConnect(t *testing.T) {
	needLandlock(t)
	if abi, _ := landlockABI(); abi < 4 {
		t.Skipf("SKIPPED: refusing ports needs Landlock ABI 4, this kernel has %d", abi)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("SKIPPED: python3 is needed to open sockets")
	}
	work := t.TempDir()
	own, other := listen(t), listen(t)
	sb := newSandbox(t, Options{})
	t.Cleanup(func() { sb.Close() })
	if err := sb.DenyConnect(own); err != nil {
		t.Fatal(err)
	}
	connect := func(port int) string {
		return fmt.Sprintf(`python3 -c 'import socket; s=socket.create_connection(("127.0.0.1", %d)); print(s.recv(6).decode().strip())'`, port)
	}
	if res := run(t, sb, Policy{WorkingDirs: []string{work}}, work, connect(own)); res.code == 0 || strings.Contains(res.out, "hello") {
		t.Errorf("the host's own port answered a confined command: exit %d\n%s", res.code, res.out)
	}
	// TCP Fast Open connects inside sendto, past connect(2)'s check.
	fastOpen := fmt.Sprintf(`python3 -c 'import socket; s=socket.socket(); s.sendto(b"x", socket.MSG_FASTOPEN, ("127.0.0.1", %d)); print(s.recv(6).decode().strip())'`, own)
	if res := run(t, sb, Policy{WorkingDirs: []string{work}}, work, fastOpen); res.code == 0 || strings.Contains(res.out, "hello") {
		t.Errorf("the host's own port answered TCP Fast Open: exit %d\n%s", res.code, res.out)
	}
	if res := run(t, sb, Policy{WorkingDirs: []string{work}}, work, connect(other)); res.code != 0 || !strings.Contains(res.out, "hello") {
		t.Errorf("another port was refused: exit %d\n%s", res.code, res.out)
	}
	if st := sb.Status(); len(st.DeniedPorts) != 1 || st.DeniedPorts[0] != own {
		t.Errorf("status denied ports %v", st.DeniedPorts)
	}
	// Released: the port answers again.
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if res := run(t, sb, Policy{WorkingDirs: []string{work}}, work, connect(own)); res.code != 0 {
		t.Errorf("after Close the port is still refused: exit %d\n%s", res.code, res.out)
	}
}

// TestPlantedWritableLink: a writable path inside the working directory
// (a cache folder) replaced by a link to a folder outside is not granted:
// a command could have planted the link.
func TestPlantedWritableLink(t *testing.T) {
	needLandlock(t)
	work, outside := t.TempDir(), t.TempDir()
	cache := filepath.Join(work, "cache")
	if err := os.Symlink(outside, cache); err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t, Options{Writable: []string{cache}})
	res := run(t, sb, Policy{WorkingDirs: []string{work}}, work, "echo x > cache/escaped; echo done")
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Errorf("a write through a planted link landed outside:\n%s", res.out)
	}
	// The same for a policy's own paths under an untrusted folder (an
	// MCP server's writable path in the agent's working directory).
	other := newSandbox(t, Options{})
	res = run(t, other, Policy{WorkingDirs: []string{cache}, Untrusted: []string{work}}, outside, "echo x > escaped2; echo done")
	if _, err := os.Stat(filepath.Join(outside, "escaped2")); err == nil {
		t.Errorf("a server's writable path reached through a link in the workspace was granted:\n%s", res.out)
	}
	// An operator's link outside every writable root is followed.
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(outside, alias); err != nil {
		t.Fatal(err)
	}
	if res := run(t, other, Policy{WorkingDirs: []string{alias}}, outside, "echo x > kept && echo kept-ok"); !strings.Contains(res.out, "kept-ok") {
		t.Errorf("a working directory reached through the operator's link is not writable:\n%s", res.out)
	}
}

// TestMasksSurviveRenamingTheirFolders: a command whose working directory
// holds a hidden or read-only path renames the folders above it; the
// next command must still find the path covered.
func TestMasksSurviveRenamingTheirFolders(t *testing.T) {
	needLandlock(t)
	home := t.TempDir() // the working directory: a home folder
	secret := filepath.Join(home, ".config", "gh", "hosts.yml")
	config := filepath.Join(home, "proj", ".wasmtools", "config.yaml")
	for p, data := range map[string]string{secret: "token: SECRET\n", config: "mode: default\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb := newSandbox(t, Options{Hidden: []string{filepath.Dir(secret)}, ReadOnly: []string{config}})
	pol := Policy{WorkingDirs: []string{home}}
	res := run(t, sb, pol, home, "mv .config .config2; mv proj proj2; mv proj/.wasmtools proj/w2; rmdir .config/gh; echo tried")
	if !strings.Contains(res.out, "tried") {
		t.Fatalf("the command did not run:\n%s", res.out)
	}
	t.Logf("renames:\n%s", res.out)
	res = run(t, sb, pol, home, "cat .config2/gh/hosts.yml .config/gh/hosts.yml proj2/.wasmtools/config.yaml proj/w2/config.yaml 2>&1; echo 'mode: bypass' > proj/.wasmtools/config.yaml; echo 'mode: bypass' > proj2/.wasmtools/config.yaml; echo 'mode: bypass' > proj/w2/config.yaml")
	if strings.Contains(res.out, "SECRET") {
		t.Errorf("a hidden file was read after its folders were renamed:\n%s", res.out)
	}
	if b, err := os.ReadFile(config); err != nil || string(b) != "mode: default\n" {
		t.Errorf("a read-only file moved or changed after its folders were renamed: %q, %v\n%s", b, err, res.out)
	}
	// The pinned folders stay writable.
	if res := run(t, sb, pol, home, "echo x > .config/other && echo pinned-ok"); !strings.Contains(res.out, "pinned-ok") {
		t.Errorf("a folder above a hidden path is no longer writable:\n%s", res.out)
	}
}

// TestSignalsStayInside: a confined command cannot signal the host (nor
// stop it), with masks or without.
func TestSignalsStayInside(t *testing.T) {
	needLandlock(t)
	if abi, _ := landlockABI(); abi < 6 {
		t.Skipf("SKIPPED: signal scoping needs Landlock ABI 6, this kernel has %d", abi)
	}
	work := t.TempDir()
	for name, sb := range map[string]*Sandbox{
		"plain":  newSandbox(t, Options{}),
		"masked": newSandbox(t, Options{Hidden: []string{filepath.Join(work, "nothing")}, ReadOnly: []string{work + "/none"}}),
	} {
		res := run(t, sb, Policy{WorkingDirs: []string{work}}, work, fmt.Sprintf("kill -0 %d && echo reached; kill -STOP %d && echo stopped; true", os.Getpid(), os.Getpid()))
		if strings.Contains(res.out, "reached") || strings.Contains(res.out, "stopped") {
			t.Errorf("%s: a confined command signalled the host:\n%s", name, res.out)
		}
	}
}

// TestHiddenSocket: a hidden Unix socket (Docker's, D-Bus's: they start
// programs outside the sandbox) cannot be reached, even with the network
// on; one not hidden still answers.
func TestHiddenSocket(t *testing.T) {
	needLandlock(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed to open sockets")
	}
	dir := t.TempDir()
	hidden, open := sayHello(t, "unix", filepath.Join(dir, "docker.sock")).String(), sayHello(t, "unix", filepath.Join(dir, "other.sock")).String()
	sb := newSandbox(t, Options{Hidden: []string{hidden}})
	connect := func(p string) string {
		return fmt.Sprintf(`python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(%q); print(s.recv(6).decode().strip())'`, p)
	}
	if res := run(t, sb, Policy{WorkingDirs: []string{t.TempDir()}}, dir, connect(hidden)); res.code == 0 || strings.Contains(res.out, "hello") {
		t.Errorf("a hidden socket answered: exit %d\n%s", res.code, res.out)
	}
	if res := run(t, sb, Policy{WorkingDirs: []string{t.TempDir()}}, dir, connect(open)); res.code != 0 || !strings.Contains(res.out, "hello") {
		t.Errorf("a socket not hidden did not answer: exit %d\n%s", res.code, res.out)
	}
}

// BenchmarkDenyConnect measures building the layer that refuses one
// port: a Landlock rule for each of the other 65,535, once per server.
func BenchmarkDenyConnect(b *testing.B) {
	abi, _ := landlockABI()
	if abi < 4 {
		b.Skipf("SKIPPED: refusing ports needs Landlock ABI 4, this kernel has %d", abi)
	}
	for b.Loop() {
		layer, err := portLayer(abi, []int{8080})
		if err != nil {
			b.Fatal(err)
		}
		layer.Close()
	}
}
