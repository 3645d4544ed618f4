package guest

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/wasmtools/wasmtools/abi"
)

// This file is the SDK's fast path for the JSON of every call: the
// request documents the host sends, tool inputs whose type is a flat
// struct, and the response documents. encoding/json works by reflection
// and a function call per input byte; compiled to Wasm it decodes about
// 15 MB/s and costs tens of microseconds on the smallest request, which
// made it most of a Go plugin's per-call cost. The fast path is a plain
// scanner that handles the well-formed documents of the common cases and
// gives up (ok == false) on anything else: a document it does not
// understand exactly, an input type it has no plan for, a value of the
// wrong type, a key that differs from a field's name only by case. The
// caller then runs encoding/json on the same bytes from the start, so
// the results, and the errors, are encoding/json's.

// maxDepth bounds the nesting the scanner follows before it gives up.
const maxDepth = 1000

// scanner reads one JSON document from b.
type scanner struct {
	b   []byte
	pos int
	// alias lets strings without escapes share b's memory instead of
	// being copied: only for a b that is never written again.
	alias bool
}

func (s *scanner) ws() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// next returns the next non-space byte without consuming it (0 at the
// end).
func (s *scanner) next() byte {
	s.ws()
	if s.pos < len(s.b) {
		return s.b[s.pos]
	}
	return 0
}

func (s *scanner) eat(c byte) bool {
	if s.next() == c {
		s.pos++
		return true
	}
	return false
}

// end reports whether only spaces are left.
func (s *scanner) end() bool {
	s.ws()
	return s.pos == len(s.b)
}

// SWAR constants: a uint64 holds 8 bytes of the input.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// attention returns, for each of the 8 bytes of w that needs attention
// in a JSON string ('"', '\\', a control byte, a byte ≥ 0x80), its high
// bit. Bytes above the first such byte may be flagged wrongly (a borrow
// carries into them); the lowest flag is exact, which is all the callers
// use.
func attention(w uint64) uint64 {
	hasLess := (w - lsb*0x20) & ^w // a byte < 0x20 (or ≥ 0x80)
	q := w ^ (lsb * '"')
	hasQ := (q - lsb) & ^q
	bs := w ^ (lsb * '\\')
	hasB := (bs - lsb) & ^bs
	return (hasLess | hasQ | hasB | w) & msb
}

// plainWord reports whether none of the 8 bytes of w needs attention in
// a JSON string: no '"', no '\\', no control byte, no byte ≥ 0x80.
func plainWord(w uint64) bool { return attention(w) == 0 }

// str reads a JSON string (the opening quote is next). Invalid UTF-8
// gives up: encoding/json replaces it, and the fallback does that.
//
// Its text is read in two passes, each a word at a time where it can:
// strEnd finds the closing quote and checks what lies before it, then a
// string with escapes is copied run by run between its backslashes into
// a buffer of the right size. A large input (a tool's 10 MiB text) is
// mostly plain runs, and a loop over its bytes one by one, compiled to
// Wasm with a termination check at each iteration, was most of a call.
func (s *scanner) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := s.pos
	end, escapes, ok := strEnd(s.b, start)
	if !ok {
		return "", false
	}
	s.pos = end + 1
	if escapes {
		return unescape(s.b[start:end])
	}
	if s.alias {
		return unsafe.String(unsafe.SliceData(s.b[start:]), end-start), true
	}
	return string(s.b[start:end]), true
}

// skipStr reads past a JSON string (the opening quote is next), checking
// it as str does but decoding nothing.
func (s *scanner) skipStr() bool {
	if !s.eat('"') {
		return false
	}
	end, _, ok := strEnd(s.b, s.pos)
	s.pos = end + 1
	return ok
}

