package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// Write creates or replaces a file, atomically. Replacing needs a fresh
// Read of the file in the same session.
type Write struct{ fileBase }

// NewWrite returns the Write tool.
func NewWrite(opts FileOptions) *Write { return &Write{newFileBase("Write", opts)} }

var writeSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "Absolute path of the file to write."},
    "content": {"type": "string", "description": "The complete new contents of the file."}
  },
  "required": ["file_path", "content"],
  "additionalProperties": false
}`)

// Spec implements toolkit.Tool.
func (w *Write) Spec() toolkit.Spec {
	return toolkit.Spec{
		Name: "Write",
		Description: "Writes a file by absolute path, creating parent directories. An existing file must have been " +
			"read with Read in this session first (and not changed since). The write is atomic.",
		InputSchema:   writeSchema,
		StateInjected: true,
		Source:        toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

// CheckPermissions implements toolkit.Tool.
func (w *Write) CheckPermissions(_ context.Context, in toolkit.Input, pc *permission.Context) (permission.Decision, error) {
	return w.checkEdit(in, pc), nil
}

// SharesRulesWith implements toolkit.RuleSharer: Write and Edit are one
// family, an Edit rule covers Write.
func (w *Write) SharesRulesWith() []string { return []string{"Edit"} }

// Call implements toolkit.Caller.
func (w *Write) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		c, err := w.write(ctx, in)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(c, nil)
	}
}

func (w *Write) write(ctx context.Context, in toolkit.Input) (*toolkit.Chunk, error) {
	path, err := absPath(in)
	if err != nil {
		return nil, err
	}
	s, err := session(ctx)
	if err != nil {
		return nil, err
	}
	content := in.String("content")
	// The freshness check and the write happen under one lock: two
	// sessions editing the same file take turns, and the second one is
	// told to read again instead of overwriting the first one's change.
	unlock, err := lockPath(ctx, w.backend, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var old []byte
	var seen toolkit.FileStamp
	created := false
	if _, err := Stat(ctx, w.backend, path); errors.Is(err, fs.ErrNotExist) {
		created = true
	} else if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	} else {
		if seen, err = w.requireFreshRead(ctx, s, path); err != nil {
			return nil, err
		}
		if old, err = w.backend.ReadFile(ctx, path); err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", path, err)
		}
	}
	if err := writeChecked(ctx, w.backend, path, []byte(content), w.unchangedSince(ctx, path, seen, created)); err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	// Our own write is a version the session has seen: the next Edit needs
	// no new Read.
	if st, err := w.stamp(ctx, path); err == nil {
		// The file is written either way; a failed Remember only costs
		// the next Edit a Read.
		_ = s.ReadCache().Remember(ctx, path, st, int64(len(content)))
	}
	verb := "Updated"
	if created {
		verb = "Created"
	}
	lines := countLines(content)
	return &toolkit.Chunk{
		Content: []toolkit.Block{toolkit.TextBlock(fmt.Sprintf("%s %s (%d lines).", verb, path, lines))},
		State:   toolkit.StateSuccess,
		Metadata: map[string]any{
			"created": created, "lines": lines,
			"diff": capDiff(udiff.Unified(path, path, string(old), content)),
		},
	}, nil
}

// Edit replaces text in a file: old_string must occur exactly once unless
// replace_all is set. It needs a fresh Read of the file in the session.
type Edit struct{ fileBase }

// NewEdit returns the Edit tool.
func NewEdit(opts FileOptions) *Edit { return &Edit{newFileBase("Edit", opts)} }

var editSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "Absolute path of the file to change."},
    "old_string": {"type": "string", "description": "The exact text to replace (include enough context to make it unique)."},
    "new_string": {"type": "string", "description": "The text to put in its place (must differ from old_string)."},
    "replace_all": {"type": "boolean", "description": "Replace every occurrence instead of exactly one. Default false."}
  },
  "required": ["file_path", "old_string", "new_string"],
  "additionalProperties": false
}`)

