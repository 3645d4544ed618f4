package bash

import "strings"

// A fast path for the commonest scripts: simple commands of plain words
// (ls -la, git status, sed -n '1p' f), alone or joined by " && ", " || ",
// "; " and " | " (but for a pipeline of three or more commands followed
// by && or ||, which the grammar nests oddly). Parsing them with tree-sitter (and walking the tree)
// was about half the cost of judging them. Their syntax leaves no
// choice: the words are separated by single spaces; each is either
// unquoted and holds none of the characters the shell treats specially
// (quotes, $, `, \, globs, braces, ~, #, !, %, redirections, operators,
// blanks; see plainByte), or, past the command's name, one single-quoted
// string of printable characters standing alone; the name holds no =
// (an assignment); no unquoted word starts with = or holds == (test
// operators) or is a word the grammar reserves. For them the walker's own
// steps are taken on the words directly; TestPlainCommandsMatchTree,
// TestPlainWordsExhaustive and FuzzAnalyze check that the script is the
// one the tree gives.

// reserved reports the words the bash grammar may read as something
// other than a command word (keywords, declaration commands), kept off
// the fast path wherever they stand. A switch rather than a set: it is
// asked of every word of every plain command.
func reserved(w string) bool {
	switch w {
	case "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
		"do", "done", "in", "function", "time", "coproc", "declare", "typeset", "export", "readonly", "local",
		"unset", "unsetenv", "let", "eval":
		return true
	}
	return false
}

// plainByte reports a byte a plain word may hold. The first word (the
// command's name) takes letters, digits, _ . / and - only, and starts
// with none of digits and -; the others also take : , + = ~ and the glob
// characters * and ?.
func plainByte(c byte, first, start bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_', c == '.', c == '/':
		return true
	case '0' <= c && c <= '9', c == '-':
		return !(first && start)
	case c == ':', c == ',', c == '+', c == '=', c == '~', c == '*', c == '?':
		return !first
	}
	return false
}

// plainQuoted reports the inside of a quoted plain word (the quote
// character q, ' or ", excluded) that the fast path takes: printable
// characters, and inside double quotes none of $ ` \ ! (expansions,
// escapes, history).
func plainQuoted(inside string, q byte) bool {
	for _, c := range []byte(inside) {
		if c < 0x20 || c > 0x7e || c == q || q == '"' && (c == '$' || c == '`' || c == '\\' || c == '!') {
			return false
		}
	}
	return true
}

// plainWordOf is the Word the builder makes of a plain word: an unquoted
// one is its own value, flagged when it starts with ~ (the home folder;
// elsewhere in a word ~ is a character like another) and when it holds
// * or ? (a glob); a quoted one is its inside, quoted.
func plainWordOf(s string) Word {
	if s[0] == '\'' || s[0] == '"' {
		return Word{Raw: s, Value: s[1 : len(s)-1], Quoted: true}
	}
	glob := false
	for i := 0; i < len(s) && !glob; i++ {
		glob = s[i] == '*' || s[i] == '?' // a loop: strings.ContainsAny costs more on words this short
	}
	return Word{Raw: s, Value: s, Tilde: s[0] == '~', Glob: glob}
}

// plainWords splits a plain command into its words, as written (a
// quoted word with its quotes); ok is false when the command is not one
// (see above).
func plainWords(command string) (words []string, ok bool) {
	return appendPlainWords(nil, command)
}

// appendPlainWords is plainWords appending to words (a caller's buffer).
func appendPlainWords(words []string, command string) ([]string, bool) {
	for i := 0; ; i++ {
		start := i
		if i < len(command) && (command[i] == '\'' || command[i] == '"') && len(words) > 0 {
			q := command[i]
			j := strings.IndexByte(command[i+1:], q)
			if j < 0 || !plainQuoted(command[i+1:i+1+j], q) {
				return nil, false
			}
			i += j + 2
		} else {
			for i < len(command) && command[i] != ' ' {
				if !plainByte(command[i], len(words) == 0, i == start) {
					return nil, false
				}
				i++
			}
			w := command[start:i]
			if w == "" || reserved(w) || w[0] == '=' || strings.Contains(w, "==") {
				// A leading, trailing or double space; a keyword; a test
				// operator (==, =~), which the grammar reads outside [[ ]].
				return nil, false
			}
		}
		words = append(words, command[start:i])
		if i == len(command) {
			return words, true
		}
		if command[i] != ' ' {
			return nil, false // a quoted string joined to more
		}
	}
}