// strEnd returns the index of the quote that closes the string whose
// text starts at b[i], and whether the text has escapes. It fails where
// str gives up: on a control byte, invalid UTF-8, an unknown escape, a
// \u without four hex digits, or no closing quote.
func strEnd(b []byte, i int) (end int, escapes, ok bool) {
	for {
		for i+8 <= len(b) {
			if a := attention(*(*uint64)(unsafe.Pointer(&b[i]))); a != 0 {
				i += bits.TrailingZeros64(a) / 8 // the first byte to look at
				break
			}
			i += 8
		}
		if i >= len(b) {
			return 0, false, false
		}
		c := b[i]
		switch {
		case c == '"':
			return i, escapes, true
		case c == '\\':
			if i+1 >= len(b) {
				return 0, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(b, i+2); !ok {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
			escapes = true
		case c < 0x20:
			return 0, false, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				return 0, false, false
			}
			i += n
		}
	}
}

// indexBackslash is bytes.IndexByte(b, '\\'), a word at a time.
func indexBackslash(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := *(*uint64)(unsafe.Pointer(&b[i])) ^ (lsb * '\\')
		if m := (w - lsb) & ^w & msb; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '\\' {
			return i
		}
	}
	return -1
}

// unescape decodes the text of a string that strEnd accepted and found
// escapes in. A lone or broken surrogate gives up: encoding/json's
// replacement of it is left to the fallback.
func unescape(raw []byte) (string, bool) {
	// Each escape is longer than what it stands for: the text's length
	// bounds the result's.
	out := make([]byte, 0, len(raw))
	for {
		j := indexBackslash(raw)
		if j < 0 {
			out = append(out, raw...)
			break
		}
		out = append(out, raw[:j]...)
		raw = raw[j:] // raw[0] is the backslash; strEnd checked the escape
		switch c := raw[1]; c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, _ := hex4(raw, 2)
			raw = raw[6:]
			if utf16.IsSurrogate(r) {
				// Only a valid pair is taken.
				if len(raw) < 6 || raw[0] != '\\' || raw[1] != 'u' {
					return "", false
				}
				r2, ok := hex4(raw, 2)
				if !ok {
					return "", false
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", false
				}
				raw = raw[6:]
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, c)
		}
		raw = raw[2:]
	}
	// out is this string's own and never written again.
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a JSON number and returns its text.
func (s *scanner) number() ([]byte, bool) {
	s.ws()
	b, i := s.b, s.pos
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, false
		}
	}
	s.pos = i
	return b[start:i], true
}

// literal reads true, false or null.
func (s *scanner) literal(word string) bool {
	s.ws()
	if strings.HasPrefix(unsafe.String(unsafe.SliceData(s.b[s.pos:]), len(s.b)-s.pos), word) {
		s.pos += len(word)
		return true
	}
	return false
}

