// Package jsontext looks at JSON text without decoding it: how deeply it
// nests, and where it stops being UTF-8. The host uses it to refuse what
// would be costly or lossy to decode (a schema nested thousands deep, a
// frame with bytes the decoder would turn into U+FFFD).
package jsontext

import "unicode/utf8"

// Depth returns how deeply the objects and arrays of b nest: brackets
// inside strings do not count. b need not be valid JSON.
func Depth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// InvalidUTF8 returns the offset of the first byte of s that is not part
// of a valid UTF-8 character, or -1 when s is valid UTF-8.
func InvalidUTF8(s string) int {
	for off := 0; off < len(s); {
		r, size := utf8.DecodeRuneInString(s[off:])
		if r == utf8.RuneError && size <= 1 {
			return off
		}
		off += size
	}
	return -1
}
