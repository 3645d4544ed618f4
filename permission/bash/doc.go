// Package bash analyses shell commands statically, for permission checks.
//
// [Parse] turns a command string into a [Script]: every simple command it
// would run (found in lists, pipelines, groups, `bash -c` strings, after
// wrappers such as sudo or timeout, after `find -exec`), with unquoted
// words, redirects and assignments, plus the reasons, if any, why the
// script cannot be analysed statically. [Analyzer] turns a Script into
// permission facts and decisions: read-only or not, dangerous findings,
// sed validation, sensitive paths, critical removals, edits inside the
// working directories, rule matching and rule suggestions.
//
// The analysis fails closed: a parse error, an ERROR or MISSING node, an
// input over [MaxCommandLength] characters, a backslash-newline outside
// single quotes, or any construct whose effect depends on run-time values
// (command and process substitution, ${...} and arithmetic expansion,
// subshells, loops, conditionals, functions, [[ ]]) makes the command
// unanalysable, which the checker answers with a bypass-immune ask.
//
// The package is pure: nothing here runs a command, and apart from
// resolving symbolic links of paths the checker never touches the file
// system.
package bash
