//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/wasmtools/wasmtools/internal/pathtree"
)

// useNamespaces makes cmd start in new user and mount namespaces, as
// root there (the user and group mapped to 0: a process keeps its
// capabilities across execve only as root, and the helper needs them to
// mount), keeping what the caller set in SysProcAttr (a process group, a
// session). The helper runs the command as the user again (runAsUser).
func useNamespaces(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// maskSupport returns "" when commands can be started in their own user
// and mount namespaces with the helper setting up its masks, else why
// not. It asks once, by starting the helper in probe mode: that checks
// the kernel (unprivileged user namespaces may be disabled by a sysctl or
// an AppArmor policy) and the helper (an older build cannot mask).
func (s *Sandbox) maskSupport() string {
	s.maskOnce.Do(func() { s.masking = probeMasks(s.helper) })
	return s.masking
}

func probeMasks(helper string) string {
	ackR, ackW, err := os.Pipe()
	if err != nil {
		return err.Error()
	}
	defer ackR.Close()
	data, _ := json.Marshal(request{Probe: true, Ack: 3})
	ctx, cancel := context.WithTimeout(context.Background(), ackTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, helper, helperArg, string(data), "/nonexistent")
	cmd.ExtraFiles = []*os.File{ackW}
	useNamespaces(cmd)
	if err := cmd.Start(); err != nil {
		ackW.Close()
		return fmt.Sprintf("the kernel refuses a user and mount namespace to this process (%v)", err)
	}
	ackW.Close()
	line, _ := bufio.NewReader(ackR).ReadString('\n')
	_ = cmd.Wait()
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "ok") && strings.Contains(line, " masks="):
		return ""
	case strings.HasPrefix(line, "error "):
		return strings.TrimPrefix(line, "error ")
	case strings.HasPrefix(line, "ok"):
		return "the sandbox helper is an older build that cannot mask paths"
	}
	return "the sandbox helper did not answer a probe; it must call sandbox.Main first thing"
}

// setupMounts applies req.ReadOnly and req.Hidden in the helper's own
// mount namespace, and returns how many paths it covered. Landlock, once
// applied after it, forbids the command to undo any of it (a Landlock
// domain cannot mount or unmount).
func setupMounts(req request) (int, error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return 0, fmt.Errorf("make the command's mount namespace private: %w", err)
	}
	// A mount moves with its folder: were a folder above a hidden or
	// read-only path renamed (by this command or an earlier one), the
	// path would be free again at the next start. So every folder above
	// one that lies inside a writable path is made a mount point of its
	// own, still writable, which cannot be renamed or removed (EBUSY).
	for _, a := range ancestorsToPin(slices.Concat(req.ReadOnly, req.Hidden), req.Writable) {
		if err := unix.Mount(a, a, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return 0, fmt.Errorf("pin %s: %w", a, err)
		}
	}
	n := 0
	for _, p := range req.ReadOnly {
		if _, err := os.Stat(p); err != nil {
			continue // nothing there to protect
		}
		if err := bindReadOnly(p); err != nil {
			return n, fmt.Errorf("protect %s: %w", p, err)
		}
		n++
	}
	if len(req.Hidden) == 0 {
		return n, nil
	}
	empty, release, err := emptyFile(req.Tmp)
	if err != nil {
		return n, err
	}
	defer release()
	for _, p := range req.Hidden {
		info, err := os.Stat(p)
		if err != nil {
			continue // nothing there to hide
		}
		if info.IsDir() {
			err = unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=000")
		} else if err = unix.Mount(empty, p, "", unix.MS_BIND, ""); err == nil {
			err = unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
		}
		if err != nil {
			return n, fmt.Errorf("hide %s: %w", p, err)
		}
		n++
	}
	return n, nil
}

// ancestorsToPin returns the folders above the existing targets that lie
// strictly inside a writable path, shallowest first, each once.
func ancestorsToPin(targets, writable []string) []string {
	var out []string
	for _, t := range targets {
		if _, err := os.Lstat(t); err != nil {
			continue
		}
		for a := filepath.Dir(t); a != filepath.Dir(a); a = filepath.Dir(a) {
			inside := slices.ContainsFunc(writable, func(w string) bool { return pathtree.Below(w, a) })
			if inside && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		return strings.Count(a, string(filepath.Separator)) - strings.Count(b, string(filepath.Separator))
	})
	return out
}

// bindReadOnly binds p read-only onto itself. The remount keeps the
// flags the kernel locks on mounts inherited from the host's namespace
// (nosuid, nodev, noexec, the atime ones): dropping one is refused.
func bindReadOnly(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return err
	}
	const kept = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME
	return unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|uintptr(st.Flags)&kept, "")
}

// emptyFile makes an empty file no one may read, on a small read-only
// file system of its own in dir, to cover hidden files with; release
// detaches that file system (the covers stay).
func emptyFile(dir string) (string, func(), error) {
	if dir == "" {
		return "", nil, errors.New("no temporary directory to make the cover of hidden files in")
	}
	scratch := filepath.Join(dir, ".wasmtools-masks")
	if err := os.Mkdir(scratch, 0o700); err != nil {
		return "", nil, fmt.Errorf("hide files: %w", err)
	}
	if err := unix.Mount("tmpfs", scratch, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=700"); err != nil {
		os.Remove(scratch)
		return "", nil, fmt.Errorf("hide files: %w", err)
	}
	release := func() {
		_ = unix.Unmount(scratch, unix.MNT_DETACH)
		_ = os.Remove(scratch)
	}
	empty := filepath.Join(scratch, "hidden")
	f, err := os.OpenFile(empty, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0)
	if err == nil {
		err = f.Close()
	}
	if err == nil {
		err = unix.Mount("", scratch, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	}
	if err != nil {
		release()
		return "", nil, fmt.Errorf("hide files: %w", err)
	}
	return empty, release, nil
}

// portLayer builds a Landlock ruleset that handles TCP connections and
// allows every port but denied.
func portLayer(abi int, denied []int) (*os.File, error) {
	if abi < 4 {
		return nil, fmt.Errorf("refusing connections to ports %v needs Landlock ABI 4 (Linux 6.7), and this kernel has ABI %d", denied, abi)
	}
	attr := llsyscall.RulesetAttr{HandledAccessNet: llsyscall.AccessNetConnectTCP}
	fd, err := llsyscall.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("landlock ruleset: %w", err)
	}
	skip := make(map[int]bool, len(denied))
	for _, p := range denied {
		skip[p] = true
	}
	for port := 0; port <= 65535; port++ {
		if skip[port] {
			continue
		}
		rule := llsyscall.NetPortAttr{AllowedAccess: llsyscall.AccessNetConnectTCP, Port: uint64(port)}
		if err := llsyscall.LandlockAddNetPortRule(fd, &rule, 0); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("landlock port rule %d: %w", port, err)
		}
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "landlock-ports"), nil
}

// dupFile returns a copy of f's descriptor, closed on exec.
func dupFile(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}
