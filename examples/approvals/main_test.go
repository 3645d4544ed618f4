package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// process is one running process of the example.
type process struct {
	cmd *exec.Cmd
	url string
}

// start runs the built example and waits for its address.
func start(t *testing.T, bin, config, store string) *process {
	t.Helper()
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-store", store, "-config", config)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case l, ok := <-line:
		url, found := strings.CutPrefix(l, "listening on ")
		if !ok || !found {
			t.Fatalf("the service did not start: %q\n%s", l, stderr.String())
		}
		return &process{cmd: cmd, url: url}
	case <-time.After(60 * time.Second):
		t.Fatalf("the service did not start in time:\n%s", stderr.String())
	}
	return nil
}

func post(t *testing.T, url string, body any) (int, turnReply) {
	t.Helper()
	data, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reply turnReply
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusAccepted {
		if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, reply
}

// TestParkAndResumeInAnotherProcess: a turn waits for approval in one
// process, which is then killed; two other processes receive the
// approval at once; the call runs exactly once.
func TestParkAndResumeInAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "approvals")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "wasmtools.yaml")
	if err := os.WriteFile(config, []byte("mode: default\nworking_dirs: [work]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "turns")
	log := filepath.Join(work, "log.txt")

	first := start(t, bin, config, store)
	calls := map[string]any{"calls": []map[string]string{
		{"id": "look", "name": "Glob", "arguments": fmt.Sprintf(`{"pattern":"*","path":%q}`, work)},
		{"id": "append", "name": "Bash", "arguments": fmt.Sprintf(`{"command":"echo approved >> %s"}`, log)},
	}}
	code, parked := post(t, first.url+"/sessions/s1/turns", calls)
	if code != http.StatusAccepted || parked.TurnID == "" || len(parked.Confirmations) != 1 || parked.Confirmations[0].CallID != "append" {
		t.Fatalf("new turn: %d %+v, want 202 waiting for the Bash call", code, parked)
	}
	// The first process goes away before anyone answers.
	_ = first.cmd.Process.Kill()
	_ = first.cmd.Wait()

	a, b := start(t, bin, config, store), start(t, bin, config, store)
	// A request one of whose answers does not apply leaves the turn as
	// it was, the approval it also held included.
	partial := map[string]any{"answers": map[string]any{"append": map[string]any{"approve": true}, "nope": map[string]any{"approve": true}}}
	if code, _ := post(t, a.url+"/turns/"+parked.TurnID+"/answers", partial); code != http.StatusBadRequest {
		t.Fatalf("a request with an unknown call: %d, want 400", code)
	}
	if code, still := post(t, a.url+"/turns/"+parked.TurnID+"/answers", map[string]any{}); code != http.StatusAccepted || len(still.Confirmations) != 1 {
		t.Fatalf("after the refused request the turn: %d %+v, want still waiting", code, still)
	}
	if _, err := os.Stat(log); err == nil {
		t.Fatal("the call ran on a refused request")
	}
	answer := map[string]any{"answers": map[string]any{"append": map[string]any{"approve": true}}}
	var wg sync.WaitGroup
	codes := make([]int, 2)
	replies := make([]turnReply, 2)
	for i, p := range []*process{a, b} {
		wg.Go(func() { codes[i], replies[i] = post(t, p.url+"/turns/"+parked.TurnID+"/answers", answer) })
	}
	wg.Wait()
	ok := -1
	for i, c := range codes {
		switch c {
		case http.StatusOK:
			if ok >= 0 {
				t.Fatalf("both replicas resumed the turn: %v", codes)
			}
			ok = i
		case http.StatusConflict:
		default:
			t.Fatalf("answers: %v, want one 200 and one 409", codes)
		}
	}
	if ok < 0 {
		t.Fatalf("no replica resumed the turn: %v", codes)
	}
	rs := replies[ok].Responses
	if len(rs) != 2 || rs[0].Tool != "Glob" || rs[1].Tool != "Bash" || rs[1].State != "success" {
		t.Fatalf("responses after resuming: %+v", rs)
	}
	data, err := os.ReadFile(log)
	if err != nil || string(data) != "approved\n" {
		t.Errorf("log.txt = %q (%v), want one line: the call ran once", data, err)
	}
	if code, _ := post(t, a.url+"/turns/"+parked.TurnID+"/answers", answer); code != http.StatusConflict {
		t.Errorf("answering a finished turn again: %d, want 409", code)
	}
	if data, _ := os.ReadFile(log); string(data) != "approved\n" {
		t.Errorf("log.txt after a second answer = %q", data)
	}
}
