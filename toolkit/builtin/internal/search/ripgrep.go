package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// rgTypeName is the private type name under which the type filter's
// globs are handed to rg, so rg filters with our table and not its own.
const rgTypeName = "wtsel"

// RgEngine is the ripgrep Grep engine. It runs `rg --json` on the local
// machine and reads rg's event stream (begin, match, context, end,
// summary). The flags make rg follow the same rules as the pure-Go
// engine: hidden files searched, VCS folders excluded, .gitignore files
// honoured with or without a repository, and .ignore files, the global
// git excludes and .git/info/exclude not read.
type RgEngine struct {
	Path string   // the rg executable
	Env  []string // its environment; nil means the host's
}

// rgArgs builds rg's command line for a query.
func rgArgs(q *Query, t Target) []string {
	args := []string{
		"--json", "--no-config", "--hidden", "--no-require-git",
		"--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-global", "--no-messages",
	}
	if q.IgnoreCase {
		args = append(args, "--ignore-case")
	} else {
		args = append(args, "--case-sensitive")
	}
	if q.Multiline {
		args = append(args, "--multiline", "--multiline-dotall")
	}
	switch q.Mode {
	case ModeFiles:
		// One match is enough to list a file; rg stops reading there.
		args = append(args, "--max-count", "1")
	case ModeContent:
		if q.Before > 0 {
			args = append(args, "--before-context", strconv.Itoa(q.Before))
		}
		if q.After > 0 {
			args = append(args, "--after-context", strconv.Itoa(q.After))
		}
	}
	if q.TypeGlobs != nil {
		for _, g := range q.TypeGlobs {
			args = append(args, "--type-add", rgTypeName+":"+g)
		}
		args = append(args, "--type", rgTypeName)
	}
	// Globs: the user's first, then the VCS exclusions, which win
	// because the last matching glob decides.
	for _, g := range q.Globs {
		args = append(args, "--glob", g)
	}
	for _, d := range searchVCSDirs {
		args = append(args, "--glob", "!"+d)
	}
	return append(args, "--regexp", q.Pattern, "--", t.Root)
}

// rgEvent is one line of rg --json output; only the fields used here.
type rgEvent struct {
	Type string `json:"type"`
	Data struct {
		Path         rgData `json:"path"`
		Lines        rgData `json:"lines"`
		LineNumber   int    `json:"line_number"`
		BinaryOffset *int64 `json:"binary_offset"`
	} `json:"data"`
}

// rgData is rg's way to carry text that may not be UTF-8: either "text",
// or "bytes" in base64.
type rgData struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (d rgData) value() ([]byte, error) {
	switch {
	case d.Text != nil:
		return []byte(*d.Text), nil
	case d.Bytes != nil:
		return base64.StdEncoding.DecodeString(*d.Bytes)
	}
	return nil, nil
}