// plainScript splits a script of plain commands joined by " && ",
// " || ", "; " and " | " into its commands, in order, each with the Words
// the walker would make of its words and marked when it ends its
// pipeline (a command alone is a pipeline of one). ok is false when the
// script is not one: the tree judges it.
func plainScript(command string) (cmds []plainCommand, ok bool) {
	return appendPlainScript(nil, command)
}

// appendPlainScript is plainScript appending to cmds (a caller's buffer,
// which most scripts fit: no allocation).
func appendPlainScript(cmds []plainCommand, command string) ([]plainCommand, bool) {
	cmds = cmds[:0]
	inPipe := 0 // commands of the pipeline not ended yet
	// redirected counts the commands with redirects; nested says a
	// pipeline has several commands or commands are joined by && or ||.
	// The tree nests those oddly (a | b > y && c > z is a pipeline whose
	// last stage is a list, a > x | b > y and a && b > x || c 2>&1 are
	// redirected statements around a pipeline and a list), listing
	// redirects in another order: with several redirects in such a
	// script, it is left to the tree.
	redirected, nested := 0, false
	start := 0
	for j := 0; j <= len(command); j++ {
		end, next, pipeEnds := j, j, true
		switch {
		case j == len(command):
		case command[j] == ';' && strings.HasPrefix(command[j:], "; "):
			next = j + 2
		case command[j] == ' ' && strings.HasPrefix(command[j:], " && "),
			command[j] == ' ' && strings.HasPrefix(command[j:], " || "):
			if inPipe >= 2 {
				// tree-sitter-bash reads a | b | c && d as a pipeline
				// whose last stage is the list b | c && d: the walker
				// numbers those pipelines otherwise. Left to the tree.
				return nil, false
			}
			next, nested = j+4, true
		case command[j] == ' ' && strings.HasPrefix(command[j:], " | "):
			next, pipeEnds = j+3, false
		default:
			continue
		}
		c, ok := newPlainCommand(command[start:end])
		if !ok {
			return nil, false
		}
		c.last = pipeEnds
		cmds = append(cmds, c)
		inPipe++
		if c.redirects != nil {
			redirected++
		}
		nested = nested || inPipe > 1
		if redirected > 1 && nested {
			return nil, false
		}
		if pipeEnds {
			inPipe = 0
		}
		if j == len(command) {
			if !plainPipelineRedirects(cmds) {
				return nil, false
			}
			return cmds, true
		}
		start = next
		j = next - 1
	}
	return nil, false // not reached
}

// plainPipelineRedirects reports whether the redirects of a plain
// script's pipelines of several commands are where the tree reads them
// as the fast path does: on the last command, or on the first command of
// the script's first pipeline. Elsewhere the tree nests them otherwise
// (a | b > x | c, a && b > x | c).
func plainPipelineRedirects(cmds []plainCommand) bool {
	for i := 0; i < len(cmds); {
		j := i
		for !cmds[j].last {
			j++
		}
		for k := i; k < j; k++ { // the pipeline's commands but its last
			if cmds[k].redirects != nil && (k > i || i > 0) {
				return false
			}
		}
		i = j + 1
	}
	return true
}

// plainCommand is one command of a plain script.
type plainCommand struct {
	text string // without its redirects, as the tree's command node
	// words are the command's words; cmd is the zero Command the walker
	// fills, allocated with them (see newPlainCommand).
	words     []Word
	cmd       *Command
	assigns   []Assign // NAME=VALUE before the name
	redirects []Redirect
	last      bool // the last command of its pipeline
}

