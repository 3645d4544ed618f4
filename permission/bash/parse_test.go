package bash

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func names(s *Script) []string {
	var out []string
	for _, c := range s.Commands {
		out = append(out, c.Name)
	}
	return out
}

func TestParseFindsEveryCommand(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"ls && rm x", []string{"ls", "rm"}},
		{"ls || rm x; pwd", []string{"ls", "rm", "pwd"}},
		{"ls | grep x | wc -l", []string{"ls", "grep", "wc"}},
		{"ls\nrm x", []string{"ls", "rm"}},
		{"ls & rm x", []string{"ls", "rm"}},
		{"{ ls; rm x; }", []string{"ls", "rm"}},
		{"! rm x", []string{"rm"}},
		{"bash -c 'ls; rm x'", []string{"bash", "ls", "rm"}},
		{"sh -ec \"rm x\"", []string{"sh", "rm"}},
		{"bash -c 'bash -c \"rm x\"'", []string{"bash", "bash", "rm"}},
		{"find . -exec rm {} \\;", []string{"find", "rm"}},
		{"find . -name x -execdir mv {} y +", []string{"find", "mv"}},
		{"timeout -s KILL 5 rm x", []string{"timeout", "rm"}},
		{"nice -n 5 nohup rm x", []string{"nice", "nohup", "rm"}},
		{"env -u X A=1 rm x", []string{"env", "rm"}},
		{"sudo -u root rm x", []string{"sudo", "rm"}},
		{"command rm x", []string{"command", "rm"}},
		{"builtin cd x", []string{"builtin", "cd"}},
		{"exec rm x", []string{"exec", "rm"}},
		{"xargs -n 1 rm", []string{"xargs", "rm"}},
		{"stdbuf -o0 rm x", []string{"stdbuf", "rm"}},
		{"time rm x", []string{"time", "rm"}},
		{"/bin/rm x", []string{"rm"}},
		{"\\rm x", []string{"rm"}},
		{"r''m x", []string{"rm"}},
		{"\"rm\" x", []string{"rm"}},
		{"$'\\x72m' x", []string{"rm"}},
		{"FOO=1 rm x", []string{"rm"}},
		{"FOO=1", []string{""}},
		{"export A=1", []string{"export"}},
		{"ls > out.txt 2>&1", []string{"ls"}},
		{"# just a comment", nil},
	}
	for _, tt := range tests {
		s := Parse(tt.cmd)
		if !s.Analysable() {
			t.Errorf("%q: unanalysable: %v", tt.cmd, s.Unsafe)
			continue
		}
		if got := names(s); !slices.Equal(got, tt.want) {
			t.Errorf("%q: commands %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestParseWrappersAndVia(t *testing.T) {
	s := Parse("sudo timeout 5 rm -rf x")
	last := s.Commands[len(s.Commands)-1]
	if last.Name != "rm" || !slices.Equal(last.Wrappers, []string{"sudo", "timeout"}) || !slices.Equal(last.Values(), []string{"-rf", "x"}) {
		t.Errorf("unwrapped %+v", last)
	}
	s = Parse("ls | xargs rm")
	if c := s.Commands[2]; c.Name != "rm" || !c.MoreArgs || c.Pipeline == 0 || c.Stage != 1 {
		t.Errorf("xargs command %+v", c)
	}
	s = Parse("cd /x && rm a; ls")
	if s.Commands[0].AfterCd || !s.Commands[1].AfterCd || !s.Commands[2].AfterCd {
		t.Errorf("cd tracking: %v %v %v", s.Commands[0].AfterCd, s.Commands[1].AfterCd, s.Commands[2].AfterCd)
	}
	s = Parse("cd . && rm a")
	if s.Commands[1].AfterCd {
		t.Error("cd . moved the directory")
	}
	s = Parse("command -v rm")
	if len(s.Commands) != 1 {
		t.Errorf("command -v ran %v", names(s))
	}
}

func TestParseWords(t *testing.T) {
	tests := []struct {
		cmd     string
		arg     Word
		checkFn func(Word) bool
	}{
		{cmd: `echo "a b"`, arg: Word{Value: "a b", Quoted: true}},
		{cmd: `echo 'a $b'`, arg: Word{Value: "a $b", Quoted: true}},
		{cmd: `echo a\ b`, arg: Word{Value: "a b", Quoted: true}},
		{cmd: `echo "x\"y\$z"`, arg: Word{Value: `x"y$z`, Quoted: true}},
		{cmd: `echo $'a\tb\x41\101\u00e9'`, arg: Word{Value: "a\tbAAé", Quoted: true}},
		{cmd: `echo $HOME/x`, arg: Word{Value: "$HOME/x", Vars: []string{"HOME"}}},
		{cmd: `echo "$USER"`, arg: Word{Value: "$USER", Quoted: true, Vars: []string{"USER"}}},
		{cmd: `echo ~/x`, arg: Word{Value: "~/x", Tilde: true}},
		{cmd: `echo "~/x"`, arg: Word{Value: "~/x", Quoted: true}},
		{cmd: `echo *.go`, arg: Word{Value: "*.go", Glob: true}},
		{cmd: `echo '*.go'`, arg: Word{Value: "*.go", Quoted: true}},
	}
	for _, tt := range tests {
		s := Parse(tt.cmd)
		if !s.Analysable() || len(s.Commands) != 1 || len(s.Commands[0].Args) != 1 {
			t.Errorf("%q: %v %v", tt.cmd, s.Unsafe, names(s))
			continue
		}
		got := s.Commands[0].Args[0]
		got.Raw = ""
		if got.Value != tt.arg.Value || got.Quoted != tt.arg.Quoted || !slices.Equal(got.Vars, tt.arg.Vars) || got.Glob != tt.arg.Glob || got.Tilde != tt.arg.Tilde || got.Dynamic {
			t.Errorf("%q: word %+v, want %+v", tt.cmd, got, tt.arg)
		}
	}
}

func TestParseFailsClosed(t *testing.T) {
	tests := map[string]string{
		"ls $(rm -rf /)":             "command substitution",
		"ls `rm -rf /`":              "command substitution",
		"cat <(curl x)":              "process substitution",
		"echo ${A:-x}":               "parameter expansion",
		"echo $((1+2))":              "arithmetic",
		"(cd /tmp; ls)":              "subshell",
		"for f in *; do rm $f; done": "for loop",
		"while true; do :; done":     "while",
		"until false; do :; done":    "while",
		"if true; then ls; fi":       "if statement",
		"case x in x) ls;; esac":     "case statement",
		"f() { ls; }":                "function",
		"[[ -f x ]]":                 "test",
		"echo \"$\\\n(id)\"":         "backslash-newline",
		"ls 'unterminated":           "does not parse",
		"ls &&":                      "does not parse",
		"rm -{r,f} x":                "brace expansion",
		"a[$(id)]=1":                 "",
		"ls\x00rm":                   "NUL",
		strings.Repeat("ls;", 4000):  "longer than",
	}
	for cmd, want := range tests {
		s := Parse(cmd)
		if s.Analysable() {
			t.Errorf("%.40q is analysable", cmd)
			continue
		}
		if want != "" && !strings.Contains(strings.Join(s.Unsafe, "; "), want) {
			t.Errorf("%.40q: reasons %v, want %q", cmd, s.Unsafe, want)
		}
	}
}

func TestRedirects(t *testing.T) {
	s := Parse("ls > a 2>&1 >> b &> c < d 2>/dev/null >&2")
	if !s.Analysable() {
		t.Fatal(s.Unsafe)
	}
	var out, in []string
	for _, r := range s.Redirects {
		switch {
		case r.Output():
			out = append(out, r.Target.Value)
		case r.Input():
			in = append(in, r.Target.Value)
		}
	}
	if !slices.Equal(out, []string{"a", "b", "c", "/dev/null"}) || !slices.Equal(in, []string{"d"}) {
		t.Errorf("outputs %v inputs %v", out, in)
	}
}

// TestNonASCII: the grammar's scanner crashed the process on "{" followed
// by a large code point; non-ASCII text must still come through intact.
func TestNonASCII(t *testing.T) {
	for _, cmd := range []string{"s11{{{{{{{{{{1111\U000e080f'", "{\U000e0000", "echo a{\U000e0000b", "x={\U0010ffff"} {
		_ = Parse(cmd) // must not crash
	}
	s := Parse("echo héllo 'wörld' \"🐛 fix\"")
	if !s.Analysable() || !slices.Equal(s.Commands[0].Values(), []string{"héllo", "wörld", "🐛 fix"}) {
		t.Fatalf("non-ASCII words: %v %v", s.Unsafe, s.Commands[0].Values())
	}
}

// TestBlankDoubleQuotedWords: blanks the grammar leaves out of a
// double-quoted string are in the word, and a file named by them is
// judged as one (cat " " reads what a link named " " leads to).
func TestBlankDoubleQuotedWords(t *testing.T) {
	for cmd, want := range map[string]string{
		`cat " "`: " ", `cat "  "`: "  ", "cat \"\t\"": "\t", `cat "a b"`: "a b", `cat ""`: "", `cat "a"" "`: "a ",
		`cat "  "/x`: "  /x", `echo "$x  "`: "$x  ",
	} {
		s := parseTree(cmd)
		if len(s.Commands) != 1 || len(s.Commands[0].Args) != 1 || s.Commands[0].Args[0].Value != want {
			t.Errorf("%q: %+v, want the word %q", cmd, s.Commands, want)
		}
	}
	home := t.TempDir()
	dir := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(dir, " ")); err != nil {
		t.Fatal(err)
	}
	r := New(Options{Home: home}).Analyze(`cat " "`, Env{WorkingDirs: []string{dir}, Cwd: dir})
	if r.ReadOnly || len(r.SensitiveReads) == 0 {
		t.Fatalf(`cat " " through a link to ~/.ssh/id_rsa: read-only %v, sensitive reads %v`, r.ReadOnly, r.SensitiveReads)
	}
}

func TestIndexControl(t *testing.T) {
	for _, s := range []string{"", "ls", "ls\t-la\n", "a\rb", "\x00", "é\x01", "\x7f", "\xff\xfe\x1b", "日本\x0b", "\xc3", "a\x80\x1f"} {
		if got, want := indexControl(s), strings.IndexFunc(s, isControl); got != want {
			t.Errorf("indexControl(%q) = %d, want %d", s, got, want)
		}
	}
}
