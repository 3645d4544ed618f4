package bash

import "testing"

func TestSurelyUnanalysable(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		// Substitutions and arithmetic, unquoted or in double quotes.
		{"echo $(date)", true},
		{"ls `pwd`", true},
		{`ls "$(id)"`, true},
		{"ls \"`id`\"", true},
		{"echo $((1+2))", true},
		{"x=$(ls) ls", true},
		{"cat <(ls)", true},
		{"tee >(wc)", true},
		// Parentheses: subshells, functions, arrays.
		{"(cd /tmp && ls)", true},
		{"f() { ls; }", true},
		{"a=(1 2) ls", true},
		{"((i++))", true},
		// Compound commands where a command starts.
		{"for f in *; do cat $f; done", true},
		{"ls; while true; do sleep 1; done", true},
		{"ls && if true; then ls; fi", true},
		{"ls | until false; do :; done", true},
		{"echo a\ncase x in a) ls;; esac", true},
		{"  select x in a; do ls; done", true},
		{"function f { ls; }", true},
		{"[[ -f x ]] && cat x", true},
		// Nothing the scan can be sure of: the parse decides.
		{"ls -la", false},
		{"git status && git log", false},
		{"echo '$(date)'", false},
		{`echo \$HOME`, false},
		{"echo for while if", false},
		{"FOO=1 for", false},
		{"{ ls; }", false},
		{"ls # $(date)", false},
		{"cat <<E\n$(date)\nE", false},
		{"echo $'\\'$(x)'", false},
		{`echo $"$(x)"`, false},
		{"echo 'unterminated $(x)", false},
		{"forx in", false},
		// >&, <& and >| are redirections: a keyword after them is a target.
		{"cat <&for\nls", false},
		{"ls >&if\nx", false},
		{"ls >|for\nx", false},
		{"ls 2>&1; for x in a; do :; done", true},
		{"ls |& for x in a; do :; done", true},
		{"ls &>x; if true; then ls; fi", true},
		{`echo "$$("`, false},
		{`echo "$$$(id)"`, true},
		{"", false},
	}
	for _, tt := range tests {
		if got := SurelyUnanalysable(tt.cmd); got != tt.want {
			t.Errorf("SurelyUnanalysable(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
		if tt.want && Parse(tt.cmd).Analysable() {
			t.Errorf("%q: the parse analyses what the scan called unanalysable", tt.cmd)
		}
	}
}

// TestSurelyUnanalysableCorpus: on the public corpus, the scan never
// claims a script the parse analyses, and it recognises most of those
// the plain fast path leaves to tree-sitter.
func TestSurelyUnanalysableCorpus(t *testing.T) {
	claimed, slow := 0, 0
	for _, c := range corpusCommands(t) {
		s := Parse(c)
		if SurelyUnanalysable(c) {
			claimed++
			if s.Analysable() {
				t.Errorf("%q: the scan called unanalysable what the parse analyses", c)
			}
		}
		if _, plain := plainScript(c); !plain && !s.Analysable() {
			slow++
		}
	}
	t.Logf("claimed %d, unanalysable left to the tree %d", claimed, slow)
	if claimed < slow/2 {
		t.Errorf("the scan recognised %d scripts; expected at least half of the %d unanalysable ones the fast path leaves to the tree", claimed, slow)
	}
}
