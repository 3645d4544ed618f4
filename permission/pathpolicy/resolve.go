package pathpolicy

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Resolve returns the path the kernel would open for p, relative to cwd:
// absolute and clean, with symbolic links followed component by component
// as far as the path exists (a dangling link's target counts), ".."
// applied after a link, and /proc/{self,thread-self,PID}/{root,cwd} (and
// their task/TID forms) replaced by what they stand for. cwd is both the
// directory relative paths start from and the working directory of the
// process that would open the path (what /proc/self/cwd names).
//
// ok is false when the path cannot be known: a relative path without an
// absolute cwd, a link loop, or a /proc entry that names another
// process's open file.
func (p *Policy) Resolve(name, cwd string) (string, bool) {
	abs := p.abs(name, cwd)
	if abs == "" {
		return "", false
	}
	return p.resolve(abs, cwd, 0)
}

func (p *Policy) resolve(abs, cwd string, depth int) (string, bool) {
	clean := isClean(abs)
	if m := p.memo; m != nil && clean {
		// Most paths lie in the directory the command starts in: one
		// probe of it answers for all its components (see warmDir), and
		// when it is missing, for every path below it. (The directory
		// ScopedIn was given is known to be probeable.)
		if !m.warmed && atOrBelow(abs, cwd) &&
			(cwd != "" && cwd == m.dir || probeable(cwd)) {
			p.warmDir(cwd)
		}
		if m.resolvesInPlace(abs) || slices.Contains(m.found, abs) {
			return abs, true
		}
		if probeableClean(abs) && m.unknownPrefixes(abs) >= 2 && len(m.absent)+len(m.found) < maxLookups {
			// Two components or more the scope knows nothing of: one
			// probe answers for the walk's Lstat of each (ENOENT or
			// ENOTDIR alone, or the open and its close), unless a link
			// is on the way.
			switch probePath(abs) {
			case probeFound:
				m.found = append(m.found, abs)
				return abs, true
			case probeMissing:
				m.absent = append(m.absent, absentResult{abs, true})
				return abs, true
			}
		}
	}
	resolved := "/"
	var buf [24]string // most paths have fewer parts: no allocation
	rest := splitSegs(buf[:0], abs)
	links := 0
	// inPlace: abs is clean and, so far, every part walked was one of its
	// own (no link followed, no /proc entry replaced), so resolved is a
	// prefix of abs and the next path is a longer prefix: no allocation.
	// (isClean answers for an absolute path without path.Clean's pass.)
	inPlace := clean || abs == path.Clean(abs)
	// absent is a path found not to exist, or to be something other than
	// a directory or a link: nothing below it can exist either (the
	// kernel's lookup fails there, ENOENT or ENOTDIR), so every path
	// under it is taken as the Lstat failure it would be, without asking.
	// A ".." back above it asks again.
	absent := ""
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			resolved = path.Dir(resolved)
			continue
		}
		if resolved == "/proc" && isProcess(part) {
			// A copy: rest may live on this frame's stack (buf), and
			// what procEntry returns must not point into it.
			r, remaining, ok := p.procEntry(part, slices.Clone(rest), cwd, depth)
			if !ok {
				return "", false
			}
			if r != "" {
				resolved, rest = r, remaining
				inPlace = false
				continue
			}
		}
		var next string
		if inPlace {
			next = abs[:len(strings.TrimSuffix(resolved, "/"))+1+len(part)]
		} else {
			next = path.Join(resolved, part)
		}
		if absent != "" && below(next, absent) {
			resolved = next
			continue
		}
		if p.memo != nil && p.memo.isNoLink(next) {
			// A directory, or missing: either way not a link, and if
			// missing, the lookup of the next part fails as the walk
			// would have assumed, so it resolves to the same path.
			resolved = next
			continue
		}
		mode, err := p.lstat(next)
		if err != nil || mode&fs.ModeSymlink == 0 {
			if err != nil || !mode.IsDir() {
				absent = next
			}
			resolved = next
			continue
		}
		links++
		target, err := p.readlink(next)
		if err != nil || links > maxLinks {
			return "", false
		}
		if strings.HasPrefix(target, "/") {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
		inPlace = false
	}
	return resolved, true
}

