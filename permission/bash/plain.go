package bash

import "strings"

// A fast path for the commonest scripts: one simple command of plain
// words (ls -la, git status, rm -rf build). Parsing them with tree-sitter
// (and walking the tree) was about half the cost of judging them. Their
// syntax leaves no choice: the words are separated by single spaces, hold
// none of the characters the shell treats specially (quotes, $, `, \,
// globs, braces, ~, #, !, %, redirections, operators, blanks other than
// the separators; see plainByte), the name holds no = (an assignment),
// none starts with = or holds == (test operators), and none is a word the
// grammar reserves.
// For them the walker's own steps are taken on the words directly;
// TestPlainCommandsMatchTree and FuzzAnalyze check that the script is the
// one the tree gives.

// reservedWords are the words the bash grammar may read as something
// other than a command word (keywords, declaration commands), kept off
// the fast path wherever they stand.
var reservedWords = setOf("if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
	"do", "done", "in", "function", "time", "coproc", "declare", "typeset", "export", "readonly", "local",
	"unset", "unsetenv", "let", "eval")

// plainByte reports a byte a plain word may hold. The first word (the
// command's name) takes letters, digits, _ . / and - only, and starts
// with none of digits and -; the others also take : , + and =.
func plainByte(c byte, first, start bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_', c == '.', c == '/':
		return true
	case '0' <= c && c <= '9', c == '-':
		return !(first && start)
	case c == ':', c == ',', c == '+', c == '=':
		return !first
	}
	return false
}

// plainWords splits a plain command into its words; ok is false when
// the command is not one (see above).
func plainWords(command string) (words []string, ok bool) {
	start := 0
	for i := 0; i <= len(command); i++ {
		if i < len(command) && command[i] != ' ' {
			if !plainByte(command[i], len(words) == 0, i == start) {
				return nil, false
			}
			continue
		}
		w := command[start:i]
		if w == "" || reservedWords[w] || w[0] == '=' || strings.Contains(w, "==") {
			// A leading, trailing or double space; a keyword; a test
			// operator (==, =~), which the grammar reads outside [[ ]].
			return nil, false
		}
		words = append(words, w)
		start = i + 1
	}
	return words, true
}

// plainCommand records the simple command of a plain script as the
// walker does for a command node: each word evaluated as an unquoted
// word node, then resolved. It reports false, having recorded nothing,
// if a word turns out not to be a plain literal, for the tree to judge.
func (w *walker) plainCommand(words []string) bool {
	ws := make([]Word, len(words))
	for i, s := range words {
		var kinds []string
		wb := &wordBuilder{src: s, unsafe: &kinds, first: true}
		wb.w.Raw = s
		wb.unquoted(s)
		wb.w.Value = wb.b.String()
		if len(kinds) > 0 || !wb.w.Literal() || wb.w.Glob || wb.w.Tilde || wb.w.Quoted {
			return false
		}
		ws[i] = wb.w
	}
	w.resolve(&Command{Text: w.src}, ws, nil)
	return true
}
