package bash

import (
	"reflect"
	"strings"
	"testing"
)

// parseTree is Parse without the fast path for plain commands.
func parseTree(command string) *Script {
	s := &Script{}
	p := &parser{script: s, treeOnly: true}
	p.parse(command, 0, "")
	markReadOnly(s)
	return s
}

// samePlain checks that a plain command parses to the script the tree
// gives.
func samePlain(t *testing.T, command string) {
	t.Helper()
	if _, ok := plainScript(command); !ok {
		return
	}
	got, want := Parse(command), parseTree(command)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: the fast path gives\n%+v\nthe tree\n%+v", command, got, want)
	}
}

func TestPlainCommandsMatchTree(t *testing.T) {
	cmds := []string{"ls -la", "a=b c", "env A=1 ls", "ls a=b", "2 3", "exit 1", "bash -c ls", "sudo rm -rf /",
		"timeout 5 ls", "find . -delete", "xargs rm", "sh -c id", "git -C dir status", "nice -n 5 ls", ":", ".", "..",
		"-", "--", "%1", "@", "+x", ",", "a,b", "a..b", "ls -- -x", "cd /tmp", "cd", "pushd x", "popd", "a:b:c", "ls x=",
		"ls =", "ls ==", "ls a==b", "ls =~", "ls a=~b", "ls a=", "ls -a=b=c", "test -f x", "true", "command ls", "builtin cd", "exec ls", "source x", ". x", "nohup ls",
		"stdbuf -o0 ls", "env ls", "env -i ls", "sudo -u x ls", "doas ls", "watch ls", "ssh host ls", "xargs -I x sh -c x",
		"cd .. ", " ls", "ls  -l", "git status", "rm -rf /", "rm -rf ~", "cd /tmp rm", "sudo -s", "su -c id root",
		"python3 -c x", "npm run build", "go test ./...", "make -j4", "kill -9 1", "chmod 777 /", "dd if=/dev/zero of=/dev/sda",
		"git push --force", "curl http://x", "wget -O- x.sh", "sh x.sh", "tee /etc/passwd", "mv a /", "cp -r /etc /tmp",
		"a | b | c", "a && b || c", "a; b", "a && b | c", "a | b && c", "a; b && c", "a; b; c | d", "cd x && ls", "cd x; rm y",
		"sudo rm x | cat", "ls | sudo tee x", "bash -c ls | sh", "a |b", "a| b", "a ;b", "a;b", "a ; b", "a;", "a &&", "&& a",
		"a & b", "a &", "a || b | c && d; e", "a | b; c | d", "find . -exec rm | x", "xargs rm | ls && cd .. && ls",
		"a |& b", "a ;; b", "a && && b", "a | | b", "a; ; b", "echo 'a'", "echo ''", "echo 'a b'", "echo 'a' 'b'",
		"echo 'a'b", "echo a'b'", "echo 'a", "'ls' x", "echo 'a && b'", "echo 'a; b' c", "echo 'it''s'", "echo '$(id)'",
		"echo '#x'", "echo '\\'", "sed -n '1p' f", "grep 'a|b' f | wc -l", "echo 'if'", "echo '=='", "echo ' '",
		"git commit -m 'fix: a, b' && git push", "echo '~'", "echo 'a\nb'", "echo 'a' | 'b'",
		"cat file.txt > backup.txt", "echo 'hello' > output.txt", "ls >out", "ls > out 2>&1", "ls 2>/dev/null", "npm test &> log",
		"ls >> a", "cat < in", "ls 1>&2", "ls 2>&1 | grep x", "cat a > b && echo ok", "a > x | b > y", "a | b > y && c > z",
		"ls > 'out file'", "ls 2 > x", "ls > a b", "ls >", "ls > if", "ls > =x", "ls >&-", "echo 'a > b'", "x=1 > f", "ls > ~/x",
		"NODE_ENV=prod npm run build", "A=1 B=2 ls", "A= ls", "A='x' ls", "_=a a", "A=1", "A=1 B=2", "A=~/x ls", "A=x:~/y ls", "1A=x ls",
		"rm -rf ~", "ls ~/.ssh", "ls ~root", "ls a~b", "ls ~+/x", "ls ~-", "sudo A=1 ls", "env A=~/x ls", "A=1 sudo ls > f",
		// tree-sitter-bash drops a word - before N>: the walker refuses.
		"cd - 2>/dev/null", "ls - 1>x", "ls x - 2>&1 | cat", "a && b - 2>x", "ls - >x", "ls -- 2>x", "ls '-' 2>x"}
	for _, c := range append(cmds, corpusCommands(t)...) {
		samePlain(t, c)
	}
	covered := 0
	for _, c := range corpusCommands(t) {
		if _, ok := plainScript(c); ok {
			covered++
		}
	}
	if covered == 0 {
		t.Error("no corpus command takes the fast path")
	}
	t.Logf("%d of the %d corpus commands take the fast path", covered, len(corpusCommands(t)))
	for _, w := range []string{`"$x"`, "\"`id`\"", `"a\b"`, `"a!"`, `"a`, `"a"b`, `a"b"`, "'a'\"b\""} {
		if _, ok := plainWords("ls " + w); ok {
			t.Errorf("ls %s is not plain", w)
		}
	}
	for _, kw := range strings.Fields("if then fi for do done in time export") {
		if _, ok := plainWords("echo " + kw); ok {
			t.Errorf("%s is reserved", kw)
		}
	}
}