// skip reads one value of any type, checking that it is well formed.
func (s *scanner) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch s.next() {
	case '"':
		return s.skipStr()
	case '{':
		s.pos++
		if s.eat('}') {
			return true
		}
		for {
			if !s.skipStr() || !s.eat(':') || !s.skip(depth+1) {
				return false
			}
			if s.eat('}') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	case '[':
		s.pos++
		if s.eat(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.eat(']') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, ok := s.number()
	return ok
}

// raw reads one value and returns its bytes.
func (s *scanner) raw() ([]byte, bool) {
	s.ws()
	start := s.pos
	if !s.skip(0) {
		return nil, false
	}
	return s.b[start:s.pos], true
}

// object reads an object, calling member for each key with the scanner
// at its value; member must consume the value. A null is an object
// without members.
func (s *scanner) object(member func(key string) bool) bool {
	if s.literal("null") {
		return true
	}
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		key, ok := s.str()
		if !ok || !s.eat(':') || !member(key) {
			return false
		}
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// strField reads a string member (null leaves *dst as it is, as
// encoding/json does).
func (s *scanner) strField(dst *string) bool {
	if s.literal("null") {
		return true
	}
	v, ok := s.str()
	*dst = v
	return ok
}

// request is the union of the request documents' members.
type request struct {
	abi       int
	tool      string
	input     json.RawMessage
	content   string
	callID    string
	sessionID string
	context   abi.PermissionContext
}

// requestKeys are the members a request document may have, for the
// case-insensitive check.
var requestKeys = []string{"abi", "tool", "input", "content", "call_id", "session_id", "context"}

// decodeRequest decodes any request document into r. Members a request
// does not have are ignored, as encoding/json ignores them.
func decodeRequest(b []byte, alias bool, r *request) bool {
	s := &scanner{b: b, alias: alias}
	ok := s.object(func(key string) bool {
		switch key {
		case "abi":
			if s.literal("null") {
				return true
			}
			n, ok := s.number()
			if !ok {
				return false
			}
			v, err := strconv.Atoi(string(n))
			r.abi = v
			return err == nil
		case "tool":
			return s.strField(&r.tool)
		case "content":
			return s.strField(&r.content)
		case "call_id":
			return s.strField(&r.callID)
		case "session_id":
			return s.strField(&r.sessionID)
		case "input":
			v, ok := s.raw()
			r.input = v
			return ok
		case "context":
			return s.object(func(key string) bool {
				switch key {
				case "mode":
					return s.strField(&r.context.Mode)
				case "cwd":
					return s.strField(&r.context.Cwd)
				case "working_dirs":
					if s.literal("null") {
						r.context.WorkingDirs = nil
						return true
					}
					if !s.eat('[') {
						return false
					}
					dirs := []string{}
					if !s.eat(']') {
						for {
							d, ok := s.str()
							if !ok {
								return false
							}
							dirs = append(dirs, d)
							if s.eat(']') {
								break
							}
							if !s.eat(',') {
								return false
							}
						}
					}
					r.context.WorkingDirs = dirs
					return true
				}
				return !foldsTo(key, "mode", "cwd", "working_dirs") && s.skip(1)
			})
		}
		return !foldsTo(key, requestKeys...) && s.skip(1)
	})
	return ok && s.end()
}

// foldsTo reports whether key matches one of names when case is ignored
// (encoding/json would then fill that member).
func foldsTo(key string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return true
		}
	}
	return false
}

// A plan decodes a tool's input type without encoding/json: a struct
// whose fields are of the predeclared string, boolean and number types
// or []string. Other types have no plan and go to encoding/json.
type plan struct {
	fields []planField
}

type planField struct {
	name  string
	index int
	kind  reflect.Kind
}

// plans caches the plan of each input type (nil: none).
var plans sync.Map // reflect.Type → *plan

func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := makePlan(t)
	plans.Store(t, p)
	return p
}

func makePlan(t reflect.Type) *plan {
	if t.Kind() != reflect.Struct || implementsUnmarshal(t) {
		return nil
	}
	p := &plan{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil // embedded fields have encoding/json's promotion rules
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			return nil
		}
		for _, c := range []byte(name + f.Name) {
			if c >= utf8.RuneSelf {
				return nil // encoding/json's Unicode rules decide
			}
		}
		if name == "" || !validTagName(name) {
			name = f.Name
		}
		if f.Type.PkgPath() != "" || f.Type.Kind() == reflect.Slice && f.Type.Elem().PkgPath() != "" {
			return nil // a named type (json.Number, say) may have rules of its own
		}
		k := f.Type.Kind()
		switch k {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
		case reflect.Slice:
			if f.Type.Elem().Kind() != reflect.String || implementsUnmarshal(f.Type.Elem()) {
				return nil
			}
		default:
			return nil
		}
		if implementsUnmarshal(f.Type) {
			return nil
		}
		folded := strings.ToLower(name)
		if seen[folded] {
			return nil // names that differ only by case: encoding/json decides
		}
		seen[folded] = true
		p.fields = append(p.fields, planField{name: name, index: i, kind: k})
	}
	return p
}

func implementsUnmarshal(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(unmarshalerType) || pt.Implements(unmarshalerType) ||
		t.Implements(textUnmarshalerType) || pt.Implements(textUnmarshalerType)
}

