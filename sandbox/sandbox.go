package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wasmtools/wasmtools/internal/pathtree"
)

// Mode says whether commands run confined.
type Mode string

// The sandbox modes.
const (
	// ModeAuto confines commands where the kernel supports it and runs
	// them unconfined elsewhere, logging that once.
	ModeAuto Mode = "auto"
	// ModeRequired confines every command; where the kernel cannot, the
	// command does not run and the error says why.
	ModeRequired Mode = "required"
	// ModeOff runs commands unconfined.
	ModeOff Mode = "off"
)

// ParseMode parses a mode name: auto, required or off (any case). The
// empty string is ModeAuto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeRequired, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q: use auto, required or off", s)
}

// Options configure a Sandbox.
type Options struct {
	// Mode is auto, required or off; empty means auto.
	Mode Mode
	// NoNetwork turns the network off for every command. Read-only calls
	// (Policy.ReadOnly) never have it.
	NoNetwork bool
	// Writable are more files and folders (with everything below them)
	// every command may change, besides the working directories of its
	// call; relative paths are made absolute against the current
	// directory. A path that does not exist when a command starts is
	// skipped. Read-only calls get none of them.
	Writable []string
	// Hidden are files and folders no command may read: each is
	// covered, inside the command's own mount namespace, by an empty one
	// (a file reads as empty or is refused, a folder lists nothing).
	// Credentials, token files. A path that does not exist when a
	// command starts is skipped. Needs user and mount namespaces (see
	// Status.Masking); where the kernel refuses them, ModeAuto runs
	// commands without the masks (logged once) and ModeRequired runs
	// none.
	Hidden []string
	// ReadOnly are files and folders no command may change, even where
	// they lie in a writable path (a working directory's configuration
	// file, a plugin folder): each is bound read-only onto itself in the
	// command's mount namespace, so it can be neither written, replaced
	// nor removed. The same needs as Hidden.
	ReadOnly []string
	// Helper is the executable that confines itself and runs the
	// command: a program that calls Main first thing in main. Empty
	// means this very program (on Linux, /proc/self/exe, so that a
	// binary replaced on disk while the host runs is not picked up).
	Helper string
	// Logger receives the one warning of ModeAuto on a kernel without
	// Landlock, and debug lines per command; nil logs nothing.
	Logger *slog.Logger
}

// Sandbox confines the commands a backend starts. It is safe for
// concurrent use; build it with New.
type Sandbox struct {
	mode     Mode
	network  bool
	writable []string
	helper   string
	log      *slog.Logger
	abi      int    // the kernel's Landlock ABI version, 0 without Landlock
	why      string // why the kernel cannot confine, when abi is 0
	warnOnce sync.Once

	// maskMu guards hidden, which Hide adds to.
	maskMu           sync.RWMutex
	hidden, readOnly []string
	// masking says whether the kernel gives this process user and mount
	// namespaces to apply Hidden and ReadOnly in: "" when it does, else
	// why not. Probed once, by the first command that needs it.
	maskOnce     sync.Once
	masking      string
	maskWarnOnce sync.Once

	// netLayer is a Landlock ruleset applied on top of every command's
	// own one: it refuses TCP connections to deniedPorts (DenyConnect).
	netMu       sync.Mutex
	netLayer    *os.File
	deniedPorts []int
}

// New returns a sandbox for opts. It checks which Landlock ABI the
// kernel offers (a query, no restriction of this process).
func New(opts Options) (*Sandbox, error) {
	mode, err := ParseMode(string(opts.Mode))
	if err != nil {
		return nil, err
	}
	s := &Sandbox{mode: mode, network: !opts.NoNetwork, log: opts.Logger, helper: opts.Helper}
	for _, p := range opts.Writable {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("sandbox: writable path %q: %w", p, err)
		}
		if !slices.Contains(s.writable, abs) {
			s.writable = append(s.writable, abs)
		}
	}
	if s.helper == "" {
		s.helper = selfExecutable()
	}
	for _, list := range []struct {
		name string
		in   []string
		out  *[]string
	}{{"hidden", opts.Hidden, &s.hidden}, {"read-only", opts.ReadOnly, &s.readOnly}} {
		for _, p := range list.in {
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, fmt.Errorf("sandbox: %s path %q: %w", list.name, p, err)
			}
			if !slices.Contains(*list.out, abs) {
				*list.out = append(*list.out, abs)
			}
		}
	}
	s.abi, s.why = landlockABI()
	return s, nil
}

