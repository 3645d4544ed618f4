// Package programs finds the programs the host itself runs — rg for Grep,
// the shell for Bash, PowerShell, MCP stdio servers — on a PATH from which
// every folder a tool call could write has been removed.
//
// Whatever an allowed call writes into the workspace must never become
// code the host runs as itself: a folder inside a working directory on
// PATH (an activated virtualenv, node_modules/.bin, ./bin) would let an
// allowed Write plant an rg that the next Grep runs outside every check
// and every sandbox. A Resolver therefore drops, once, every PATH entry
// that is relative (it names the current folder, which is the agent's),
// that lies in or below an untrusted folder (the working directories,
// the sandbox's writable paths, the temporary folder), or that everyone
// may write; a program found only in such an entry is
// refused with a message that says where it was and what to do.
package programs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Resolver looks programs up on a filtered PATH. Its methods are safe for
// concurrent use; it never changes after New.
type Resolver struct {
	dirs      []string  // the PATH entries kept, in order
	dropped   []Dropped // the PATH entries removed, in order
	untrusted []string  // cleaned, symlinks resolved where they exist
}

// Dropped is a PATH entry a Resolver removed, and why.
type Dropped struct {
	Dir    string
	Reason string
}

// New returns a Resolver over path (a PATH value, os.PathListSeparator
// between entries) that finds no program in a relative entry, in or below
// any of the untrusted folders (absolute paths; symlinks are resolved),
// or in a folder others may write.
func New(path string, untrusted []string) *Resolver {
	r := &Resolver{}
	for _, u := range untrusted {
		if u == "" || !filepath.IsAbs(u) {
			continue
		}
		r.untrusted = append(r.untrusted, resolved(u))
	}
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(path) {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		if why := r.unsafeDir(dir); why != "" {
			r.dropped = append(r.dropped, Dropped{Dir: dir, Reason: why})
			continue
		}
		r.dirs = append(r.dirs, dir)
	}
	return r
}

// FromEnvironment returns a Resolver over this process's PATH with the
// untrusted folders and the temporary folder (os.TempDir, and /tmp,
// /var/tmp and /dev/shm on Unix) removed.
func FromEnvironment(untrusted []string) *Resolver {
	u := slices.Clone(untrusted)
	u = append(u, os.TempDir())
	if runtime.GOOS != "windows" {
		u = append(u, "/tmp", "/var/tmp", "/dev/shm")
	}
	return New(os.Getenv("PATH"), u)
}

// Path returns the filtered PATH, for the environment of a program the
// host starts (so that it, too, finds nothing a tool call wrote).
func (r *Resolver) Path() string { return strings.Join(r.dirs, string(os.PathListSeparator)) }

// Dropped returns the PATH entries removed, for a warning at start.
func (r *Resolver) Dropped() []Dropped { return slices.Clone(r.dropped) }

// LookPath finds name as exec.LookPath would on the filtered PATH. A name
// with a path separator must be absolute and outside the untrusted
// folders. The program found is refused if it is a link into an
// untrusted folder. A program found only in a dropped entry gets an
// error naming that entry.
func (r *Resolver) LookPath(name string) (string, error) {
	if name == "" {
		return "", errors.New("programs: no program named")
	}
	if strings.ContainsRune(name, '/') || strings.ContainsRune(name, os.PathSeparator) {
		if !filepath.IsAbs(name) {
			return "", fmt.Errorf("%s: a relative program path names a program in the current folder, which tool calls may write; give an absolute path outside the working directories", name)
		}
		if in := r.within(resolved(name)); in != "" {
			return "", fmt.Errorf("%s: the host does not run programs from %s, a folder tool calls may write; install the program elsewhere", name, in)
		}
		return exec.LookPath(name)
	}
	for _, dir := range r.dirs {
		p, err := exec.LookPath(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		// /usr/local/bin/rg may be a link to a file a tool can write.
		if in := r.within(resolved(p)); in != "" {
			return "", fmt.Errorf("%s (%s) links into %s, a folder tool calls may write; the host does not run it", name, p, in)
		}
		return p, nil
	}
	for _, d := range r.dropped {
		if !filepath.IsAbs(d.Dir) {
			continue // a relative entry: Join would search PATH again
		}
		if p, err := exec.LookPath(filepath.Join(d.Dir, name)); err == nil {
			return "", fmt.Errorf("%s was found only at %s, which the host does not run: that PATH entry %s; install %s in a folder tool calls cannot write, or name it by an absolute path outside the working directories", name, p, d.Reason, name)
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// Untrusted reports whether the absolute path p lies in or below one of
// the untrusted folders (symlinks resolved).
func (r *Resolver) Untrusted(p string) bool { return r.within(resolved(p)) != "" }

// unsafeDir says why a PATH entry may not serve, or "".
func (r *Resolver) unsafeDir(dir string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return "is relative (it names the current folder, the agent's)"
	}
	real := resolved(dir)
	if in := r.within(real); in != "" {
		return "lies in " + in + ", which tool calls may write"
	}
	if othersMayWrite(real) {
		return "is a folder everyone may write"
	}
	return ""
}

// within returns the untrusted folder p is in or below, or "".
func (r *Resolver) within(p string) string {
	for _, u := range r.untrusted {
		if p == u || strings.HasPrefix(p, u+string(os.PathSeparator)) || u == string(os.PathSeparator) {
			return u
		}
	}
	return ""
}

// resolved returns p cleaned, with its symlinks resolved as far as the
// path exists (the rest is kept as written).
func resolved(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == "" || dir == p || filepath.Clean(dir) == p {
		return p
	}
	return filepath.Join(resolved(filepath.Clean(dir)), base)
}

// othersMayWrite reports a folder everyone may write: any process, a
// confined one included, could plant a program there. (A sticky folder
// such as /tmp counts too: anyone may add a file. A group-writable one
// does not: Debian's /usr/local/bin is writable by the staff group.)
func othersMayWrite(dir string) bool {
	if runtime.GOOS == "windows" {
		return false
	}
	info, err := os.Stat(dir)
	if err != nil {
		return false // absent: finds nothing
	}
	return info.IsDir() && info.Mode().Perm()&0o002 != 0
}