// newPlainCommand evaluates the words of one plain command as the walker
// does a command node's: each as an unquoted word node.
//
// A plain word's value is what the word builder would make of it, without
// building: an unquoted plain word holds no character the builder
// changes or flags (\\ * ? [ { ~ newline; a , or .. matter only after a
// {), so its value is itself; a single-quoted one (a raw_string node) is
// its inside, quoted. TestPlainWordValues checks this against the
// builder for every byte a plain word may hold.
func newPlainCommand(text string) (plainCommand, bool) {
	text, redirects, ok := plainRedirects(text)
	if !ok {
		return plainCommand{}, false
	}
	full := text // the command node spans its assignments
	var assigns []Assign
	for {
		name, value, rest, ok := plainAssign(text)
		if !ok {
			break
		}
		assigns = append(assigns, Assign{Name: name, Value: plainWordOf(value)})
		text = rest
	}
	var buf [16]string // most commands have fewer words: no allocation
	words, ok := appendPlainWords(buf[:0], text)
	if !ok {
		return plainCommand{}, false
	}
	cmd, ws := newCommandWords(len(words))
	for i, s := range words {
		ws[i] = plainWordOf(s)
	}
	return plainCommand{text: full, words: ws, cmd: cmd, assigns: assigns, redirects: redirects}, true
}

// newCommandWords returns a zero Command and n zero Words, in one
// allocation when n is small (most commands have at most four words):
// the Command keeps its arguments, a slice of the words, for as long as
// it lives, so the two are read together.
func newCommandWords(n int) (*Command, []Word) {
	switch {
	case n <= 2:
		b := &struct {
			c Command
			w [2]Word
		}{}
		return &b.c, b.w[:n:n]
	case n <= 4:
		b := &struct {
			c Command
			w [4]Word
		}{}
		return &b.c, b.w[:n:n]
	}
	return &Command{}, make([]Word, n)
}

// plainAssign splits a leading assignment NAME=VALUE off a plain
// command that goes on after it: NAME a shell variable name, VALUE an
// unquoted plain word, not empty.
func plainAssign(text string) (name, value, rest string, ok bool) {
	word, rest, more := strings.Cut(text, " ")
	name, value, isAssign := strings.Cut(word, "=")
	if !more || !isAssign || value == "" || !isVariableName(name) || !plainTarget(value) || value[0] == '\'' || value[0] == '"' {
		return "", "", "", false
	}
	return name, value, rest, true
}

// isVariableName reports a shell variable name that the grammar reads as
// one too: a letter, then letters, digits and _ (the grammar takes _=a
// for a command's name; such names are left to the tree).
func isVariableName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && (c == '_' || '0' <= c && c <= '9')) {
			return false
		}
	}
	return s != ""
}

