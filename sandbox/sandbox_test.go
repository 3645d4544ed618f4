//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain makes the test binary its own sandbox helper, as a program
// that embeds the sandbox does.
func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// needLandlock skips a test on a kernel without Landlock, saying so;
// under CI (CI=true), whose kernel has Landlock, it fails instead.
func needLandlock(t testing.TB) {
	t.Helper()
	abi, why := landlockABI()
	if abi > 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI runs on a kernel with Landlock, and this one has none: %s", why)
	}
	t.Skipf("SKIPPED, the OS sandbox was not tested: %s", why)
}

// outcome is how a command ended.
type outcome struct {
	out  string
	code int
}

// run runs script with sh, confined by sb and p, and returns its
// combined output and exit code.
func run(t *testing.T, sb *Sandbox, p Policy, dir, script string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	c, err := sb.Confine(cmd, p)
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	defer c.Close()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	if err := c.Started(ctx); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("Started: %v", err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("wait: %v", err)
	}
	return outcome{buf.String(), cmd.ProcessState.ExitCode()}
}

func newSandbox(t *testing.T, opts Options) *Sandbox {
	t.Helper()
	if opts.Mode == "" {
		opts.Mode = ModeRequired
	}
	sb, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// listTree returns every path below dir, relative, with the contents of
// regular files.
func listTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
		} else {
			out[rel] = fi.Mode().Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWritesOutsideAreRefused(t *testing.T) {
	needLandlock(t)
	work, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("original"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "src"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, outside)
	sb := newSandbox(t, Options{})
	o := outside
	attempts := map[string]string{
		"touch":            "touch " + o + "/x",
		"redirect":         "echo hi > " + o + "/y",
		"nested sh":        "sh -c 'echo > " + o + "/z'",
		"append":           "echo more >> " + o + "/keep",
		"truncate":         ": > " + o + "/keep",
		"rm":               "rm -f " + o + "/keep",
		"mv out":           "mv " + o + "/keep ./stolen",
		"cp":               "cp src " + o + "/copy",
		"mkdir":            "mkdir " + o + "/d",
		"symlink made now": "ln -s " + o + "/via-link link && echo x > link",
		"link in outside":  "ln -s /etc/passwd " + o + "/l",
		"hard link":        "ln src " + o + "/hard",
		"mkfifo":           "mkfifo " + o + "/fifo",
		"dd":               "dd if=/dev/zero of=" + o + "/dd bs=1 count=1",
		"tee":              "echo x | tee " + o + "/tee",
		"/proc/self/cwd":   "cd " + o + " && echo x > /proc/self/cwd/p",
	}
	if _, err := exec.LookPath("python3"); err == nil {
		attempts["python"] = "python3 -c 'open(\"" + o + "/py\", \"w\").write(\"x\")'"
	}
	for name, script := range attempts {
		res := run(t, sb, Policy{WorkingDirs: []string{work}}, work, script)
		if res.code == 0 {
			t.Errorf("%s: exit 0, want a refusal:\n%s", name, res.out)
		}
	}
	if after := listTree(t, outside); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the outside folder changed:\nbefore %v\nafter  %v", before, after)
	}
}

func TestWritesInsideWork(t *testing.T) {
	needLandlock(t)
	work := t.TempDir()
	extra := filepath.Join(t.TempDir(), "extra")
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t, Options{Writable: []string{extra}})
	script := `set -e
mkdir -p a/b b
echo one > a/b/f
mv a/b/f b/g
ln -s g b/link
echo two >> b/link
cp b/g c
rm -r a
echo "$(cat b/g)" > ` + extra + `/e
echo x > /dev/null
echo y >&2 2>/dev/null
echo z > /dev/stderr
cat <<EOF > heredoc
$(seq 1 3)
EOF
echo ok`
	res := run(t, sb, Policy{WorkingDirs: []string{work}}, work, script)
	if res.code != 0 || !strings.Contains(res.out, "ok") {
		t.Fatalf("exit %d:\n%s", res.code, res.out)
	}
	got := listTree(t, work)
	if got["b/g"] != "one\ntwo\n" || got["c"] != "one\ntwo\n" || got["heredoc"] != "1\n2\n3\n" {
		t.Errorf("work tree = %v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(extra, "e")); string(b) != "one\ntwo\n" {
		t.Errorf("extra writable path: %q", b)
	}
}