// Hide adds paths to those no command may read (Options.Hidden), for
// the commands confined from now on: what a host finds after it started
// (hard links to credentials, found by a scan of the working
// directories).
func (s *Sandbox) Hide(paths ...string) error {
	if s == nil {
		return nil
	}
	s.maskMu.Lock()
	defer s.maskMu.Unlock()
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("sandbox: hidden path %q: %w", p, err)
		}
		if !slices.Contains(s.hidden, abs) {
			s.hidden = append(s.hidden, abs)
		}
	}
	return nil
}

// Guards reports whether no confined command can change path: it is (or
// lies below) one of Options.ReadOnly that exists now (a missing one
// cannot be kept from being created), and the kernel masks here. A
// permission engine need not ask about code it cannot see into writing
// such a path (the kernel refuses it), as long as the command runs
// confined. It may start a probe of the kernel the first time.
func (s *Sandbox) Guards(path string) bool {
	if !s.Active() || s.abi == 0 || len(s.readOnly) == 0 || s.maskSupport() != "" {
		return false
	}
	path = filepath.Clean(path)
	return slices.ContainsFunc(s.readOnly, func(r string) bool {
		if !pathtree.Holds(r, path) {
			return false
		}
		_, err := os.Lstat(r)
		return err == nil
	})
}

// DenyConnect refuses every confined command a TCP connection to the
// given ports, whatever the address: the ports a server of this host
// listens on, so that a command it runs cannot reach the server and
// approve its own calls. It needs Landlock ABI 4 (Linux 6.7); the error
// says when the kernel cannot. Building the rule takes tens of
// milliseconds, once; each command then pays one system call.
func (s *Sandbox) DenyConnect(ports ...int) error {
	if s == nil || s.mode == ModeOff || len(ports) == 0 {
		return nil
	}
	s.netMu.Lock()
	defer s.netMu.Unlock()
	all := slices.Clone(s.deniedPorts)
	for _, p := range ports {
		if p <= 0 || p > 65535 {
			return fmt.Errorf("sandbox: port %d is not a TCP port", p)
		}
		if !slices.Contains(all, p) {
			all = append(all, p)
		}
	}
	layer, err := portLayer(s.abi, all)
	if err != nil {
		return err
	}
	if s.netLayer != nil {
		s.netLayer.Close()
	}
	s.netLayer, s.deniedPorts = layer, all
	return nil
}

// Close releases what DenyConnect holds. Commands confined afterwards
// may connect to those ports again.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.netLayer == nil {
		return nil
	}
	err := s.netLayer.Close()
	s.netLayer, s.deniedPorts = nil, nil
	return err
}

// Mode returns the sandbox mode.
func (s *Sandbox) Mode() Mode {
	if s == nil {
		return ModeOff
	}
	return s.mode
}

// Active reports whether commands run confined: the mode is not off and
// the kernel supports Landlock, or the mode is required (then a command
// runs confined or not at all).
func (s *Sandbox) Active() bool {
	if s == nil {
		return false
	}
	switch s.mode {
	case ModeOff:
		return false
	case ModeRequired:
		return true
	}
	return s.abi > 0
}

