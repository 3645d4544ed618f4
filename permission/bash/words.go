package bash

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Word is one shell word after quote removal.
type Word struct {
	// Raw is the word as written.
	Raw string
	// Value is the word after quote removal and escape processing.
	// Expansions that stay ($VAR) are kept as written; see Vars.
	Value string
	// Quoted reports that part of the word was quoted or escaped.
	Quoted bool
	// Vars lists the variables the word expands ($HOME, $1, ...).
	Vars []string
	// Dynamic reports that the value cannot be known statically for a
	// reason other than a plain variable (brace expansion, a glob in a
	// command name, an unknown construct).
	Dynamic bool
	// Glob reports unquoted glob characters (*, ?, [).
	Glob bool
	// Tilde reports an unquoted leading ~ (home directory expansion).
	Tilde bool
}

// Literal reports whether the word's value is fully known: no variables
// and nothing dynamic.
func (w Word) Literal() bool { return len(w.Vars) == 0 && !w.Dynamic }

// wordBuilder accumulates a word from tree-sitter nodes.
type wordBuilder struct {
	src string
	w   Word
	b   strings.Builder
	// unsafe receives reasons for constructs that are not analysable.
	unsafe *[]string
	first  bool
	// braceOpen: an unquoted { was seen (it may span several nodes).
	braceOpen bool
}

// evalWord evaluates a word-like node: word, string, raw_string,
// ansi_c_string, translated_string, concatenation, simple_expansion,
// number, command_name.
func evalWord(n *node, src string, unsafe *[]string) Word {
	wb := &wordBuilder{src: src, unsafe: unsafe, first: true}
	wb.w.Raw = n.Content(src)
	wb.node(n)
	wb.w.Value = wb.b.String()
	return wb.w
}

func (wb *wordBuilder) node(n *node) {
	switch n.Type() {
	case "command_name":
		for i := 0; i < int(n.NamedChildCount()); i++ {
			wb.node(n.NamedChild(i))
		}
	case "concatenation":
		for i := 0; i < int(n.ChildCount()); i++ {
			wb.node(n.Child(i))
		}
	case "brace_expression":
		wb.dynamic("brace_expansion")
	case "word", "number", "file_descriptor", "variable_name", "extglob_pattern":
		wb.unquoted(n.Content(wb.src))
		if n.Type() == "extglob_pattern" {
			wb.w.Glob = true
		}
	case "raw_string":
		s := n.Content(wb.src)
		wb.literal(strings.TrimSuffix(strings.TrimPrefix(s, "'"), "'"))
	case "ansi_c_string":
		s := n.Content(wb.src)
		s = strings.TrimSuffix(strings.TrimPrefix(s, "$'"), "'")
		decoded := decodeANSIC(s)
		if strings.ContainsRune(decoded, 0) {
			// bash cuts the word at the NUL; refuse rather than guess.
			wb.dynamic("nul_in_string")
			return
		}
		wb.literal(decoded)
	case "string", "translated_string":
		wb.w.Quoted = true
		wb.first = false
		pos := n.StartByte()
		for i := 0; i < int(n.ChildCount()); i++ {
			c := n.Child(i)
			// tree-sitter-bash leaves blanks that no other content is
			// next to out of the string's children (" " is two quote
			// tokens, the second spanning ` "`): they are characters of
			// the string all the same (cat " " reads the file named by a
			// space, which a link may have made). Text left out
			// elsewhere is not known.
			start := c.StartByte()
			if c.Type() == "\"" && i > 0 {
				start = c.EndByte() - 1 // the closing quote itself
			}
			if gap := wb.src[pos:start]; gap != "" {
				if strings.Trim(gap, " \t\n") == "" {
					wb.b.WriteString(gap)
				} else {
					wb.dynamic("skipped_text")
				}
			}
			pos = c.EndByte()
			switch c.Type() {
			case "\"", "$\"":
			case "string_content":
				wb.b.WriteString(unescapeDoubleQuoted(c.Content(wb.src)))
			case "$":
				// A lone dollar sign inside quotes is literal.
				wb.b.WriteString("$")
			case "simple_expansion":
				wb.expansion(c)
			default:
				wb.dynamic(c.Type())
			}
		}
	case "simple_expansion":
		wb.expansion(n)
	case "$":
		wb.b.WriteString("$")
		wb.first = false
	default:
		wb.dynamic(n.Type())
	}
}

func (wb *wordBuilder) expansion(n *node) {
	name := strings.TrimPrefix(n.Content(wb.src), "$")
	if !validVariable(name) {
		// "$" followed by a newline or blank: the parser joined lines.
		wb.dynamic("bad_expansion")
		return
	}
	wb.w.Vars = append(wb.w.Vars, name)
	wb.b.WriteString("$" + name)
	wb.first = false
}

func (wb *wordBuilder) dynamic(kind string) {
	wb.w.Dynamic = true
	wb.first = false
	*wb.unsafe = append(*wb.unsafe, kind)
}

// literal appends quoted text.
func (wb *wordBuilder) literal(s string) {
	wb.w.Quoted = true
	wb.first = false
	wb.b.WriteString(s)
}

// validVariable reports a name bash expands after $: an identifier, a
// digit or a special parameter.
func validVariable(name string) bool {
	if len(name) == 1 && strings.ContainsRune("0123456789@*#?$!-_", rune(name[0])) {
		return true
	}
	for i, c := range name {
		if !(c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (i > 0 && '0' <= c && c <= '9')) {
			return false
		}
	}
	return name != ""
}

// unquoted appends unquoted text: backslash escapes are removed, glob and
// brace characters noted, a leading ~ marked.
func (wb *wordBuilder) unquoted(s string) {
	if strings.ContainsRune(s, '\n') {
		// A newline inside an unquoted word is a command separator to
		// bash: the parser misread the line.
		wb.dynamic("newline_in_word")
		return
	}
	if wb.first && strings.HasPrefix(s, "~") {
		wb.w.Tilde = true
	}
	wb.first = false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			wb.w.Quoted = true
			if i+1 < len(s) {
				i++
				wb.b.WriteByte(s[i])
			}
			continue
		case '*', '?', '[':
			wb.w.Glob = true
		case '{':
			wb.braceOpen = true
		case ',':
			if wb.braceOpen && !wb.w.Dynamic {
				// Brace expansion (a{b,c}) turns one word into several:
				// rm -{r,f} is rm -r -f.
				wb.dynamic("brace_expansion")
			}
		case '.':
			if wb.braceOpen && i+1 < len(s) && s[i+1] == '.' && !wb.w.Dynamic {
				wb.dynamic("brace_expansion")
			}
		}
		wb.b.WriteByte(c)
	}
}

// unescapeDoubleQuoted removes the backslashes that are special inside
// double quotes: before $ ` " \ and newline.
func unescapeDoubleQuoted(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the escapes of a $'...' string as bash does.
func decodeANSIC(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if c == 'x' {
				b.WriteByte(byte(v))
			} else if utf8.ValidRune(rune(v)) {
				b.WriteRune(rune(v))
			}
			i = j - 1
		default:
			if c >= '0' && c <= '7' {
				j := i
				for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(s[i:j], 8, 16)
				b.WriteByte(byte(v))
				i = j - 1
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
