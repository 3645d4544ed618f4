package builtin

import (
	"context"
	"fmt"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/permission/pathpolicy"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin/internal/search"
)

// A user's deny or ask rule on Read(path) is about the contents (and
// names) of those files: it must hold for every tool that reads, not only
// for Read. Bash honours it through what its commands read; Grep and Glob
// do here. Grep also keeps sensitive files (keys, credential stores,
// .env) out of what it returns: a recursive search is not a way around
// asking to read them. Glob lists their names, which are not their
// contents (a listing of a sensitive folder itself asks).

// readRuleCovers reports whether a Read deny or ask rule names path.
func readRuleCovers(paths *pathpolicy.Policy, path string, pc *permission.Context) bool {
	if pc == nil {
		return false
	}
	for _, rules := range [][]permission.Rule{pc.Deny, pc.Ask} {
		for _, r := range rules {
			if r.Tool != "Read" {
				continue
			}
			if r.Content == "" || paths.Match(r.Content, path, "/", workingDirs(pc), pathpolicy.Loose) {
				return true
			}
		}
	}
	return false
}

// withheld reports whether a search must leave a file out of its results:
// it is sensitive, or a Read deny or ask rule names it.
func withheld(paths *pathpolicy.Policy, path string, pc *permission.Context) bool {
	if _, ok := paths.SensitivePath(path, "/"); ok {
		return true
	}
	return readRuleCovers(paths, path, pc)
}

// matchReadRule is MatchForeignRule for a search tool: a Read rule hits a
// search whose own folder or file it names. Files it names below a
// searched folder are left out of the results instead (see withheld).
func matchReadRule(paths *pathpolicy.Policy, rule permission.Rule, target string, pc *permission.Context) permission.Match {
	if rule.Tool != "Read" {
		return permission.NoMatch
	}
	if rule.Content == "" {
		return permission.Matches
	}
	return permission.MatchOf(paths.Match(rule.Content, target, "/", workingDirs(pc), pathpolicy.Loose))
}

// MatchForeignRule implements toolkit.ForeignRuleMatcher: a Read rule hits
// a Grep whose path it names.
func (g *Grep) MatchForeignRule(rule permission.Rule, in toolkit.Input, pc *permission.Context) permission.Match {
	p, err := searchResolvePath(withPermission(pc), g.opts.Cwd, in.String("path"))
	if err != nil {
		return permission.NoMatch
	}
	return matchReadRule(g.paths, rule, p, pc)
}

// withPermission is a context carrying only a permission configuration,
// for the path helpers the permission checks share with the calls.
func withPermission(pc *permission.Context) context.Context {
	return toolkit.WithRuntime(context.Background(), &toolkit.Runtime{Permission: pc})
}

// withoutWithheld drops the results from files a search must not return,
// and says how many were dropped.
func withoutWithheld(ctx context.Context, paths *pathpolicy.Policy, found []search.FileResult) ([]search.FileResult, int) {
	pc := permissionFrom(ctx)
	out := found[:0]
	dropped := 0
	for _, f := range found {
		if withheld(paths, f.Path, pc) {
			dropped++
			continue
		}
		out = append(out, f)
	}
	return out, dropped
}

// permissionFrom is the call's permission context, nil when it has none.
func permissionFrom(ctx context.Context) *permission.Context {
	if rt := toolkit.RuntimeFrom(ctx); rt != nil {
		return rt.Permission
	}
	return nil
}

// withheldNote tells the model that files were left out, and why.
func withheldNote(n int) string {
	return fmt.Sprintf("\n[%d file%s not shown: sensitive (keys, credentials, .env, version-control internals), or covered by a Read rule. Ask the user if you need them.]", n, grepPlural(n))
}
