package builtin

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
	shell "github.com/wasmtools/wasmtools/permission/bash"
	"github.com/wasmtools/wasmtools/toolkit"
)

// FileOptions configure the file tools (Read, Write, Edit).
type FileOptions struct {
	// Backend reads and writes the files; nil means a LocalBackend.
	Backend Backend
	// DangerousFiles and DangerousDirs replace the default lists of
	// sensitive paths when not nil; an empty list turns the check off.
	DangerousFiles, DangerousDirs []string
}

// fileBase is what Read, Write and Edit share: the backend, the sensitive
// path lists, and rule matching on file_path.
type fileBase struct {
	name     string
	backend  Backend
	analyzer *shell.Analyzer
}

func newFileBase(name string, opts FileOptions) fileBase {
	b := fileBase{name: name, backend: opts.Backend}
	if b.backend == nil {
		b.backend = &LocalBackend{}
	}
	b.analyzer = shell.New(shell.Options{DangerousFiles: opts.DangerousFiles, DangerousDirs: opts.DangerousDirs})
	return b
}

// absPath returns the input's file_path, which must be absolute.
func absPath(in toolkit.Input) (string, error) {
	p := in.String("file_path")
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("file_path must be an absolute path, not %q", p)
	}
	return filepath.Clean(p), nil
}

// MatchRule implements toolkit.RuleMatcher: the rule content is a
// doublestar glob on the absolute file_path; a relative pattern is
// anchored at each working directory.
func (b *fileBase) MatchRule(content string, in toolkit.Input, pc *permission.Context) bool {
	if content == "" {
		return true
	}
	p, err := absPath(in)
	if err != nil {
		return true // an invalid path never escapes a rule
	}
	return matchPathRule(content, p, pc)
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

// checkEdit is the permission check of Write and Edit: a sensitive path
// asks for the user (bypass-immune); in accept_edits and dont_ask a path
// inside a working directory (after resolving .. and symbolic links) is
// allowed; the rest is left to the engine.
func (b *fileBase) checkEdit(in toolkit.Input, pc *permission.Context) permission.Decision {
	p, err := absPath(in)
	if err != nil {
		return permission.AskDecision(err.Error(), "invalid path")
	}
	if b.analyzer.Sensitive(p) {
		d := permission.SafetyAsk(fmt.Sprintf("Safety check: %s would change the sensitive file %s. Approve only if you meant to.", b.name, p), "sensitive path "+p)
		d.Suggestions = []permission.Rule{}
		return d
	}
	if (pc.Mode == permission.ModeAcceptEdits || pc.Mode == permission.ModeDontAsk) && shell.Inside(p, pc.WorkingDirs) {
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
	seen, ok := s.ReadCache().Lookup(path)
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
