package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/internal/testdata"
)

// serveHTTP starts `wasmtools serve --http 127.0.0.1:0 ...` and returns
// its URL and process.
func serveHTTP(t *testing.T, dir string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--http", "127.0.0.1:0", "--workdir", dir}, args...)...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	url := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if u, ok := strings.CutPrefix(lines.Text(), "wasmtools: serving MCP on "); ok {
				url <- u
			}
		}
	}()
	select {
	case u := <-url:
		return u, cmd
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http did not start")
	}
	return "", nil
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func post(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeHTTPGuards: Origin and Host are checked on every request; a
// token, when configured, is required; a non-loopback address without a
// token is refused at start.
func TestServeHTTPGuards(t *testing.T) {
	dir := t.TempDir()
	url, _ := serveHTTP(t, dir, "--allow-origin", "https://app.example.com")
	port := url[strings.LastIndex(url, ":")+1:]
	cases := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no origin (a native client)", nil, http.StatusOK},
		{"a web page elsewhere", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"origin null", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"same origin", map[string]string{"Origin": "http://127.0.0.1:" + port}, http.StatusOK},
		{"allowed origin", map[string]string{"Origin": "https://app.example.com"}, http.StatusOK},
		{"DNS rebinding", map[string]string{"Host": "evil.example:" + port}, http.StatusForbidden},
	}
	for _, c := range cases {
		if got := post(t, url, c.header); got != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.name, got, c.want)
		}
	}

	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, _ = serveHTTP(t, dir, "--token-file", tokenFile)
	if got := post(t, url, nil); got != http.StatusUnauthorized {
		t.Errorf("no token: HTTP %d, want 401", got)
	}
	if got := post(t, url, map[string]string{"Authorization": "Bearer wrong-token-wrong-token"}); got != http.StatusUnauthorized {
		t.Errorf("wrong token: HTTP %d, want 401", got)
	}
	if got := post(t, url, map[string]string{"Authorization": "Bearer 0123456789abcdef0123456789abcdef"}); got != http.StatusOK {
		t.Errorf("right token: HTTP %d, want 200", got)
	}

	r := runBinary(t, nil, "", "serve", "--http", "0.0.0.0:0", "--workdir", dir)
	if r.code == exitOK || !strings.Contains(r.stderr, "--token-file") {
		t.Errorf("serve --http 0.0.0.0:0 without a token: exit %d, stderr %q; want a refusal naming --token-file", r.code, r.stderr)
	}
}

// TestServeHTTPGuardsFromConfig: token_file (relative to the
// configuration file) and allow_origins in wasmtools.yaml guard serve
// --http as the flags do.
func TestServeHTTPGuardsFromConfig(t *testing.T) {
	dir, confDir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(confDir, "token"), []byte("fedcba9876543210fedcba9876543210\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(confDir, "wasmtools.yaml")
	if err := os.WriteFile(cfg, []byte("token_file: token\nallow_origins: [\"https://app.example.com\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url, _ := serveHTTP(t, dir, "--config", cfg)
	auth := "Bearer fedcba9876543210fedcba9876543210"
	cases := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"the token", map[string]string{"Authorization": auth}, http.StatusOK},
		{"the token, an allowed origin", map[string]string{"Authorization": auth, "Origin": "https://app.example.com"}, http.StatusOK},
		{"the token, another origin", map[string]string{"Authorization": auth, "Origin": "https://evil.example"}, http.StatusForbidden},
	}
	for _, c := range cases {
		if got := post(t, url, c.header); got != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.name, got, c.want)
		}
	}
}

// TestServeHTTPShutdownKillsCalls: SIGTERM during a running command ends
// the command's whole process group before the server exits.
func TestServeHTTPShutdownKillsCalls(t *testing.T) {
	dir := t.TempDir()
	url, cmd := serveHTTP(t, dir, "--mode", "bypass")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	pidFile := filepath.Join(dir, "child.pid")
	go func() {
		_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "sh -c 'echo $$ > child.pid; exec sleep 60'"}})
	}()
	var pid int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
			break
		}
	}
	if pid == 0 {
		t.Fatal("the command did not start")
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not exit within 15 s of SIGTERM")
	}
	t.Logf("serve exited %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); err != nil {
			break // gone
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the command's process %d outlived the server", pid)
		}
	}
}

