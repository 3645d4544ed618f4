package bash

import (
	"fmt"
	"path"
	"strings"
)

// MaxCommandLength is the longest command analysed; longer ones are
// unanalysable.
const MaxCommandLength = 10_000

// maxDepth bounds the nesting of `bash -c` strings parsed recursively.
const maxDepth = 4

// Script is what a command string would run.
type Script struct {
	// Commands are the simple commands, in source order.
	Commands []*Command
	// Redirects are every redirect of the script, whichever command or
	// group it applies to.
	Redirects []Redirect
	// Unsafe lists why the script cannot be analysed statically; empty
	// when it can.
	Unsafe []string
	// Incomplete reports that some of the script could not be parsed at
	// all (too long, a parse error, nesting too deep): Commands may miss
	// commands it runs.
	Incomplete bool
}

// Analysable reports whether the script can be judged statically.
func (s *Script) Analysable() bool { return len(s.Unsafe) == 0 }

// Command is one simple command.
type Command struct {
	// Name is the command's name after quote removal, reduced to its
	// basename ("/bin/rm" -> "rm"). Empty for a bare assignment.
	Name string
	// NameWord is the command word as written.
	NameWord Word
	// Args are the arguments after the name.
	Args []Word
	// Assigns are the NAME=value prefixes (or a bare assignment).
	Assigns []Assign
	// Wrappers are the wrapper commands peeled off to reach this one,
	// outermost first ("sudo", "timeout", ...).
	Wrappers []string
	// Via says how the command was reached when it is not a direct
	// command of the script: "bash -c", "find -exec", "xargs".
	Via string
	// MoreArgs reports that more arguments are added at run time
	// (commands run by xargs).
	MoreArgs bool
	// AfterCd reports that a cd to another directory ran before this
	// command, so relative paths are relative to another directory: the
	// one Cds lead to from the script's, unless CdLost.
	AfterCd bool
	// Cds are the arguments of the cd (and pushd) commands that ran before
	// this one, in order; an empty Word stands for a cd with no argument
	// (the home directory). CdLost reports a change of directory that
	// cannot be followed statically (cd -, popd, cd with options).
	Cds    []Word
	CdLost bool
	// Pipeline numbers the pipeline the command is part of (0: none) and
	// Stage its position in it.
	Pipeline, Stage int
	// FindRoots are the folders of the find command that runs this one
	// (find -exec): its {} stands for what is below them.
	FindRoots []Word
	// Text is the source text of the command.
	Text string

	// readOnly caches readOnly's verdict: 0 not known, 1 yes, 2 no.
	readOnly int8
}

// PathQualified reports whether the command was named with a path.
func (c *Command) PathQualified() bool { return strings.Contains(c.NameWord.Value, "/") }

// Values returns the argument values.
func (c *Command) Values() []string {
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		out[i] = a.Value
	}
	return out
}

// Assign is a variable assignment.
type Assign struct {
	Name  string
	Value Word
}

// Redirect is one redirection.
type Redirect struct {
	// Op is the operator: > >> >| &> &>> <> < <& >& << <<< and so on.
	Op string
	// FD is the file descriptor written before the operator, if any.
	FD string
	// Target is the file (or descriptor) redirected to or from.
	Target Word
}

// Output reports whether the redirect writes to a file (as opposed to
// reading one, or duplicating a descriptor).
func (r Redirect) Output() bool {
	switch r.Op {
	case ">", ">>", ">|", "&>", "&>>", "<>":
		return true
	case ">&", "&>|":
		// ">& file" writes both streams to a file; ">&2" duplicates.
		return !isFDTarget(r.Target.Value)
	}
	return false
}

// Input reports whether the redirect reads a file.
func (r Redirect) Input() bool { return r.Op == "<" || r.Op == "<>" }