func TestPrivateTempDir(t *testing.T) {
	needLandlock(t)
	work := t.TempDir()
	sb := newSandbox(t, Options{})
	for _, p := range []Policy{{WorkingDirs: []string{work}}, {WorkingDirs: []string{work}, ReadOnly: true}} {
		res := run(t, sb, p, work, `echo "$TMPDIR"; echo data > "$TMPDIR/f" && cat "$TMPDIR/f" && f=$(mktemp) && echo "$f"`)
		lines := strings.Split(strings.TrimSpace(res.out), "\n")
		if res.code != 0 || len(lines) != 3 || lines[1] != "data" || !strings.HasPrefix(lines[2], lines[0]+"/") {
			t.Fatalf("read-only %v: exit %d:\n%s", p.ReadOnly, res.code, res.out)
		}
		if _, err := os.Stat(lines[0]); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the temporary directory %s is still there after the command: %v", lines[0], err)
		}
	}
}

func TestReadOnlyWritesNothing(t *testing.T) {
	needLandlock(t)
	work := t.TempDir()
	extra := t.TempDir()
	sb := newSandbox(t, Options{Writable: []string{extra}})
	res := run(t, sb, Policy{WorkingDirs: []string{work}, ReadOnly: true}, work,
		`cat /etc/hostname >/dev/null && ls / >/dev/null && echo read-ok; touch inside; touch `+extra+`/e; echo x > inside2`)
	if !strings.Contains(res.out, "read-ok") || !strings.Contains(res.out, "Permission denied") {
		t.Errorf("exit %d:\n%s", res.code, res.out)
	}
	if got := listTree(t, work); len(got) != 1 {
		t.Errorf("a read-only command wrote in the working directory: %v", got)
	}
	if got := listTree(t, extra); len(got) != 1 {
		t.Errorf("a read-only command wrote in an extra writable path: %v", got)
	}
}

// listen accepts TCP connections on loopback until the test ends, and
// returns the port.
func listen(t *testing.T) int {
	t.Helper()
	return sayHello(t, "tcp4", "127.0.0.1:0").(*net.TCPAddr).Port
}

// sayHello listens on address until the test ends, greeting every
// connection with "hello", and returns the address it listens on.
func sayHello(t *testing.T, network, address string) net.Addr {
	t.Helper()
	ln, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	return ln.Addr()
}

// TestFiltersAssemble: every seccomp program the sandbox may install
// assembles for this architecture and its compat one (a jump out of
// reach is an error, not a wrong program).
func TestFiltersAssemble(t *testing.T) {
	if _, err := socketFilter(nativeArch, compatArch); err != nil {
		t.Errorf("socket filter: %v", err)
	}
	for _, tcp := range []bool{false, true} {
		if _, err := hardenFilter(nativeArch, compatArch, tcp); err != nil {
			t.Errorf("hardening filter (tcp %v): %v", tcp, err)
		}
	}
}