// TestServeHTTPTypeScriptClient: two sessions of the official TypeScript
// SDK client read and edit one file at once over --http. Every edit
// reported a success is in the file: none is lost to the other session.
func TestServeHTTPTypeScriptClient(t *testing.T) {
	sdkDir := testdata.NPMPeer(t, "@modelcontextprotocol", "sdk")
	script, err := filepath.Abs(filepath.Join("testdata", "ts-edits.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "shared.txt")
	if err := os.WriteFile(path, []byte("end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url, _ := serveHTTP(t, dir, "--mode", "accept_edits")
	const n = 40
	out, err := exec.Command("node", script, sdkDir, url, path, strconv.Itoa(n)).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr)
	}
	var results []struct{ OK, Failed int }
	if err := json.Unmarshal(out, &results); err != nil || len(results) != 2 {
		t.Fatalf("client output %q: %v", out, err)
	}
	ok := 0
	for _, r := range results {
		if r.OK+r.Failed != n {
			t.Errorf("a session made %d edits, want %d", r.OK+r.Failed, n)
		}
		ok += r.OK
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(data), "\n") - 1 // all but "end"
	if lines != ok {
		t.Errorf("%d edits reported a success, %d are in the file", ok, lines)
	}
	if ok < n {
		t.Errorf("only %d of %d edits succeeded: a session's own Read → Edit should mostly win", ok, 2*n)
	}
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestServeHTTPNoSelfApproval: without a token, any local process can be
// an HTTP client of serve --http, a command the server started included:
// it could open its own session, call Bash with "sandbox": "off" and
// answer the safety question itself. Such questions are therefore never
// put to an HTTP client without a token; with --token-file they are.
func TestServeHTTPNoSelfApproval(t *testing.T) {
	needSandbox(t)
	for _, withToken := range []bool{false, true} {
		t.Run(fmt.Sprintf("token=%v", withToken), func(t *testing.T) {
			work, outside := t.TempDir(), t.TempDir()
			target := filepath.Join(outside, "x")
			args := []string{"--mode", "bypass", "--sandbox", "auto"}
			httpClient := http.DefaultClient
			if withToken {
				tokenFile := filepath.Join(t.TempDir(), "token")
				if err := os.WriteFile(tokenFile, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--token-file", tokenFile)
				httpClient = &http.Client{Transport: bearer{"0123456789abcdef0123456789abcdef", http.DefaultTransport}}
			}
			url, _ := serveHTTP(t, work, args...)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var asked atomic.Int32
			client := sdk.NewClient(&sdk.Implementation{Name: "self", Version: "1"}, &sdk.ClientOptions{
				ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					asked.Add(1)
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}, nil
				},
			})
			cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch " + target, "sandbox": "off"}})
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(target)
			if withToken {
				if asked.Load() != 1 || res.IsError || statErr != nil {
					t.Errorf("with a token: asked %d times, error %v (%s), ran %v", asked.Load(), res.IsError, resultText(res), statErr == nil)
				}
				return
			}
			if asked.Load() != 0 || !res.IsError || !strings.Contains(resultText(res), "without a token") || statErr == nil {
				t.Errorf("without a token: asked %d times, error %v (%s), ran %v", asked.Load(), res.IsError, resultText(res), statErr == nil)
			}
		})
	}
}

// TestServeHTTPCommandsCannotReachTheServer (issue 26, items 4 and 5):
// with the sandbox required, a command the server runs (in bypass,
// asking nothing) can neither read the token, even from inside the
// working directory, nor connect to the server's port, nor change the
// configuration file beside it; the rest of the working directory stays
// writable.
func TestServeHTTPCommandsCannotReachTheServer(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed to open sockets")
	}
	work := t.TempDir()
	const secret = "0123456789abcdef0123456789abcdef"
	tokenFile := filepath.Join(work, "token")
	config := filepath.Join(work, "wasmtools.yaml")
	for p, data := range map[string]string{tokenFile: secret + "\n", config: "mode: bypass\n"} {
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	url, _ := serveHTTP(t, work, "--config", config, "--mode", "bypass", "--sandbox", "required", "--token-file", tokenFile)
	_, port, _ := strings.Cut(strings.TrimPrefix(strings.TrimSuffix(url, "/mcp"), "http://"), ":")
	port = strings.TrimSuffix(port, "/")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// MCP logging is deprecated from protocol 2026-07-28 but serves the
	// clients of the versions in use.
	//lint:ignore SA1019 see above
	logs := make(chan *sdk.LoggingMessageParams, 16)
	client := sdk.NewClient(&sdk.Implementation{Name: "operator", Version: "1"}, &sdk.ClientOptions{
		//lint:ignore SA1019 see above
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) { logs <- r.Params },
	})
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{secret, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	//lint:ignore SA1019 MCP logging serves the protocol versions clients speak today
	if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	// A script the engine cannot see into, as a build or test run is.
	script := fmt.Sprintf(`cat %q; echo; python3 -c 'import socket; socket.create_connection(("127.0.0.1", %s)); print("connected")' 2>&1 | tail -1
echo 'mode: bypass # changed' >> %q
echo kept > notes.txt && echo notes-ok
`, tokenFile, port, config)
	if err := os.WriteFile(filepath.Join(work, "probe.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "sh probe.sh"}})
	if err != nil {
		t.Fatal(err)
	}
	out := resultText(res)
	t.Logf("the probe's output:\n%s", out)
	if strings.Contains(out, secret) {
		t.Errorf("a confined command read the server's token:\n%s", out)
	}
	if strings.Contains(out, "connected") && !strings.Contains(out, "Permission denied") {
		t.Errorf("a confined command connected to the server's own port %s:\n%s", port, out)
	}
	if b, _ := os.ReadFile(config); string(b) != "mode: bypass\n" {
		t.Errorf("a confined command changed the configuration in its working directory: %q", b)
	}
	if !strings.Contains(out, "notes-ok") {
		t.Errorf("the working directory is no longer writable:\n%s", out)
	}
	// The refusal also reaches the client as a log message.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-logs:
			if m.Logger != "wasmtools.sandbox" {
				continue
			}
			if data, _ := json.Marshal(m.Data); !strings.Contains(string(data), "sandbox") || !strings.Contains(string(data), "off") {
				t.Errorf("the sandbox log message does not say what would allow it: %s", data)
			}
			return
		case <-deadline:
			t.Fatal("no wasmtools.sandbox log message for the refused accesses")
		}
	}
}
