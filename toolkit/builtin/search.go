package builtin

import (
	"bytes"
	"fmt"
	"time"
	"unicode/utf8"
)

// This file holds what both Grep engines share (the query, the result
// types, the .gitignore and glob rules) and the pure-Go engine. The rules
// follow ripgrep run as
//
//	rg --hidden --no-require-git --no-ignore-dot --no-ignore-exclude
//	   --no-ignore-global -g '!.git' -g '!.svn' ...
//
// so that the two engines give the same answer; ripgrep.go holds the
// other engine.

// MaxGrepColumns is the longest line, in characters, Grep shows in full;
// longer lines are cut with a note saying how much was left out.
const MaxGrepColumns = 500

// searchVCSDirs are the version-control folders no search enters.
var searchVCSDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

func isSearchVCSDir(name string) bool {
	for _, d := range searchVCSDirs {
		if name == d {
			return true
		}
	}
	return false
}

// Output modes of Grep.
const (
	grepModeFiles   = "files_with_matches"
	grepModeContent = "content"
	grepModeCount   = "count"
)

// grepQuery is one Grep call, checked and normalised.
type grepQuery struct {
	pattern       string
	ignoreCase    bool
	multiline     bool
	mode          string
	before, after int
	// globs are the glob filters as given, "!" marking an exclusion.
	globs []string
	// typeGlobs are the file-name globs of the type filter; nil means none.
	typeGlobs []string
}

// grepTarget is what a Grep call searches: a directory tree or one file.
type grepTarget struct {
	root   string // absolute and clean
	isFile bool
}

// grepFileResult is what an engine found in one file.
type grepFileResult struct {
	path string
	// modTime is zero when the engine did not learn it.
	modTime time.Time
	// count is the number of matching lines (a match spanning several
	// lines counts each of them).
	count int
	// lines holds, in content mode only, the matching lines and their
	// context in file order.
	lines []grepLine
}

// grepLine is one output line of content mode.
type grepLine struct {
	num   int
	text  string
	match bool
}

// grepDisplayLine turns a line's bytes into what Grep shows: without its line
// terminator, and cut after MaxGrepColumns characters (as rg
// --max-columns does) so one minified file can't flood the model.
func grepDisplayLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) <= MaxGrepColumns {
		return string(b)
	}
	off, n := 0, 0
	for off < len(b) && n < MaxGrepColumns {
		_, size := utf8.DecodeRune(b[off:])
		off += size
		n++
	}
	if off == len(b) {
		return string(b)
	}
	rest := utf8.RuneCount(b[off:])
	return fmt.Sprintf("%s [... %d more characters cut]", b[:off], rest)
}

// searchPathLess orders paths component by component, the order of a directory
// walk: "a/b" sorts before "a-b" because the separator sorts first.
func searchPathLess(a, b string) bool {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return true
		}
		if cb == '/' {
			return false
		}
		return ca < cb
	}
	return len(a) < len(b)
}
