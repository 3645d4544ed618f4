// Package wasmbin reads and rewrites WebAssembly binaries: the little the
// plugin host needs to know or change before it hands a module to the
// compiler.
//
// Instrument makes a module interruptible: it adds two exported mutable
// globals, a budget and an interrupt flag, and a check at the entry of
// every function, the head of every loop and before every bulk memory or
// table instruction. A check counts the budget down (a loop's check
// counts down a local of its function first, and takes LoopChunk
// iterations from the budget at once); when it is spent, the guest lets
// the Go runtime in (see Budget), refills it and traps if the flag is
// set. A host that sets the flag and spends the budget from another
// goroutine stops the guest at its next check of the budget. That is what
// wazero's WithCloseOnContextDone guarantees too, but wazero's compiled
// check leaves the machine code for Go at every loop iteration
// (tetratelabs/wazero#2466); the check added here is a few instructions.
//
// Check reads a binary's structure before the compiler does, refusing
// what would make wazero allocate without bound; CapTables caps the
// tables of a module run without instrumentation.
//
// The reader covers the WebAssembly 2.0 core features, the set wazero
// enables by default: a module using anything else is refused with an
// error, and the host runs it unmodified with wazero's own checks.
package wasmbin

import (
	"fmt"
	"strings"
)

// Section IDs of the binary format.
const (
	secCustom    = 0
	secImport    = 2
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secCode      = 10
	secDataCount = 12
	secTag       = 13
)

// order is the rank of each known section in the order the binary format
// requires (the tag section, 13, sits between memory and global).
var order = [...]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

type section struct {
	id   byte
	body []byte
}

// sections splits a binary into its sections (see split) and reads the
// structure of each (see checkSection).
func sections(wasm []byte) ([]section, error) {
	secs, err := split(wasm)
	if err != nil {
		return nil, err
	}
	for _, s := range secs {
		if err := checkSection(s.id, s.body); err != nil {
			return nil, err
		}
	}
	return secs, nil
}

// split cuts a binary into its sections, checking the header, the order
// of the sections and that none is repeated, but not what they hold.
func split(wasm []byte) ([]section, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, fmt.Errorf("not a WebAssembly binary (no \\0asm header)")
	}
	if string(wasm[4:8]) != "\x01\x00\x00\x00" {
		return nil, fmt.Errorf("binary format version %x is not 1", wasm[4:8])
	}
	r := &reader{b: wasm, pos: 8}
	var out []section
	last := 0
	for !r.done() {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, fmt.Errorf("section %d: size: %w", id, err)
		}
		body, err := r.bytes(uint64(size))
		if err != nil {
			return nil, fmt.Errorf("section %d: %w", id, err)
		}
		if id != secCustom {
			if int(id) >= len(order) || order[id] == 0 {
				return nil, fmt.Errorf("unknown section id %d", id)
			}
			if order[id] <= last {
				return nil, fmt.Errorf("section %d repeated or out of order", id)
			}
			last = order[id]
		}
		out = append(out, section{id, body})
	}
	return out, nil
}

// Check reads the structure of a binary: its header, its sections, their
// order, and every vector in them, refusing one that claims more entries
// than its bytes hold or a function with more than MaxLocals locals (see
// checkSection), and instructions beyond WebAssembly 2.0. It does not
// validate the module, which the compiler does; it refuses what would
// make the compiler allocate without bound.
func Check(wasm []byte) error {
	_, err := sections(wasm)
	return err
}

// MemoryMinimum reads the initial size, in 64 KiB pages, of the linear
// memory a module defines or imports; ok is false when it has none or the
// binary cannot be read that far (the compiler then reports what is
// wrong).
func MemoryMinimum(wasm []byte) (pages uint64, ok bool) {
	secs, err := split(wasm)
	if err != nil {
		return 0, false
	}
	for _, s := range secs {
		switch s.id {
		case secImport:
			imports, err := readImports(s.body)
			if err != nil {
				return 0, false
			}
			if imports.memory {
				return imports.memoryMin, true
			}
		case secMemory:
			r := &reader{b: s.body}
			n, err := r.u32()
			if err != nil || n == 0 {
				return 0, false
			}
			min, err := r.limits(false)
			return min, err == nil
		}
	}
	return 0, false
}

// imports is what the host needs from an import section.
type imports struct {
	globals   uint32   // imported globals, which come first in the global index space
	memory    bool     // a memory is imported
	memoryMin uint64   // its minimum, in pages
	tables    []uint64 // the minimums of the tables imported
}

func readImports(body []byte) (imports, error) {
	var im imports
	r := &reader{b: body}
	n, err := r.u32()
	if err != nil {
		return im, err
	}
	for i := uint32(0); i < n; i++ {
		if _, err := r.name(); err != nil {
			return im, err
		}
		if _, err := r.name(); err != nil {
			return im, err
		}
		kind, err := r.byte()
		if err != nil {
			return im, err
		}
		switch kind {
		case 0x00: // function: type index
			_, err = r.u32()
		case 0x01: // table: reference type, limits
			var min uint64
			if min, err = tableType(r); err == nil {
				im.tables = append(im.tables, min)
			}
		case 0x02: // memory: limits
			var min uint64
			if min, err = r.limits(false); err == nil && !im.memory {
				im.memory, im.memoryMin = true, min
			}
		case 0x03: // global: value type, mutability
			if err = valueTypeAt(r); err == nil {
				err = mutability(r)
			}
			im.globals++
		default:
			return im, fmt.Errorf("import %d: unknown kind 0x%02x", i, kind)
		}
		if err != nil {
			return im, fmt.Errorf("import %d: %w", i, err)
		}
	}
	if !r.done() {
		return im, fmt.Errorf("%d bytes after the last import", len(body)-r.pos)
	}
	return im, nil
}

// tableType reads a table's reference type and limits and returns its
// minimum. Only WebAssembly 2.0's forms are read: wazero reads more (a
// typed reference, 0x63 or 0x64, takes a heap type after it), and a byte
// read otherwise than the compiler would put the two out of step.
func tableType(r *reader) (uint64, error) {
	t, err := r.byte()
	if err != nil {
		return 0, err
	}
	if t != 0x70 && t != 0x6f {
		return 0, fmt.Errorf("table of reference type 0x%02x, beyond WebAssembly 2.0", t)
	}
	return r.limits(true)
}

// mutability reads a global's mutability: 0 or 1.
func mutability(r *reader) error {
	m, err := r.byte()
	if err == nil && m > 1 {
		err = fmt.Errorf("mutability 0x%02x", m)
	}
	return err
}

// customName returns the name of a custom section.
func customName(body []byte) string {
	r := &reader{b: body}
	name, err := r.name()
	if err != nil {
		return ""
	}
	return name
}

// positional reports whether a custom section refers to byte offsets in
// the code section, which instrumenting moves: DWARF debugging
// information and code metadata such as branch hints. Such sections are
// dropped rather than left wrong.
func positional(name string) bool {
	return strings.HasPrefix(name, ".debug_") || strings.HasPrefix(name, "metadata.code.")
}
