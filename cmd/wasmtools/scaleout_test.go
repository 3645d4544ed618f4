package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/host"
	"github.com/wasmtools/wasmtools/internal/redistest"
	"github.com/wasmtools/wasmtools/internal/testproc"
)

// The scale-out scenario: Redis, two `serve --http` replicas sharing it,
// and haproxy in front of them in round-robin, driven by the MCP Go SDK's
// client through the balancer. Every request of a session may land on
// either replica.

// lookPathOrSbin is exec.LookPath, also trying /usr/sbin (where Debian
// puts haproxy, outside a normal user's PATH).
func lookPathOrSbin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	p := filepath.Join("/usr/sbin", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s is not installed", name)
	}
	return p, nil
}

// waitListening waits until addr accepts connections.
func waitListening(t testing.TB, addr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// replica is one `wasmtools serve --http` process.
type replica struct {
	name string
	addr string
	cmd  *exec.Cmd
	log  *testproc.Output
}

// startReplica starts serve on a free port of its own, in dir (shared by
// the replicas), accepting the balancer's Host header.
func startReplica(t testing.TB, name, dir, lbAddr string, args ...string) *replica {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", testproc.FreePort(t))
	cmd := exec.Command(binary, append([]string{"serve", "--http", addr, "--workdir", dir, "--allow-host", lbAddr}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "WASMTOOLS_LOG=debug")
	r := &replica{name: name, addr: addr, cmd: cmd, log: testproc.Start(t, "replica "+name, cmd)}
	waitListening(t, addr)
	return r
}

// startBalancer runs haproxy on lbAddr, round-robin over the backends,
// per request; a refused connection is retried on another backend.
func startBalancer(t testing.TB, lbAddr string, backends ...*replica) {
	t.Helper()
	bin, err := lookPathOrSbin("haproxy")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("haproxy is not installed (apt-get install haproxy); CI must run the scale-out test")
		}
		t.Skip("haproxy is not installed (apt-get install haproxy): scale-out test skipped")
	}
	var servers strings.Builder
	for _, b := range backends {
		fmt.Fprintf(&servers, "  server %s %s check inter 200ms fall 1 rise 2\n", b.name, b.addr)
	}
	cfg := fmt.Sprintf(`global
  maxconn 256
defaults
  mode http
  timeout connect 1s
  timeout client 60s
  timeout server 60s
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout
frontend mcp
  bind %s
  default_backend replicas
backend replicas
  balance roundrobin
%s`, lbAddr, servers.String())
	file := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	testproc.Start(t, "haproxy", exec.Command(bin, "-f", file, "-db"))
	waitListening(t, lbAddr)
}