func isFDTarget(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Parse analyses a command string. It never fails: what cannot be
// analysed is reported in Script.Unsafe.
func Parse(command string) *Script {
	// The script, its parser and room for its first commands in one
	// allocation.
	sp := &struct {
		s    Script
		p    parser
		cmds [2]*Command
	}{}
	s, p := &sp.s, &sp.p
	p.script = s
	s.Commands = sp.cmds[:0]
	p.parse(command, 0, "")
	if len(s.Commands) == 0 {
		s.Commands = nil // as the parse of no command leaves it
	}
	markReadOnly(s)
	return s
}

type parser struct {
	script   *Script
	pipeline int
	afterCd  bool
	cds      []Word // arguments of the cd/pushd commands so far, in order
	cdLost   bool   // a cd whose target is not a plain argument (cd -, popd, options)
	treeOnly bool   // no fast path for plain commands (tests compare the two)
}

func (p *parser) unsafe(format string, args ...any) {
	p.script.Unsafe = append(p.script.Unsafe, fmt.Sprintf(format, args...))
}

// giveUp records why a piece of the script was not parsed at all.
func (p *parser) giveUp(format string, args ...any) {
	p.script.Incomplete = true
	p.unsafe(format, args...)
}

func (p *parser) parse(command string, depth int, via string) {
	if len(command) > MaxCommandLength {
		p.giveUp("the command is longer than %d characters", MaxCommandLength)
		return
	}
	if hasBackslashNewline(command) {
		// Both bash grammars mis-parse "$\<newline>(cmd)"; refuse rather
		// than trust them.
		p.giveUp("a backslash-newline outside single quotes")
		return
	}
	if strings.ContainsRune(command, 0) {
		p.giveUp("a NUL byte")
		return
	}
	if i := indexControl(command); i >= 0 {
		// bash and tree-sitter disagree on \r, \v and \f (blank to one,
		// part of a word to the other): refuse them.
		p.giveUp("the control character %q", command[i])
		return
	}
	var buf [4]plainCommand // most plain scripts have fewer commands: no allocation
	if cmds, ok := appendPlainScript(buf[:0], command); ok && !p.treeOnly {
		w := &walker{p: p, src: command, depth: depth, via: via}
		w.plainScript(cmds)
		return
	}
	tree, hasError, ok := parseFlat(asciiOnly(command))
	if !ok {
		p.giveUp("the command could not be parsed")
		return
	}
	if hasError {
		p.giveUp("the command does not parse as shell syntax")
		return
	}
	defer tree.release()
	w := &walker{p: p, src: command, depth: depth, via: via}
	w.statements(tree.root())
}

// asciiOnly returns the command with every non-ASCII byte replaced by
// 'a', for the parser only; node offsets are unchanged, so words are read
// from the original text. The grammar's scanner passes code points to
// isdigit(), which reads out of bounds past 255 and crashes the process
// on some inputs ("{" followed by U+E0000); to bash, non-ASCII
// characters are ordinary word characters, which 'a' is too.
func asciiOnly(s string) []byte {
	b := []byte(s)
	for i, c := range b {
		if c >= 0x80 {
			b[i] = 'a'
		}
	}
	return b
}

// isControl reports C0 control characters other than tab and newline.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f
}

// indexControl is strings.IndexFunc(s, isControl) without decoding
// runes: control characters are single bytes in UTF-8, and no byte of a
// longer sequence (all 0x80 or above) is one.
func indexControl(s string) int {
	for i := 0; i < len(s); i++ {
		if isControl(rune(s[i])) {
			return i
		}
	}
	return -1
}

// hasBackslashNewline reports a backslash-newline outside single quotes.
func hasBackslashNewline(s string) bool {
	inSingle, inDouble := false, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			if !inDouble {
				inSingle = !inSingle
			}
		case '"':
			if !inSingle {
				inDouble = !inDouble
			}
		case '\\':
			if inSingle {
				continue
			}
			if i+1 < len(s) && (s[i+1] == '\n' || (s[i+1] == '\r' && i+2 < len(s) && s[i+2] == '\n')) {
				return true
			}
			i++ // skip the escaped character (an escaped quote is not a quote)
		}
	}
	return false
}

type walker struct {
	p     *parser
	src   string // the command: node texts are its substrings
	depth int
	via   string
}

func (w *walker) unsafeNode(n *node) {
	w.p.unsafe("%s cannot be analysed statically", describeNode(n.Type()))
}

