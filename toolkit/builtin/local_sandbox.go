package builtin

import (
	"bytes"
	"context"
	"strings"
	"unicode/utf8"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
)

// Sandboxed reports whether Exec confines the commands it starts (see
// LocalBackend.Sandbox).
func (b *LocalBackend) Sandboxed() bool { return b.Sandbox.Active() }

// GuardsHostFile reports whether the OS sandbox keeps every command this
// backend confines from changing path (see sandbox.Sandbox.Guards).
func (b *LocalBackend) GuardsHostFile(path string) bool { return b.Sandbox.Guards(path) }

// kernelGuards reports whether the command of in runs confined, and the
// kernel keeps it from changing path: then code the analysis cannot see
// into need not ask about that path.
func kernelGuards(b Backend, in toolkit.Input, path string) bool {
	g, ok := b.(interface{ GuardsHostFile(string) bool })
	return ok && in.String("sandbox") != "off" && g.GuardsHostFile(path)
}

// sandboxPolicy is what a command of the call in ctx may do: write in the
// working directories of its permission context, nothing in the explore
// mode.
func sandboxPolicy(ctx context.Context) sandbox.Policy {
	rt := toolkit.RuntimeFrom(ctx)
	if rt == nil || rt.Permission == nil {
		return sandbox.Policy{}
	}
	pc := rt.Permission
	return sandbox.Policy{WorkingDirs: pc.WorkingDirs, ReadOnly: pc.Mode == permission.ModeExplore}
}

// sandboxEscalation is the question a call whose input turns the OS
// sandbox off ("sandbox": "off") puts to the user, naming the command
// that would run unconfined; "" when the input does not ask for that or
// the backend confines nothing anyway.
func sandboxEscalation(b Backend, in toolkit.Input) string {
	if in.String("sandbox") != "off" {
		return ""
	}
	s, ok := b.(interface{ Sandboxed() bool })
	if !ok || !s.Sandboxed() {
		return ""
	}
	return "This command asks to run WITHOUT the OS sandbox, where it could write anywhere you can and use the network:\n" +
		in.String("command") + "\nApprove only if you want exactly this to run unconfined."
}

// refusalPhrases are what programs print when the kernel refuses an
// access (EACCES, EPERM, EROFS), lower case.
var refusalPhrases = [...]string{"permission denied", "operation not permitted", "read-only file system"}

// maxScanLine is the longest partial line a refusalScanner keeps.
const maxScanLine = 4096

// refusalScanner watches a confined command's output for the first line
// that reports a refused access. A nil scanner watches nothing.
type refusalScanner struct {
	partial [2][]byte // per stream: stdout, stderr
	line    string
}

func (r *refusalScanner) write(s Stream, p []byte) {
	if r == nil || r.line != "" {
		return
	}
	i := 0
	if s == Stderr {
		i = 1
	}
	buf := append(r.partial[i], p...)
	for {
		nl := bytes.IndexByte(buf, '\n')
		if nl < 0 {
			break
		}
		if r.check(buf[:nl]) {
			r.partial[i] = nil
			return
		}
		buf = buf[nl+1:]
	}
	if len(buf) > maxScanLine {
		buf = buf[len(buf)-maxScanLine:]
	}
	r.partial[i] = append(r.partial[i][:0], buf...)
}

func (r *refusalScanner) check(line []byte) bool {
	lower := bytes.ToLower(line)
	for _, p := range refusalPhrases {
		if bytes.Contains(lower, []byte(p)) {
			r.line = strings.TrimSpace(strings.ToValidUTF8(string(line), "?"))
			return true
		}
	}
	return false
}

// first returns the first refusal line seen, "" if none.
func (r *refusalScanner) first() string {
	if r == nil {
		return ""
	}
	for _, p := range r.partial {
		if r.line == "" && len(p) > 0 {
			r.check(p)
		}
	}
	if utf8.RuneCountInString(r.line) > 300 {
		r.line = cutRunes(r.line, 300) + "…"
	}
	return r.line
}

// refusalNote tells the model that a confined command reported a
// refused access, what the sandbox allowed, and how to ask the user to
// run it unconfined.
func refusalNote(c *sandbox.Confinement, line string) string {
	var b strings.Builder
	b.WriteString("\n[sandbox] ")
	b.WriteString(c.Describe())
	b.WriteString(" It reported a refused access (")
	b.WriteString(line)
	b.WriteString("), which the sandbox may have caused: the sandbox refuses ")
	b.WriteString(c.Refuses())
	b.WriteString(". ")
	if c.ReadOnly() {
		b.WriteString("In the explore mode commands change nothing and cannot leave the sandbox; if the command must write, ask the user to change the permission mode.")
	} else {
		b.WriteString("Prefer writing inside the working directories. If the command really needs this access, call the tool again with the same command and \"sandbox\": \"off\": the user will be asked to approve running it without the sandbox.")
	}
	b.WriteString("\n")
	return b.String()
}
