package bash

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/wasmtools/wasmtools/permission/pathpolicy"
)

// This file holds the checks that make a command which only reads
// untrustworthy where it runs: what a glob or a variable turns into, and
// configuration the working directory may have planted.

// assignedVariables returns the names the script itself sets: bare
// assignments, export/declare/local/readonly/typeset arguments, and the
// targets of read, printf -v, mapfile and getopts.
func assignedVariables(s *Script) map[string]bool {
	var out map[string]bool // made at the first name: most scripts set none
	add := func(name string) {
		if out == nil {
			out = map[string]bool{}
		}
		out[name] = true
	}
	for _, c := range s.Commands {
		if c.Name == "" {
			for _, a := range c.Assigns {
				add(a.Name)
			}
			continue
		}
		switch c.Name {
		case "export", "declare", "typeset", "readonly", "local":
			for _, a := range c.Args {
				if strings.HasPrefix(a.Value, "-") {
					continue
				}
				name, _, _ := strings.Cut(a.Value, "=")
				add(name)
			}
		case "read", "mapfile", "readarray", "getopts":
			for _, a := range c.Args {
				if !strings.HasPrefix(a.Value, "-") && validVariable(a.Value) {
					add(a.Value)
				}
			}
		case "printf":
			for _, v := range optionValues("printf", c.Values(), 'v', "") {
				add(v)
			}
		}
	}
	return out
}

// usesAny returns a variable of names that the command's words expand.
func usesAny(c *Command, names map[string]bool) string {
	if len(names) == 0 {
		return ""
	}
	words := append([]Word{c.NameWord}, c.Args...)
	for _, a := range c.Assigns {
		words = append(words, a.Value)
	}
	for _, w := range words {
		for _, v := range w.Vars {
			if names[v] {
				return v
			}
		}
	}
	return ""
}

// optionInjection finds words in option position that may turn into
// options when the command runs: an unquoted glob matching a file whose
// name starts with "-" (a file named --pre=sh makes `rg x *` run sh), or
// one whose matches are unknown because a cd ran before; a glob given to
// a command whose meaning depends on how many operands it has (uniq IN
// OUT writes OUT).
func (a *Analyzer) optionInjection(s *Script, env Env) []string {
	var out []string
	// A command of the script that writes may create the file a later
	// glob expands to: the file system as it is now does not tell.
	wrote := false
	for _, rd := range s.Redirects {
		wrote = wrote || rd.Output() && !harmlessOutput(cleanAbs(rd.Target.Value))
	}
	for _, c := range s.Commands {
		if c.Name == "" {
			continue
		}
		for _, w := range c.Args {
			if w.Value == "--" {
				break
			}
			if !w.Glob {
				continue
			}
			if c.Name == "uniq" {
				out = append(out, fmt.Sprintf("uniq is given the glob %s, which may name an output file", w.Value))
				break
			}
			if strings.HasPrefix(w.Value, "-") {
				out = append(out, fmt.Sprintf("the glob %s in %s expands to options", w.Value, c.Name))
				break
			}
			if !strings.ContainsAny(w.Value[:1], "*?[") {
				// bash keeps the literal part before the first wildcard:
				// ./* expands to ./--x, which is no option.
				continue
			}
			if wrote {
				out = append(out, fmt.Sprintf("the glob %s in %s may match a file an earlier command of the script creates", w.Value, c.Name))
				break
			}
			cwd, _ := a.dirOf(env, c)
			v, known := a.wordPath(w)
			abs := pathpolicy.Abs(v, cwd)
			if !known || abs == "" {
				out = append(out, fmt.Sprintf("the glob %s in %s may expand to an option", w.Value, c.Name))
				break
			}
			if strings.Contains(w.Value, "[") {
				// A bracket expression can name "-" itself ([-]*), and
				// bash's classes and negations differ from Go's matcher:
				// not worth the risk in option position.
				out = append(out, fmt.Sprintf("the glob %s in %s may expand to an option", w.Value, c.Name))
				break
			}
			matches, _ := filepath.Glob(pathpolicy.BashGlob(abs))
			for _, m := range matches {
				rel := strings.TrimPrefix(m, strings.TrimSuffix(cwd, "/")+"/")
				if strings.HasPrefix(rel, "-") {
					out = append(out, fmt.Sprintf("the glob %s in %s matches %s, which reads as an option", w.Value, c.Name, rel))
					break
				}
			}
		}
		if !readOnly(c) {
			wrote = true
		}
	}
	return out
}