func describeNode(kind string) string {
	switch kind {
	case "command_substitution":
		return "command substitution $(...) or `...`"
	case "process_substitution":
		return "process substitution <(...) or >(...)"
	case "expansion":
		return "parameter expansion ${...}"
	case "arithmetic_expansion":
		return "arithmetic expansion $((...))"
	case "subshell":
		return "a subshell (...)"
	case "for_statement", "c_style_for_statement":
		return "a for loop"
	case "while_statement":
		return "a while or until loop"
	case "if_statement":
		return "an if statement"
	case "case_statement":
		return "a case statement"
	case "function_definition":
		return "a function definition"
	case "test_command":
		return "a test [[ ]] or (( ))"
	case "brace_expansion":
		return "brace expansion {a,b}"
	case "nul_in_string":
		return "a NUL byte in a $'...' string"
	case "bad_expansion":
		return "a $ the shell would read differently"
	case "newline_in_word":
		return "a newline inside a word"
	}
	return "the construct " + kind
}

// statements walks a node holding statements.
func (w *walker) statements(n *node) {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		w.statement(n.NamedChild(i), nil)
	}
}

// statement walks one statement; redirects collects redirects applying to
// it from an enclosing redirected_statement.
func (w *walker) statement(n *node, redirects []Redirect) {
	switch n.Type() {
	case "comment":
		if !w.commentStartsWord(n) {
			w.p.unsafe("a # that bash does not read as a comment")
		}
	case "list":
		for i := 0; i < int(n.NamedChildCount()); i++ {
			w.statement(n.NamedChild(i), nil)
		}
	case "pipeline":
		w.p.pipeline++
		id := w.p.pipeline
		stage := 0
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			before := len(w.p.script.Commands)
			w.statement(c, nil)
			for _, cmd := range w.p.script.Commands[before:] {
				if cmd.Pipeline == 0 {
					cmd.Pipeline, cmd.Stage = id, stage
				}
			}
			stage++
		}
	case "redirected_statement":
		var rs []Redirect
		var body *node
		from := n.StartByte()
		for i := 0; i < int(n.ChildCount()); i++ {
			c := n.Child(i)
			// tree-sitter-bash drops a word - standing before a redirect
			// with a descriptor (cd - 2>/dev/null reads as cd 2>/dev/null,
			// which goes home): text between the children that is not
			// blank is a word bash runs and the tree lost.
			if gap := w.src[from:c.StartByte()]; strings.Trim(gap, " \t") != "" {
				w.p.unsafe("text the parser skipped (%q) before a redirect", strings.TrimSpace(gap))
			}
			from = c.EndByte()
			if !c.IsNamed() {
				continue
			}
			if n.FieldNameForChild(i) == "body" {
				body = c
				continue
			}
			if r, ok := w.redirect(c); ok {
				rs = append(rs, r)
			}
		}
		w.p.script.Redirects = append(w.p.script.Redirects, rs...)
		if body != nil {
			w.statement(body, rs)
		}
	case "compound_statement", "negated_command":
		for i := 0; i < int(n.NamedChildCount()); i++ {
			w.statement(n.NamedChild(i), nil)
		}
	case "command":
		w.command(n)
	case "variable_assignment", "variable_assignments":
		var as []Assign
		w.assignments(n, &as)
		w.add(&Command{Assigns: as, Text: n.Content(w.src)})
	case "declaration_command", "unset_command":
		w.declaration(n)
	default:
		w.unsafeNode(n)
		// The construct cannot be judged, but rules must still reach the
		// commands inside it: a deny on rm hits `(rm -f f)` and the body
		// of an if or a for.
		w.descend(n)
	}
}

// statementKinds are the node types statement handles.
var statementKinds = setOf("comment", "list", "pipeline", "redirected_statement", "compound_statement", "negated_command",
	"command", "variable_assignment", "variable_assignments", "declaration_command", "unset_command",
	"subshell", "if_statement", "while_statement", "for_statement", "c_style_for_statement", "case_statement",
	"function_definition", "test_command")

