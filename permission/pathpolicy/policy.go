package pathpolicy

import (
	"os"
	"strings"
)

// Options configure a Policy.
type Options struct {
	// DangerousFiles and DangerousDirs replace the defaults when not nil;
	// an empty, non-nil list turns that check off.
	DangerousFiles, DangerousDirs []string
	// Home is the directory ~ stands for; empty means the current user's.
	Home string
}

// Policy judges paths. It is safe for concurrent use.
type Policy struct {
	files []entry
	dirs  []entry
	home  string
}

// entry is one sensitive-list item split into lower-case segments.
type entry struct {
	segs     []string
	absolute bool // anchored at the root
}

// New returns a policy.
func New(opts Options) *Policy {
	p := &Policy{home: opts.Home}
	if p.home == "" {
		p.home, _ = os.UserHomeDir()
	}
	files := opts.DangerousFiles
	if files == nil {
		files = DefaultDangerousFiles
	}
	dirs := opts.DangerousDirs
	if dirs == nil {
		dirs = DefaultDangerousDirs
	}
	p.files = parseEntries(files)
	p.dirs = parseEntries(dirs)
	return p
}

func parseEntries(list []string) []entry {
	out := make([]entry, 0, len(list))
	for _, s := range list {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" {
			continue
		}
		e := entry{absolute: strings.HasPrefix(s, "/")}
		e.segs = strings.Split(strings.Trim(s, "/"), "/")
		out = append(out, e)
	}
	return out
}

// Home returns the directory ~ stands for.
func (p *Policy) Home() string { return p.home }

// ExpandHome expands a leading "~" or "~/" to the home directory.
func (p *Policy) ExpandHome(s string) string {
	if s == "~" {
		return p.home
	}
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		return strings.TrimSuffix(p.home, "/") + "/" + rest
	}
	return s
}

// Abs joins a path to cwd without cleaning it, so that ".." still applies
// after the links resolution follows. It returns "" for a relative path
// without a usable cwd.
func Abs(p, cwd string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	if !strings.HasPrefix(cwd, "/") {
		return ""
	}
	return strings.TrimSuffix(cwd, "/") + "/" + p
}

// maxLinks is how many symbolic links a resolution follows, as the
// kernel's limit: past it the open fails (ELOOP).
const maxLinks = 40

// Inside reports whether a path (relative to cwd) resolves to one of dirs
// or below one; dirs are resolved too. A path that cannot be resolved is
// not inside.
func (p *Policy) Inside(name, cwd string, dirs []string) bool {
	real, ok := p.Resolve(name, cwd)
	if !ok {
		return false
	}
	return p.ResolvedInside(real, dirs)
}

// ResolvedInside is Inside for a path already resolved.
func (p *Policy) ResolvedInside(real string, dirs []string) bool {
	for _, d := range dirs {
		if !strings.HasPrefix(d, "/") {
			continue
		}
		rd, ok := p.Resolve(d, d)
		if !ok {
			continue
		}
		if within(real, rd) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