// Status is the state of a sandbox, as `wasmtools list --json` reports it.
type Status struct {
	// Mode is auto, required or off.
	Mode Mode `json:"mode"`
	// Enforced is true when commands run confined.
	Enforced bool `json:"enforced"`
	// Supported is true when the kernel offers Landlock.
	Supported bool `json:"supported"`
	// ABI is the kernel's Landlock ABI version, 0 without Landlock.
	ABI int `json:"abi"`
	// Network is "on" or "off" for the calls that are not read-only
	// (read-only calls never have it).
	Network string `json:"network"`
	// NetworkConfinement says how the network is turned off where it is:
	// the mechanisms in force on this kernel and architecture.
	NetworkConfinement []string `json:"network_confinement"`
	// Writable are the paths writable besides the working directories.
	Writable []string `json:"writable"`
	// Hidden are the paths no command may read; ReadOnly those no
	// command may change (Options.Hidden, Options.ReadOnly).
	Hidden   []string `json:"hidden"`
	ReadOnly []string `json:"read_only"`
	// Masking says how Hidden and ReadOnly are enforced: "mount
	// namespace", or why they are not (the kernel refuses unprivileged
	// user namespaces, say). Empty when there is nothing to mask or it
	// was not needed yet.
	Masking string `json:"masking,omitempty"`
	// DeniedPorts are the TCP ports no command may connect to
	// (DenyConnect).
	DeniedPorts []int `json:"denied_ports"`
	// Reason says why commands are not confined, when they are not.
	Reason string `json:"reason,omitempty"`
}

// Status returns the sandbox's state.
func (s *Sandbox) Status() Status {
	if s == nil {
		return Status{Mode: ModeOff, Network: "on", Reason: "no sandbox is configured", NetworkConfinement: []string{}, Writable: []string{}, Hidden: []string{}, ReadOnly: []string{}, DeniedPorts: []int{}}
	}
	st := Status{
		Mode:               s.mode,
		Supported:          s.abi > 0,
		ABI:                s.abi,
		Network:            "on",
		NetworkConfinement: networkMechanisms(s.abi),
		Writable:           append([]string{}, s.writable...),
		Hidden:             s.hiddenPaths(),
		ReadOnly:           append([]string{}, s.readOnly...),
	}
	s.netMu.Lock()
	st.DeniedPorts = append([]int{}, s.deniedPorts...)
	s.netMu.Unlock()
	if len(st.Hidden)+len(s.readOnly) > 0 && st.Supported && s.mode != ModeOff {
		if why := s.maskSupport(); why == "" {
			st.Masking = "mount namespace"
		} else {
			st.Masking = "none: " + why
		}
	}
	st.Enforced = s.mode != ModeOff && st.Supported
	if !s.network {
		st.Network = "off"
	}
	switch {
	case s.mode == ModeOff:
		st.Reason = "the sandbox is off"
	case !st.Supported:
		st.Reason = s.why
	}
	return st
}

// Policy is what one command may do, besides what the sandbox's options
// give every command.
type Policy struct {
	// WorkingDirs are the folders the command may write in, with
	// everything below them.
	WorkingDirs []string
	// ReadOnly makes the command unable to write anywhere but its
	// private temporary directory, and turns its network off: the
	// explore mode.
	ReadOnly bool
	// Untrusted are folders tool calls may write besides WorkingDirs (an
	// MCP server's policy names the agent's working directories here). A
	// writable path reached through a link that lies in one of them, or
	// in another writable path, is not granted: a command could have
	// planted the link (a cache folder replaced by a link to the home
	// folder, say).
	Untrusted []string
}

// request is what the host hands the helper, as JSON in its argument.
type request struct {
	// Writable are absolute files and folders the command may change.
	Writable []string `json:"writable"`
	// Network lets the command use the network.
	Network bool `json:"network"`
	// Ack is the file descriptor the helper reports on: "ok ..." once
	// the confinement holds, "error ..." when it cannot be applied.
	Ack int `json:"ack"`
	// Hidden and ReadOnly are masked in the helper's own mount namespace
	// (the host starts it in new user and mount namespaces); Tmp is the
	// command's temporary directory, where the helper makes the empty
	// file it covers hidden files with.
	Hidden   []string `json:"hidden,omitempty"`
	ReadOnly []string `json:"read_only,omitempty"`
	Tmp      string   `json:"tmp,omitempty"`
	// UID and GID are the user the command runs as: the helper, root in
	// its user namespace, starts its second stage in a nested one mapped
	// back to them (see runAsUser).
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
	// Masks is how many paths the first stage of the helper covered,
	// for the second stage's report.
	Masks int `json:"masks,omitempty"`
	// NetLayer, when not 0, is the descriptor of a Landlock ruleset the
	// helper applies on top of its own (DenyConnect).
	NetLayer int `json:"net_layer,omitempty"`
	// Probe makes the helper check that it can set up its mount
	// namespace, report, and exit without running anything.
	Probe bool `json:"probe,omitempty"`
}