// descend walks the children of a construct that cannot be analysed,
// collecting the commands it holds.
func (w *walker) descend(n *node) {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch {
		case statementKinds[c.Type()]:
			w.statement(c, nil)
		case c.Type() == "command_substitution" || c.Type() == "process_substitution":
			w.descend(c)
		default:
			w.descend(c)
		}
	}
}

// substitutions collects the commands of the command and process
// substitutions inside a word: `echo $(rm -f f)` runs rm.
func (w *walker) substitutions(n *node) {
	if n.Type() == "command_substitution" || n.Type() == "process_substitution" {
		w.descend(n)
		return
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		if c.Type() == "command_substitution" || c.Type() == "process_substitution" {
			w.descend(c)
			continue
		}
		w.substitutions(c)
	}
}

func (w *walker) assignments(n *node, out *[]Assign) {
	if n.Type() == "variable_assignments" {
		for i := 0; i < int(n.NamedChildCount()); i++ {
			w.assignments(n.NamedChild(i), out)
		}
		return
	}
	a := Assign{}
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		switch n.FieldNameForChild(i) {
		case "name":
			if c.Type() != "variable_name" {
				// a[i]=x: the subscript is evaluated arithmetically.
				w.unsafeNode(c)
			}
			a.Name = c.Content(w.src)
		case "value":
			a.Value = w.word(c)
		}
	}
	*out = append(*out, a)
}

// declaration handles export/declare/local/readonly/typeset/unset: a
// command like any other, named by its keyword.
func (w *walker) declaration(n *node) {
	cmd := &Command{Text: n.Content(w.src)}
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		if !c.IsNamed() {
			if cmd.Name == "" {
				cmd.Name = c.Type()
				cmd.NameWord = Word{Raw: cmd.Name, Value: cmd.Name}
			}
			continue
		}
		if c.Type() == "variable_assignment" {
			var as []Assign
			w.assignments(c, &as)
			for _, a := range as {
				cmd.Args = append(cmd.Args, Word{Raw: a.Name + "=" + a.Value.Raw, Value: a.Name + "=" + a.Value.Value, Vars: a.Value.Vars, Dynamic: a.Value.Dynamic})
			}
			continue
		}
		cmd.Args = append(cmd.Args, w.word(c))
	}
	w.add(cmd)
}

func (w *walker) word(n *node) Word {
	var kinds []string
	word := evalWord(n, w.src, &kinds)
	for _, k := range kinds {
		w.p.unsafe("%s cannot be analysed statically", describeNode(k))
	}
	if len(kinds) > 0 {
		w.substitutions(n)
	}
	return word
}

// command handles a simple command node.
func (w *walker) command(n *node) {
	cmd := &Command{Text: n.Content(w.src)}
	var words []Word
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		if !c.IsNamed() {
			// tree-sitter-bash drops tokens such as == and =~ outside
			// [[ ]] and joins lines around them: refuse.
			w.p.unsafe("the token %q in a command", c.Type())
			continue
		}
		switch field := n.FieldNameForChild(i); {
		case c.Type() == "variable_assignment":
			w.assignments(c, &cmd.Assigns)
		case field == "name":
			words = append(words, w.word(c))
		case field == "redirect" || strings.HasSuffix(c.Type(), "_redirect"):
			if r, ok := w.redirect(c); ok {
				w.p.script.Redirects = append(w.p.script.Redirects, r)
			}
		default:
			words = append(words, w.word(c))
		}
	}
	if len(words) == 0 {
		w.add(cmd)
		return
	}
	w.resolve(cmd, words, nil)
}

// commentStartsWord reports whether bash would read the # that starts n
// as a comment: at the start of the input, or after an unescaped blank,
// newline or operator.
func (w *walker) commentStartsWord(n *node) bool {
	i := int(n.StartByte())
	if i == 0 {
		return true
	}
	switch w.src[i-1] {
	case ';', '&', '|', '(', ')', '\n':
		return true
	case ' ', '\t':
		// An escaped blank belongs to the word before it.
		backslashes := 0
		for j := i - 2; j >= 0 && w.src[j] == '\\'; j-- {
			backslashes++
		}
		return backslashes%2 == 0
	}
	return false
}