func TestNetworkOff(t *testing.T) {
	needLandlock(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("SKIPPED: python3 is needed to open sockets")
	}
	work := t.TempDir()
	port := listen(t)
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port
	tcp := fmt.Sprintf(`python3 -c 'import socket; s=socket.create_connection(("127.0.0.1", %d)); print(s.recv(6).decode().strip())'`, port)
	udpSend := fmt.Sprintf(`python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", %d)); print("sent")'`, udpPort)
	unixSock := `python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"u"); print("unix", b.recv(1).decode())'`

	on := newSandbox(t, Options{})
	if res := run(t, on, Policy{WorkingDirs: []string{work}}, work, tcp); res.code != 0 || !strings.Contains(res.out, "hello") {
		t.Errorf("network on: the TCP connection failed: exit %d\n%s", res.code, res.out)
	}
	if res := run(t, on, Policy{WorkingDirs: []string{work}}, work, udpSend); res.code != 0 || !strings.Contains(res.out, "sent") {
		t.Errorf("network on: UDP failed: exit %d\n%s", res.code, res.out)
	}
	off := newSandbox(t, Options{NoNetwork: true})
	for name, tc := range map[string]struct {
		sb *Sandbox
		p  Policy
	}{
		"explore":     {on, Policy{WorkingDirs: []string{work}, ReadOnly: true}},
		"network off": {off, Policy{WorkingDirs: []string{work}}},
	} {
		if res := run(t, tc.sb, tc.p, work, tcp); res.code == 0 || strings.Contains(res.out, "hello") || !strings.Contains(res.out, "Permission denied") {
			t.Errorf("%s: TCP to a loopback listener was not refused: exit %d\n%s", name, res.code, res.out)
		}
		if res := run(t, tc.sb, tc.p, work, udpSend); res.code == 0 || !strings.Contains(res.out, "Permission denied") {
			t.Errorf("%s: UDP was not refused: exit %d\n%s", name, res.code, res.out)
		}
		if res := run(t, tc.sb, tc.p, work, unixSock); res.code != 0 || !strings.Contains(res.out, "unix u") {
			t.Errorf("%s: a Unix socket pair failed: exit %d\n%s", name, res.code, res.out)
		}
	}
}

