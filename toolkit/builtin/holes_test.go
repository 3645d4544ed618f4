package builtin

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// holesFixture lays out what the permission holes need: a working
// directory with links in and out, files named like options, a planted
// bare repository beside it, a home with credentials and a secrets folder.
type holesFixture struct {
	root, home, wd, bare string
}

func newHolesFixture(t *testing.T) holesFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := holesFixture{root: root, home: root + "/home", wd: root + "/w", bare: root + "/bare"}
	for _, d := range []string{f.home + "/.ssh", f.home + "/.config/gh", f.wd + "/src", f.wd + "/opt", root + "/secrets", f.bare + "/objects", f.bare + "/refs"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		f.home + "/.ssh/id_rsa":          "key",
		f.home + "/.config/gh/hosts.yml": "token",
		root + "/secrets/key":            "secret",
		f.wd + "/src/main.go":            "package main",
		f.wd + "/.env.prod":              "TOKEN=1",
		f.wd + "/README.md":              "readme",
		f.wd + "/opt/--pre=sh":           "",
		f.wd + "/opt/a.txt":              "a",
		f.bare + "/HEAD":                 "ref: refs/heads/main\n",
		f.bare + "/config":               "[core]\n\tfsmonitor = touch " + root + "/pwned\n",
	}
	for p, data := range files {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		f.wd + "/keys":        "../home/.ssh",
		f.wd + "/src/seclink": "../../secrets",
		f.wd + "/gitdir":      ".git",
		f.wd + "/up":          "..",
	}
	for name, target := range links {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func holesToolkit(t *testing.T, home string) *toolkit.Toolkit {
	t.Helper()
	tk := toolkit.New(toolkit.Options{})
	files := FileOptions{Home: home}
	for _, tool := range []toolkit.Tool{
		NewBash(BashOptions{Home: home}), NewPowerShell(PowerShellOptions{}),
		NewRead(files), NewWrite(files), NewEdit(files), NewGlob(GlobOptions{Home: home}), NewGrep(GrepOptions{Home: home}),
	} {
		if err := tk.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	return tk
}

// TestPermissionHoles pins, class by class, calls a careful human would
// refuse that the engine once allowed (issue "Permission holes"), and
// near-misses that must stay allowed. Expectations: allow, ask (plain),
// ask! (bypass-immune), deny, not-allow (ask or deny).
func TestPermissionHoles(t *testing.T) {
	f := newHolesFixture(t)
	tk := holesToolkit(t, f.home)
	type row struct {
		class  int
		tool   string
		input  map[string]any
		mode   string
		rules  string // "allow:R;deny:R;ask:R"
		cwd    string // default: the working directory
		expect string
	}
	bash := func(cmd string) map[string]any { return map[string]any{"command": cmd} }
	read := func(p string) map[string]any { return map[string]any{"file_path": p} }
	write := func(p string) map[string]any { return map[string]any{"file_path": p, "content": "x"} }
	rows := []row{
		// 1. One path policy: sensitive lists for every reader, by any
		// spelling; links and /proc resolved; devices refused at call.
		{1, "Read", read(f.home + "/.ssh/id_rsa"), "default", "", "", "ask"},
		{1, "Read", read(f.home + "/.ssh/id_rsa"), "explore", "", "", "deny"},
		{1, "Read", read("/etc/shadow"), "accept_edits", "", "", "ask"},
		{1, "Read", read("/root/.gitconfig"), "dont_ask", "", "", "deny"},
		{1, "Read", read(f.wd + "/keys/id_rsa"), "default", "", "", "ask"},
		{1, "Read", read("/proc/self/root" + f.home + "/.ssh/id_rsa"), "default", "", "", "ask"},
		{1, "Read", read("/proc/self/environ"), "explore", "", "", "deny"},
		{1, "Read", read(f.home + "/.config/gh/hosts.yml"), "default", "", "", "ask"},
		{1, "Read", read(f.wd + "/README.md"), "explore", "", "", "allow"},
		{1, "Grep", map[string]any{"pattern": "k", "path": f.wd + "/keys"}, "default", "", "", "ask"},
		{1, "Glob", map[string]any{"pattern": "*", "path": f.home + "/.ssh"}, "explore", "", "", "deny"},
		{1, "Glob", map[string]any{"pattern": "**/*.go"}, "explore", "", "", "allow"},
		{1, "Bash", bash("cat /proc/self/environ*"), "default", "", "", "ask"},
		{1, "Bash", bash("cat /proc/self/cwd/keys/id_rsa"), "default", "", "", "ask"},
		{1, "Bash", bash("cat .env.prod"), "explore", "", "", "deny"},
		{1, "Bash", bash("cat keys/id_rsa"), "default", "", "", "ask"},
		{1, "Bash", bash("grep -r TOKEN ."), "default", "", "", "ask"},
		{1, "Bash", bash("rg -uu TOKEN"), "explore", "", "", "deny"},
		{1, "Bash", bash("rg -L key ."), "default", "", "", "ask"},
		{1, "Bash", bash("git grep --no-index TOKEN"), "default", "", "", "ask"},
		{1, "Bash", bash("git log -p -- '.en*'"), "default", "", "", "ask"},
		{1, "Bash", bash("git show :0:.env"), "default", "", "", "ask"},
		{1, "Bash", bash("rg TOKEN src"), "explore", "", "", "allow"},
		{1, "Bash", bash("echo x > gitdir/config"), "accept_edits", "", "", "ask!"},
		// A read through a link the same script made: resolved before
		// the link existed (red-team finding; held only by the host's
		// protected files where a host protects them).
		{1, "Bash", bash("cp -a src copy && cat copy/seclink/key"), "accept_edits", "", "", "not-allow"},
		{1, "Bash", bash("mv src s2 && head s2/seclink/key"), "accept_edits", "", "", "not-allow"},
		{1, "Bash", bash("ln -s " + f.root + "/secrets lk && wc -l < lk/key"), "accept_edits", "", "", "not-allow"},
		{1, "Bash", bash("cp -a src copy"), "accept_edits", "", "", "allow"},
		// A long chain of cds: the directory is not followed past a
		// bound (the analysis stays fast), so a relative read asks.
		{1, "Bash", bash(strings.Repeat("cd src && cd .. && ", 20) + "cat README.md"), "explore", "", "", "not-allow"},
		{1, "Bash", bash(strings.Repeat("cd src && cd .. && ", 5) + "cat README.md"), "explore", "", "", "allow"},
		// Two globs that one name can match (no such file here yet).
		{1, "Bash", bash("cat " + f.home + "/.ssh/i?_*"), "default", "", "", "ask"},
		{1, "Bash", bash("cat /etc/ssh/ssh_host_*"), "default", "", "", "ask"},
		{2, "Bash", bash("cat " + f.root + "/secrets/s_*"), "default", "deny:Read(//" + f.root[1:] + "/secrets/*_key)", "", "not-allow"},
		// 2. Rules mean the same for every tool and spelling.
		{2, "Write", write("/etc/x"), "bypass", "deny:Write(//etc/**)", "", "deny"},
		{2, "Edit", map[string]any{"file_path": "/etc/x", "old_string": "a", "new_string": "b"}, "bypass", "deny:Write(//etc/**)", "", "deny"},
		{2, "Write", write(f.home + "/notes"), "bypass", "ask:Edit(~/**)", "", "ask"},
		{2, "Bash", bash("echo x > /etc/x"), "bypass", "deny:Edit(//etc/**)", "", "deny"},
		{2, "Bash", bash("rm -f /etc/x"), "bypass", "deny:Write(//etc/**)", "", "deny"},
		{2, "Bash", bash("sed -i s/a/b/ /etc/x"), "bypass", "deny:Edit(//etc/**)", "", "deny"},
		{2, "Bash", bash("tee /etc/x"), "bypass", "deny:Edit(//etc/**)", "", "deny"},
		{2, "Bash", bash("cat src/seclink/key"), "default", "deny:Read(//" + f.root[1:] + "/secrets/**)", "", "deny"},
		{2, "Bash", bash("cat /proc/self/root" + f.root + "/secrets/key"), "default", "deny:Read(//" + f.root[1:] + "/secrets/**)", "", "deny"},
		{2, "Bash", bash("grep -R key src"), "default", "deny:Read(//" + f.root[1:] + "/secrets/**)", "", "not-allow"},
		{2, "Bash", bash("find " + f.root + "/secrets -exec cat {} +"), "default", "allow:Bash(find:*);deny:Read(//" + f.root[1:] + "/secrets/**)", "", "deny"},
		{2, "Bash", bash("find . -files0-from " + f.root + "/secrets/key"), "default", "deny:Read(//" + f.root[1:] + "/secrets/**)", "", "deny"},
		{2, "Bash", bash("tree --fromfile " + f.root + "/secrets/key"), "default", "deny:Read(//" + f.root[1:] + "/secrets/**)", "", "deny"},
		{2, "Grep", map[string]any{"pattern": "x", "path": f.root + "/secrets"}, "default", "deny:Read(//" + f.root[1:] + "/secrets/**)", "", "deny"},
		{2, "Glob", map[string]any{"pattern": "*", "path": f.root + "/secrets"}, "default", "ask:Read(//" + f.root[1:] + "/secrets/**)", "", "ask"},
		{2, "Read", read(f.wd + "/src/seclink/key"), "default", "deny:Read(//" + f.root[1:] + "/secrets/**)", "", "deny"},
		{2, "Read", read(f.home + "/.ssh/id_rsa"), "default", "deny:Read(~/.ssh/**)", "", "deny"},
		{2, "Write", write(f.wd + "/src/seclink/x"), "accept_edits", "allow:Write(src/**)", "", "not-allow"},
		{2, "Write", write(f.wd + "/src/new.go"), "default", "allow:Edit(src/**)", "", "allow"},
		// 3. Bash rules reach every simple command; bypass never skips
		// them; opaque code asks in every mode.
		{3, "Bash", bash("(rm -f f)"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("echo $(rm -f f)"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("echo `rm -f f`"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("cat <(rm -f f)"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("if true; then rm -f f; fi"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("for i in a; do rm -f $i; done"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("(git push origin main)"), "bypass", "ask:Bash(git push:*)", "", "ask"},
		{3, "Bash", bash("setpriv --reuid=1000 rm -f x"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("chroot / rm -f x"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("prlimit --nofile=10 rm -f x"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("taskset -c 0 rm -f x"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("script -qc 'rm -f x' /dev/null"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("env -- rm -f x"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("ls | xargs -I{} sh -c 'rm {}'"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("sh -c \"$(echo rm -f x)\""), "bypass", "deny:Bash(rm:*)", "", "not-allow"},
		{3, "Bash", bash("awk 'BEGIN{system(\"rm -f x\")}'"), "bypass", "deny:Bash(rm:*)", "", "ask!"},
		{3, "Bash", bash("sed -n '1e rm -f x' README.md"), "bypass", "deny:Bash(rm:*)", "", "ask!"},
		{3, "Bash", bash("python3 - <<'EOF'\nimport os\nEOF"), "bypass", "deny:Bash(rm:*)", "", "ask!"},
		{3, "Bash", bash("perl -e 'unlink q(x)'"), "bypass", "ask:Bash(git push:*)", "", "ask!"},
		{3, "Bash", bash("node -e 'x'"), "dont_ask", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("PATH=. ls"), "bypass", "deny:Bash(rm:*)", "", "ask!"},
		{3, "Bash", bash("rm -fr build"), "bypass", "deny:Bash(rm -rf *)", "", "deny"},
		{3, "Bash", bash("rm -r -f build"), "bypass", "deny:Bash(rm -rf *)", "", "deny"},
		{3, "Bash", bash("rm -Rf build"), "bypass", "deny:Bash(rm -rf *)", "", "deny"},
		{3, "Bash", bash("rm --recursive --force build"), "bypass", "deny:Bash(rm -rf *)", "", "deny"},
		{3, "Bash", bash("rm -f one"), "bypass", "deny:Bash(rm -rf *)", "", "allow"},
		{3, "PowerShell", map[string]any{"command": "Remove-Item x"}, "bypass", "deny:Bash(rm:*);ask:Edit(//etc/**)", "", "ask!"},
		// 4. Suggested allow rules cannot be escaped.
		{4, "Bash", bash("EDITOR='touch /tmp/x' git commit"), "default", "allow:Bash(git commit:*)", "", "ask"},
		{4, "Bash", bash("HOME=. git commit -m x"), "default", "allow:Bash(git commit:*)", "", "ask"},
		{4, "Bash", bash("GIT_SSH_COMMAND=x git push"), "default", "allow:Bash(git push:*)", "", "ask"},
		{4, "Bash", bash("git push --receive-pack='touch /tmp/x' origin"), "default", "allow:Bash(git push:*)", "", "ask"},
		{4, "Bash", bash("git fetch --upload-pack='touch /tmp/x'"), "default", "allow:Bash(git fetch:*)", "", "ask"},
		{4, "Bash", bash("git -c core.pager=x push"), "default", "allow:Bash(git push:*)", "", "ask"},
		{4, "Bash", bash("git --exec-path=. push"), "default", "allow:Bash(git push:*)", "", "ask"},
		{4, "Bash", bash("make --eval='$(shell touch /tmp/x)' test"), "default", "allow:Bash(make test:*)", "", "ask"},
		{4, "Bash", bash("make test CFLAGS='$(shell touch /tmp/x)'"), "default", "allow:Bash(make test:*)", "", "ask"},
		{4, "Bash", bash("go test -exec='sh -c' ./..."), "default", "allow:Bash(go test:*)", "", "ask"},
		{4, "Bash", bash("go test -toolexec=/tmp/x ./..."), "default", "allow:Bash(go test:*)", "", "ask"},
		{4, "Bash", bash("NODE_OPTIONS='--require ./x.js' npm test"), "default", "allow:Bash(npm test:*)", "", "ask"},
		{4, "Bash", bash("LD_PRELOAD=./x.so go test ./..."), "default", "allow:Bash(go test:*)", "", "ask"},
		{4, "Bash", bash("git commit -m 'fix'"), "default", "allow:Bash(git commit:*)", "", "allow"},
		{4, "Bash", bash("make test"), "default", "allow:Bash(make test:*)", "", "allow"},
		// 5. A file name cannot turn a read-only command into code.
		{5, "Bash", bash("rg x *"), "explore", "", f.wd + "/opt", "deny"},
		{5, "Bash", bash("rg x *"), "default", "allow:Bash(rg:*)", f.wd + "/opt", "ask"},
		{5, "Bash", bash("sort *"), "default", "", f.wd + "/opt", "ask"},
		{5, "Bash", bash("sed -n 1p *"), "default", "", f.wd + "/opt", "ask"},
		{5, "Bash", bash("uniq src/*"), "default", "", "", "ask"},
		{5, "Bash", bash("DEBUG=--pre=sh; rg x $DEBUG"), "default", "", "", "ask"},
		{5, "Bash", bash("touch ./--pre=sh && rg -l x *"), "accept_edits", "", "", "not-allow"},
		{5, "Bash", bash("touch ./-rf"), "accept_edits", "", "", "ask"},
		{5, "Write", write(f.wd + "/--pre=sh"), "accept_edits", "", "", "ask"},
		{5, "Bash", bash("cat ./*"), "explore", "", f.wd + "/opt", "allow"},
		{5, "Bash", bash("cat -- *"), "explore", "", f.wd + "/opt", "allow"},
		{5, "Bash", bash("wc -l *.go"), "explore", "", f.wd + "/src", "allow"},
		// 6. "Read-only" commands that are not.
		{6, "Bash", bash("less --lesskey-src=k README.md"), "explore", "", "", "deny"},
		{6, "Bash", bash("less -k k README.md"), "explore", "", "", "deny"},
		{6, "Bash", bash("more --lesskey-src=k README.md"), "explore", "", "", "deny"},
		{6, "Bash", bash("pip list --index-url http://127.0.0.1:9/"), "explore", "", "", "deny"},
		{6, "Bash", bash("pip list --outdated"), "explore", "", "", "deny"},
		{6, "Bash", bash("git branch --abbrev evil"), "explore", "", "", "deny"},
		{6, "Bash", bash("git ls-remote https://example.com/x"), "explore", "", "", "deny"},
		{6, "Bash", bash("pip list"), "explore", "", "", "allow"},
		{6, "Bash", bash("git branch --abbrev=7 -v"), "explore", "", "", "allow"},
		// 7. Planted git configuration.
		{7, "Bash", bash("git status"), "explore", "", f.bare, "deny"},
		{7, "Bash", bash("git log"), "default", "", f.bare, "ask"},
		{7, "Write", write(f.wd + "/gitdir/config"), "accept_edits", "", "", "ask!"},
		{7, "Bash", bash("echo x > gitdir/hooks/pre-commit"), "accept_edits", "", "", "ask!"},
		// 8. The host's configuration is protected (see the CLI test for
		// the paths the CLI protects).
		// 9. Links made inside one command.
		{9, "Bash", bash("cp -P src/seclink x && mkdir -p x/outside && echo > x/outside/f"), "accept_edits", "", "", "not-allow"},
		{9, "Bash", bash("mv src/seclink esc && echo > esc/f"), "accept_edits", "", "", "not-allow"},
		{9, "Bash", bash("cp -a src copy && touch copy/seclink/x"), "accept_edits", "", "", "not-allow"},
		{9, "Bash", bash("cp -r src copy"), "accept_edits", "", "", "allow"},
		{9, "Bash", bash("mv README.md README.txt && touch new.txt"), "accept_edits", "", "", "allow"},
		// Found by the second red-team pass.
		{1, "Bash", bash("cat /home/$USER/.ssh/id_rsa"), "explore", "", "", "deny"},
		{1, "Bash", bash("cat ~+/.env.prod"), "explore", "", "", "deny"},
		{1, "Bash", bash("cat ~root/.ssh/id_rsa"), "explore", "", "", "deny"},
		{1, "Bash", bash("printf 'keys/id_rsa\\0' | sort --files0-from=-"), "explore", "", "", "deny"},
		{1, "Bash", bash("grep -d recurse TOKEN ."), "explore", "", "", "deny"},
		{1, "Bash", bash("grep --recur TOKEN ."), "explore", "", "", "deny"},
		{1, "Bash", bash("grep --directories=recurse key keys/"), "explore", "", "", "deny"},
		{1, "Read", read("/run/secrets/token"), "explore", "", "", "deny"},
		{1, "Read", read(f.wd + "/.env-prod"), "explore", "", "", "deny"},
		{3, "Bash", bash("git -c alias.x='!rm -f v' x"), "bypass", "deny:Bash(rm:*)", "", "ask!"},
		{3, "Bash", bash("$(echo rm) -f v"), "bypass", "deny:Bash(rm:*)", "", "not-allow"},
		{3, "Bash", bash("${RM:-rm} -f v"), "bypass", "deny:Bash(rm:*)", "", "not-allow"},
		{3, "Bash", bash("printf -v 'a[$(rm -f v)]' x"), "bypass", "deny:Bash(rm:*)", "", "ask!"},
		{3, "Bash", bash("tar -cf x.tar a --checkpoint=1 --checkpoint-action=exec='rm -f v'"), "bypass", "deny:Bash(rm:*)", "", "ask!"},
		{3, "Bash", bash("xvfb-run rm -f v"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("tmux new -d 'rm -f v'"), "bypass", "deny:Bash(rm:*)", "", "ask!"},
		{2, "Bash", bash("sort -o /etc/x a.txt"), "bypass", "deny:Edit(//etc/**)", "", "deny"},
		{2, "Bash", bash("awk 'BEGIN{print 1 > \"/etc/x\"}'"), "bypass", "deny:Edit(//etc/**)", "", "ask!"},
		{2, "Bash", bash("python3 -c 'open(\"/etc/x\",\"w\")'"), "bypass", "deny:Edit(//etc/**)", "", "ask!"},
		{2, "Bash", bash("find secrets -delete"), "bypass", "deny:Edit(//" + f.root[1:] + "/secrets/**)", f.root, "deny"},
		{2, "Bash", bash("shuf " + f.root + "/secrets/key"), "default", "deny:Read(//" + f.root[1:] + "/secrets/**)", "", "deny"},
		{4, "Bash", bash("EDITOR='touch /tmp/x'; git commit"), "default", "allow:Bash(git commit:*)", "", "ask"},
		{4, "Bash", bash("go test -ldflags='-linkmode=external -extld=sh' ./..."), "default", "allow:Bash(go test:*)", "", "ask"},
		{4, "Bash", bash("go test -vettool=/tmp/x ./..."), "default", "allow:Bash(go test:*)", "", "ask"},
		{4, "Bash", bash("npm test -C /elsewhere"), "default", "allow:Bash(npm test:*)", "", "ask"},
		{7, "Bash", bash("git push ./planted HEAD:refs/heads/x"), "accept_edits", "allow:Bash(git push:*)", "", "ask"},
		{7, "Bash", bash("git fetch ../bare"), "default", "allow:Bash(git fetch:*)", "", "ask"},
		{7, "Bash", bash("git push origin main"), "default", "allow:Bash(git push:*)", "", "allow"},
		{3, "Bash", bash("cp /bin/rm ./r; ./r -f y"), "bypass", "deny:Bash(rm:*)", "", "ask!"},
		{5, "Bash", bash("rg x -* a.txt"), "explore", "", f.wd + "/opt", "deny"},
		{5, "Bash", bash("ls -*"), "explore", "", f.wd + "/opt", "deny"},
		// Found by the third red-team pass.
		{1, "Bash", bash("cd /proc/self && tr '\\0' '\\n' < environ"), "explore", "", "", "deny"},
		{1, "Bash", bash("cd " + f.home + "/.config && cat gh/hosts.yml"), "explore", "", "", "deny"},
		{1, "Bash", bash("cd /etc && cat shadow"), "explore", "", "", "deny"},
		{1, "Bash", bash("cd $D && cat x"), "explore", "", "", "deny"},
		{1, "Bash", bash("cd src && cat main.go"), "explore", "", "", "allow"},
		{5, "Bash", bash("sort [!.]* | tail -1"), "explore", "", f.wd + "/opt", "deny"},
		{5, "Bash", bash("sed -n 1p [[:alnum:][:punct:]]*"), "explore", "", f.wd + "/opt", "deny"},
		{3, "Bash", bash("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.zz GIT_CONFIG_VALUE_0='!touch x' git zz"), "bypass", "deny:Bash(touch:*)", "", "ask!"},
		{3, "Bash", bash("GIT_EDITOR='touch x; true' git commit --allow-empty -q"), "bypass", "deny:Bash(touch:*)", "", "ask!"},
		{3, "Bash", bash("git config alias.zz '!touch x' && git zz"), "bypass", "deny:Bash(touch:*)", "", "ask!"},
		{3, "Bash", bash("git config alias.p push && git p"), "bypass", "deny:Bash(git push:*)", "", "not-allow"},
		{3, "Bash", bash("echo 'touch x' | xargs -I{} sh -c {}"), "bypass", "deny:Bash(touch:*)", "", "not-allow"},
		{3, "Bash", bash("ed -s <<< '!touch x'"), "bypass", "deny:Bash(touch:*)", "", "ask!"},
		{3, "Bash", bash("vim -es -u NONE <<< '!touch x'"), "bypass", "deny:Bash(touch:*)", "", "ask!"},
		{3, "Bash", bash("printf 'touch x\\n' > s.sh && bash s.sh"), "bypass", "deny:Bash(touch:*)", "", "ask!"},
		{3, "Bash", bash("declare -n p=PATH; p=/tmp; ls"), "bypass", "deny:Bash(touch:*)", "", "ask!"},
		{3, "Bash", bash("uv run touch x"), "bypass", "deny:Bash(touch:*)", "", "deny"},
		{3, "Bash", bash("bundle exec touch x"), "bypass", "deny:Bash(touch:*)", "", "deny"},
		{2, "Bash", bash("ln -s " + f.root + " r && echo x > r/secrets/f"), "bypass", "deny:Edit(//" + f.root[1:] + "/secrets/**)", "", "not-allow"},
		{2, "Bash", bash("git log -p"), "default", "deny:Read(secrets/**)", f.root, "not-allow"},
		{2, "Bash", bash("git cat-file --batch-all-objects --batch"), "default", "deny:Read(secrets/**)", f.root, "not-allow"},
		{4, "Bash", bash("kubectl get pods --kubeconfig=kc.yaml"), "default", "allow:Bash(kubectl get:*)", "", "ask"},
		{4, "Bash", bash("kubectl get pods -s http://127.0.0.1:9"), "default", "allow:Bash(kubectl get:*)", "", "ask"},
		{4, "Bash", bash("pytest --basetemp=/tmp/victim"), "default", "allow:Bash(pytest:*)", "", "ask"},
		{4, "Bash", bash("cargo test --manifest-path /tmp/x/Cargo.toml"), "default", "allow:Bash(cargo test:*)", "", "ask"},
		{6, "Bash", bash("gh issue list -R evil.example/o/r"), "explore", "", "", "deny"},
		{6, "Bash", bash("gh repo view --web"), "explore", "", "", "deny"},
		{6, "Bash", bash("git config --global --list"), "explore", "", "", "deny"},
		// Found by the fourth red-team pass.
		{5, "Bash", bash("printf 'x' > k && mkdir -p ./--lesskey-src=k/x && less *"), "accept_edits", "", "", "not-allow"},
		{5, "Bash", bash("mkdir -p ./--pre=sh/x"), "accept_edits", "", "", "ask"},
		{6, "Bash", bash("ag --pager 'touch x' hello"), "explore", "", "", "deny"},
		{6, "Bash", bash("ack hello"), "explore", "", "", "deny"},
		{6, "Bash", bash("ack --noenv hello"), "explore", "", f.wd + "/src", "allow"},
		{7, "Bash", bash("git push src HEAD:refs/heads/x"), "default", "allow:Bash(git push:*)", "", "ask"},
		{7, "Bash", bash("git push --repo=./planted --all"), "default", "allow:Bash(git push:*)", "", "ask"},
		{3, "Bash", bash("rbash -c 'rm -f x'"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("sg root 'rm -f x'"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("perf stat -e task-clock rm -f x"), "bypass", "deny:Bash(rm:*)", "", "deny"},
		{3, "Bash", bash("/usr/lib/git-core/git-push origin HEAD"), "bypass", "deny:Bash(git push:*)", "", "deny"},
		{2, "Bash", bash("cp src/main.go up/"), "accept_edits", "", "", "not-allow"},
		{2, "Bash", bash("dd if=" + f.root + "/secrets/key status=none"), "bypass", "deny:Read(//" + f.root[1:] + "/secrets/**)", "", "deny"},
		{2, "Bash", bash("tar cf - ."), "bypass", "deny:Read(secrets/**)", f.root, "not-allow"},
		{2, "Bash", bash("diff -rN /tmp ."), "bypass", "deny:Read(secrets/**)", f.root, "not-allow"},
		{2, "Bash", bash("sqlite3 db '.output /etc/x' 'select 1'"), "bypass", "deny:Edit(//etc/**)", "", "ask!"},
		{4, "Bash", bash("git log --output=/tmp/elsewhere/x"), "default", "allow:Bash(git log:*)", "", "ask"},
		{4, "Bash", bash("go build -o /tmp/elsewhere/ls ."), "default", "allow:Bash(go build:*)", "", "ask"},
		{4, "Bash", bash("go build -o bin/app ."), "default", "allow:Bash(go build:*)", "", "allow"},
		{1, "Bash", bash("git config get --all --show-names --regexp ."), "explore", "", "", "deny"},
		{1, "Bash", bash("head -c 100 /dev/sda"), "explore", "", "", "deny"},
		// Everyday commands that must stay easy (usability).
		{0, "Bash", bash("python3 --version"), "explore", "deny:Bash(rm:*)", "", "allow"},
		{0, "Bash", bash("for f in src/*; do wc -l \"$f\"; done"), "bypass", "ask:Edit(//etc/**)", "", "allow"},
		{0, "Bash", bash("git config user.name"), "explore", "", "", "allow"},
		{0, "Bash", bash("grep -rn TODO src/*"), "explore", "", "", "allow"},
		{0, "Bash", bash("rg main *"), "explore", "", f.wd + "/src", "allow"},
		{0, "Bash", bash("echo $?"), "explore", "", "", "allow"},
		{0, "Bash", bash("go version"), "explore", "", "", "allow"},
		{0, "Bash", bash("du -sh ."), "explore", "", "", "allow"},
		{0, "Bash", bash("sha256sum README.md"), "explore", "", "", "allow"},
		// 11. "Always allow" only where it would take effect: see
		// TestSuggestionsTakeEffect.
	}
	for _, r := range rows {
		t.Run("", func(t *testing.T) {
			mode, err := permission.ParseMode(r.mode)
			if err != nil {
				t.Fatal(err)
			}
			allow, deny, ask := parseCorpusRules(t, r.rules)
			cwd := r.cwd
			if cwd == "" {
				cwd = f.wd
			}
			pc := &permission.Context{Mode: mode, WorkingDirs: []string{f.wd}, Cwd: cwd, Allow: allow, Deny: deny, Ask: ask}
			args, _ := json.Marshal(r.input)
			d, err := tk.Check(context.Background(), "holes", toolkit.Call{Name: r.tool, Arguments: string(args)}, toolkit.CheckOptions{Permission: pc})
			if err != nil {
				t.Fatalf("class %d %s %s: %v", r.class, r.tool, args, err)
			}
			if !corpusAgrees(r.expect, d) {
				t.Errorf("class %d: %s %s in %s (%s): got %s (immune %v), want %s; reason %q",
					r.class, r.tool, args, r.mode, r.rules, d.Behavior, d.BypassImmune, r.expect, d.Reason)
			}
		})
	}
}

// TestProtectedPaths: a write that may change the host's configuration
// asks in every mode (denied in dont_ask), whichever tool writes it.
func TestProtectedPaths(t *testing.T) {
	f := newHolesFixture(t)
	tk := holesToolkit(t, f.home)
	conf := f.wd + "/wasmtools.yaml"
	plugins := f.root + "/plugins"
	cases := []struct {
		tool  string
		input map[string]any
	}{
		{"Write", map[string]any{"file_path": conf, "content": "mode: bypass"}},
		{"Edit", map[string]any{"file_path": conf, "old_string": "a", "new_string": "b"}},
		{"Bash", map[string]any{"command": "echo 'mode: bypass' > wasmtools.yaml"}},
		{"Bash", map[string]any{"command": "cp x " + plugins + "/evil.json"}},
		{"Bash", map[string]any{"command": "sed -i s/a/b/ wasmtools.yaml"}},
		{"Write", map[string]any{"file_path": plugins + "/group/group.yaml", "content": "x"}},
		{"Bash", map[string]any{"command": "ln -s . l && echo '# x' > l/wasmtools.yaml"}},
		{"Bash", map[string]any{"command": "python3 -c 'open(\"wasmtools.yaml\", \"w\").write(\"mode: bypass\")'"}},
	}
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeBypass, permission.ModeDontAsk} {
		for _, c := range cases {
			pc := &permission.Context{Mode: mode, WorkingDirs: []string{f.wd}, Cwd: f.wd, Protected: []string{conf, plugins},
				Allow: []permission.Rule{{Tool: c.tool}}}
			args, _ := json.Marshal(c.input)
			d, err := tk.Check(context.Background(), "p", toolkit.Call{Name: c.tool, Arguments: string(args)}, toolkit.CheckOptions{Permission: pc})
			if err != nil {
				t.Fatal(err)
			}
			want := permission.Ask
			if mode == permission.ModeDontAsk {
				want = permission.Deny
			}
			if d.Behavior != want || want == permission.Ask && !d.BypassImmune {
				t.Errorf("%s %s in %s: got %s (immune %v), want %s immune; %q", c.tool, args, mode, d.Behavior, d.BypassImmune, want, d.Reason)
			}
		}
	}
}

// TestProtectedPathsDoNotOverreach: guarding the configuration does not
// make everyday commands ask in bypass.
func TestProtectedPathsDoNotOverreach(t *testing.T) {
	f := newHolesFixture(t)
	tk := holesToolkit(t, f.home)
	for _, cmd := range []string{"git checkout -b feature", "for f in src/*; do wc -l \"$f\"; done", "[ -f go.mod ] && echo yes",
		"echo $(date)", "tar xzf a.tgz", "cp x y", "python3 --version"} {
		pc := &permission.Context{Mode: permission.ModeBypass, WorkingDirs: []string{f.wd}, Cwd: f.wd, Protected: []string{f.wd + "/wasmtools.yaml"}}
		args, _ := json.Marshal(map[string]string{"command": cmd})
		d, err := tk.Check(context.Background(), "p", toolkit.Call{Name: "Bash", Arguments: string(args)}, toolkit.CheckOptions{Permission: pc})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != permission.Allow {
			t.Errorf("%q in bypass with the configuration protected: %s (%s)", cmd, d.Behavior, d.Reason)
		}
	}
}

// TestSuggestionsTakeEffect: every rule an ask offers, once granted,
// allows the very call; asks no rule can silence offer none.
func TestSuggestionsTakeEffect(t *testing.T) {
	f := newHolesFixture(t)
	tk := holesToolkit(t, f.home)
	calls := []struct {
		tool  string
		input map[string]any
		rules string
	}{
		{"Bash", map[string]any{"command": "npm run build"}, ""},
		{"Bash", map[string]any{"command": "EDITOR=vim git commit"}, ""},
		{"Bash", map[string]any{"command": "git push --receive-pack=x"}, ""},
		{"Bash", map[string]any{"command": "cat keys/id_rsa"}, ""},
		{"Bash", map[string]any{"command": "rm -rf /"}, ""},
		{"Bash", map[string]any{"command": "git push"}, "ask:Bash(git push:*)"},
		{"Write", map[string]any{"file_path": f.wd + "/src/x.go", "content": "x"}, ""},
		{"Write", map[string]any{"file_path": f.wd + "/.env.prod", "content": "x"}, ""},
		{"Read", map[string]any{"file_path": f.home + "/.ssh/id_rsa"}, ""},
	}
	for _, c := range calls {
		allow, deny, ask := parseCorpusRules(t, c.rules)
		pc := &permission.Context{Mode: permission.ModeDefault, WorkingDirs: []string{f.wd}, Cwd: f.wd, Allow: allow, Deny: deny, Ask: ask}
		args, _ := json.Marshal(c.input)
		d, err := tk.Check(context.Background(), "s", toolkit.Call{Name: c.tool, Arguments: string(args)}, toolkit.CheckOptions{Permission: pc})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != permission.Ask {
			t.Errorf("%s %s: %s, want ask", c.tool, args, d.Behavior)
			continue
		}
		if (d.BypassImmune || strings.HasPrefix(d.Reason, "ask rule")) && len(d.Suggestions) > 0 {
			t.Errorf("%s %s: an ask no allow rule can silence suggests %v", c.tool, args, d.Suggestions)
		}
		for _, s := range d.Suggestions {
			granted := pc.Clone()
			granted.Allow = append(granted.Allow, s)
			after, err := tk.Check(context.Background(), "s", toolkit.Call{Name: c.tool, Arguments: string(args)}, toolkit.CheckOptions{Permission: granted})
			if err != nil {
				t.Fatal(err)
			}
			if after.Behavior != permission.Allow {
				t.Errorf("%s %s: suggestion %s, once granted, gives %s (%s)", c.tool, args, s, after.Behavior, after.Reason)
			}
		}
	}
}

// TestPlantedGitChain reproduces the planted-configuration chain end to
// end. A working directory written as a bare repository (HEAD, config,
// objects/, refs/): the analysis does not take git there for read-only,
// and when git runs anyway (approved, or bypass) it refuses the implicit
// bare repository. A repository whose .git/config names a core.fsmonitor
// program (written through a link, say, and approved): plain git status
// runs it, git status through the Bash tool does not.
func TestPlantedGitChain(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := newHolesFixture(t)
	bypass := func(dir string) *toolkit.Toolkit {
		tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass, WorkingDirs: []string{dir}, Cwd: dir}})
		if err := tk.Register(NewBash(BashOptions{Home: f.home})); err != nil {
			t.Fatal(err)
		}
		return tk
	}

	// The planted bare repository.
	tk := bypass(f.bare)
	explore := &permission.Context{Mode: permission.ModeExplore, WorkingDirs: []string{f.bare}, Cwd: f.bare}
	d, err := tk.Check(context.Background(), "g", toolkit.Call{Name: "Bash", Arguments: `{"command": "git status"}`}, toolkit.CheckOptions{Permission: explore})
	if err != nil {
		t.Fatal(err)
	}
	if d.Behavior == permission.Allow {
		t.Errorf("git status in a planted bare repository is allowed in explore (%s)", d.Reason)
	}
	if resp := toolkittest.Call(t, tk, "run", "Bash", `{"command": "git status"}`); !strings.Contains(resp.Text(), "bare repository") {
		t.Errorf("git should refuse the implicit bare repository; it said %q", resp.Text())
	}

	// A repository whose config runs a monitor program.
	repo := f.root + "/repo"
	pwned := f.root + "/pwned-fsmonitor"
	git := func(env []string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), append([]string{"HOME=" + f.home, "GIT_CONFIG_NOSYSTEM=1"}, env...)...)
		_ = cmd.Run()
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(nil, "init", "-q", ".")
	git(nil, "config", "core.fsmonitor", "touch "+pwned+"; false")
	writeFile(t, repo+"/a.txt", "x")
	git(nil, "status")
	if _, err := os.Stat(pwned); err != nil {
		t.Skip("this git does not run core.fsmonitor on git status; nothing to defend here")
	}
	if err := os.Remove(pwned); err != nil {
		t.Fatal(err)
	}
	resp := toolkittest.Call(t, bypass(repo), "run", "Bash", `{"command": "GIT_CONFIG_NOSYSTEM=1 git status"}`)
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("git status through the Bash tool ran the repository's core.fsmonitor: %s", resp.Text())
	}
	if resp.State != toolkit.StateSuccess {
		t.Errorf("git status in a normal repository should work: %s", resp.Text())
	}
}