func TestScaleOutThroughBalancer(t *testing.T) {
	redisAddr := redistest.Start(t)
	dir := t.TempDir()
	lbAddr := fmt.Sprintf("127.0.0.1:%d", testproc.FreePort(t))
	store := redistest.URL(redisAddr, 0)
	// Replica a reads the store from wasmtools.yaml, b from --store.
	yaml := "store: " + store + "\ntools:\n  groups: {Bash: shell}\ngroups:\n  - name: shell\n    description: Run shell commands.\n"
	if err := os.WriteFile(filepath.Join(dir, "wasmtools.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	// The operator trusts it (it lies in the working directory).
	record := filepath.Join(t.TempDir(), "trust.json")
	t.Setenv(host.TrustFileEnv, record)
	var rec host.TrustRecord
	if _, err := rec.TrustConfig(filepath.Join(dir, "wasmtools.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := rec.Write(record); err != nil {
		t.Fatal(err)
	}
	common := []string{"--allow", "Edit", "--session-idle", "5m"}
	a := startReplica(t, "a", dir, lbAddr, common...)
	b := startReplica(t, "b", dir, lbAddr, append([]string{"--store", store}, common...)...)
	startBalancer(t, lbAddr, a, b)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var asked atomic.Int32
	decision := "once"
	client := sdk.NewClient(&sdk.Implementation{Name: "scale-out", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}, nil
		},
	})
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + lbAddr, MaxRetries: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s failed: %s", name, resultText(res))
		}
		return resultText(res)
	}
	hasBash := func() bool {
		t.Helper()
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			if tool.Name == "Bash" {
				return true
			}
		}
		return false
	}

	// Groups: activated through one replica, active on the next requests,
	// whichever replica they reach.
	if hasBash() {
		t.Fatal("Bash listed before its group is active")
	}
	call("reset_tools", map[string]any{"shell": true})
	for range 4 {
		if !hasBash() {
			t.Fatal("a tools/list after reset_tools does not show the shell group")
		}
	}
	// Tasks: created through both replicas, all listed.
	for i := range 4 {
		call("TaskCreate", map[string]any{"subject": fmt.Sprintf("task %d", i), "description": "d"})
	}
	if list := call("TaskList", map[string]any{}); strings.Count(list, "task ") != 4 {
		t.Fatalf("task list after 4 creates through the balancer:\n%s", list)
	}
	// Both replicas served this session: one began it, the other took it up.
	if !strings.Contains(a.log.String()+b.log.String(), "took up a session begun on another server") {
		t.Fatal("no replica took up the session: is the balancer round-robin?")
	}

	// Confirmations: the elicitation goes out from the replica running the
	// call; the answer may come back through the other one. Each approved
	// command runs exactly once.
	count := filepath.Join(dir, "count.txt")
	lines := func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "run\n")
	}
	for i := 1; i <= 4; i++ {
		call("Bash", map[string]any{"command": "echo run | tee -a count.txt"})
		if n := lines(); n != i {
			t.Fatalf("after %d approved runs the command ran %d times", i, n)
		}
		// One request more: the next call runs on the other replica, so
		// both the replica that began the session and the one that took
		// it up run a confirmed call.
		hasBash()
	}
	for _, r := range []*replica{a, b} {
		if !strings.Contains(r.log.String(), "sandbox: confining") {
			t.Fatalf("replica %s ran no command: the calls did not alternate", r.name)
		}
	}
	if asked.Load() != 4 {
		t.Fatalf("%d confirmations for 4 calls asked once each", asked.Load())
	}
	// A call and the answer to its elicitation are two requests in a row:
	// round-robin sends them to different replicas.
	if !strings.Contains(a.log.String()+b.log.String(), "a client's answer came through another server") {
		t.Fatal("no answer to an elicitation crossed replicas")
	}
	// "always" grants a rule for the session, on every replica.
	decision = "always"
	call("Bash", map[string]any{"command": "echo run | tee -a count.txt"})
	for range 3 {
		call("Bash", map[string]any{"command": "echo run | tee -a count.txt"})
	}
	if asked.Load() != 5 || lines() != 8 {
		t.Fatalf("after an \"always\": %d confirmations, %d runs; want 5 and 8", asked.Load(), lines())
	}

	// Concurrent edits through different replicas: every edit lands.
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("start\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	const writers, each = 2, 5
	for w := range writers {
		wcs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + lbAddr, MaxRetries: 5}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer wcs.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				line := fmt.Sprintf("w%d-%d", w, i)
				for attempt := 0; ; attempt++ {
					if attempt == 50 {
						t.Errorf("%s: no edit went through", line)
						return
					}
					if _, err := wcs.CallTool(ctx, &sdk.CallToolParams{Name: "Read", Arguments: map[string]any{"file_path": notes}}); err != nil {
						t.Error(err)
						return
					}
					res, err := wcs.CallTool(ctx, &sdk.CallToolParams{Name: "Edit", Arguments: map[string]any{
						"file_path": notes, "old_string": "end\n", "new_string": line + "\nend\n"}})
					if err != nil {
						t.Error(err)
						return
					}
					if !res.IsError {
						break
					}
					// Changed since read by the other writer: read again.
				}
			}
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(notes)
	for w := range writers {
		for i := range each {
			if !strings.Contains(string(data), fmt.Sprintf("w%d-%d\n", w, i)) {
				t.Errorf("edit w%d-%d lost:\n%s", w, i, data)
			}
		}
	}

	// Replica a dies mid-conversation: the session goes on through b.
	_ = a.cmd.Process.Kill()
	_ = a.cmd.Wait()
	for range 4 {
		if !hasBash() {
			t.Fatal("after replica a died, the session lost its active groups")
		}
	}
	if list := call("TaskList", map[string]any{}); strings.Count(list, "task ") != 4 {
		t.Fatalf("after replica a died, the task list is:\n%s", list)
	}
	call("Bash", map[string]any{"command": "echo run | tee -a count.txt"}) // granted "always" before
	if asked.Load() != 5 || lines() != 9 {
		t.Fatalf("after replica a died: %d confirmations, %d runs; want 5 and 9", asked.Load(), lines())
	}
}