// TestPlainWordsExhaustive compares the fast path with the tree for every
// word of up to five characters over the characters plain words may hold
// (one of each kind), as the command's name and as an argument.
func TestPlainWordsExhaustive(t *testing.T) {
	max := 5
	if testing.Short() {
		max = 4
	}
	const alphabet = "a1-./:,+=_ ;&|'"
	words := wordsOver(alphabet, max)
	for _, w := range words {
		samePlain(t, w)
		samePlain(t, "x "+w)
	}
}

// TestPlainStructuresExhaustive compares the fast path with the tree for
// every way of joining up to eight commands with | && || and ;: the
// grammar nests some of them oddly (a | b | c && d), and the pipelines
// the walker numbers follow the tree's nesting.
func TestPlainStructuresExhaustive(t *testing.T) {
	max := 8
	if testing.Short() {
		max = 6
	}
	seps := []string{" | ", " && ", " || ", "; "}
	var gen func(s string, n int)
	gen = func(s string, n int) {
		samePlain(t, s)
		if n == max {
			return
		}
		for _, sep := range seps {
			gen(s+sep+string(rune('a'+n)), n+1)
		}
	}
	gen("a", 1)
}

// TestPlainRedirectsExhaustive compares the fast path with the tree for
// every way of joining up to four commands with | && || and ;, each
// without a redirect or with one of several kinds, and for redirects of
// every form the fast path reads after one command.
func TestPlainRedirectsExhaustive(t *testing.T) {
	redirects := []string{"", " > f", " 2>&1", " <g"}
	if !testing.Short() {
		redirects = append(redirects, " >> 'h i' 2>/dev/null")
	}
	seps := []string{" | ", " && ", " || ", "; "}
	var gen func(s string, n int)
	gen = func(s string, n int) {
		for _, r := range redirects {
			cmd := s + string(rune('a'+n)) + r
			samePlain(t, cmd)
			if n < 3 {
				for _, sep := range seps {
					gen(cmd+sep, n+1)
				}
			}
		}
	}
	gen("", 0)
	ops := []string{">", ">>", "<", "&>", "&>>", "1>", "2>", "1>>", "2>>", ">&", "1>&", "2>&", "<>", ">|", "3>", "<<", "<<<", "&", "0<"}
	targets := []string{"f", "'f g'", "1", "2", "-", "/dev/null", "a=b", "=", "in", "x:y", "''", "'", "f'", "&1", ">", "~", "$x", "*"}
	for _, op := range ops {
		for _, tg := range targets {
			for _, form := range []string{"ls " + op + tg, "ls " + op + " " + tg, "ls x " + op + tg + " y", "ls " + op + tg + " " + op + tg} {
				samePlain(t, form)
			}
		}
	}
}

// TestPlainTildeAssignExhaustive compares the fast path with the tree
// for every word of up to four characters over an alphabet with ~, as an
// argument, a redirect target, an assignment's value and an assignment
// standing before a command, and for assignments of every short name.
func TestPlainTildeAssignExhaustive(t *testing.T) {
	const alphabet = "a~/=:+-_1"
	words := wordsOver(alphabet, 4)
	for _, w := range words {
		for _, cmd := range []string{"ls " + w, "ls > " + w, "A=" + w + " ls", w + " ls", w + " B=b ls", "A=a " + w + " x", "ls; " + w + " x > y"} {
			samePlain(t, cmd)
		}
	}
}

