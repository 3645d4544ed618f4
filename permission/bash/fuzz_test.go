package bash

import (
	"slices"
	"strings"
	"testing"
)

// FuzzAnalyze: the analyzer never panics, and nothing it cannot analyse is
// read-only or an allowed edit.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"ls -la", "rm -rf /", "git status && git push", "echo $(id)", "cat <<EOF\nx\nEOF", "sed -i 's/a/b/' f",
		"bash -c 'ls; rm x'", "find . -exec rm {} \\;", "a=1 b=2 ls > out 2>&1", "echo \"$\\\n(id)\"",
		"r''m -{r,f} x", "$'\\x72m' x", "for f in *; do :; done", "timeout 5 sudo -u x env A=1 rm -rf y",
		"ls | xargs -I{} sh -c 'rm {}'", "echo ${x:-$(id)}", "case x in *) ls;; esac", "cd /tmp; rm ../..",
		"git -C x status", "env A=1 ls -la", "sudo -u root bash -c id", "nice -n 5 find . -delete",
		"ls -la | wc -l; cd .. && git log || true", "sudo rm x | tee y && cd /tmp; ls",
		"cat a > b && ls 2>&1 | grep x", "npm test &> log; echo 'x' >> y", "sort < in > out",
		"ls \"$(id)\" '$(id)'", "a=(1 2) ls", "echo \\$(x) # $(y)", "ls; while read x; do :; done",
		"cat <<'E'\n$(x)\nE", "echo $'\\'$(x)'", "f() { ls; }", "[[ -f x ]] && ls",
		"cat <&for\nls", "ls >|if\nx",
	} {
		f.Add(s)
	}
	a := New(Options{Home: "/home/user"})
	env := Env{WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project"}
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) <= MaxCommandLength && !strings.ContainsRune(cmd, 0) {
			sameTree(t, cmd)
		}
		samePlain(t, cmd)
		sameRuleText(t, cmd)
		r := a.Analyze(cmd, env)
		if len(r.Unanalysable) > 0 && (r.ReadOnly || r.EditsInWorkingDirs) {
			t.Fatalf("%q: unanalysable (%v) yet read-only %v / edits %v", cmd, r.Unanalysable, r.ReadOnly, r.EditsInWorkingDirs)
		}
		if r.ReadOnly && !MayReadOnly(r.Script) {
			t.Fatalf("%q: read-only, yet MayReadOnly says its words write", cmd)
		}
		if got, want := indexControl(cmd), strings.IndexFunc(cmd, isControl); got != want {
			t.Fatalf("%q: indexControl %d, IndexFunc %d", cmd, got, want)
		}
		if SurelyUnanalysable(cmd) && r.Script.Analysable() {
			t.Fatalf("%q: SurelyUnanalysable, yet the parse analyses it", cmd)
		}
		if r.ReadOnly && (len(r.Dangerous) > 0 || len(r.Sed) > 0 || len(r.SensitiveWrites) > 0 || len(r.CriticalRemovals) > 0) {
			t.Fatalf("%q: read-only with findings %+v", cmd, r)
		}
		_ = Suggestions(r.Script)
		_ = CoveredBy(r.Script, []string{"ls:*", "git push:*", "*"})
		_, _ = ReadTargets(r.Script)
		_, _ = WriteTargets(r.Script)
		// Hiding a command in a subshell or a substitution never hides it
		// from a deny rule.
		if MatchAny(r.Script, "rm:*") == Matches {
			for _, wrapped := range []string{"(" + cmd + "\n)", "echo $(" + cmd + "\n)"} {
				if MatchAny(Parse(wrapped), "rm:*") == NoMatch {
					t.Fatalf("%q matches rm:*, but %q does not", cmd, wrapped)
				}
			}
		}
	})
}

// sameRuleText: the words ruleText makes of plain rule text are the
// words the parser makes of it.
func sameRuleText(t *testing.T, text string) {
	t.Helper()
	got := ruleText(text)
	want := strings.Fields(text)
	if s := Parse(text); s.Analysable() && len(s.Commands) > 0 {
		c := s.Commands[0]
		want = append([]string{c.NameWord.Value}, c.Values()...)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ruleText(%q) = %q, the parser says %q", text, got, want)
	}
}

// TestRuleTextMatchesParse: rule text on ruleText's fast path reads as
// the parser reads it, and text off it goes to the parser.
func TestRuleTextMatchesParse(t *testing.T) {
	for _, text := range []string{
		"npm run", "git push", "git push origin main", "./deploy.sh", "/usr/bin/make test", "go test ./...",
		"rm -rf", "git commit -m 'fix'", "FOO=1 npm", "npm  run", " npm", "npm ", "echo $HOME", "ls ~/x",
		"time npm", "if", "a=b", "sed -n '1p'", "git -C /p push", "x --flag=value", "cat a*", "echo {a,b}",
		"echo \\x", "ls # c", "ls;rm", "echo 'it''s'", "",
	} {
		sameRuleText(t, text)
	}
}
