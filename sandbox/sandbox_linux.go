//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// selfExecutable is this program, as the kernel knows it: a binary
// replaced on disk while the host runs still starts the same code.
func selfExecutable() string {
	const self = "/proc/self/exe"
	if _, err := os.Stat(self); err == nil {
		return self
	}
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return self
}

// landlockABI returns the kernel's Landlock ABI version, or 0 and why
// there is none.
func landlockABI() (int, string) {
	v, err := llsyscall.LandlockGetABIVersion()
	switch {
	case err == nil && v > 0:
		return v, ""
	case errors.Is(err, unix.ENOSYS):
		return 0, "this kernel has no Landlock (it needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK)"
	case errors.Is(err, unix.EOPNOTSUPP):
		return 0, "Landlock is disabled on this kernel (add landlock to the lsm= boot parameter)"
	case err != nil:
		return 0, fmt.Sprintf("the kernel's Landlock version cannot be read (%v)", err)
	}
	return 0, "this kernel reports no Landlock ABI version"
}

// networkMechanisms names what turns the network off at Landlock ABI
// abi on this architecture.
func networkMechanisms(abi int) []string {
	out := []string{}
	if haveSocketFilter {
		out = append(out, "seccomp: no socket but unix and netlink, no io_uring")
	}
	if abi >= 4 {
		out = append(out, "landlock: no TCP bind or connect")
	}
	if abi >= 6 {
		out = append(out, "landlock: no abstract unix socket outside the sandbox")
	}
	if abi >= 9 {
		out = append(out, "landlock: no pathname unix socket outside the sandbox")
	}
	if abi >= 10 {
		out = append(out, "landlock: no UDP bind or send")
	}
	return out
}

// runHelper is the helper: args are the request and the command's
// argv. It returns only when it could not run the command: 126 when the
// confinement failed (nothing ran), 127 when the program could not be
// executed.
func runHelper(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "wasmtools sandbox helper: no command to run (this argument is for the host's own use)")
		return 126
	}
	var req request
	if err := json.Unmarshal([]byte(args[0]), &req); err != nil {
		fmt.Fprintf(os.Stderr, "wasmtools sandbox helper: bad request: %v\n", err)
		return 126
	}
	if req.Ack < 3 {
		fmt.Fprintln(os.Stderr, "wasmtools sandbox helper: bad request: no report descriptor")
		return 126
	}
	ack := os.NewFile(uintptr(req.Ack), "sandbox-report")
	refuse := func(format string, a ...any) int {
		fmt.Fprintf(ack, "error %s\n", strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", " "))
		return 126
	}
	// Never unlocked: the restrictions are this thread's, and the
	// command is executed from it.
	runtime.LockOSThread()
	if req.Probe || len(req.Hidden)+len(req.ReadOnly) > 0 {
		masks, err := setupMounts(req)
		if err != nil {
			return refuse("%v", err)
		}
		if req.Probe {
			fmt.Fprintf(ack, "ok masks=%d\n", masks)
			return 0
		}
		// Always, root included: root in the helper's namespace would
		// hold every capability over its mounts (mount_setattr and
		// open_tree are not Landlock's to refuse).
		return runAsUser(req, masks, args[1:], ack)
	}
	abi, err := confine(req)
	if err != nil {
		return refuse("%v", err)
	}
	if err := closeInherited(req.Ack); err != nil {
		return refuse("closing inherited files: %v", err)
	}
	if _, err := fmt.Fprintf(ack, "ok abi=%d network=%t masks=%d\n", abi, req.Network, req.Masks); err != nil {
		return 126
	}
	ack.Close()
	err = syscall.Exec(args[1], args[1:], os.Environ())
	fmt.Fprintf(os.Stderr, "wasmtools sandbox: cannot run %s: %v\n", args[1], err)
	return 127
}

