package search

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"time"
	"unicode/utf8"
)

// This file holds what both engines share: the query and result types
// and the file system they read. The ignore and glob rules (ignore.go)
// follow ripgrep run as
//
//	rg --hidden --no-require-git --no-ignore-dot --no-ignore-exclude
//	   --no-ignore-global -g '!.git' -g '!.svn' ...
//
// so that the pure-Go engine (engine.go) and ripgrep (ripgrep.go) give
// the same answer.

// File is what a walk or a stat tells of a file.
type File struct {
	Path    string
	Size    int64
	Mode    fs.FileMode
	ModTime time.Time
}

// IsDir reports whether the file is a directory.
func (f File) IsDir() bool { return f.Mode.IsDir() }

// FS is the file system a search reads: the machine's, or a remote one
// behind a tool's backend.
type FS interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	Stat(ctx context.Context, path string) (File, error)
	Walk(ctx context.Context, root string, fn func(File) error) error
}

// MaxColumns is the longest line, in characters, Grep shows in full;
// longer lines are cut with a note saying how much was left out.
const MaxColumns = 500

// searchVCSDirs are the version-control folders no search enters.
var searchVCSDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

func IsVCSDir(name string) bool {
	for _, d := range searchVCSDirs {
		if name == d {
			return true
		}
	}
	return false
}

// Output modes of Grep.
const (
	ModeFiles   = "files_with_matches"
	ModeContent = "content"
	ModeCount   = "count"
)

// Query is one Grep call, checked and normalised.
type Query struct {
	Pattern       string
	IgnoreCase    bool
	Multiline     bool
	Mode          string
	Before, After int
	// Globs are the glob filters as given, "!" marking an exclusion.
	Globs []string
	// TypeGlobs are the file-name globs of the type filter; nil means none.
	TypeGlobs []string
}

// Target is what a Grep call searches: a directory tree or one file.
type Target struct {
	Root   string // absolute and clean
	IsFile bool
}

// FileResult is what an engine found in one file.
type FileResult struct {
	Path string
	// ModTime is zero when the engine did not learn it.
	ModTime time.Time
	// Count is the number of matching lines (a match spanning several
	// lines counts each of them).
	Count int
	// Lines holds, in content mode only, the matching Lines and their
	// context in file order.
	Lines []Line
}

// Line is one output line of content mode.
type Line struct {
	Num   int
	Text  string
	Match bool
}

// DisplayLine turns a line's bytes into what Grep shows: without its line
// terminator, and cut after MaxColumns characters (as rg
// --max-columns does) so one minified file can't flood the model.
func DisplayLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) <= MaxColumns {
		return string(b)
	}
	off, n := 0, 0
	for off < len(b) && n < MaxColumns {
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

// PathLess orders paths component by component, the order of a directory
// walk: "a/b" sorts before "a-b" because the separator sorts first.
func PathLess(a, b string) bool {
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
