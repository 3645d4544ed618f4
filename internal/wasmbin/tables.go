package wasmbin

import "fmt"

// MaxTableEntries bounds the entries of all the tables a module has
// together. wazero makes a table's entries in Go, outside the memory
// limit, when it instantiates the module and when the guest grows the
// table (table.grow): a guest asking for 2³² entries, or a module of
// thousands of tables, would exhaust the host's memory. Capped, a table's
// maximum makes a grow past it fail (it returns -1), as the
// specification allows.
const MaxTableEntries = 1 << 20

// CapTables returns the module with the maximum of every table it defines
// capped (see capTableSection), and refuses a module whose tables start
// with more than MaxTableEntries entries together.
func CapTables(wasm []byte) ([]byte, error) {
	secs, err := sections(wasm)
	if err != nil {
		return nil, err
	}
	imported := importedTables(secs)
	out := make([]byte, 0, len(wasm)+16)
	out = append(out, wasm[:8]...)
	for _, s := range secs {
		body := s.body
		if s.id == secTable {
			if body, err = capTableSection(body, imported); err != nil {
				return nil, err
			}
		}
		out = appendSection(out, s.id, body)
	}
	return out, nil
}

// importedTables returns the minimums of the tables a module imports.
func importedTables(secs []section) []uint64 {
	for _, s := range secs {
		if s.id == secImport {
			if im, err := readImports(s.body); err == nil {
				return im.tables
			}
		}
	}
	return nil
}

// capTableSection rewrites the limits of the tables of a table section,
// given the minimums of the tables the module imports: the minimums of
// all its tables together may not exceed MaxTableEntries, and what is
// left is shared among them as room to grow, so that all of them at
// their maximum hold at most MaxTableEntries entries.
func capTableSection(body []byte, imported []uint64) ([]byte, error) {
	type table struct {
		t           byte
		min, max    uint64
		declaredMax bool
	}
	var tables []table
	r := &reader{b: body}
	err := vector(r, func() error {
		start := r.pos
		if _, err := tableType(r); err != nil {
			return err
		}
		// tableType read the type and limits: read them again for
		// their values.
		r.pos = start
		t, _ := r.byte()
		flags, _ := r.byte()
		min, _ := r.u32()
		tb := table{t: t, min: uint64(min)}
		if flags == 1 {
			max, _ := r.u32()
			tb.max, tb.declaredMax = uint64(max), true
		}
		tables = append(tables, tb)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("table section: %w", err)
	}
	if !r.done() {
		return nil, fmt.Errorf("table section: %d bytes after the last table", len(body)-r.pos)
	}
	total := uint64(0)
	for _, m := range imported {
		total += m
	}
	for _, tb := range tables {
		total += tb.min
	}
	if total > MaxTableEntries {
		return nil, fmt.Errorf("tables of %d entries together, more than the %d allowed", total, MaxTableEntries)
	}
	out := appendU32(nil, uint32(len(tables)))
	if len(tables) == 0 {
		return out, nil
	}
	share := (MaxTableEntries - total) / uint64(len(tables)+len(imported))
	for _, tb := range tables {
		hi := tb.min + share
		if tb.declaredMax {
			hi = min(hi, tb.max) // one under the minimum stays invalid, for the compiler to refuse
		}
		out = append(out, tb.t, 0x01)
		out = appendU32(appendU32(out, uint32(tb.min)), uint32(hi))
	}
	return out, nil
}