// add records a command.
func (w *walker) add(cmd *Command) {
	cmd.AfterCd = cmd.AfterCd || w.p.afterCd
	cmd.Cds = w.p.cds
	cmd.CdLost = cmd.CdLost || w.p.cdLost
	if cmd.Via == "" {
		cmd.Via = w.via
	}
	w.p.script.Commands = append(w.p.script.Commands, cmd)
	if cmd.Name == "cd" || cmd.Name == "pushd" || cmd.Name == "popd" {
		if len(cmd.Args) == 1 && cmd.Args[0].Value == "." {
			return
		}
		w.p.afterCd = true
		switch {
		case cmd.Name == "popd" || len(cmd.Args) > 1 || len(cmd.Args) == 1 && strings.HasPrefix(cmd.Args[0].Value, "-"):
			w.p.cdLost = true
		case len(cmd.Args) == 0:
			w.p.cds = append(append([]Word(nil), w.p.cds...), Word{})
		default:
			w.p.cds = append(append([]Word(nil), w.p.cds...), cmd.Args[0])
		}
	}
}

// resolve sets the name and arguments of cmd from words, peeling wrappers
// (and recursing into the commands they run).
func (w *walker) resolve(cmd *Command, words []Word, wrappers []string) {
	name := words[0]
	cmd.NameWord = name
	cmd.Name = path.Base(name.Value)
	if name.Value == "" || strings.HasSuffix(name.Value, "/") {
		cmd.Name = name.Value
	}
	cmd.Args = words[1:]
	cmd.Wrappers = wrappers
	if name.Glob {
		w.p.unsafe("a glob in a command name (%s)", name.Value)
	}
	w.add(cmd)
	if !name.Literal() {
		return
	}
	// Commands this one runs: a command string (bash -c, su -c, ...),
	// the operands of a wrapper, find's -exec.
	if script, ok := shellCommandString(cmd); ok {
		if w.depth >= maxDepth {
			w.p.giveUp("shell -c strings nested too deeply")
			return
		}
		if !script.Literal() {
			// Not analysable, but the commands its text names are
			// collected, for the rules: sh -c "rm $f" runs rm.
			w.p.unsafe("a %s -c string built at run time", cmd.Name)
			sub := &parser{script: &Script{}, treeOnly: w.p.treeOnly}
			sub.parse(script.Value, w.depth+1, cmd.Name+" -c")
			w.p.script.Commands = append(w.p.script.Commands, sub.script.Commands...)
			return
		}
		w.p.parse(script.Value, w.depth+1, cmd.Name+" -c")
		return
	}
	if inner, ok := unwrap(cmd); ok {
		if len(inner.words) == 0 {
			return
		}
		sub := &Command{Text: cmd.Text, Via: inner.via, MoreArgs: inner.moreArgs || cmd.MoreArgs, Pipeline: cmd.Pipeline, Stage: cmd.Stage}
		sub.Assigns = inner.assigns
		w.resolve(sub, inner.words, append(append([]string(nil), wrappers...), cmd.Name))
		return
	}
	for _, ex := range findExecs(cmd) {
		sub := &Command{Text: cmd.Text, Via: "find " + ex.flag, FindRoots: findRoots(cmd)}
		w.resolve(sub, ex.words, append(append([]string(nil), wrappers...), "find"))
	}
}

// redirect evaluates a redirect node.
func (w *walker) redirect(n *node) (Redirect, bool) {
	r := Redirect{}
	switch n.Type() {
	case "file_redirect":
		targets := 0
		for i := 0; i < int(n.ChildCount()); i++ {
			c := n.Child(i)
			switch {
			case c.Type() == "file_descriptor":
				r.FD = c.Content(w.src)
			case !c.IsNamed():
				r.Op = c.Type()
			default:
				r.Target = w.word(c)
				targets++
				w.checkGap(n, c)
			}
		}
		if targets != 1 {
			// tree-sitter-bash joins lines into a redirect it cannot end
			// (ls <$\nrm -rf /): bash reads them differently.
			w.p.unsafe("a redirect with %d targets", targets)
		}
	case "heredoc_redirect":
		r.Op = "<<"
		w.heredoc(n, &r)
	case "herestring_redirect":
		r.Op = "<<<"
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			if c.Type() == "file_descriptor" {
				r.FD = c.Content(w.src)
				continue
			}
			r.Target = w.word(c)
			w.checkGap(n, c)
		}
	default:
		w.unsafeNode(n)
		return r, false
	}
	return r, true
}

