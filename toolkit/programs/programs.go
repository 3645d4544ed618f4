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
// may write; a program found only in such an entry is refused with a
// message that says where it was and what to do. Env gives the programs
// the host starts that PATH, and none of the variables that would make
// them load code from the workspace.
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

	"github.com/wasmtools/wasmtools/internal/pathtree"
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
// any of the untrusted folders (relative ones are taken from the current
// folder; links are resolved), or in a folder everyone may write.
func New(path string, untrusted []string) *Resolver {
	r := &Resolver{}
	for _, u := range untrusted {
		if u == "" {
			continue
		}
		if abs, err := filepath.Abs(u); err == nil {
			u = abs // relative to the current folder, as the caller meant
		}
		r.untrusted = append(r.untrusted, resolvedFolder(u))
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
// folders. The program found is refused if resolving it passes through
// an untrusted folder (a link there can be re-pointed). A program found
// only in a dropped entry gets an error naming that entry.
func (r *Resolver) LookPath(name string) (string, error) {
	if name == "" {
		return "", errors.New("programs: no program named")
	}
	if strings.ContainsRune(name, '/') || strings.ContainsRune(name, os.PathSeparator) {
		if !filepath.IsAbs(name) {
			return "", fmt.Errorf("%s: a relative program path names a program in the current folder, which tool calls may write; give an absolute path outside the working directories", name)
		}
		if in := r.chainWithin(name); in != "" {
			return "", fmt.Errorf("%s: the host does not run programs from %s, a folder tool calls may write; install the program elsewhere", name, in)
		}
		return exec.LookPath(name)
	}
	for _, dir := range r.dirs {
		p, err := exec.LookPath(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		// /usr/local/bin/rg may be a link to a file a tool can write, or
		// pass through a link that one can re-point later.
		if in := r.chainWithin(p); in != "" {
			return "", fmt.Errorf("%s (%s) links through %s, a folder tool calls may write; the host does not run it", name, p, in)
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
// the untrusted folders, or reaches its end through a link that does
// (symlinks resolved).
func (r *Resolver) Untrusted(p string) bool { return r.chainWithin(p) != "" }

// Env returns environ (os.Environ's form) for a program the host starts:
// PATH is the filtered one, and each variable that makes a program load
// code from a path (LD_PRELOAD, PYTHONPATH, NODE_OPTIONS, BASH_ENV, …)
// is dropped when a path in it is relative or lies in an untrusted
// folder: a planted sitecustomize.py or preload library would otherwise
// run in the host's server or its rg.
func (r *Resolver) Env(environ []string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if k == "PATH" || (loadsCode(k) && r.namesUntrusted(v)) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+r.Path())
}

// loadsCode reports a variable that makes a program load code from the
// paths it holds (facts from the dynamic loader's, the interpreters' and
// the shells' manuals).
func loadsCode(name string) bool {
	switch name {
	case "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE",
		"NODE_OPTIONS", "NODE_PATH", "PERL5LIB", "PERLLIB", "PERL5OPT", "RUBYLIB", "RUBYOPT", "GEM_PATH", "GEM_HOME",
		"BASH_ENV", "ENV", "ZDOTDIR", "VIRTUAL_ENV", "CONDA_PREFIX", "GIT_EXEC_PATH", "LUA_PATH", "LUA_CPATH", "CLASSPATH":
		return true
	}
	return strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(strings.ToLower(name), "npm_config_")
}

// namesUntrusted reports whether any path-like word of v (split at the
// list separator, spaces and '=') is relative or lies in an untrusted
// folder.
func (r *Resolver) namesUntrusted(v string) bool {
	words := strings.FieldsFunc(v, func(c rune) bool { return c == os.PathListSeparator || c == ' ' || c == '=' || c == '\t' })
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			continue // an option: --max-old-space-size
		}
		if !filepath.IsAbs(w) {
			if strings.ContainsRune(w, '/') || strings.ContainsRune(w, os.PathSeparator) || w == "." {
				return true // relative to the current folder, the agent's
			}
			continue
		}
		if r.chainWithin(w) != "" {
			return true
		}
	}
	return false
}

// unsafeDir says why a PATH entry may not serve, or "".
func (r *Resolver) unsafeDir(dir string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return "is relative (it names the current folder, the agent's)"
	}
	if in := r.chainWithin(dir); in != "" {
		return "lies in or links through " + in + ", which tool calls may write"
	}
	if _, err := pathtree.Resolve(dir, nil); err != nil {
		return "cannot be resolved (" + err.Error() + ")"
	}
	if othersMayWrite(dir) {
		return "is a folder everyone may write"
	}
	return ""
}

// chainWithin returns the untrusted folder that p, or any link met while
// resolving p, lies in or below, or "". A link in an untrusted folder is
// as bad as a file there: a tool call can re-point it after the check.
// A path that cannot be resolved (a dangling link, a loop) counts as
// untrusted.
func (r *Resolver) chainWithin(p string) string {
	found := ""
	visit := func(q string) {
		if found == "" {
			found = r.within(q)
		}
	}
	visit(filepath.Clean(p))
	final, err := pathtree.Resolve(p, visit)
	switch {
	case found != "":
	case err != nil:
		found = "a path that cannot be resolved (" + err.Error() + ")" // fail closed
	default:
		visit(final)
	}
	return found
}

// within returns the untrusted folder p is in or below, or "".
func (r *Resolver) within(p string) string {
	for _, u := range r.untrusted {
		if pathtree.Holds(u, p) {
			return u
		}
	}
	return ""
}

// resolvedFolder returns folder with its links resolved, as pathtree.Resolve does;
// as written when it cannot be resolved.
func resolvedFolder(folder string) string {
	if r, err := pathtree.Resolve(folder, nil); err == nil {
		return r
	}
	return filepath.Clean(folder)
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