// Main makes this program the sandbox helper when it was started as
// one: it confines the process, reports to the host and executes the
// command, and never returns; when the confinement cannot be applied it
// exits with status 126 without running anything. Started any other way
// it returns at once. Call it first thing in main, before flags are
// parsed or goroutines started.
func Main() {
	if len(os.Args) < 2 || os.Args[1] != helperArg {
		return
	}
	os.Exit(runHelper(os.Args[2:]))
}

// helperArg is the hidden first argument that makes Main act as the
// helper.
const helperArg = "__wasmtools_sandbox_exec"

// ackTimeout is how long the host waits for the helper to report.
const ackTimeout = 30 * time.Second

// devices are the character devices every shell writes to.
var devices = [...]string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// Confinement is one command prepared to run confined. Call Started
// after the command started and Close after it ended.
type Confinement struct {
	tmp      string
	ackR     *os.File
	ackW     *os.File
	writable []string // where the command may write besides tmp, for messages
	network  bool
	readOnly bool
	// masked is set when the helper is to hide and protect paths: its
	// report must say it did.
	masked      bool
	netLayer    *os.File // the helper's copy of the DenyConnect layer
	deniedPorts []int
}

// plantableLink returns the first link met while resolving the absolute
// path p that lies in or below one of roots (other than p itself), or ""
// when there is none: a command that may write there could have made the
// link, so that p now leads anywhere. An operator's link outside the
// roots (~/code to /data/code) is followed, and its target judged the
// same way; a path that cannot be resolved (a dangling link, a loop)
// fails closed.
func plantableLink(p string, roots []string) string {
	found := ""
	_, err := pathtree.Resolve(p, func(link string) {
		for _, r := range roots {
			if found == "" && r != p && pathtree.Holds(r, link) {
				found = link
			}
		}
	})
	if found == "" && err != nil {
		return p
	}
	return found
}

// hiddenPaths returns a copy of the hidden paths.
func (s *Sandbox) hiddenPaths() []string {
	s.maskMu.RLock()
	defer s.maskMu.RUnlock()
	return append([]string{}, s.hidden...)
}

// portLayerCopy returns a copy of the DenyConnect layer and its ports,
// or nil when there is none.
func (s *Sandbox) portLayerCopy() (*os.File, []int, error) {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.netLayer == nil {
		return nil, nil, nil
	}
	f, err := dupFile(s.netLayer)
	if err != nil {
		return nil, nil, err
	}
	return f, slices.Clone(s.deniedPorts), nil
}

