package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/toolkit"
)

// TestGuardedStdio: malformed frames are answered with JSON-RPC errors
// and the server goes on answering the next request.
func TestGuardedStdio(t *testing.T) {
	srv := taskServer(t, toolkit.Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.SDK().Run(ctx, &GuardedIOTransport{Reader: inR, Writer: outW}) }()
	replies := bufio.NewReader(outR)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		type result struct {
			m   map[string]any
			err error
		}
		got := make(chan result, 1)
		go func() {
			line, err := replies.ReadString('\n')
			var m map[string]any
			if err == nil {
				err = json.Unmarshal([]byte(line), &m)
			}
			got <- result{m, err}
		}()
		select {
		case r := <-got:
			if r.err != nil {
				t.Fatal(r.err)
			}
			return r.m
		case <-time.After(10 * time.Second):
			t.Fatal("no reply")
		}
		return nil
	}
	code := func(m map[string]any) int {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return int(c)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	bad := []struct {
		line string
		code int
	}{
		{"this is not JSON", -32700},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"`, -32700},
		{`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":5,"method":7}`, -32600},
		{`{"jsonrpc":"2.0","id":6,"method":"ping","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`, -32600},
		{`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"` + strings.Repeat("a", MaxFrameBytes) + `"}}`, -32600},
	}
	for i, b := range bad {
		send(b.line)
		m := next()
		if code(m) != b.code {
			t.Errorf("bad frame %d: reply %v, want code %d", i, m, b.code)
		}
		send(`{"jsonrpc":"2.0","id":100,"method":"ping"}`)
		if m := next(); m["result"] == nil || m["id"] != float64(100) {
			t.Fatalf("after bad frame %d the server did not answer a ping: %v", i, m)
		}
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end with its input")
	}
}

func TestFixErrorCode(t *testing.T) {
	got := string(fixErrorCode([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"x"}}`)))
	if !strings.Contains(got, `"code":-32603`) {
		t.Errorf("code 0 kept: %s", got)
	}
	ok := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`
	if got := string(fixErrorCode([]byte(ok))); got != ok {
		t.Errorf("a good code was changed: %s", got)
	}
}

func FuzzCheckFrame(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[1]`, `{"id":{}}`, `"x`, `{"a":"\"[[["}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, code, _ := checkFrame([]byte(s))
		if code == 0 && !json.Valid([]byte(s)) {
			t.Fatalf("%q accepted but not JSON", s)
		}
		_ = id
		_ = fixErrorCode([]byte(s))
	})
}
