package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmtools/wasmtools/abi"
)

// The schema cache keeps each module's answer to wasmtools_schema on
// disk, by the module's hash, so a restart does not start every module
// to learn its tools.

// cachedSchema returns a module's schema answer from an earlier load: the
// same bytes answer the same request the same way.
func (h *Host) cachedSchema(sha string) ([]byte, bool) {
	if h.schemaDir == "" {
		return nil, false
	}
	b, err := os.ReadFile(h.schemaPath(sha))
	return b, err == nil
}

// schemaPath names a cached schema by module hash, ABI version and host
// version (the schema request carries both).
func (h *Host) schemaPath(sha string) string {
	v := strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, h.opts.Version)
	return filepath.Join(h.schemaDir, fmt.Sprintf("%s.abi%d.%s.json", sha, abi.Version, v))
}

// storeSchema keeps a validated schema answer, written atomically.
func (h *Host) storeSchema(sha string, b []byte) {
	if h.schemaDir == "" {
		return
	}
	if err := os.MkdirAll(h.schemaDir, 0o755); err != nil {
		return
	}
	final := h.schemaPath(sha)
	tmp, err := os.CreateTemp(h.schemaDir, ".schema-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), final) != nil {
		os.Remove(tmp.Name())
	}
}
