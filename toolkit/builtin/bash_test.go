package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

// runBash runs one Bash call in bypass mode (the analyzer is tested
// elsewhere) and returns the response and the chunk events.
func runBash(t *testing.T, ctx context.Context, opts BashOptions, input map[string]any) (*toolkit.Response, []*toolkit.Chunk) {
	t.Helper()
	tk := toolkit.New(toolkit.Options{Permission: permission.Context{Mode: permission.ModeBypass, WorkingDirs: []string{t.TempDir()}}})
	if err := tk.Register(NewBash(opts)); err != nil {
		t.Fatal(err)
	}
	res, err := toolkittest.Run(ctx, tk, "s", "Bash", input, toolkit.TurnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Outcome.Response, res.Chunks
}

func TestBashRuns(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		input    map[string]any
		state    toolkit.State
		text     []string
		exitCode int
	}{
		{"stdout and stderr", map[string]any{"command": "echo out; echo err >&2"}, toolkit.StateSuccess, []string{"out\n", "err\n"}, 0},
		{"exit code", map[string]any{"command": "echo x; exit 3"}, toolkit.StateError, []string{"x\n", "[exit code 3]"}, 3},
		{"cwd option", map[string]any{"command": "pwd"}, toolkit.StateSuccess, []string{dir}, 0},
		{"bash syntax", map[string]any{"command": "a=(1 2 3); echo ${#a[@]}"}, toolkit.StateSuccess, []string{"3"}, 0},
		{"no stdin", map[string]any{"command": "cat; echo done"}, toolkit.StateSuccess, []string{"done"}, 0},
	}
	for _, tt := range tests {
		resp, _ := runBash(t, context.Background(), BashOptions{Cwd: dir}, tt.input)
		if resp.State != tt.state {
			t.Errorf("%s: state %s, want %s (%q)", tt.name, resp.State, tt.state, resp.Text())
		}
		for _, w := range tt.text {
			if !strings.Contains(resp.Text(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, resp.Text(), w)
			}
		}
		if code, _ := resp.Metadata["exit_code"].(int); code != tt.exitCode {
			t.Errorf("%s: exit code %v, want %d", tt.name, resp.Metadata["exit_code"], tt.exitCode)
		}
	}
}

func TestBashStreams(t *testing.T) {
	resp, chunks := runBash(t, context.Background(), BashOptions{}, map[string]any{"command": "echo first; sleep 0.3; echo second"})
	if resp.State != toolkit.StateSuccess || resp.Text() != "first\nsecond\n" {
		t.Fatalf("%s %q", resp.State, resp.Text())
	}
	var texts []string
	for _, c := range chunks {
		for _, b := range c.Content {
			texts = append(texts, b.Text)
		}
	}
	if len(texts) < 2 || texts[0] != "first\n" {
		t.Errorf("output did not stream as it came: %q", texts)
	}
}

func TestBashTimeoutKillsTheProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	resp, _ := runBash(t, context.Background(), BashOptions{}, map[string]any{
		"command": "sleep 30 & echo $! > " + pidFile + "; echo started; wait",
		"timeout": 500,
	})
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Fatalf("the call took %s after a 500 ms timeout", elapsed)
	}
	if resp.State != toolkit.StateError || !strings.Contains(resp.Text(), "timed out") || resp.Metadata["timed_out"] != true {
		t.Fatalf("%s %q %v", resp.State, resp.Text(), resp.Metadata)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("background child %d still alive after the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBashCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	start := time.Now()
	resp, _ := runBash(t, ctx, BashOptions{}, map[string]any{"command": "echo a; sleep 30"})
	if time.Since(start) > 10*time.Second {
		t.Fatal("cancellation did not stop the command")
	}
	if resp.State != toolkit.StateInterrupted {
		t.Fatalf("state %s, want interrupted (%q)", resp.State, resp.Text())
	}
}

func TestBashOutputCut(t *testing.T) {
	resp, _ := runBash(t, context.Background(), BashOptions{}, map[string]any{"command": "head -c 100000 /dev/zero | tr '\\0' a"})
	text := resp.Text()
	output, _, _ := strings.Cut(text, "\n[output cut")
	if n := strings.Count(output, "a"); n != MaxBashOutput || len(output) != MaxBashOutput {
		t.Errorf("%d characters of output kept, want %d", n, MaxBashOutput)
	}
	if !strings.Contains(text, "[output cut: 30000 of 100000 characters shown]") {
		t.Errorf("no cut note in %q", text[len(text)-80:])
	}
}

func TestLocalBackendWriteFile(t *testing.T) {
	dir := t.TempDir()
	b := &LocalBackend{}
	ctx := context.Background()
	p := filepath.Join(dir, "sub", "deeper", "f.txt")
	if err := b.WriteFile(ctx, p, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("new file: %v %v", fi, err)
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteFile(ctx, p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(p)
	data, _ := b.ReadFile(ctx, p)
	if fi.Mode().Perm() != 0o755 || string(data) != "two" {
		t.Errorf("rewrite: mode %v data %q; want the mode kept", fi.Mode().Perm(), data)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// TestWriteFileIsAtomic: a reader racing a writer sees the old or the new
// contents, never a mix or a truncated file.
func TestWriteFileIsAtomic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	a := strings.Repeat("a", 1<<20)
	b := strings.Repeat("b", 1<<20)
	be := &LocalBackend{}
	ctx := context.Background()
	if err := be.WriteFile(ctx, p, []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 40 {
			data := a
			if i%2 == 0 {
				data = b
			}
			if err := be.WriteFile(ctx, p, []byte(data), 0o644); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reads := 0
	for {
		select {
		case <-done:
			if reads == 0 {
				t.Fatal("no read raced the writes")
			}
			return
		default:
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(got); s != a && s != b {
			t.Fatalf("read %d bytes of mixed or partial contents", len(got))
		}
		reads++
	}
}

// twoCommands is a subject that judges a second Bash command inside the
// decision of the first: the analysis one decision shares must not
// answer for the other command.
type twoCommands struct {
	b           *Bash
	first, next string
	nextRO      bool
}

func (s *twoCommands) Name() string { return "Bash" }
func (s *twoCommands) IsReadOnly(_ map[string]any, pc *permission.Context) bool {
	first := s.b.IsReadOnlyIn(toolkit.Input{"command": s.first}, pc)
	s.nextRO = s.b.IsReadOnlyIn(toolkit.Input{"command": s.next}, pc)
	return first && s.nextRO
}
func (s *twoCommands) CheckPermissions(context.Context, map[string]any, *permission.Context) (permission.Decision, error) {
	return permission.PassthroughDecision(), nil
}
func (s *twoCommands) MatchRule(permission.Rule, map[string]any, *permission.Context) permission.Match {
	return permission.NoMatch
}
func (s *twoCommands) CoveredBy([]permission.Rule, map[string]any, *permission.Context) bool {
	return false
}
func (s *twoCommands) Suggestions(map[string]any) []permission.Rule { return nil }

func TestBashSharedAnalysisIsPerCommand(t *testing.T) {
	for _, c := range []struct {
		first, next string
		nextRO      bool
	}{{"ls", "rm -rf x", false}, {"rm -rf x", "ls", true}, {"ls", "ls", true}} {
		s := &twoCommands{b: NewBash(BashOptions{Home: "/home/user"}), first: c.first, next: c.next}
		pc := &permission.Context{WorkingDirs: []string{"/tmp/project"}, Cwd: "/tmp/project"}
		permission.Evaluate(context.Background(), s, map[string]any{}, pc)
		if s.nextRO != c.nextRO {
			t.Errorf("%q after %q in one decision: read-only %v, want %v", c.next, c.first, s.nextRO, c.nextRO)
		}
	}
}
