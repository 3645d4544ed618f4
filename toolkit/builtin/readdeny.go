package builtin

import (
	"context"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// A user's deny rule on Read(path) is about the contents of those files:
// it must hold for every tool that reads contents, not only for Read.
// Bash honours it through its readers (cat, grep, ...); Grep does here.

// deniedForRead reports whether a deny rule on Read covers path.
func deniedForRead(path string, pc *permission.Context) bool {
	if pc == nil {
		return false
	}
	for _, r := range pc.Deny {
		if r.Tool != "Read" {
			continue
		}
		if r.Content == "" || matchPathRule(r.Content, path, pc) {
			return true
		}
	}
	return false
}

// MatchForeignRule implements toolkit.ForeignRuleMatcher: a deny rule on
// Read denies a Grep whose path it covers. Files it covers inside a
// searched directory are left out of the results instead (see run).
func (g *Grep) MatchForeignRule(rule permission.Rule, in toolkit.Input, pc *permission.Context) bool {
	if rule.Tool != "Read" {
		return false
	}
	if rule.Content == "" {
		return true
	}
	ctx := toolkit.WithRuntime(context.Background(), &toolkit.Runtime{Permission: pc})
	p, err := searchResolvePath(ctx, g.opts.Cwd, in.String("path"))
	if err != nil {
		return false
	}
	return matchPathRule(rule.Content, p, pc)
}

// withoutReadDenied drops the results from files a Read deny rule covers.
func withoutReadDenied(ctx context.Context, found []grepFileResult) []grepFileResult {
	rt := toolkit.RuntimeFrom(ctx)
	if rt == nil || rt.Permission == nil {
		return found
	}
	out := found[:0]
	for _, f := range found {
		if !deniedForRead(f.path, rt.Permission) {
			out = append(out, f)
		}
	}
	return out
}