// runAsUser is the first stage of a helper that masked paths. It is
// root in its user namespace (it had to be, to mount), and the command
// must run as the user with no power over those mounts: a process with
// capabilities in the namespace that owns them could clear a read-only
// flag or clone a tree from under a mask. So it starts the helper again
// in a user namespace nested in its own that maps its root back to the
// user (req.UID, req.GID; root to root for a root host), where the
// mounts are not its own; that second stage confines itself and runs the
// command. (The first stage
// cannot confine itself first: a Landlock domain may not write the new
// namespace's user map.) It passes its descriptors on, waits, and exits
// as the second stage did; a stage killed by a signal kills this one
// with the same signal.
func runAsUser(req request, masks int, argv []string, ack *os.File) int {
	next := req
	next.Hidden, next.ReadOnly, next.Tmp, next.UID, next.GID = nil, nil, "", 0, 0
	next.Masks = masks
	data, err := json.Marshal(next)
	if err != nil {
		fmt.Fprintf(ack, "error %v\n", err)
		return 126
	}
	cmd := exec.Command(selfExecutable(), append([]string{helperArg, string(data)}, argv...)...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	last := max(req.Ack, req.NetLayer)
	for fd := 3; fd <= last; fd++ {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(fd), "inherited"))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: req.UID, HostID: 0, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: req.GID, HostID: 0, Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
	// The host stops a command by killing its process group, which
	// holds both stages; other signals reach this one and are passed on.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(ack, "error starting the command as the user: %v\n", err)
		return 126
	}
	ack.Close() // the second stage reports; without it the host sees the end
	go func() {
		for sig := range sigs {
			_ = cmd.Process.Signal(sig)
		}
	}()
	_ = cmd.Wait()
	signal.Stop(sigs)
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		time.Sleep(100 * time.Millisecond) // the signal is on its way
	}
	return cmd.ProcessState.ExitCode()
}

// closeInherited marks every descriptor from first on close-on-exec: a
// file the host inherited from its own parent and left open (a pipe, a
// file opened outside the writable paths) must not reach the command,
// since Landlock checks a file when it is opened, not when it is used.
// The descriptors below first are the standard streams and the
// caller's ExtraFiles.
func closeInherited(first int) error {
	err := unix.CloseRange(uint(first), math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	// Before Linux 5.11: one by one.
	entries, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return fmt.Errorf("%v; %v", err, rerr)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < first {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return err
		}
	}
	return nil
}

// confine restricts the calling thread (and so what it executes next)
// to req: Landlock for the file system, TCP and abstract sockets; a
// seccomp filter for the other socket families when the network is off.
// It returns the Landlock ABI version used.
func confine(req request) (int, error) {
	abi, why := landlockABI()
	if abi == 0 {
		return 0, errors.New(why)
	}
	cfg := landlock.V11.BestEffort()
	read := landlock.RODirs("/")
	// Signals only within the sandbox (ABI 6): a command may not stop or
	// kill the host, its helper or the user's other processes.
	if req.Network {
		cfg.HandledAccessNet = 0
		cfg.Scoped = llsyscall.ScopeSignal
		read = read.WithResolveUnix()
	} else {
		cfg.Scoped = llsyscall.ScopeAbstractUnixSocket | llsyscall.ScopeSignal
	}
	rules := []landlock.Rule{read}
	for _, p := range req.Writable {
		fi, err := os.Stat(p)
		if err != nil {
			continue // nothing there to write to
		}
		if fi.IsDir() {
			r := landlock.RWDirs(p)
			if abi >= 2 {
				// Moving files between writable folders (mv a/x b/).
				r = r.WithRefer()
			}
			rules = append(rules, r)
			continue
		}
		r := landlock.RWFiles(p)
		if fi.Mode()&os.ModeCharDevice != 0 {
			r = r.WithIoctlDev()
		}
		rules = append(rules, r)
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return 0, fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return 0, fmt.Errorf("landlock has nothing to enforce at ABI %d", abi)
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := llsyscall.LandlockRestrictSelf(fd, flags); err != nil {
		return 0, fmt.Errorf("landlock_restrict_self: %w", err)
	}
	if req.NetLayer > 0 {
		// The ports no command may reach (Sandbox.DenyConnect): a layer
		// of its own, so that its rules are built once, in the host.
		if err := llsyscall.LandlockRestrictSelf(req.NetLayer, 0); err != nil {
			return 0, fmt.Errorf("landlock_restrict_self (denied ports): %w", err)
		}
	}
	if haveSocketFilter {
		if err := harden(!req.Network || req.NetLayer > 0); err != nil {
			return 0, fmt.Errorf("seccomp filter: %w", err)
		}
	}
	if !req.Network {
		switch {
		case haveSocketFilter:
			if err := denySockets(); err != nil {
				return 0, fmt.Errorf("seccomp socket filter: %w", err)
			}
		case abi < 4:
			return 0, fmt.Errorf("the network cannot be turned off here: Landlock ABI %d has no TCP rules and there is no socket filter for %s", abi, runtime.GOARCH)
		}
	}
	return abi, nil
}