// plantedGit reports git commands that would read a repository's
// configuration the working directory may have planted: git finds a
// bare repository (HEAD, objects/ and refs/ in a folder) before any .git
// above it, and a planted config runs programs (core.fsmonitor on git
// status). Such a repository's files are ordinary files an agent may
// have written, so git there is not read-only.
func (a *Analyzer) plantedGit(s *Script, env Env) []string {
	for _, c := range s.Commands {
		if c.Name != "git" || env.Cwd == "" {
			continue
		}
		dir, ok := a.paths.Resolve(env.Cwd, env.Cwd)
		if !ok {
			return []string{"git runs in a folder that cannot be resolved"}
		}
		for {
			// dir is resolved (no links in it). Where it is missing (as
			// the resolution found, remembered by the scope), the scope
			// answers that a .git and a HEAD in it are missing too,
			// without asking the file system, and git looks in the
			// parent.
			if a.gitStopsAt(dir) {
				break
			}
			if a.looksLikeGitDir(dir) {
				return []string{fmt.Sprintf("git would use %s as a bare repository, whose configuration may have been written by the agent", dir)}
			}
			parent := path.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
		return nil
	}
	return nil
}

// gitStopsAt reports whether git's discovery ends at dir's .git. It does
// only where .git is a gitfile (a regular file once links are followed:
// git reads it or fails) or a repository folder. A .git that is a
// dangling link, an empty folder or any folder git does not take for a
// repository is passed over: git then takes dir itself, and after it
// each parent, for a bare repository (setup.c,
// setup_git_directory_gently_1). So a mere .git, which an agent can
// make, must not end the search for a planted one. Where unsure, this
// says no: the search goes on, and at worst finds a plant git would not
// have reached (a question, never a silent run).
func (a *Analyzer) gitStopsAt(dir string) bool {
	name := filepath.Join(dir, ".git")
	// Missing (often known to the scope already): git goes on.
	if _, err := a.paths.Lstat(name); err != nil {
		return false
	}
	fi, err := os.Stat(name)
	switch {
	case err != nil:
		return false
	case fi.Mode().IsRegular():
		return true
	case !fi.IsDir() || !validGitHead(filepath.Join(name, "HEAD")):
		return false
	}
	// git's is_git_directory: objects/ and refs/ it may search (access
	// X_OK); a commondir file (linked worktrees, which use gitfiles) is
	// not followed here, which only keeps the search going.
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(name, sub)); err != nil || !fi.IsDir() || !searchable(filepath.Join(name, sub)) {
			return false
		}
	}
	return true
}

// validGitHead is git's validate_headref, no looser: a link into refs/,
// or a file starting "ref: refs/" or with a full object id.
func validGitHead(name string) bool {
	fi, err := os.Lstat(name)
	if err != nil {
		return false
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(name)
		return err == nil && strings.HasPrefix(target, "refs/")
	}
	if !fi.Mode().IsRegular() {
		// A FIFO would block the check until someone writes to it.
		return false
	}
	head, ok := readRegularPrefix(name, 256)
	if !ok {
		return false
	}
	if ref, ok := strings.CutPrefix(head, "ref:"); ok {
		return strings.HasPrefix(strings.TrimLeft(ref, " \t\n\v\f\r"), "refs/")
	}
	hex := 0
	for hex < len(head) && strings.IndexByte("0123456789abcdef", head[hex]) >= 0 {
		hex++
	}
	return hex >= 40
}

// looksLikeGitDir reports what git's discovery takes for a repository
// folder: a HEAD file and objects/ and refs/ folders. Where Lstat fails
// (often known to the scope already), Stat fails too.
func (a *Analyzer) looksLikeGitDir(dir string) bool {
	if _, err := a.paths.Lstat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// gitRemoteValued are the options of git push, fetch, pull and ls-remote
// that take the next argument.
var gitRemoteValued = setOf("-o", "--push-option", "--receive-pack", "--upload-pack", "--exec", "--repo", "--depth", "-j", "--jobs")

// localRemoteFolders reports git transports (push, fetch, pull,
// ls-remote, remote add) whose repository operand is a bare name that is
// a folder here: git takes it for a path when no remote has that name,
// and runs the other side in that folder, hooks and configuration
// included.
func (a *Analyzer) localRemoteFolders(s *Script, env Env) []string {
	var out []string
	for _, c := range s.Commands {
		if c.Name != "git" {
			continue
		}
		sub, rest, _ := gitSubcommand(c.Values())
		switch sub {
		case "push", "fetch", "pull", "ls-remote":
		default:
			continue
		}
		ops := positionals(rest, gitRemoteValued)
		if len(ops) == 0 || strings.ContainsAny(ops[0], "/:@~.") {
			continue
		}
		dir, ok := a.dirOf(env, c)
		if !ok {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, ops[0])); err == nil && fi.IsDir() {
			out = append(out, fmt.Sprintf("git %s %s names the local folder %s, whose hooks and configuration would run", sub, ops[0], ops[0]))
		}
	}
	return out
}
