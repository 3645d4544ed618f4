// Package search is the engine behind the Grep tool: a query (pattern,
// output mode, context, glob and type filters) run over a tree or one
// file, either by ripgrep (RgEngine) or by a pure-Go engine (GoEngine)
// that honours the same ignore files (.gitignore, .ignore, .rgignore) and
// skips VCS folders, binary files and links as rg does.
//
// Permission checks are not here: the Grep tool resolves and checks the
// target and filters what the engine finds through the one path policy.
package search