// checkGap makes sure only blanks stand between a redirect's operator and
// its target: tree-sitter-bash swallows an escaped blank and a newline
// there (ls <<<\ <newline>touch x), where bash ends the command.
func (w *walker) checkGap(redirect, target *node) {
	from := int(redirect.StartByte())
	for i := 0; i < int(redirect.ChildCount()); i++ {
		c := redirect.Child(i)
		if c.Equal(target) {
			break
		}
		from = int(c.EndByte())
	}
	for _, b := range []byte(w.src[from:target.StartByte()]) {
		if b != ' ' && b != '\t' {
			w.p.unsafe("a redirect target the shell would read differently")
			return
		}
	}
}

// heredoc checks a here-document against bash's reading of it and
// collects what its body expands. bash ends the body only at a line that
// is exactly the delimiter (after leading tabs for <<-); where the parser
// ended it elsewhere, the two disagree about what runs.
func (w *walker) heredoc(n *node, r *Redirect) {
	var start, end *node
	stripTabs := false
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		switch c.Type() {
		case "<<-":
			stripTabs = true
		case "heredoc_start":
			start = c
		case "heredoc_end":
			end = c
		case "heredoc_body", "<<", "file_descriptor":
		default:
			if c.IsNamed() {
				// A command after the heredoc operator (cat <<EOF | sh)
				// is a statement in its own right: the next stages of
				// the pipeline the heredoc's command starts.
				before := len(w.p.script.Commands)
				w.statement(c, nil)
				for _, cmd := range w.p.script.Commands[before:] {
					if cmd.Pipeline != 0 {
						cmd.Stage++
					}
				}
			}
		}
	}
	if start == nil || end == nil {
		w.p.unsafe("a here-document without its end")
		return
	}
	rawDelim := start.Content(w.src)
	quoted := strings.ContainsAny(rawDelim, "'\"\\")
	delim := strings.NewReplacer("'", "", "\"", "", "\\", "").Replace(rawDelim)
	// The end line, as bash sees it.
	lineStart := strings.LastIndexByte(string(w.src[:end.StartByte()]), '\n') + 1
	lineEnd := len(w.src)
	if j := strings.IndexByte(string(w.src[end.StartByte():]), '\n'); j >= 0 {
		lineEnd = int(end.StartByte()) + j
	}
	line := string(w.src[lineStart:lineEnd])
	if stripTabs {
		line = strings.TrimLeft(line, "\t")
	}
	if line != delim {
		w.p.unsafe("a here-document whose end line %q is not exactly %q", line, delim)
		return
	}
	if quoted {
		return // a quoted delimiter: the body is literal
	}
	body := string(w.src[start.EndByte():lineStart])
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '`':
			w.p.unsafe("command substitution in a here-document")
			w.substitutions(n)
			return
		case '$':
			if i+1 >= len(body) {
				continue
			}
			switch c := body[i+1]; {
			case c == '(' || c == '{' || c == '[':
				w.p.unsafe("an expansion in a here-document")
				w.substitutions(n)
				return
			case c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'):
				j := i + 1
				for j < len(body) && (body[j] == '_' || ('a' <= body[j] && body[j] <= 'z') || ('A' <= body[j] && body[j] <= 'Z') || ('0' <= body[j] && body[j] <= '9')) {
					j++
				}
				r.Target.Vars = append(r.Target.Vars, body[i+1:j])
			case ('0' <= c && c <= '9') || strings.ContainsRune("@*#?$!-", rune(c)):
				r.Target.Vars = append(r.Target.Vars, string(c))
			}
		}
	}
}