// validTagName is encoding/json's rule for a usable name in a tag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'):
			return false
		}
	}
	return true
}

// decode fills the struct v points to from b.
func (p *plan) decode(b []byte, alias bool, v reflect.Value) bool {
	s := &scanner{b: b, alias: alias}
	ok := s.object(func(key string) bool {
		for _, f := range p.fields {
			if f.name == key {
				return f.decode(s, v.Field(f.index))
			}
		}
		for _, f := range p.fields {
			if strings.EqualFold(f.name, key) {
				return false
			}
		}
		return s.skip(1)
	})
	return ok && s.end()
}

func (f planField) decode(s *scanner, v reflect.Value) bool {
	if s.literal("null") {
		if f.kind == reflect.Slice {
			v.SetZero()
		}
		return true
	}
	switch f.kind {
	case reflect.String:
		str, ok := s.str()
		v.SetString(str)
		return ok
	case reflect.Bool:
		switch {
		case s.literal("true"):
			v.SetBool(true)
		case s.literal("false"):
			v.SetBool(false)
		default:
			return false
		}
		return true
	case reflect.Slice:
		if !s.eat('[') {
			return false
		}
		list := reflect.MakeSlice(v.Type(), 0, 4)
		if !s.eat(']') {
			for {
				str, ok := s.str()
				if !ok {
					return false
				}
				list = reflect.Append(list, reflect.ValueOf(str))
				if s.eat(']') {
					break
				}
				if !s.eat(',') {
					return false
				}
			}
		}
		v.Set(list)
		return true
	}
	n, ok := s.number()
	if !ok {
		return false
	}
	text := unsafe.String(unsafe.SliceData(n), len(n))
	switch f.kind {
	case reflect.Float32, reflect.Float64:
		x, err := strconv.ParseFloat(text, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetFloat(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x, err := strconv.ParseUint(text, 10, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetUint(x)
	default:
		x, err := strconv.ParseInt(text, 10, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetInt(x)
	}
	return true
}

// Encoding. The writers below produce what json.Marshal produces for the
// response types (members in declaration order, omitempty as tagged,
// map keys sorted, <, > and & escaped); a value they do not know goes
// through json.Marshal.

type encoder struct {
	b []byte
}

const hexDigits = "0123456789abcdef"

// str writes s as a JSON string, escaped as encoding/json escapes it.
func (e *encoder) str(s string) {
	b := append(e.b, '"')
	start := 0
	i := 0
	for i < len(s) {
		for i+8 <= len(s) && htmlPlainWord(*(*uint64)(unsafe.Pointer(unsafe.StringData(s[i:])))) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += n
			start = i
			continue
		}
		i += n
	}
	b = append(b, s[start:]...)
	e.b = append(b, '"')
}

// htmlPlainWord is plainWord that also stops at '<', '>' and '&'.
func htmlPlainWord(w uint64) bool {
	if !plainWord(w) {
		return false
	}
	lt := w ^ (lsb * '<')
	gt := w ^ (lsb * '>')
	amp := w ^ (lsb * '&')
	return ((lt-lsb)&^lt|(gt-lsb)&^gt|(amp-lsb)&^amp)&msb == 0
}

// key writes a member's name and colon, preceded by a comma unless it is
// the object's first.
func (e *encoder) key(first *bool, name string) {
	if !*first {
		e.b = append(e.b, ',')
	}
	*first = false
	e.str(name)
	e.b = append(e.b, ':')
}

func (e *encoder) strings(list []string) {
	if list == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, s := range list {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(s)
	}
	e.b = append(e.b, ']')
}

// value writes a metadata value; ok is false when json.Marshal fails on
// it.
func (e *encoder) value(v any) bool {
	switch x := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
	case string:
		e.str(x)
	case bool:
		e.b = strconv.AppendBool(e.b, x)
	case int:
		e.b = strconv.AppendInt(e.b, int64(x), 10)
	case int64:
		e.b = strconv.AppendInt(e.b, x, 10)
	case int32:
		e.b = strconv.AppendInt(e.b, int64(x), 10)
	case uint64:
		e.b = strconv.AppendUint(e.b, x, 10)
	case float64:
		return e.float(x, 64)
	case float32:
		return e.float(float64(x), 32)
	case []string:
		e.strings(x)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		e.b = append(e.b, b...)
	}
	return true
}

// float writes f as encoding/json does.
func (e *encoder) float(f float64, bits int) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	start := len(e.b)
	e.b = strconv.AppendFloat(e.b, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(e.b) - start
		if n >= 4 && e.b[len(e.b)-4] == 'e' && e.b[len(e.b)-3] == '-' && e.b[len(e.b)-2] == '0' {
			e.b[len(e.b)-2] = e.b[len(e.b)-1]
			e.b = e.b[:len(e.b)-1]
		}
	}
	return true
}

// encodeResult writes a CallResult; ok is false when a metadata value
// cannot be encoded.
func encodeResult(r abi.CallResult) ([]byte, bool) {
	size := 64
	for _, b := range r.Content {
		size += len(b.Text) + len(b.Data)*4/3 + 64
	}
	e := &encoder{b: make([]byte, 0, size)}
	e.b = append(e.b, '{')
	first := true
	if len(r.Content) > 0 {
		e.key(&first, "content")
		e.b = append(e.b, '[')
		for i, blk := range r.Content {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, `{"type":`...)
			e.str(blk.Type)
			if blk.Text != "" {
				e.b = append(e.b, `,"text":`...)
				e.str(blk.Text)
			}
			if len(blk.Data) > 0 {
				e.b = append(e.b, `,"data":"`...)
				e.b = base64.StdEncoding.AppendEncode(e.b, blk.Data)
				e.b = append(e.b, '"')
			}
			if blk.MediaType != "" {
				e.b = append(e.b, `,"media_type":`...)
				e.str(blk.MediaType)
			}
			if blk.ID != "" {
				e.b = append(e.b, `,"id":`...)
				e.str(blk.ID)
			}
			e.b = append(e.b, '}')
		}
		e.b = append(e.b, ']')
	}
	if r.State != "" {
		e.key(&first, "state")
		e.str(r.State)
	}
	if len(r.Metadata) > 0 {
		e.key(&first, "metadata")
		e.b = append(e.b, '{')
		keys := make([]string, 0, len(r.Metadata))
		for k := range r.Metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		mfirst := true
		for _, k := range keys {
			e.key(&mfirst, k)
			if !e.value(r.Metadata[k]) {
				return nil, false
			}
		}
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
	return e.b, true
}

// encodeDecision writes a Decision.
func encodeDecision(d abi.Decision) []byte {
	e := &encoder{b: make([]byte, 0, 64+len(d.Message)+len(d.Reason))}
	e.b = append(e.b, `{"behavior":`...)
	e.str(d.Behavior)
	if d.Message != "" {
		e.b = append(e.b, `,"message":`...)
		e.str(d.Message)
	}
	if d.Reason != "" {
		e.b = append(e.b, `,"reason":`...)
		e.str(d.Reason)
	}
	if d.BypassImmune {
		e.b = append(e.b, `,"bypass_immune":true`...)
	}
	if len(d.Suggestions) > 0 {
		e.b = append(e.b, `,"suggestions":`...)
		e.strings(d.Suggestions)
	}
	e.b = append(e.b, '}')
	return e.b
}

// encodeSuggestions writes a SuggestionsResponse.
func encodeSuggestions(list []string) []byte {
	e := &encoder{b: make([]byte, 0, 32)}
	e.b = append(e.b, `{"suggestions":`...)
	e.strings(list)
	e.b = append(e.b, '}')
	return e.b
}

// encodeBool writes an object with one boolean member.
func encodeBool(name string, v bool) []byte {
	b := append(append([]byte(`{"`), name...), `":`...)
	return append(strconv.AppendBool(b, v), '}')
}