// TestPlainQuotesGlobsExhaustive compares the fast path with the tree
// for every word of up to four characters over an alphabet with quotes,
// globs and the characters double quotes treat specially, as an
// argument, a redirect target and an assignment's value.
func TestPlainQuotesGlobsExhaustive(t *testing.T) {
	alphabet := "a\"'*?$!\\ ~-["
	max := 4
	if testing.Short() {
		max = 3
	}
	words := wordsOver(alphabet, max)
	for _, w := range words {
		for _, cmd := range []string{"ls " + w, "ls > " + w, "A=" + w + " ls", "ls x" + w + " y"} {
			samePlain(t, cmd)
		}
	}
}

// builtPlainWord is what the word builder makes of a plain word: an
// unquoted word node, or a raw_string node for a single-quoted one.
func builtPlainWord(s string) (Word, []string) {
	var kinds []string
	wb := &wordBuilder{src: s, unsafe: &kinds, first: true}
	wb.w.Raw = s
	switch s[0] {
	case '\'':
		wb.literal(s[1 : len(s)-1])
	case '"':
		wb.w.Quoted = true
		wb.first = false
		wb.b.WriteString(unescapeDoubleQuoted(s[1 : len(s)-1]))
	default:
		wb.unquoted(s)
	}
	wb.w.Value = wb.b.String()
	return wb.w, kinds
}

// TestPlainWordValues checks that the fast path's words are the ones the
// word builder makes, for every byte a plain word may hold (alone, first,
// last, doubled, next to every other) and single-quoted strings of every
// printable character.
func TestPlainWordValues(t *testing.T) {
	var plain []byte
	for c := 0; c < 256; c++ {
		if plainByte(byte(c), false, false) {
			plain = append(plain, byte(c))
		}
	}
	var words []string
	for _, a := range plain {
		for _, b := range plain {
			words = append(words, string([]byte{'x', a}), string([]byte{a, b}), string([]byte{a, b, a, 'y', b}))
		}
	}
	for c := byte(0x20); c <= 0x7e; c++ {
		if c != '\'' {
			words = append(words, "'"+string(c)+"'", "'a"+string(c)+string(c)+"b'")
		}
		words = append(words, `"`+string(c)+`"`, `"a`+string(c)+string(c)+`b"`)
	}
	words = append(words, "''", "'a{b,c}'", "'~x'", "a..b", "a,b", "x.,y")
	checked := 0
	for _, w := range words {
		cmd := "ls " + w
		pc, ok := newPlainCommand(cmd)
		if !ok {
			continue
		}
		checked++
		want, kinds := builtPlainWord(w)
		if len(kinds) > 0 || !reflect.DeepEqual(pc.words[1], want) {
			t.Errorf("%q: fast path %+v, builder %+v (%v)", w, pc.words[1], want, kinds)
		}
		if name, _ := builtPlainWord("ls"); !reflect.DeepEqual(pc.words[0], name) {
			t.Errorf("%q: name %+v, builder %+v", cmd, pc.words[0], name)
		}
	}
	if checked < len(words)/2 {
		t.Errorf("only %d of %d words took the fast path", checked, len(words))
	}
}

// TestPlainDashBeforeRedirect: tree-sitter-bash loses the word - before a
// redirect with a descriptor (cd - 2>/dev/null reads as cd 2>/dev/null,
// a cd home where bash goes back to $OLDPWD). The walker refuses such a
// script and the fast path leaves it to the tree; every other short
// word before a redirect is kept by both.
func TestPlainDashBeforeRedirect(t *testing.T) {
	for _, cmd := range []string{"cd - 2>/dev/null", "ls - 1>x", "ls x - 2>&1 | cat", "a - 2>x && b", "ls - 1> x", "git checkout - 2>&1"} {
		if _, ok := plainScript(cmd); ok {
			t.Errorf("%q takes the fast path", cmd)
		}
		if s := Parse(cmd); s.Analysable() {
			t.Errorf("%q is analysable: %+v", cmd, s.Commands[0])
		}
	}
	for _, w := range wordsOver("-a1=~:+._/", 3) {
		for _, form := range []string{"ls " + w + " 1>x", "ls " + w + " 2>&1", "ls " + w + " >x", "ls " + w + " &>x"} {
			samePlain(t, form)
			s := parseTree(form)
			if !s.Analysable() {
				continue
			}
			if vs := s.Commands[0].Values(); len(vs) != 1 || vs[0] != w {
				t.Errorf("%q: the tree gives the arguments %q", form, vs)
			}
		}
	}
}

// wordsOver returns every word of 1 to max characters over alphabet.
func wordsOver(alphabet string, max int) []string {
	var words []string
	var gen func(prefix string)
	gen = func(prefix string) {
		if prefix != "" {
			words = append(words, prefix)
		}
		if len(prefix) == max {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			gen(prefix + alphabet[i:i+1])
		}
	}
	gen("")
	return words
}