// Search runs rg over the target and returns every file's results, in
// no particular order (rg searches files in parallel).
func (s *RgEngine) Search(ctx context.Context, q *Query, t Target) ([]FileResult, error) {
	var out []FileResult
	_, err := s.run(ctx, q, t, false, func(f FileResult) bool {
		out = append(out, f)
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ErrUnordered is Stream's error when rg reported a file out of path
// order; the caller falls back on Search and sorts.
var ErrUnordered = errors.New("rg reported files out of path order")

// Stream runs rg with its walk sorted by path (--sort path, which makes
// rg search on one thread) and calls each with every file's results, in
// PathLess order, as rg reports them. When each returns false, Stream
// stops reading, kills rg and returns true: a caller that needs only
// the first results in path order pays for the files before them and no
// more. A file is handed over once rg has finished it, so a file found
// to be binary part-way is dropped as in Search.
func (s *RgEngine) Stream(ctx context.Context, q *Query, t Target, each func(FileResult) bool) (stopped bool, err error) {
	prev, unordered := "", false
	stopped, err = s.run(ctx, q, t, true, func(f FileResult) bool {
		if prev != "" && !PathLess(prev, f.Path) {
			// Never expected (rg sorts each directory's entries by name,
			// which is PathLess order), but a limit is only right on
			// sorted input: stop and let the caller sort.
			unordered = true
			return false
		}
		prev = f.Path
		return each(f)
	})
	if err == nil && unordered {
		return false, ErrUnordered
	}
	return stopped, err
}

// StreamFound is Stream without the sorted walk: rg searches on every
// core and hands over each file as it finishes it, in an order that may
// change from run to run. It stops rg as Stream does.
func (s *RgEngine) StreamFound(ctx context.Context, q *Query, t Target, each func(FileResult) bool) (stopped bool, err error) {
	return s.run(ctx, q, t, false, each)
}

// run starts rg, hands each file's results to each until it returns
// false, and then kills rg. It reports whether it stopped rg that way.
func (s *RgEngine) run(ctx context.Context, q *Query, t Target, sorted bool, each func(FileResult) bool) (stopped bool, err error) {
	args := rgArgs(q, t)
	if sorted {
		args = append([]string{"--sort", "path"}, args...)
	}
	cmd := exec.CommandContext(ctx, s.Path, args...)
	cmd.Env = s.Env
	// rg anchors glob filters at its working directory: make that the
	// search root, as the pure-Go engine does.
	cmd.Dir = t.Root
	if t.IsFile {
		cmd.Dir = filepath.Dir(t.Root)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &rgLimitedWriter{buf: &stderr, max: 8 << 10}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("start rg: %w", err)
	}
	stopped, parseErr := parseRgJSON(stdout, q.Mode == ModeContent, each)
	if stopped {
		// Enough results: rg's remaining work is of no use. Killing it
		// (rather than draining its output) is what makes a limited
		// search cost only the files before the limit.
		_ = cmd.Process.Kill()
	} else if parseErr != nil {
		_, _ = io.Copy(io.Discard, stdout)
	}
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if parseErr != nil {
		return false, fmt.Errorf("read rg output: %w", parseErr)
	}
	if stopped {
		return true, nil // the exit status is the kill's
	}
	var exitErr *exec.ExitError
	if waitErr != nil {
		if !errors.As(waitErr, &exitErr) {
			return false, fmt.Errorf("rg: %w", waitErr)
		}
		// 1 means no match. 2 means an error: with --no-messages, the
		// unreadable files are silent and the rest is still valid; a
		// message means rg could not search at all.
		if code := exitErr.ExitCode(); code != 1 && (code != 2 || stderr.Len() > 0) {
			return false, fmt.Errorf("rg failed (exit code %d): %s", code, strings.TrimSpace(stderr.String()))
		}
	}
	return false, nil
}

// parseRgJSON reads rg's event stream and calls each with every file's
// results once its end event arrives, until each returns false (stopped
// is then true). A file whose end event reports a binary offset is
// dropped: rg met a NUL byte in it, and the pure-Go engine skips such
// files altogether.
func parseRgJSON(r io.Reader, keepLines bool, each func(FileResult) bool) (stopped bool, err error) {
	br := rgReaderPool.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil) // let go of the pipe
		rgReaderPool.Put(br)
	}()
	var cur *FileResult
	lastNum := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var ev rgEvent
			if jerr := json.Unmarshal(line, &ev); jerr != nil {
				return false, jerr
			}
			switch ev.Type {
			case "begin":
				p, perr := ev.Data.Path.value()
				if perr != nil {
					return false, perr
				}
				cur = &FileResult{Path: filepath.Clean(string(p))}
				lastNum = 0
			case "match", "context":
				if cur == nil {
					return false, fmt.Errorf("%s event outside a file", ev.Type)
				}
				text, terr := ev.Data.Lines.value()
				if terr != nil {
					return false, terr
				}
				isMatch := ev.Type == "match"
				// A multiline match carries every line it spans.
				num := ev.Data.LineNumber
				for len(text) > 0 {
					end := bytes.IndexByte(text, '\n')
					if end < 0 {
						end = len(text) - 1
					}
					if num > lastNum {
						if isMatch {
							cur.Count++
						}
						if keepLines {
							cur.Lines = append(cur.Lines, Line{Num: num, Text: DisplayLine(text[:end+1]), Match: isMatch})
						}
						lastNum = num
					}
					text = text[end+1:]
					num++
				}
			case "end":
				if cur != nil && ev.Data.BinaryOffset == nil && cur.Count > 0 {
					if !each(*cur) {
						return true, nil
					}
				}
				cur = nil
			}
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// rgReaderPool keeps the readers of rg's output between calls: a
// limited search reads a few hundred events, and allocating (and zeroing)
// a fresh buffer each time cost more than reading them. Longer events
// still work: ReadBytes grows its result past the buffer.
var rgReaderPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// rgLimitedWriter keeps the first max bytes written to it.
type rgLimitedWriter struct {
	buf *bytes.Buffer
	max int
}

func (w *rgLimitedWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
