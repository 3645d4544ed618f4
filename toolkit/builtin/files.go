package builtin

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/permission/pathpolicy"
	"github.com/wasmtools/wasmtools/toolkit"
)

// FileOptions configure the file tools (Read, Write, Edit).
type FileOptions struct {
	// Backend reads and writes the files; nil means a LocalBackend.
	Backend Backend
	// DangerousFiles and DangerousDirs replace the default lists of
	// sensitive paths when not nil; an empty list turns the check off.
	DangerousFiles, DangerousDirs []string
	// Home is the directory ~ stands for in path rules; empty means the
	// current user's.
	Home string
}

// fileBase is what Read, Write and Edit share: the backend, the path
// policy, and rule matching on file_path.
type fileBase struct {
	name    string
	backend Backend
	paths   *pathpolicy.Policy
}

func newFileBase(name string, opts FileOptions) fileBase {
	b := fileBase{name: name, backend: opts.Backend}
	if b.backend == nil {
		b.backend = &LocalBackend{}
	}
	b.paths = pathpolicy.New(pathpolicy.Options{DangerousFiles: opts.DangerousFiles, DangerousDirs: opts.DangerousDirs, Home: opts.Home})
	return b
}

// workingDirs returns the permission context's working directories.
func workingDirs(pc *permission.Context) []string {
	if pc == nil {
		return nil
	}
	return pc.WorkingDirs
}

// absPath returns the input's file_path, which must be absolute.
func absPath(in toolkit.Input) (string, error) {
	p := in.String("file_path")
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("file_path must be an absolute path, not %q", p)
	}
	return filepath.Clean(p), nil
}

// MatchRule implements toolkit.RuleMatcher for deny and ask rules: the
// rule content is a path pattern (//abs, /abs, ~/..., or relative to each
// working directory; see package pathpolicy) matched against file_path as
// spelled and as resolved.
func (b *fileBase) MatchRule(content string, in toolkit.Input, pc *permission.Context) permission.Match {
	if content == "" {
		return permission.Matches
	}
	p, err := absPath(in)
	if err != nil {
		return permission.MayMatch // an invalid path never escapes a rule
	}
	return permission.MatchOf(b.paths.Match(content, p, "/", workingDirs(pc), pathpolicy.Loose))
}

// CoveredBy implements toolkit.RulesCoverer for allow rules: file_path
// must resolve to a path a rule names (a link inside an allowed folder
// does not carry the permission to where it points).
func (b *fileBase) CoveredBy(contents []string, in toolkit.Input, pc *permission.Context) bool {
	p, err := absPath(in)
	for _, c := range contents {
		if c == "" {
			return true
		}
		if err == nil && b.paths.Match(c, p, "/", workingDirs(pc), pathpolicy.Strict) {
			return true
		}
	}
	return false
}

// Suggestions implements toolkit.Suggester: the file's directory and
// everything below it.
func (b *fileBase) Suggestions(in toolkit.Input) []permission.Rule {
	p, err := absPath(in)
	if err != nil {
		return []permission.Rule{}
	}
	return []permission.Rule{{Tool: b.name, Content: filepath.Dir(p) + "/**"}}
}

// sensitive reports whether file_path names a sensitive file, as spelled
// or resolved.
func (b *fileBase) sensitive(in toolkit.Input) (string, bool) {
	p, err := absPath(in)
	if err != nil {
		return "", false
	}
	return b.paths.SensitivePath(p, "/")
}

// checkEdit is the permission check of Write and Edit: a sensitive path
// (as spelled or resolved) asks for the user (bypass-immune); a file
// named like an option asks (a later glob would turn it into one); in
// accept_edits and dont_ask a path that resolves inside a working
// directory is allowed; the rest is left to the engine.
func (b *fileBase) checkEdit(in toolkit.Input, pc *permission.Context) permission.Decision {
	p, err := absPath(in)
	if err != nil {
		return permission.AskDecision(err.Error(), "invalid path")
	}
	if what, ok := b.paths.SensitivePath(p, "/"); ok {
		return permission.SafetyAsk(fmt.Sprintf("Safety check: %s would change the sensitive file %s. Approve only if you meant to.", b.name, what), "sensitive path "+what)
	}
	if pathpolicy.OptionLike(p) {
		return permission.AskDecision(fmt.Sprintf("%s would create %s, whose name starts with \"-\": a later command given a glob (rg x *) would read it as an option.", b.name, p), "file named like an option")
	}
	if (pc.Mode == permission.ModeAcceptEdits || pc.Mode == permission.ModeDontAsk) && b.paths.Inside(p, "/", pc.WorkingDirs) {
		return permission.AllowDecision("edit inside the working directories")
	}
	return permission.PassthroughDecision()
}

// stamp returns the backend's view of a file's version.
func (b *fileBase) stamp(ctx context.Context, path string) (toolkit.FileStamp, error) {
	fi, err := Stat(ctx, b.backend, path)
	if err != nil {
		return toolkit.FileStamp{}, err
	}
	return toolkit.FileStamp{ModTime: fi.ModTime, Size: fi.Size}, nil
}

// session returns the call's session state, which the file tools need for
// the read-before-write check.
func session(ctx context.Context) (toolkit.SessionState, error) {
	rt := toolkit.RuntimeFrom(ctx)
	if rt == nil || rt.Session == nil {
		return nil, fmt.Errorf("no session: the file tools must run inside a toolkit call")
	}
	return rt.Session, nil
}

// requireFreshRead enforces read-before-write: the session must have read
// (or written) this version of the file.
func (b *fileBase) requireFreshRead(ctx context.Context, s toolkit.SessionState, path string) (toolkit.FileStamp, error) {
	cur, err := b.stamp(ctx, path)
	if err != nil {
		return cur, err
	}
	seen, ok, err := s.ReadCache().Lookup(ctx, path)
	if err != nil {
		return cur, fmt.Errorf("cannot check when %s was last read: %w", path, err)
	}
	if !ok {
		return cur, fmt.Errorf("%s has not been read in this session: read it with the Read tool first, then try again", path)
	}
	if !seen.ModTime.Equal(cur.ModTime) || seen.Size != cur.Size {
		return cur, fmt.Errorf("%s has changed since it was last read: read it again with the Read tool, then redo the change", path)
	}
	return cur, nil
}

// countLines counts lines the way an editor shows them.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
