package wasmbin

import (
	"fmt"
	"math"
)

// MaxLocals bounds the locals of one function, as web engines do (V8,
// SpiderMonkey: 50,000). wazero allows 2³² and allocates a slice of the
// declared number before reading the body.
const MaxLocals = 50_000

// checkSection reads the structure of a section and refuses a vector
// whose claimed length exceeds the bytes left to hold it. wazero 1.12
// sizes slices by such claims before reading the elements (the table,
// element, data and locals vectors among others), so a binary of a few
// bytes claiming 2³² entries would exhaust the process's memory; read
// here element by element, a false claim ends at the end of its bytes.
// What is left unread (names, constant values) the compiler validates.
func checkSection(id byte, body []byte) error {
	r := &reader{b: body}
	var err error
	switch id {
	case secCustom:
		name, err := r.name()
		if err != nil || name != "name" {
			return err
		}
		if err := checkNames(r); err != nil {
			return fmt.Errorf("the name section: %w", err)
		}
		return nil
	case secStart:
		_, err = r.u32()
	case secDataCount:
		_, err = r.u32()
	case 1: // types
		err = vector(r, func() error {
			if form, err := r.byte(); err != nil || form != 0x60 {
				return fmt.Errorf("not a function type (0x%02x): %v", form, err)
			}
			for range 2 { // parameters, results
				if err := vector(r, func() error { return valueTypeAt(r) }); err != nil {
					return err
				}
			}
			return nil
		})
	case secImport:
		_, err = readImports(body)
		return err
	case 3: // functions: type indices
		err = vector(r, func() error { _, err := r.u32(); return err })
	case secTable:
		err = vector(r, func() error { _, err := tableType(r); return err })
	case secMemory:
		err = vector(r, func() error { _, err := r.limits(false); return err })
	case secGlobal:
		err = vector(r, func() error { return skipGlobal(r) })
	case secExport:
		err = vector(r, func() error {
			if _, err := r.name(); err != nil {
				return err
			}
			if _, err := r.byte(); err != nil {
				return err
			}
			_, err := r.u32()
			return err
		})
	case 9: // elements
		err = vector(r, func() error { return skipElement(r) })
	case secCode:
		err = vector(r, func() error {
			size, err := r.u32()
			if err != nil {
				return err
			}
			fn, err := r.bytes(uint64(size))
			if err != nil {
				return err
			}
			_, _, err = walkBody(fn, math.MaxUint32, anyParams, nil)
			return err
		})
	case 11: // data
		err = vector(r, func() error { return skipData(r) })
	case secTag:
		return fmt.Errorf("the module uses exception handling (a tag section), beyond WebAssembly 2.0")
	}
	if err != nil {
		return fmt.Errorf("section %d: %w", id, err)
	}
	if !r.done() {
		return fmt.Errorf("section %d: %d bytes after its content", id, len(body)-r.pos)
	}
	return nil
}

// vector reads a count and then that many elements with each, refusing
// a count larger than the bytes left (every element takes one at least).
func vector(r *reader, each func() error) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	if uint64(n) > uint64(len(r.b)-r.pos) {
		return fmt.Errorf("a vector claims %d entries in %d bytes", n, len(r.b)-r.pos)
	}
	for i := uint32(0); i < n; i++ {
		if err := each(); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return nil
}

func valueTypeAt(r *reader) error {
	t, err := r.byte()
	if err == nil && !valueType(t) {
		err = fmt.Errorf("unknown value type 0x%02x", t)
	}
	return err
}

// skipConstExpr reads past a constant expression and its end.
func skipConstExpr(r *reader) error {
	for {
		op, err := r.byte()
		if err != nil {
			return err
		}
		if op == 0x0b {
			return nil
		}
		switch op {
		case 0x02, 0x03, 0x04, 0x05: // blocks have no place in a constant expression
			return fmt.Errorf("opcode 0x%02x in a constant expression", op)
		}
		if err := skipImmediates(r, op); err != nil {
			return err
		}
	}
}

// skipGlobal reads past a global: its type, mutability and initial
// value.
func skipGlobal(r *reader) error {
	if err := valueTypeAt(r); err != nil {
		return err
	}
	if err := mutability(r); err != nil {
		return err
	}
	return skipConstExpr(r)
}

// skipElement reads past an element segment in any of its eight forms.
func skipElement(r *reader) error {
	flags, err := r.u32()
	if err != nil {
		return err
	}
	if flags > 7 {
		return fmt.Errorf("unknown element segment form %d", flags)
	}
	if flags&2 != 0 && flags&1 == 0 { // active with a table index
		if _, err := r.u32(); err != nil {
			return err
		}
	}
	if flags&1 == 0 { // active: the offset
		if err := skipConstExpr(r); err != nil {
			return err
		}
	}
	if flags&3 != 0 { // element kind (0x00), or reference type for expressions
		t, err := r.byte()
		if err != nil {
			return err
		}
		if flags&4 == 0 && t != 0x00 || flags&4 != 0 && t != 0x70 && t != 0x6f {
			return fmt.Errorf("element segment of kind or type 0x%02x, beyond WebAssembly 2.0", t)
		}
	}
	if flags&4 != 0 { // expressions
		return vector(r, func() error { return skipConstExpr(r) })
	}
	return vector(r, func() error { _, err := r.u32(); return err }) // function indices
}

// skipData reads past a data segment.
func skipData(r *reader) error {
	flags, err := r.u32()
	if err != nil {
		return err
	}
	switch flags {
	case 0:
		err = skipConstExpr(r)
	case 1:
	case 2:
		if _, err = r.u32(); err == nil {
			err = skipConstExpr(r)
		}
	default:
		err = fmt.Errorf("unknown data segment form %d", flags)
	}
	if err != nil {
		return err
	}
	n, err := r.u32()
	if err != nil {
		return err
	}
	_, err = r.bytes(uint64(n))
	return err
}

// checkNames reads the subsections of a name section, the one custom
// section wazero decodes, which it sizes by claimed counts and lengths:
// each known subsection must hold exactly its declared size.
func checkNames(r *reader) error {
	for !r.done() {
		id, err := r.byte()
		if err != nil {
			return err
		}
		size, err := r.u32()
		if err != nil {
			return err
		}
		body, err := r.bytes(uint64(size))
		if err != nil {
			return fmt.Errorf("subsection %d: %w", id, err)
		}
		sr := &reader{b: body}
		name := func() error { _, err := sr.name(); return err }
		index := func() error { _, err := sr.u32(); return err }
		nameMap := func() error {
			return vector(sr, func() error {
				if err := index(); err != nil {
					return err
				}
				return name()
			})
		}
		switch id {
		case 0: // the module's name
			err = name()
		case 1: // functions' names
			err = nameMap()
		case 2: // locals' names, per function
			err = vector(sr, func() error {
				if err := index(); err != nil {
					return err
				}
				return nameMap()
			})
		default: // skipped by size
			continue
		}
		if err == nil && !sr.done() {
			err = fmt.Errorf("%d bytes after its content", len(body)-sr.pos)
		}
		if err != nil {
			return fmt.Errorf("subsection %d: %w", id, err)
		}
	}
	return nil
}