// Spec implements toolkit.Tool.
func (e *Edit) Spec() toolkit.Spec {
	return toolkit.Spec{
		Name: "Edit",
		Description: "Replaces old_string with new_string in a file. old_string must appear exactly once unless " +
			"replace_all is true. The file must have been read with Read in this session (consecutive edits need " +
			"no new Read). The write is atomic; bytes outside the replaced text are kept as they were.",
		InputSchema:   editSchema,
		StateInjected: true,
		Source:        toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

// CheckPermissions implements toolkit.Tool.
func (e *Edit) CheckPermissions(_ context.Context, in toolkit.Input, pc *permission.Context) (permission.Decision, error) {
	return e.checkEdit(in, pc), nil
}

// SharesRulesWith implements toolkit.RuleSharer: a Write rule covers Edit.
func (e *Edit) SharesRulesWith() []string { return []string{"Write"} }

// Call implements toolkit.Caller.
func (e *Edit) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		c, err := e.edit(ctx, in)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(c, nil)
	}
}

func (e *Edit) edit(ctx context.Context, in toolkit.Input) (*toolkit.Chunk, error) {
	path, err := absPath(in)
	if err != nil {
		return nil, err
	}
	oldStr, newStr := in.String("old_string"), in.String("new_string")
	if oldStr == newStr {
		return nil, errors.New("old_string and new_string are the same: there is nothing to change")
	}
	if oldStr == "" {
		return nil, errors.New("old_string is empty: to create or replace a whole file use Write")
	}
	s, err := session(ctx)
	if err != nil {
		return nil, err
	}
	unlock, err := lockPath(ctx, e.backend, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	seen, err := e.requireFreshRead(ctx, s, path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist: create it with Write", path)
		}
		return nil, err
	}
	data, err := e.backend.ReadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	content := string(data) // bytes, not runes: invalid UTF-8 survives
	n := strings.Count(content, oldStr)
	if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(oldStr, "\n") && !strings.Contains(oldStr, "\r\n") {
		// The model wrote LF for a CRLF file: match and write CRLF.
		oldStr = strings.ReplaceAll(oldStr, "\n", "\r\n")
		newStr = strings.ReplaceAll(newStr, "\n", "\r\n")
		n = strings.Count(content, oldStr)
	}
	replaceAll := in.Bool("replace_all")
	switch {
	case n == 0:
		return nil, fmt.Errorf("old_string was not found in %s: read the file again and copy the text exactly, including white space", path)
	case n > 1 && !replaceAll:
		return nil, fmt.Errorf("old_string occurs %d times in %s: add surrounding lines to make it unique, or set replace_all", n, path)
	}
	var updated string
	if replaceAll {
		updated = strings.ReplaceAll(content, oldStr, newStr)
	} else {
		updated = strings.Replace(content, oldStr, newStr, 1)
	}
	if err := writeChecked(ctx, e.backend, path, []byte(updated), e.unchangedSince(ctx, path, seen, false)); err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	if st, err := e.stamp(ctx, path); err == nil {
		// The file is written either way; a failed Remember only costs
		// the next Edit a Read.
		_ = s.ReadCache().Remember(ctx, path, st, int64(len(updated)))
	}
	replaced := 1
	if replaceAll {
		replaced = n
	}
	return &toolkit.Chunk{
		Content: []toolkit.Block{toolkit.TextBlock(fmt.Sprintf("Edited %s: %d occurrence(s) replaced.", path, replaced))},
		State:   toolkit.StateSuccess,
		Metadata: map[string]any{
			"occurrences": replaced,
			"diff":        capDiff(udiff.Unified(path, path, content, updated)),
		},
	}, nil
}

// MaxDiffBytes bounds the unified diff Write and Edit return in their
// metadata: a small edit of a file with very long lines would otherwise
// return megabytes.
const MaxDiffBytes = 64 << 10

// capDiff cuts a diff at MaxDiffBytes, on a line boundary, with a note.
func capDiff(d string) string {
	if len(d) <= MaxDiffBytes {
		return d
	}
	cut := strings.LastIndexByte(d[:MaxDiffBytes], '\n') + 1
	if cut == 0 {
		cut = MaxDiffBytes
		for cut > 0 && !utf8.RuneStart(d[cut]) {
			cut--
		}
	}
	return d[:cut] + fmt.Sprintf("[diff cut: %d of %d bytes shown]\n", cut, len(d))
}