func TestHelperThatDoesNotConfine(t *testing.T) {
	needLandlock(t)
	work := t.TempDir()
	for _, helper := range []string{"/bin/true", "/bin/false"} {
		sb := newSandbox(t, Options{Helper: helper})
		cmd := exec.Command("/bin/sh", "-c", "touch "+work+"/ran")
		c, err := sb.Confine(cmd, Policy{WorkingDirs: []string{work}})
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		err = c.Started(t.Context())
		_ = cmd.Wait()
		c.Close()
		if err == nil || !strings.Contains(err.Error(), "sandbox.Main") || !strings.Contains(err.Error(), "Nothing was run") {
			t.Errorf("helper %s: Started = %v, want an error naming sandbox.Main", helper, err)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
		t.Error("the command ran")
	}
}

func TestHelperRefusesBadRequests(t *testing.T) {
	cmd := exec.Command(os.Args[0], helperArg, `{"ack": 1}`)
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 126 || !strings.Contains(string(out), "no command") {
		t.Errorf("no command: %v\n%s", err, out)
	}
	cmd = exec.Command(os.Args[0], helperArg, `{`, "/bin/echo", "ran")
	out, _ = cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 126 || strings.Contains(string(out), "ran") {
		t.Errorf("bad request: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
	}
}

func TestModes(t *testing.T) {
	for _, s := range []string{"", "auto", "AUTO", " required ", "off"} {
		if _, err := ParseMode(s); err != nil {
			t.Errorf("ParseMode(%q): %v", s, err)
		}
	}
	if _, err := ParseMode("on"); err == nil || !strings.Contains(err.Error(), "auto, required or off") {
		t.Errorf("ParseMode(on) = %v", err)
	}

	// A kernel without Landlock, as the sandbox sees it.
	noLandlock := func(mode Mode) *Sandbox {
		sb := newSandbox(t, Options{Mode: mode})
		sb.abi, sb.why = 0, "this kernel has no Landlock (test)"
		return sb
	}
	cmd := exec.Command("/bin/true")
	if c, err := noLandlock(ModeRequired).Confine(cmd, Policy{}); c != nil || err == nil ||
		!strings.Contains(err.Error(), "required") || !strings.Contains(err.Error(), "no Landlock (test)") || !strings.Contains(err.Error(), "Nothing was run") {
		t.Errorf("required without Landlock: %v, %v", c, err)
	}
	var logged bytes.Buffer
	auto := noLandlock(ModeAuto)
	auto.log = slog.New(slog.NewTextHandler(&logged, nil))
	for range 3 {
		if c, err := auto.Confine(cmd, Policy{}); c != nil || err != nil {
			t.Errorf("auto without Landlock: %v, %v", c, err)
		}
	}
	if n := strings.Count(logged.String(), "without the OS sandbox"); n != 1 || !strings.Contains(logged.String(), "no Landlock (test)") {
		t.Errorf("auto without Landlock logs once, with the reason: %d times:\n%s", n, logged.String())
	}
	if c, err := newSandbox(t, Options{Mode: ModeOff}).Confine(cmd, Policy{}); c != nil || err != nil {
		t.Errorf("off: %v, %v", c, err)
	}
	if cmd.Path != "/bin/true" || len(cmd.Args) != 1 {
		t.Errorf("an unconfined command was changed: %q %q", cmd.Path, cmd.Args)
	}
	var nilSandbox *Sandbox
	if nilSandbox.Active() || nilSandbox.Status().Enforced {
		t.Error("a nil sandbox is active")
	}
	if !noLandlock(ModeRequired).Active() || noLandlock(ModeAuto).Active() {
		t.Error("Active: required is always active, auto only with Landlock")
	}
	st := noLandlock(ModeAuto).Status()
	if st.Enforced || st.Reason == "" {
		t.Errorf("status without Landlock: %+v", st)
	}
}

func TestStatus(t *testing.T) {
	sb := newSandbox(t, Options{Mode: ModeAuto, NoNetwork: true, Writable: []string{"rel"}})
	st := sb.Status()
	abi, _ := landlockABI()
	if st.ABI != abi || st.Supported != (abi > 0) || st.Enforced != (abi > 0) || st.Network != "off" {
		t.Errorf("status = %+v", st)
	}
	if len(st.Writable) != 1 || !filepath.IsAbs(st.Writable[0]) {
		t.Errorf("writable paths are made absolute: %v", st.Writable)
	}
	if runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") && len(st.NetworkConfinement) == 0 {
		t.Errorf("no network mechanism listed: %+v", st)
	}
}

// TestInheritedFilesDoNotReachTheCommand: a descriptor the host left
// open without close-on-exec (inherited from its own parent) would let
// the command write where Landlock forbids; the helper closes it.
func TestInheritedFilesDoNotReachTheCommand(t *testing.T) {
	needLandlock(t)
	work, outside := t.TempDir(), t.TempDir()
	leak := filepath.Join(outside, "leak")
	f, err := os.Create(leak)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Clear close-on-exec, as on a descriptor inherited from a parent.
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_SETFD, 0); errno != 0 {
		t.Fatal(errno)
	}
	res := run(t, newSandbox(t, Options{}), Policy{WorkingDirs: []string{work}}, work, fmt.Sprintf("echo leaked >&%d", f.Fd()))
	if res.code == 0 {
		t.Errorf("the command wrote to an inherited descriptor: %s", res.out)
	}
	if b, _ := os.ReadFile(leak); len(b) != 0 {
		t.Errorf("written through an inherited descriptor: %q", b)
	}
}

// TestHelperFailsClosed: when Landlock refuses the helper's rules (here
// the kernel's limit of 16 nested sandboxes), it reports the error and
// runs nothing.
func TestHelperFailsClosed(t *testing.T) {
	needLandlock(t)
	work := t.TempDir()
	req := `{"writable": ["` + work + `"], "network": true, "ack": 3}`
	// Each layer reports on descriptor 3, a copy of standard output.
	reportOnStdout := []string{"/bin/sh", "-c", `exec 3>&1; exec "$@"`, "sh"}
	args := reportOnStdout
	for range 17 {
		args = append(args, os.Args[0], helperArg, req)
		args = append(args, reportOnStdout...)
	}
	args = append(args, "/bin/sh", "-c", "touch ran")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = work
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 126 || strings.Count(string(out), "ok abi=") != 16 || !strings.Contains(string(out), "error landlock_restrict_self") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
		t.Error("the command ran although its sandbox could not be applied")
	}
}
