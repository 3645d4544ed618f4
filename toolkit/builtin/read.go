package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// Read limits, from the reference.
const (
	DefaultReadLimit = 2000 // lines per read, default and most
	MaxLineLength    = 2000 // characters per line before the cut
	MaxPDFPages      = 20   // pages per read
	PDFPagesNoRange  = 10   // longer PDFs need a page range
)

// Read returns a file's lines numbered like `cat -n`, images and PDFs as
// data blocks when the caller accepts them, and PDFs as text otherwise.
type Read struct{ fileBase }

// NewRead returns the Read tool.
func NewRead(opts FileOptions) *Read { return &Read{newFileBase("Read", opts)} }

var readSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "Absolute path of the file to read."},
    "offset": {"type": "integer", "minimum": 1, "description": "Line to start at (1-based). Default 1."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "description": "How many lines to read (at most 2000, the default)."},
    "pages": {"type": "string", "description": "For PDF files: the pages to read, like \"3\" or \"1-5\" (at most 20 pages; required beyond 10 pages)."}
  },
  "required": ["file_path"],
  "additionalProperties": false
}`)

// Spec implements toolkit.Tool.
func (r *Read) Spec() toolkit.Spec {
	return toolkit.Spec{
		Name: "Read",
		Description: "Reads a file by absolute path. Text comes back with line numbers (cat -n style), 2000 lines at a time " +
			"(use offset and limit for more); lines over 2000 characters are cut. Images and PDFs come back as " +
			"attachments when the client accepts them; PDFs otherwise as text, 20 pages at most per read.",
		InputSchema:     readSchema,
		ReadOnly:        true,
		ConcurrencySafe: true,
		StateInjected:   true,
		Source:          toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

// IsReadOnly implements toolkit.ReadOnlyChecker.
func (r *Read) IsReadOnly(in toolkit.Input) bool { return r.IsReadOnlyIn(in, nil) }

// IsReadOnlyIn implements toolkit.ContextReadOnlyChecker: reading changes
// nothing, but reading a sensitive file (a key, a credential store, a
// process's environment; by name or through a link) is never automatic.
func (r *Read) IsReadOnlyIn(in toolkit.Input, _ *permission.Context) bool {
	_, sensitive := r.sensitive(in)
	return !sensitive
}

// CheckPermissions implements toolkit.Tool: a sensitive file asks (a plain
// ask: an allow rule the user writes for it, or the bypass mode, lets it
// through); anything else is allowed. Deny and ask rules on Read apply
// before.
func (r *Read) CheckPermissions(_ context.Context, in toolkit.Input, _ *permission.Context) (permission.Decision, error) {
	if what, ok := r.sensitive(in); ok {
		return permission.AskDecision(fmt.Sprintf("Read would read the sensitive file %s.", what), "sensitive path "+what), nil
	}
	return permission.AllowDecision("reading changes nothing"), nil
}

// Call implements toolkit.Caller.
func (r *Read) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		c, err := r.read(ctx, in)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(c, nil)
	}
}

func (r *Read) read(ctx context.Context, in toolkit.Input) (*toolkit.Chunk, error) {
	path, err := absPath(in)
	if err != nil {
		return nil, err
	}
	fi, err := Stat(ctx, r.backend, path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory: list it with Glob or `ls`", path)
	}
	if !fi.Mode.IsRegular() {
		// A device never ends (/dev/zero), a FIFO blocks forever.
		return nil, fmt.Errorf("%s is not a regular file (%s): Read reads regular files only", path, fileKind(fi.Mode))
	}
	data, err := r.backend.ReadFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	stamp := toolkit.FileStamp{ModTime: fi.ModTime, Size: fi.Size}
	rt := toolkit.RuntimeFrom(ctx)
	if rt != nil && rt.Session != nil {
		if err := rt.Session.ReadCache().Remember(ctx, path, stamp, int64(len(data))); err != nil {
			return nil, fmt.Errorf("cannot record that %s was read (a later Edit needs it): %w", path, err)
		}
	}

	mediaType := detectMediaType(path, data)
	switch {
	case strings.HasPrefix(mediaType, "image/"):
		if rt.Accepts(mediaType) {
			return &toolkit.Chunk{Content: []toolkit.Block{toolkit.DataBlock(mediaType, data)}, Metadata: map[string]any{"media_type": mediaType, "bytes": len(data)}}, nil
		}
		return textChunk(fmt.Sprintf("%s is an image (%s, %d bytes); this client does not accept images, so it cannot be shown.", path, mediaType, len(data))), nil
	case mediaType == "application/pdf":
		return r.readPDF(rt, path, data, in.String("pages"))
	case bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0:
		return textChunk(fmt.Sprintf("%s is a binary file (%d bytes): not shown. Use Bash (xxd, file) to inspect it.", path, len(data))), nil
	}
	offset := int64(1)
	if o, ok := in.Int("offset"); ok {
		offset = o
	}
	limit := int64(DefaultReadLimit)
	if l, ok := in.Int("limit"); ok {
		limit = l
	}
	text, shown, total := numberLines(data, int(offset), int(limit))
	c := textChunk(text)
	// The file itself holds the rest: a cut result points there.
	c.Metadata = map[string]any{"lines_shown": shown, "total_lines": total, toolkit.MetaSourcePath: path}
	if shown > 0 && int(offset)+shown-1 < total {
		c.Content = append(c.Content, toolkit.TextBlock(fmt.Sprintf("\n[%d more lines: read on with offset %d]", total-(int(offset)+shown-1), int(offset)+shown)))
	}
	return c, nil
}

func textChunk(s string) *toolkit.Chunk {
	return &toolkit.Chunk{Content: []toolkit.Block{toolkit.TextBlock(s)}}
}

// numberLines renders lines [offset, offset+limit) as `cat -n` does: a
// right-aligned line number six wide, a tab, the line; long lines are cut.
// An empty file, or an offset past the end, gives "".
func numberLines(data []byte, offset, limit int) (string, int, int) {
	if len(data) == 0 {
		return "", 0, 0
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if offset < 1 {
		offset = 1
	}
	if offset > total {
		return "", 0, total
	}
	end := min(total, offset-1+limit)
	var b strings.Builder
	for i := offset - 1; i < end; i++ {
		line := strings.TrimRight(string(lines[i]), "\r\n")
		if n := len([]rune(line)); n > MaxLineLength {
			line = string([]rune(line)[:MaxLineLength]) + fmt.Sprintf("… [line cut: %d characters]", n)
		}
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, line)
	}
	return b.String(), end - offset + 1, total
}

// detectMediaType names images and PDFs by content, falling back on the
// extension for formats the sniffer does not know.
func detectMediaType(path string, data []byte) string {
	mt := http.DetectContentType(data)
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	if strings.HasPrefix(mt, "image/") || mt == "application/pdf" {
		return mt
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		return "image/svg+xml"
	}
	return mt
}

// readPDF sends the PDF as a data block when the caller accepts it, or
// its text otherwise, within the page limits.
func (r *Read) readPDF(rt *toolkit.Runtime, path string, data []byte, pages string) (*toolkit.Chunk, error) {
	doc, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s is not a readable PDF: %v", path, err)
	}
	n := doc.NumPage()
	first, last, err := pageRange(pages, n)
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"pages": n, "media_type": "application/pdf"}
	if rt.Accepts("application/pdf") && pages == "" {
		return &toolkit.Chunk{Content: []toolkit.Block{toolkit.DataBlock("application/pdf", data)}, Metadata: meta}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: PDF, %d pages; pages %d-%d as text:\n", path, n, first, last)
	for i := first; i <= last; i++ {
		p := doc.Page(i)
		if p.V.IsNull() {
			continue
		}
		text, err := p.GetPlainText(nil)
		if err != nil {
			fmt.Fprintf(&b, "\n--- page %d: text could not be extracted (%v)\n", i, err)
			continue
		}
		fmt.Fprintf(&b, "\n--- page %d\n%s\n", i, strings.TrimSpace(text))
	}
	meta["first_page"], meta["last_page"] = first, last
	return &toolkit.Chunk{Content: []toolkit.Block{toolkit.TextBlock(b.String())}, Metadata: meta}, nil
}

// pageRange parses "N" or "N-M" against a document of n pages.
func pageRange(spec string, n int) (int, int, error) {
	if spec == "" {
		if n > PDFPagesNoRange {
			return 0, 0, fmt.Errorf("the PDF has %d pages: give a page range (pages: \"1-%d\"), %d pages at most per read", n, min(n, MaxPDFPages), MaxPDFPages)
		}
		return 1, max(n, 1), nil
	}
	a, b, isRange := strings.Cut(strings.ReplaceAll(spec, " ", ""), "-")
	first, err1 := strconv.Atoi(a)
	last := first
	var err2 error
	if isRange {
		last, err2 = strconv.Atoi(b)
	}
	if err1 != nil || err2 != nil || first < 1 || last < first {
		return 0, 0, fmt.Errorf("pages %q: write a page like \"3\" or a range like \"1-5\"", spec)
	}
	if first > n {
		return 0, 0, fmt.Errorf("pages %q: the PDF has only %d pages", spec, n)
	}
	last = min(last, n)
	if last-first+1 > MaxPDFPages {
		return 0, 0, fmt.Errorf("pages %q: at most %d pages per read", spec, MaxPDFPages)
	}
	return first, last, nil
}

// fileKind names a file type for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}
