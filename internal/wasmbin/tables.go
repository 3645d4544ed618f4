package wasmbin

import "fmt"

// MaxTableEntries bounds the tables a module defines. wazero grows a
// table (table.grow) by allocating the requested entries in Go, outside
// the memory limit: a guest asking for 2³² entries would exhaust the
// host's memory. Capped, the table's maximum makes such a grow fail (it
// returns -1), as the specification allows.
const MaxTableEntries = 1 << 20

// CapTables returns the module with the maximum of every table it defines
// set to at most MaxTableEntries, and refuses a module one of whose
// tables starts larger.
func CapTables(wasm []byte) ([]byte, error) {
	secs, err := sections(wasm)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(wasm)+16)
	out = append(out, wasm[:8]...)
	for _, s := range secs {
		body := s.body
		if s.id == secTable {
			if body, err = capTableSection(body); err != nil {
				return nil, err
			}
		}
		out = appendSection(out, s.id, body)
	}
	return out, nil
}

// capTableSection rewrites the limits of each table of a table section.
func capTableSection(body []byte) ([]byte, error) {
	r := &reader{b: body}
	n, err := r.u32()
	if err != nil {
		return nil, fmt.Errorf("table section: %w", err)
	}
	out := appendU32(nil, n)
	r.pos = 0
	err = vector(r, func() error {
		t, err := r.byte()
		if err != nil {
			return err
		}
		flags, err := r.byte()
		if err != nil {
			return err
		}
		if flags > 1 {
			return fmt.Errorf("table limits flags 0x%02x, beyond WebAssembly 2.0", flags)
		}
		lo, err := r.u32()
		if err != nil {
			return err
		}
		if lo > MaxTableEntries {
			return fmt.Errorf("a table of %d entries, more than the %d allowed", lo, MaxTableEntries)
		}
		hi := uint32(MaxTableEntries)
		if flags == 1 {
			declared, err := r.u32()
			if err != nil {
				return err
			}
			hi = min(declared, hi)
		}
		out = append(out, t, 0x01)
		out = appendU32(appendU32(out, lo), max(lo, hi))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("table section: %w", err)
	}
	if !r.done() {
		return nil, fmt.Errorf("table section: %d bytes after the last table", len(body)-r.pos)
	}
	return out, nil
}
