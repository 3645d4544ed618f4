package wasmbin

import (
	"errors"
	"fmt"
)

// errTruncated is the failure of every read past the end of its input.
var errTruncated = errors.New("truncated")

// reader reads the encodings of the binary format from a byte slice; pos
// is where the next read starts.
type reader struct {
	b   []byte
	pos int
}

func (r *reader) done() bool { return r.pos >= len(r.b) }

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errTruncated
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

// bytes returns the next n bytes (a sub-slice of the input, not a copy).
func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)-r.pos) {
		return nil, errTruncated
	}
	s := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return s, nil
}

// leb reads an LEB128 number of at most bits bits, unsigned or signed
// (the value of a signed one is returned as its two's complement bits; the
// callers only skip those or compare them with small constants).
func (r *reader) leb(bits int) (uint64, error) {
	var v uint64
	maxBytes := (bits + 6) / 7
	for i := 0; i < maxBytes; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("LEB128 number longer than %d bytes", maxBytes)
}

// subOpcode reads the opcode after a prefix byte (0xfc, 0xfd), which must
// be in its shortest encoding: wazero reads some as a single byte, and a
// longer encoding would be read as another instruction there than here.
func (r *reader) subOpcode() (uint32, error) {
	start := r.pos
	v, err := r.u32()
	if err != nil {
		return 0, err
	}
	if n := r.pos - start; (v < 1<<7 && n != 1) || (v >= 1<<7 && v < 1<<14 && n != 2) || v >= 1<<14 {
		return 0, fmt.Errorf("opcode %d encoded in %d bytes, not the shortest form", v, n)
	}
	return v, nil
}

// sleb33 reads a signed LEB128 number of at most 33 bits and reports
// whether it is negative.
func (r *reader) sleb33() (negative bool, err error) {
	for i := 0; i < 5; i++ {
		c, err := r.byte()
		if err != nil {
			return false, err
		}
		if c&0x80 == 0 {
			return c&0x40 != 0, nil
		}
	}
	return false, fmt.Errorf("LEB128 number longer than 5 bytes")
}

func (r *reader) u32() (uint32, error) {
	v, err := r.leb(32)
	if err != nil {
		return 0, err
	}
	if v > 0xffffffff {
		return 0, fmt.Errorf("u32 out of range: %d", v)
	}
	return uint32(v), nil
}

// name reads a length-prefixed UTF-8 name (not checked: the compiler
// validates names).
func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(uint64(n))
	return string(b), err
}

// limits reads the limits of a memory or a table (table) and returns the
// minimum. Only WebAssembly 2.0's forms are read (a minimum, or a minimum
// and a maximum): shared memories and 64-bit ones are features beyond it.
func (r *reader) limits(table bool) (uint64, error) {
	flags, err := r.byte()
	if err != nil {
		return 0, err
	}
	if flags > 1 {
		what := "memory"
		if table {
			what = "table"
		}
		return 0, fmt.Errorf("%s limits flags 0x%02x, beyond WebAssembly 2.0", what, flags)
	}
	min, err := r.u32()
	if err == nil && flags == 1 {
		_, err = r.u32()
	}
	return uint64(min), err
}

// appendU32 appends v in LEB128.
func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendS32 appends v in signed LEB128.
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// appendName appends a length-prefixed name.
func appendName(b []byte, s string) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}
