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
	Path string // the rg executable
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

func (s *RgEngine) Search(ctx context.Context, q *Query, t Target) ([]FileResult, error) {
	cmd := exec.CommandContext(ctx, s.Path, rgArgs(q, t)...)
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
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start rg: %w", err)
	}
	out, parseErr := parseRgJSON(stdout, q.Mode == ModeContent)
	if parseErr != nil {
		_, _ = io.Copy(io.Discard, stdout)
	}
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if parseErr != nil {
		return nil, fmt.Errorf("read rg output: %w", parseErr)
	}
	var exitErr *exec.ExitError
	if waitErr != nil {
		if !errors.As(waitErr, &exitErr) {
			return nil, fmt.Errorf("rg: %w", waitErr)
		}
		// 1 means no match. 2 means an error: with --no-messages, the
		// unreadable files are silent and the rest is still valid; a
		// message means rg could not search at all.
		if code := exitErr.ExitCode(); code != 1 && (code != 2 || stderr.Len() > 0) {
			return nil, fmt.Errorf("rg failed (exit code %d): %s", code, strings.TrimSpace(stderr.String()))
		}
	}
	return out, nil
}

// parseRgJSON reads rg's event stream into per-file results. A file
// whose end event reports a binary offset is dropped: rg met a NUL byte
// in it, and the pure-Go engine skips such files altogether.
func parseRgJSON(r io.Reader, keepLines bool) ([]FileResult, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	var out []FileResult
	var cur *FileResult
	lastNum := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var ev rgEvent
			if jerr := json.Unmarshal(line, &ev); jerr != nil {
				return nil, jerr
			}
			switch ev.Type {
			case "begin":
				p, perr := ev.Data.Path.value()
				if perr != nil {
					return nil, perr
				}
				cur = &FileResult{Path: filepath.Clean(string(p))}
				lastNum = 0
			case "match", "context":
				if cur == nil {
					return nil, fmt.Errorf("%s event outside a file", ev.Type)
				}
				text, terr := ev.Data.Lines.value()
				if terr != nil {
					return nil, terr
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
					out = append(out, *cur)
				}
				cur = nil
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

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