// Confine prepares cmd, built but not started, to run confined by p: it
// makes cmd start the helper with cmd's program and arguments, creates
// the command's private temporary directory and sets TMPDIR to it in
// cmd.Env (os.Environ() when cmd.Env is nil). The helper runs the
// program only once the confinement holds.
//
// It returns nil and no error when the command is to run unconfined: the
// sandbox is nil or off, or the mode is auto and the kernel has no
// Landlock (logged once). In required mode on such a kernel it returns
// an error, and cmd must not be started.
func (s *Sandbox) Confine(cmd *exec.Cmd, p Policy) (*Confinement, error) {
	if s == nil || s.mode == ModeOff {
		return nil, nil
	}
	if s.abi == 0 {
		if s.mode == ModeRequired {
			return nil, fmt.Errorf("the OS sandbox is required (sandbox mode required) and cannot confine commands here: %s. Nothing was run. Run on Linux 5.13 or later with Landlock enabled, or set the sandbox mode to auto or off", s.why)
		}
		s.warnOnce.Do(func() {
			if s.log != nil {
				s.log.Warn("commands run without the OS sandbox (sandbox mode auto): "+s.why, "abi", s.abi)
			}
		})
		return nil, nil
	}
	if cmd.Process != nil {
		return nil, errors.New("sandbox: Confine needs a command that has not started")
	}
	tmp, err := os.MkdirTemp("", "wasmtools-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: create the command's temporary directory: %w; check that TMPDIR (or /tmp) is writable", err)
	}
	c := &Confinement{tmp: tmp, readOnly: p.ReadOnly, network: s.network && !p.ReadOnly}
	req := request{Network: c.network, Writable: []string{tmp}}
	if !p.ReadOnly {
		var wanted []string
		for _, d := range append(slices.Clone(p.WorkingDirs), s.writable...) {
			if d = filepath.Clean(d); filepath.IsAbs(d) && !slices.Contains(wanted, d) {
				wanted = append(wanted, d)
			}
		}
		roots := append(slices.Clone(wanted), p.Untrusted...)
		for _, d := range wanted {
			if link := plantableLink(d, roots); link != "" {
				if s.log != nil {
					s.log.Warn("sandbox: a writable path is reached through a link a command could have planted; it is not writable", "path", d, "link", link)
				}
				continue
			}
			req.Writable = append(req.Writable, d)
		}
	}
	c.writable = slices.Clone(req.Writable[1:])
	req.Writable = append(req.Writable, devices[:]...)
	if hidden := s.hiddenPaths(); len(hidden)+len(s.readOnly) > 0 {
		switch why := s.maskSupport(); {
		case why == "":
			req.Hidden, req.ReadOnly, req.Tmp = hidden, s.readOnly, tmp
			req.UID, req.GID = os.Getuid(), os.Getgid()
			useNamespaces(cmd)
			c.masked = true
		case s.mode == ModeRequired:
			os.RemoveAll(tmp)
			return nil, fmt.Errorf("the OS sandbox is required (sandbox mode required) and cannot hide credentials or protect host files here: %s. Nothing was run. Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or the AppArmor policy that restricts them), or set the sandbox mode to auto", why)
		default:
			s.maskWarnOnce.Do(func() {
				if s.log != nil {
					s.log.Warn("commands run confined but without hidden credentials or read-only host files (sandbox mode auto): "+why, "hidden", len(hidden), "read_only", len(s.readOnly))
				}
			})
		}
	}
	c.ackR, c.ackW, err = os.Pipe()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	req.Ack = 3 + len(cmd.ExtraFiles)
	extra := []*os.File{c.ackW}
	if c.network {
		// After the report descriptor: the helper closes both before
		// it runs the command. A copy, so that DenyConnect or Close
		// meanwhile cannot close it under the starting command.
		if c.netLayer, c.deniedPorts, err = s.portLayerCopy(); err != nil {
			c.Close()
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		if c.netLayer != nil {
			req.NetLayer = req.Ack + 1
			extra = append(extra, c.netLayer)
		}
	}
	data, err := json.Marshal(req)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clip(env), "TMPDIR="+tmp)
	cmd.ExtraFiles = append(cmd.ExtraFiles, extra...)
	prog := cmd.Path
	args := append([]string{s.helper, helperArg, string(data), prog}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = s.helper, args
	if s.log != nil {
		s.log.Debug("sandbox: confining", "command", prog, "writable", c.writable, "network", c.network)
	}
	return c, nil
}