// isProcess reports a /proc entry that stands for a process.
func isProcess(s string) bool {
	if s == "self" || s == "thread-self" {
		return true
	}
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

// procEntry resolves /proc/PROC/... where PROC is self, thread-self or a
// PID: root is the file system's root (same mount namespace), cwd is the
// reading process's directory (for self) or what the kernel says (for a
// PID), fd and map_files name open files nobody can know in advance.
// task/TID is the process itself. It returns "" to let the caller walk
// the entry as an ordinary path (environ, maps, ...).
func (p *Policy) procEntry(proc string, rest []string, cwd string, depth int) (string, []string, bool) {
	self := proc == "self" || proc == "thread-self"
	for len(rest) >= 2 && rest[0] == "task" {
		rest = rest[2:] // /proc/PID/task/TID/x is /proc/PID/x
	}
	for len(rest) > 0 && (rest[0] == "" || rest[0] == ".") {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return "/proc/" + proc, rest, true
	}
	switch rest[0] {
	case "root":
		return "/", rest[1:], true
	case "cwd":
		if self {
			if !strings.HasPrefix(cwd, "/") || depth > 0 {
				return "", nil, false
			}
			r, ok := p.resolve(cwd, cwd, depth+1)
			return r, rest[1:], ok
		}
		target, err := p.readlink("/proc/" + proc + "/cwd")
		if err != nil || !strings.HasPrefix(target, "/") {
			return "", nil, false
		}
		return path.Clean(target), rest[1:], true
	case "fd", "map_files", "exe", "fdinfo":
		if len(rest) == 1 {
			return "/proc/" + proc + "/" + rest[0], nil, true
		}
		return "", nil, false
	}
	return "/proc/" + proc + "/" + rest[0], rest[1:], true
}

// lookups remembers what Lstat and Readlink said about each path during
// one analysis (see Policy.Scoped): a command's words share folders (the
// working directory, the home folder), and each used to cost one Lstat
// per component per word. Never kept longer than one analysis: the file
// system changes between calls, and a stale answer would judge a path by
// what it no longer is.
type lookups struct {
	// absPath is the last relative path abs made absolute (see
	// Policy.abs).
	absPath string

	// dir is the directory the analysis starts in (ScopedIn), probed at
	// the first Lstat below it, "" for none; once warmed (the one probe
	// made), the directory probed, and dirProbe what the probe said
	// (see warmDir).
	dir      string
	dirProbe probeResult
	warmed   bool

	lstats []lstatResult
	links  []linkResult
	// absent are paths probePath found missing (or not a directory)
	// with no link on the way.
	absent []absentResult
	// found are paths probePath found to exist with no link on the way,
	// the last component included: each resolves to itself.
	found []string
}

// abs is Abs, with the last relative path remembered in a scope: the
// checks of one analysis ask for the same path one after another
// (sensitive, then inside the working directories).
func (p *Policy) abs(name, cwd string) string {
	m := p.memo
	if m == nil || strings.HasPrefix(name, "/") {
		return Abs(name, cwd)
	}
	if joins(m.absPath, cwd, name) {
		return m.absPath
	}
	a := Abs(name, cwd)
	m.absPath = a
	return a
}

// joins reports whether abs is Abs(name, cwd) for a relative name: cwd
// without its trailing slash, a slash, name. The scope then keeps one
// string instead of the name, the directory and the path (less memory
// for each decision to allocate and clear), at the cost of comparing
// their bytes.
func joins(abs, cwd, name string) bool {
	dir := strings.TrimSuffix(cwd, "/")
	return strings.HasPrefix(cwd, "/") && len(abs) == len(dir)+1+len(name) &&
		abs[len(dir)] == '/' && abs[:len(dir)] == dir && abs[len(dir)+1:] == name
}

// unknownPrefixes counts, up to 2, the prefixes of a clean absolute path
// (the path included) whose Lstat the scope does not remember: what the
// walk would ask the file system.
func (m *lookups) unknownPrefixes(abs string) int {
	n := 0
	for i := 1; i <= len(abs) && n < 2; i++ {
		if i < len(abs) && abs[i] != '/' {
			continue
		}
		if prefix := abs[:i]; !m.knownLstat(prefix) && !m.isNoLink(prefix) {
			n++
		}
	}
	return n
}

type lstatResult struct {
	name   string
	mode   fs.FileMode
	failed bool // resolve asks only whether Lstat failed, not why
}

// errLstat stands for a remembered Lstat failure.
var errLstat = errors.New("lstat failed")

type linkResult struct {
	name, target string
	err          error
}

// maxLookups bounds what a scope remembers; past it, lookups go to the
// file system each time (the answer is the same, only slower).
const maxLookups = 64

// Lstat is os.Lstat reduced to the type bits (link, directory), answered
// from what this scope (Scoped) already asked the file system, as Resolve
// is: name names nothing beyond what the analysis saw.
func (p *Policy) Lstat(name string) (fs.FileMode, error) { return p.lstat(name) }

func (p *Policy) lstat(name string) (fs.FileMode, error) {
	if m := p.memo; m != nil && !m.warmed && m.dir != "" && atOrBelow(name, m.dir) {
		p.warmDir(m.dir)
	}
	if p.memo != nil {
		if p.memo.lstatFails(name) {
			return 0, errLstat
		}
		for i := range p.memo.lstats {
			if r := &p.memo.lstats[i]; r.name == name {
				if r.failed {
					return 0, errLstat
				}
				return r.mode, nil
			}
		}
		if p.memo.probedDir(name) {
			return fs.ModeDir, nil
		}
	}
	mode, err := lstatMode(name)
	if p.memo != nil && len(p.memo.lstats) < maxLookups {
		p.memo.lstats = append(p.memo.lstats, lstatResult{name, mode, err != nil})
	}
	return mode, err
}

func (p *Policy) readlink(name string) (string, error) {
	if p.memo != nil {
		for i := range p.memo.links {
			if r := &p.memo.links[i]; r.name == name {
				return r.target, r.err
			}
		}
	}
	target, err := os.Readlink(name)
	if p.memo != nil && len(p.memo.links) < maxLookups {
		p.memo.links = append(p.memo.links, linkResult{name, target, err})
	}
	return target, err
}
