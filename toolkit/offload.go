package toolkit

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// DefaultMaxOffloadBytes bounds the full texts of cut results kept on
// disk, all sessions together.
const DefaultMaxOffloadBytes = 256 << 20

// MetaSourcePath is the metadata key a tool sets when the full text of
// its result can be read again from that file (the Read tool): a cut
// result then points there instead of saving a copy.
const MetaSourcePath = "source_path"

// MetaSandboxRefused is the metadata key of a command's result under
// which a tool reports an access the OS sandbox refused: a one-line
// account of what was refused and what would allow it. An MCP server
// passes it on to its clients as a log message (logger
// "wasmtools.sandbox").
const MetaSandboxRefused = "sandbox_refused"

// offloads keeps the files of cut results: one folder per session under
// the offload root, the oldest files removed first when the total passes
// the cap, and a session's folder removed when the session ends.
type offloads struct {
	root string
	max  int64

	mu    sync.Mutex
	total int64
	files []offloadFile // oldest first
}

type offloadFile struct {
	session, path string
	size          int64
}

// save writes text for a session and returns its path.
func (o *offloads) save(session, tool, callID, text string) (string, error) {
	size := int64(len(text))
	if size > o.max {
		return "", fmt.Errorf("the output (%d bytes) is larger than the space for saved outputs (%d bytes)", size, o.max)
	}
	dir := filepath.Join(o.root, safeFileName(session))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	path := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.txt", safeFileName(tool), safeFileName(callID), hex.EncodeToString(rnd[:])))
	o.mu.Lock()
	for o.total+size > o.max && len(o.files) > 0 {
		old := o.files[0]
		o.files = o.files[1:]
		o.total -= old.size
		_ = os.Remove(old.path)
	}
	o.total += size
	o.files = append(o.files, offloadFile{session: session, path: path, size: size})
	o.mu.Unlock()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		o.forget(func(f offloadFile) bool { return f.path == path })
		return "", err
	}
	return path, nil
}

// endSession removes a session's saved outputs.
func (o *offloads) endSession(session string) {
	o.forget(func(f offloadFile) bool { return f.session == session })
	_ = os.RemoveAll(filepath.Join(o.root, safeFileName(session)))
}

func (o *offloads) forget(match func(offloadFile) bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	kept := o.files[:0]
	for _, f := range o.files {
		if match(f) {
			o.total -= f.size
			continue
		}
		kept = append(kept, f)
	}
	o.files = kept
}
