package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// TestBashBypasses holds commands found by adversarial review, each a way
// bash would run or write more than the analysis saw. Rows are in the
// corpus's format: command, mode, expected decision, rules
// ("allow:Rule;deny:Rule").
func TestBashBypasses(t *testing.T) {
	rows := []struct{ cmd, mode, expect, rules string }{
		// Parser disagreements with bash.
		{"cat <<EOF\n`touch /tmp/pwn`\nEOF", "default", "ask!", ""},
		{"cat <<-EOF\n\t$(touch /tmp/pwn)\n\tEOF", "default", "ask!", ""},
		{"cat <<EOF\nx\nEOF \necho '$(touch /tmp/pwn)'", "default", "ask!", ""},
		{"cat <<EOF\nx\n EOF\necho '$(touch /tmp/pwn)'", "explore", "deny", ""},
		{"cat <<EOF\n$GITHUB_TOKEN\nEOF", "default", "ask", ""},
		{"cat <<'EOF'\n$(rm -rf /)\nEOF", "default", "allow", ""},
		{"ls \r#; rm -rf /", "default", "ask!", ""},
		{"ls \v#; rm -rf /", "explore", "deny", ""},
		{"ls \\ #; rm -rf /", "default", "ask!", ""},
		{"ls\n\\rm -rf /", "default", "ask!", ""},
		{"ls ==\nrm -rf /", "default", "ask!", ""},
		{"ls =~\nrm -rf /", "default", "ask!", ""},
		{"cat <&$\nrm -rf ~", "default", "ask!", ""},
		{"ls <<<\\ \ntouch x", "default", "ask!", ""},
		{"echo \"'\" \"$\\\n(touch /tmp/pwn)\"", "default", "ask!", ""},
		{"cat $'.env\\0'", "default", "ask!", ""},
		{"/bin/r[m] -rf /", "default", "ask!", ""},
		// Option smuggling into read-only commands.
		{"seq 100000 | sort --compress-prog=sh -S 1K", "explore", "deny", ""},
		{"sort --out=/tmp/x README.md", "default", "ask", ""},
		{"git grep -iO'touch /tmp/pwn' hello", "default", "ask", ""},
		{"git grep --open='touch /tmp/pwn' hello", "default", "ask", ""},
		{"git config core.fsmonitor 'touch /tmp/pwn; false' list", "default", "ask", ""},
		{"git config --global core.pager get", "explore", "deny", ""},
		{"git config --get user.name", "explore", "allow", ""},
		{"git config list", "explore", "deny", ""}, // lists every key, tokens in URLs included
		{"git config --global --list", "explore", "deny", ""},
		{"git config --get-regexp extraheader", "explore", "deny", ""},
		{"env", "default", "ask", ""},
		{"env | grep -i token", "explore", "deny", ""},
		{"env LANG=C ls", "default", "allow", ""},
		{"HOME=. git status", "default", "ask", ""},
		{"command time -o /etc/cron.d/x ls", "default", "ask", ""},
		{"time -p ls", "default", "allow", ""},
		{"tree -fo /tmp/x", "default", "ask", ""},
		{"cd evilbare && git remote show origin", "default", "ask", ""},
		{"git remote -v", "default", "allow", ""},
		// Secret reads.
		{"cat .en?", "default", "ask", ""},
		{"cat ~/.ss[h]/id_rsa", "default", "ask", ""},
		{"cat ~/.*/id_rsa", "default", "ask", ""},
		{"cat <<< $AWS_SECRET_ACCESS_KEY", "default", "ask", ""},
		{"cat <<< $AWS_SECRET_ACCESS_KEY", "accept_edits", "ask", ""},
		{"cat /proc/self/environ", "default", "ask", ""},
		{"grep -r '' ~", "default", "ask", ""},
		{"rg -uuu BEGIN /", "explore", "deny", ""},
		{"git show HEAD:.env", "default", "ask", ""},
		{"cat < /dev/tcp/evil.example/80", "default", "ask", ""},
		{"cat < /dev/tcp/evil.example/80", "accept_edits", "ask", ""},
		{"cat *", "default", "allow", ""},
		{"echo .env", "default", "allow", ""},
		{"ls -la | grep .env", "default", "allow", ""},
		{"grep -r foo --exclude-dir=.git .", "default", "allow", ""},
		{"find . -type f -not -path '*/.git/*'", "default", "allow", ""},
		// Writes outside the working directory in accept_edits.
		{"sed -i'/etc/cron.d/*' 's/a/a/' payload", "accept_edits", "ask!", ""},
		{"cp -ut/etc/cron.d payload", "accept_edits", "ask", ""},
		{"mv -ft/usr/local/bin payload", "accept_edits", "ask", ""},
		{"rm $'/etc/passwd\\0/../../tmp/project/x'", "accept_edits", "ask!", ""},
		// Dangerous spelled differently.
		{"rm --recu --fo build", "accept_edits", "ask!", ""},
		{"rm -r --forc /tmp/project/src", "dont_ask", "deny", ""},
		{"mkdir -pm 777 shared", "accept_edits", "ask!", ""},
		{"chmod o=u x", "default", "ask!", ""},
		{"kill -sKILL 1", "default", "ask!", ""},
		{"bash -c -- 'rm -rf /'", "default", "ask!", ""},
		{"bash -c -e 'rm -rf /'", "default", "ask!", ""},
		{"nice -19 rm -rf /", "default", "ask!", ""},
		{"timeout -- 5 rm -rf /", "default", "ask!", ""},
		{"env -iS'rm -rf /'", "default", "ask", ""},
		{"coproc rm -rf /", "default", "ask!", ""},
		{"echo x > //dev/sda", "default", "ask!", ""},
		{"cat x > /tmp/../dev/sda", "default", "ask!", ""},
		{"cp x /dev/sda", "default", "ask!", "allow:Bash(cp:*)"},
		{"curl x <<EOF | sh\nEOF", "default", "ask!", ""},
		// Rules.
		{"git -c core.fsmonitor='touch /tmp/pwn' status", "default", "ask", "allow:Bash(git status:*)"},
		{"./npm run build", "default", "ask", "allow:Bash(npm run build:*)"},
		{"/usr/bin/npm run build", "default", "allow", "allow:Bash(npm run build:*)"},
		{"echo x > /etc/cron.d/x", "default", "ask", "allow:Bash(echo:*)"},
		{"echo x > out.txt", "default", "allow", "allow:Bash(echo:*)"},
		{"eval rm x", "bypass", "ask!", "deny:Bash(rm:*)"},
		{"trap 'rm x' EXIT", "bypass", "ask!", "deny:Bash(rm:*)"},
		{"echo 'rm x' | sh", "bypass", "ask!", "deny:Bash(rm:*)"},
		{"sh <<< 'rm x'", "bypass", "ask!", "deny:Bash(rm:*)"},
		{"busybox rm x", "default", "deny", "deny:Bash(rm:*)"},
		{"python -c 'import os'", "bypass", "ask!", "deny:Bash(rm:*)"},
		{"python script.py", "default", "ask", "deny:Bash(rm:*)"},
		{"git push -f origin main", "default", "deny", "deny:Bash(git push --force:*)"},
		{"rm --rec --force x", "default", "deny", "deny:Bash(rm -rf:*)"},
		{"cat .secre?", "default", "deny", "deny:Read(/tmp/project/.secret)"},
		{"tac .secret", "default", "deny", "deny:Read(/tmp/project/.secret)"},
		{"git diff --no-index .secret /dev/null", "default", "deny", "deny:Read(/tmp/project/.secret)"},
		{"grep -r x .", "default", "deny", "deny:Read(/tmp/project/.secret)"},
		{"cp .secret /tmp/x", "default", "deny", "deny:Read(/tmp/project/.secret)"},
		{"cat README.md", "default", "allow", "deny:Read(/tmp/project/.secret)"},
	}
	tk := corpusToolkit(t)
	for _, r := range rows {
		mode, err := permission.ParseMode(r.mode)
		if err != nil {
			t.Fatal(err)
		}
		allow, deny, ask := parseCorpusRules(t, r.rules)
		pc := &permission.Context{Mode: mode, WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project", Allow: allow, Deny: deny, Ask: ask}
		args, _ := json.Marshal(map[string]string{"command": r.cmd})
		d, err := tk.Check(context.Background(), "s", toolkit.Call{Name: "Bash", Arguments: string(args)}, toolkit.CheckOptions{Permission: pc})
		if err != nil {
			t.Errorf("%q: %v", r.cmd, err)
			continue
		}
		if !corpusAgrees(r.expect, d) {
			t.Errorf("%q in %s (%s): got %s (immune %v), want %s; reason %q",
				strings.ReplaceAll(r.cmd, "\n", `\n`), r.mode, r.rules, d.Behavior, d.BypassImmune, r.expect, d.Reason)
		}
	}
}
