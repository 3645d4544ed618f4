package bash

import "strings"

// SurelyUnanalysable reports, from the command's text alone and without
// parsing it, that Parse would find the script unanalysable: outside
// single quotes it holds a command substitution or an arithmetic
// expansion ($(...), `...`), or, unquoted, a process substitution
// (<(...), >(...)), a parenthesis (a subshell, a function, an array), or
// a compound command where a command starts (for, while, until, if,
// case, select, function, [[ ]]). Every one of these makes the walker
// refuse the script, or the grammar fail to parse it.
//
// False says nothing: only Parse can tell. The scan gives up at what it
// does not follow (a comment, a here-document, a $'...' string), so a
// literal "$(" can never be taken for a substitution. It exists for
// callers that need only a negative verdict fast (the permission mode
// explore refuses every script that is not read-only, and an
// unanalysable one never is): most scripts it recognises are the ones
// only the slow, complete parser takes. FuzzAnalyze checks that Parse
// agrees whenever it says true.
func SurelyUnanalysable(command string) bool {
	if len(command) > MaxCommandLength {
		return true // Parse gives up on it unread
	}
	const (
		normal = iota
		double // inside "..."
	)
	state := normal
	start := true // a command may start here (blanks skipped)
	for i := 0; i < len(command); i++ {
		c := command[i]
		if state == double {
			switch c {
			case '\\':
				i++ // the escaped character is literal
			case '"':
				state = normal
			case '`':
				return true
			case '$':
				switch byteAfter(command, i) {
				case '(':
					return true
				case '$':
					i++ // $$, the shell's process ID: "$$(" is literal after it
				}
			}
			continue
		}
		if !start && !scanStops[c] {
			continue // most bytes of most commands
		}
		if start {
			switch c {
			case ' ', '\t':
				continue
			}
			if compoundStart(command[i:]) {
				return true
			}
			start = false
		}
		switch c {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(command[i+1:], '\'')
			if j < 0 {
				return false // unterminated: left to the parse
			}
			i += j + 1
		case '"':
			state = double
		case '`':
			return true
		case '$':
			// As in double quotes, but for $'...' and $"...".
			switch byteAfter(command, i) {
			case '(':
				return true
			case '$':
				i++ // $$, the shell's process ID
			case '\'', '"':
				return false // $'...' (with its own escapes), $"...": left to the parse
			}
		case '<', '>':
			switch next := byteAfter(command, i); {
			case next == '(':
				return true
			case c == '<' && next == '<':
				return false // a here-document or here-string: left to the parse
			case next == '&', c == '>' && next == '|':
				// >&, <&, >|: one redirection operator, not a separator;
				// the word after it is its target, where no command
				// starts.
				i++
			}
		case '(':
			return true // not after $, < or >: a subshell, a function, an array
		case '#':
			return false // perhaps a comment: left to the parse
		case ';', '&', '|', '\n':
			start = true
		}
	}
	return false
}

// scanStops are the bytes SurelyUnanalysable looks at outside double
// quotes where no command starts; it passes over every other byte.
var scanStops = [256]bool{'\\': true, '\'': true, '"': true, '`': true, '$': true, '<': true, '>': true,
	'(': true, '#': true, ';': true, '&': true, '|': true, '\n': true}

// compoundStart reports text that starts with a reserved word opening a
// compound command the walker refuses, followed by a blank or a newline.
func compoundStart(text string) bool {
	if text == "" {
		return false
	}
	switch text[0] { // the first letters of the words below
	case 'f', 'w', 'u', 'i', 'c', 's', '[':
	default:
		return false
	}
	for _, kw := range [...]string{"for", "while", "until", "if", "case", "select", "function", "[["} {
		if len(text) > len(kw) && text[:len(kw)] == kw {
			switch text[len(kw)] {
			case ' ', '\t', '\n':
				return true
			}
		}
	}
	return false
}

// byteAfter returns the byte of s after index i, or 0 at the end (a NUL
// in s stands for nothing the scan looks for either).
func byteAfter(s string, i int) byte {
	if i+1 < len(s) {
		return s[i+1]
	}
	return 0
}
