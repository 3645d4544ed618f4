package toolkit

import (
	"encoding/json"
	"strings"
)

// decodeFlatObject decodes the common shape of a call's arguments, one
// JSON object whose values are strings, numbers, booleans or null, into
// exactly what decodeJSON makes of it (numbers as json.Number, the last
// of duplicate keys winning), without encoding/json's reflection and
// buffering: the permission check of every call starts here. ok is false
// for anything else (nested values, a surrogate escape, bad or trailing
// text): the caller then decodes with encoding/json, which is the
// authority, errors and repairs included. s must be valid UTF-8 (parseArguments
// checks first).
func decodeFlatObject(s string) (Input, bool) {
	in, _, ok := decodeFlat(s)
	return in, ok
}

// decodeFlat is decodeFlatObject that also counts the object's members
// (duplicate keys included).
func decodeFlat(s string) (Input, int, bool) {
	d := flatDecoder{s: s}
	d.space()
	if !d.byte('{') {
		return nil, 0, false
	}
	out := make(Input, 4)
	d.space()
	if d.byte('}') {
		return out, 0, d.end()
	}
	for members := 1; ; members++ {
		d.space()
		key, ok := d.str()
		if !ok {
			return nil, 0, false
		}
		d.space()
		if !d.byte(':') {
			return nil, 0, false
		}
		d.space()
		v, ok := d.scalar()
		if !ok {
			return nil, 0, false
		}
		out[key] = v
		d.space()
		if d.byte(',') {
			continue
		}
		if d.byte('}') {
			return out, members, d.end()
		}
		return nil, 0, false
	}
}

type flatDecoder struct {
	s string
	i int
}

func (d *flatDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *flatDecoder) byte(c byte) bool {
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (d *flatDecoder) end() bool {
	d.space()
	return d.i == len(d.s)
}

func (d *flatDecoder) scalar() (any, bool) {
	if d.i >= len(d.s) {
		return nil, false
	}
	switch c := d.s[d.i]; {
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, false // an object or an array: encoding/json's work
}

func (d *flatDecoder) literal(word string) bool {
	if !strings.HasPrefix(d.s[d.i:], word) {
		return false
	}
	d.i += len(word)
	return true
}

// number reads a number by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *flatDecoder) number() (any, bool) {
	start := d.i
	d.byte('-')
	switch {
	case d.byte('0'):
	case d.digits() == 0:
		return nil, false
	}
	if d.byte('.') && d.digits() == 0 {
		return nil, false
	}
	if d.byte('e') || d.byte('E') {
		if !d.byte('+') {
			d.byte('-')
		}
		if d.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(d.s[start:d.i]), true
}

func (d *flatDecoder) digits() int {
	n := 0
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
		n++
	}
	return n
}

// str reads a string: a slice of s when it has no escapes, else a copy
// with the escapes JSON defines replaced. A \u escape of a surrogate is
// left to encoding/json (pairs, and its U+FFFD for a lone one).
func (d *flatDecoder) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	d.run()
	if d.i < len(d.s) && d.s[d.i] == '"' {
		d.i++
		return d.s[start : d.i-1], true
	}
	if d.i < len(d.s) && d.s[d.i] == '\\' {
		return d.escaped(start)
	}
	return "", false // a control character, or no closing quote
}

// run moves past the bytes that stand for themselves in a string: all
// but '"', '\\' and control characters.
func (d *flatDecoder) run() {
	s, i := d.s, d.i
	for i < len(s) && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20 {
		i++
	}
	d.i = i
}

// escaped finishes a string holding an escape; start is its first byte.
// The text between escapes is copied a run at a time: a long text (a
// file's content) has a \n every line.
func (d *flatDecoder) escaped(start int) (string, bool) {
	var b strings.Builder
	b.Grow(len(d.s) - start) // escapes are longer than what they stand for
	b.WriteString(d.s[start:d.i])
	for d.i < len(d.s) {
		runStart := d.i
		d.run()
		b.WriteString(d.s[runStart:d.i])
		if d.i >= len(d.s) {
			break
		}
		switch c := d.s[d.i]; {
		case c == '"':
			d.i++
			return b.String(), true
		case c < 0x20:
			return "", false
		}
		if d.i+1 >= len(d.s) {
			return "", false
		}
		e := d.s[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if d.i+4 > len(d.s) {
				return "", false
			}
			r := rune(0)
			for _, h := range []byte(d.s[d.i : d.i+4]) {
				switch {
				case h >= '0' && h <= '9':
					r = r<<4 | rune(h-'0')
				case h >= 'a' && h <= 'f':
					r = r<<4 | rune(h-'a'+10)
				case h >= 'A' && h <= 'F':
					r = r<<4 | rune(h-'A'+10)
				default:
					return "", false
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				return "", false
			}
			d.i += 4
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	return "", false
}