// Started waits until the helper of a command that started reports
// that its confinement holds. On an error the command never ran: the
// helper failed, or is not a program that calls Main (the error says
// which); kill the process and wait for it.
func (c *Confinement) Started(ctx context.Context) error {
	if c == nil {
		return nil
	}
	c.ackW.Close() // the child holds its own copy
	c.ackW = nil
	if c.netLayer != nil {
		c.netLayer.Close()
		c.netLayer = nil
	}
	_ = c.ackR.SetReadDeadline(time.Now().Add(ackTimeout))
	stop := context.AfterFunc(ctx, func() { _ = c.ackR.SetReadDeadline(time.Now()) })
	defer stop()
	line, err := bufio.NewReader(c.ackR).ReadString('\n')
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "ok") && c.masked && !strings.Contains(line, " masks="):
		return errors.New("the sandbox helper does not hide credentials or protect host files (it is an older build). Nothing was run. Set the helper to a wasmtools binary of this version")
	case strings.HasPrefix(line, "ok"):
		return nil
	case strings.HasPrefix(line, "error "):
		return fmt.Errorf("the OS sandbox could not be applied: %s. Nothing was run. Fix the cause, or set the sandbox mode to off (--sandbox off) to run commands unconfined", strings.TrimPrefix(line, "error "))
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("the sandbox helper did not report within %s that it confined itself. Nothing was run. The helper must be a program that calls sandbox.Main first thing in main (wasmtools does): set the helper to one", ackTimeout)
	}
	return fmt.Errorf("the sandbox helper ended without confining itself. Nothing was run. The helper must be a program that calls sandbox.Main first thing in main (wasmtools does): set the helper to one")
}

// Close removes the command's private temporary directory and releases
// what Confine opened. Call it after the command ended (or failed to
// start).
func (c *Confinement) Close() {
	if c == nil {
		return
	}
	if c.ackW != nil {
		c.ackW.Close()
		c.ackW = nil
	}
	if c.netLayer != nil {
		c.netLayer.Close()
		c.netLayer = nil
	}
	if c.ackR != nil {
		c.ackR.Close()
		c.ackR = nil
	}
	if c.tmp != "" {
		os.RemoveAll(c.tmp)
		c.tmp = ""
	}
}

// TempDir returns the command's private temporary directory.
func (c *Confinement) TempDir() string {
	if c == nil {
		return ""
	}
	return c.tmp
}

// ReadOnly reports whether the command may write nothing but its
// temporary directory.
func (c *Confinement) ReadOnly() bool { return c != nil && c.readOnly }

// Network reports whether the command may use the network.
func (c *Confinement) Network() bool { return c == nil || c.network }

// Describe says in a sentence what the confined command may do, for the
// messages a model reads.
func (c *Confinement) Describe() string {
	if c == nil {
		return "The command ran without the OS sandbox."
	}
	var b strings.Builder
	b.WriteString("The command ran in the OS sandbox: ")
	switch {
	case c.readOnly:
		b.WriteString("read-only (explore mode), writable only in its temporary directory $TMPDIR")
	case len(c.writable) == 0:
		b.WriteString("writable only in its temporary directory $TMPDIR")
	default:
		b.WriteString("writable only in ")
		b.WriteString(strings.Join(c.writable, ", "))
		b.WriteString(" and its temporary directory $TMPDIR")
	}
	switch {
	case !c.network:
		b.WriteString("; network off")
	case len(c.deniedPorts) > 0:
		fmt.Fprintf(&b, "; network on, but no connection to port %s (this host's own server)", joinPorts(c.deniedPorts))
	default:
		b.WriteString("; network on")
	}
	if c.masked {
		b.WriteString("; credentials (such as ~/.ssh, ~/.aws, token files) read as empty, and the host's own files (its configuration, plugin and skill folders) are read-only even inside the working directories")
	}
	b.WriteString(".")
	return b.String()
}

// Refuses describes what the sandbox refuses the command, for a note
// after an access it reported refused.
func (c *Confinement) Refuses() string {
	if c == nil {
		return ""
	}
	parts := []string{"writes outside the writable paths"}
	if c.masked {
		parts = append(parts, "reads of credentials and token files", "changes to the host's own files")
	}
	switch {
	case !c.network:
		parts = append(parts, "every network connection")
	case len(c.deniedPorts) > 0:
		parts = append(parts, "connections to port "+joinPorts(c.deniedPorts))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func joinPorts(ports []int) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ", ")
}