// plainRedirects splits the redirections off the end of a plain command:
// after its words, one or more of ` OP TARGET` or ` OPTARGET` (OP one of
// > >> < &> &>>, or 1> 1>> 2> 2>>) and ` N>&M` or ` >&M` (N and M single
// digits), TARGET one plain word (see plainTarget). It returns the
// command's text without them (what the tree's command node spans: the
// redirects belong to the redirected_statement around it) and the
// redirects as the walker makes them. A command with none is returned as
// it is; ok is false when a redirect, or anything after the first one,
// is not of that form: the tree judges it.
func plainRedirects(text string) (string, []Redirect, bool) {
	start := plainRedirectStart(text)
	if start < 0 {
		return text, nil, true
	}
	if strings.HasSuffix(text[:start], " -") {
		// tree-sitter-bash drops a word - before a redirect with a
		// descriptor (cd - 2>/dev/null reads as cd 2>/dev/null): the
		// walker refuses the script, and so is it left to the tree.
		return "", nil, false
	}
	var rs []Redirect
	rest := text[start+1:]
	for rest != "" {
		var tok string
		tok, rest, _ = strings.Cut(rest, " ")
		fd, op, target := "", "", ""
		if len(tok) > 0 && (tok[0] == '1' || tok[0] == '2') {
			fd, tok = tok[:1], tok[1:]
		}
		switch {
		case len(tok) == 3 && tok[0] == '>' && tok[1] == '&' && '0' <= tok[2] && tok[2] <= '9':
			op, target = ">&", tok[2:]
		case fd == "" && strings.HasPrefix(tok, "&>>"):
			op, target = "&>>", tok[3:]
		case fd == "" && strings.HasPrefix(tok, "&>"):
			op, target = "&>", tok[2:]
		case strings.HasPrefix(tok, ">>"):
			op, target = ">>", tok[2:]
		case strings.HasPrefix(tok, ">"):
			op, target = ">", tok[1:]
		case fd == "" && strings.HasPrefix(tok, "<"):
			op, target = "<", tok[1:]
		default:
			return "", nil, false
		}
		if target == "" && op != ">&" {
			// The target is the next word.
			target, rest, _ = strings.Cut(rest, " ")
			if target == "" {
				return "", nil, false
			}
		}
		if !plainTarget(target) {
			return "", nil, false
		}
		rs = append(rs, Redirect{Op: op, FD: fd, Target: plainWordOf(target)})
	}
	return text[:start], rs, true
}

// plainRedirectStart returns the index of the space before the first
// word of text that starts a redirect (> < & or 1> 2>), outside single
// quotes and after the command's name; -1 for none.
func plainRedirectStart(text string) int {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\'' || c == '"':
			j := strings.IndexByte(text[i+1:], c)
			if j < 0 {
				return -1 // appendPlainWords refuses it
			}
			i += j + 1
		case c == ' ' && i+1 < len(text):
			// A space: a word (the name, at least) stands before it.
			n := text[i+1]
			if n == '>' || n == '<' || n == '&' ||
				(n == '1' || n == '2') && i+2 < len(text) && text[i+2] == '>' {
				return i
			}
		}
	}
	return -1
}

// plainTarget reports a redirect target the fast path takes: a plain word
// as an argument would be (see appendPlainWords), unquoted or one
// single-quoted string of printable characters.
func plainTarget(t string) bool {
	if q := t[0]; q == '\'' || q == '"' {
		return len(t) >= 2 && t[len(t)-1] == q && plainQuoted(t[1:len(t)-1], q)
	}
	for i := 0; i < len(t); i++ {
		if !plainByte(t[i], false, i == 0) {
			return false
		}
	}
	return !reserved(t) && t[0] != '=' && !strings.Contains(t, "==")
}

// plainScript records the commands of a plain script as the walker does
// the tree of one: statements in order, and a pipeline of several
// commands numbered, each of its commands (and those they run) given the
// pipeline and its stage.
func (w *walker) plainScript(cmds []plainCommand) {
	for i := 0; i < len(cmds); {
		j := i
		for !cmds[j].last {
			j++ // the last command is always last of its pipeline
		}
		pipe := cmds[i : j+1]
		i = j + 1
		if len(pipe) == 1 {
			w.p.script.Redirects = append(w.p.script.Redirects, pipe[0].redirects...)
			w.resolve(pipe[0].command(), pipe[0].words, nil)
			continue
		}
		w.p.pipeline++
		id := w.p.pipeline
		for stage, c := range pipe {
			before := len(w.p.script.Commands)
			w.p.script.Redirects = append(w.p.script.Redirects, c.redirects...)
			w.resolve(c.command(), c.words, nil)
			for _, cmd := range w.p.script.Commands[before:] {
				if cmd.Pipeline == 0 {
					cmd.Pipeline, cmd.Stage = id, stage
				}
			}
		}
	}
}

// command returns the Command the walker resolves c into: the one
// allocated with its words, holding its text and assignments.
func (c *plainCommand) command() *Command {
	c.cmd.Text, c.cmd.Assigns = c.text, c.assigns
	return c.cmd
}
