//go:build !wasip1

package plugins_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmtools/wasmtools/abi"
)

func TestHash(t *testing.T) {
	p := load(t, "hash", options{})
	tests := []struct {
		tool  string
		input map[string]any
		want  string
		err   bool
	}{
		{"hash", map[string]any{"text": "abc"}, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", false},
		{"hash", map[string]any{"text": "abc", "algorithm": "sha1"}, "a9993e364706816aba3e25717850c26c9cd0d89d", false},
		{"hash", map[string]any{"text": "abc", "algorithm": "md5"}, "900150983cd24fb0d6963f7d28e17f72", false},
		{"hash", map[string]any{"text": "abc", "algorithm": "sha512"}, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f", false},
		{"hash", map[string]any{"text": "", "algorithm": "sha256"}, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", false},
		{"hash", map[string]any{"text": "YWJj", "input_encoding": "base64", "output": "base64"}, "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=", false},
		{"hash", map[string]any{"text": "616263", "input_encoding": "hex", "algorithm": "md5"}, "900150983cd24fb0d6963f7d28e17f72", false},
		{"hash", map[string]any{"text": "abc", "algorithm": "crc32"}, "unknown algorithm", true},
		{"hash", map[string]any{"text": "zz", "input_encoding": "hex"}, "not hex", true},
		{"encode", map[string]any{"text": "hello, world?", "operation": "encode", "format": "base64"}, "aGVsbG8sIHdvcmxkPw==", false},
		{"encode", map[string]any{"text": "hello, world?", "operation": "encode", "format": "base64url"}, "aGVsbG8sIHdvcmxkPw", false},
		{"encode", map[string]any{"text": "hi!", "operation": "encode", "format": "hex"}, "686921", false},
		{"encode", map[string]any{"text": "aGVsbG8sIHdvcmxkPw==", "operation": "decode", "format": "base64"}, "hello, world?", false},
		{"encode", map[string]any{"text": "aGVsbG8sIHdvcmxkPw", "operation": "decode", "format": "base64url"}, "hello, world?", false},
		{"encode", map[string]any{"text": "686921", "operation": "decode", "format": "hex"}, "hi!", false},
		{"encode", map[string]any{"text": "ff00fe", "operation": "decode", "format": "hex"}, "not UTF-8", false},
		{"encode", map[string]any{"text": "%%%", "operation": "decode", "format": "base64"}, "not valid base64", true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.tool, tt.input), func(t *testing.T) {
			res, _ := p.callTool(tt.tool, tt.input)
			got := text(res)
			if tt.err != (res.State == abi.StateError) {
				t.Fatalf("state %q, want error %v: %s", res.State, tt.err, got)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	res, _ := p.callTool("encode", map[string]any{"text": "ff00fe", "operation": "decode", "format": "hex"})
	if len(res.Content) != 2 || res.Content[1].Type != abi.BlockData || string(res.Content[1].Data) != "\xff\x00\xfe" {
		t.Errorf("binary decode: %+v", res.Content)
	}
	res, _ = p.callTool("hash", map[string]any{"text": "abc", "algorithm": "md5"})
	if res.Metadata["algorithm"] != "md5" || res.Metadata["bytes"] != 3.0 {
		t.Errorf("metadata = %v", res.Metadata)
	}
}

func TestJSONQuery(t *testing.T) {
	p := load(t, "jsonquery", options{})
	doc := `{"users":[{"name":"ann","age":31,"admin":true},{"name":"bob","age":17},{"name":"cy","age":45}]}`
	tests := []struct {
		query string
		raw   bool
		want  string
		err   string
	}{
		{query: `.users[0].name`, want: `"ann"`},
		{query: `.users[] | select(.age > 18) | .name`, raw: true, want: "ann\ncy"},
		{query: `.users | map(.age) | add`, want: `93`},
		{query: `.users | length`, want: `3`},
		{query: `.users[1] | keys`, want: "[\n  \"age\",\n  \"name\"\n]"},
		{query: `[.users[] | select(.admin != true) | .name]`, want: "[\n  \"bob\",\n  \"cy\"\n]"},
		{query: `.users[] | select(.name == "bob") | .age < 18`, want: `true`},
		{query: `.users[`, err: "not valid jq"},
		{query: `.users.name`, err: "expected an object"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, _ := p.callTool("jsonquery", map[string]any{"json": doc, "query": tt.query, "raw": tt.raw})
			got := text(res)
			if tt.err != "" {
				if res.State != abi.StateError || !strings.Contains(got, tt.err) {
					t.Fatalf("state %q, text %q, want an error with %q", res.State, got, tt.err)
				}
				return
			}
			if res.State != abi.StateSuccess || got != tt.want {
				t.Errorf("state %q, got %q, want %q", res.State, got, tt.want)
			}
		})
	}
	res, _ := p.callTool("jsonquery", map[string]any{"json": "{not json", "query": "."})
	if res.State != abi.StateError || !strings.Contains(text(res), "not valid JSON") {
		t.Errorf("bad document: %+v", res)
	}
}

func TestRegex(t *testing.T) {
	p := load(t, "regex", options{})
	tests := []struct {
		input map[string]any
		want  []string
		err   bool
	}{
		{map[string]any{"operation": "match", "pattern": `(\w+)@(?P<host>[\w.]+)`, "text": "mail ann@example.com now"},
			[]string{`"matched": true`, `"text": "ann@example.com"`, `"start": 5`, `"host": "example.com"`, `"ann"`}, false},
		{map[string]any{"operation": "match", "pattern": `\d+`, "text": "none"}, []string{`"matched": false`}, false},
		{map[string]any{"operation": "find_all", "pattern": `\d+`, "text": "a1 b22 c333"},
			[]string{`"count": 3`, `"text": "333"`, `"truncated": false`}, false},
		{map[string]any{"operation": "find_all", "pattern": `\d`, "text": "12345", "limit": 2},
			[]string{`"count": 2`, `"truncated": true`}, false},
		{map[string]any{"operation": "replace", "pattern": `(\w+)@(\w+)`, "text": "ann@x bob@y", "replacement": "$2:$1"}, []string{"x:ann y:bob"}, false},
		{map[string]any{"operation": "replace", "pattern": `a`, "text": "banana", "replacement": "$1", "literal": true}, []string{"b$1n$1n$1"}, false},
		{map[string]any{"operation": "replace", "pattern": `(?i)A`, "text": "aAa", "replacement": "-", "limit": 2}, []string{"--a"}, false},
		{map[string]any{"operation": "match", "pattern": `(unclosed`, "text": "x"}, []string{"invalid pattern"}, true},
		{map[string]any{"operation": "split", "pattern": `x`, "text": "x"}, []string{"unknown operation"}, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.input), func(t *testing.T) {
			res, _ := p.callTool("regex", tt.input)
			got := text(res)
			if tt.err != (res.State == abi.StateError) {
				t.Fatalf("state %q: %s", res.State, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestDeploy(t *testing.T) {
	p := load(t, "deploy", options{})
	checks := []struct {
		target   string
		behavior string
		immune   bool
	}{
		{"prod-eu", abi.Ask, true},
		{"prod-us-2", abi.Ask, true},
		{"dev-1", abi.Allow, false},
		{"staging-2", abi.Passthrough, false},
		{"production", abi.Passthrough, false},
	}
	for _, c := range checks {
		d := p.check("deploy", map[string]any{"target": c.target})
		if d.Behavior != c.behavior || d.BypassImmune != c.immune {
			t.Errorf("check %s = %+v, want %s immune=%v", c.target, d, c.behavior, c.immune)
		}
		if c.behavior == abi.Ask && !strings.Contains(d.Message, c.target) {
			t.Errorf("ask message %q does not name %s", d.Message, c.target)
		}
	}
	matches := []struct {
		content, target string
		want            bool
	}{
		{"staging-*", "staging-2", true},
		{"staging-*", "prod-eu", false},
		{"dev-?", "dev-1", true},
		{"dev-?", "dev-12", false},
		{"prod-eu", "prod-eu", true},
		{"", "anything", true}, // a tool-level rule
	}
	for _, m := range matches {
		if got := p.matchRule("deploy", m.content, map[string]any{"target": m.target}); got != m.want {
			t.Errorf("match_rule(%q, %s) = %v, want %v", m.content, m.target, got, m.want)
		}
	}
	if got := p.suggestions("deploy", map[string]any{"target": "staging-2"}); !slices.Equal(got, []string{"deploy(staging-*)"}) {
		t.Errorf("suggestions = %v", got)
	}
	if got := p.suggestions("deploy", map[string]any{"target": "qa"}); !slices.Equal(got, []string{"deploy(qa)"}) {
		t.Errorf("suggestions = %v", got)
	}
	if p.readOnly("deploy", map[string]any{"target": "prod-eu"}) || !p.readOnly("deploy", map[string]any{"target": "prod-eu", "dry_run": true}) {
		t.Error("check_read_only: want read-only only for a dry run")
	}

	res, chunks := p.callTool("deploy", map[string]any{"target": "staging-2", "version": "1.4.0"})
	if res.State != abi.StateSuccess || !strings.Contains(text(res), "Deployed 1.4.0 to staging-2") {
		t.Errorf("result = %+v", res)
	}
	if len(chunks) != 4 {
		t.Fatalf("got %d chunks, want 4: %+v", len(chunks), chunks)
	}
	for i, c := range chunks {
		if c.Metadata["progress"] != float64(i+1)/4 || len(c.Content) != 1 || !strings.HasPrefix(c.Content[0].Text, fmt.Sprintf("[%d/4]", i+1)) {
			t.Errorf("chunk %d = %+v", i, c)
		}
	}
	res, chunks = p.callTool("deploy", map[string]any{"target": "prod-eu", "dry_run": true})
	if len(chunks) != 0 || !strings.Contains(text(res), "Dry run") {
		t.Errorf("dry run: %+v, %d chunks", res, len(chunks))
	}
	res, _ = p.callTool("deploy", map[string]any{"target": ""})
	if res.State != abi.StateError {
		t.Errorf("empty target: %+v", res)
	}
}

func TestHTTPFetch(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("X-Test", "yes")
		switch r.URL.Path {
		case "/hello":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "hello from the server")
		case "/big":
			fmt.Fprint(w, strings.Repeat("é", 1000)) // 2000 bytes
		case "/echo":
			b := new(strings.Builder)
			fmt.Fprintf(b, "%s %s ", r.Method, r.Header.Get("X-Req"))
			buf := make([]byte, 100)
			n, _ := r.Body.Read(buf)
			b.Write(buf[:n])
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, b.String())
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("the test server is not on 127.0.0.1: %s", srv.URL)
	}
	p := load(t, "httpfetch", options{allowedHosts: []string{"127.0.0.1"}, timeout: 20 * time.Second})

	res, chunks := p.callTool("fetch", map[string]any{"url": srv.URL + "/hello"})
	got := text(res)
	for _, w := range []string{"HTTP 200", "x-test: yes", "content-type: text/plain", "hello from the server"} {
		if !strings.Contains(got, w) {
			t.Errorf("GET result lacks %q:\n%s", w, got)
		}
	}
	if res.Metadata["status"] != 200.0 || res.Metadata["truncated"] != false {
		t.Errorf("metadata = %v", res.Metadata)
	}
	if len(chunks) != 1 || !strings.Contains(chunks[0].Content[0].Text, "GET "+srv.URL+"/hello") {
		t.Errorf("progress chunks = %+v", chunks)
	}

	res, _ = p.callTool("fetch", map[string]any{"url": srv.URL + "/echo", "method": "post", "body": "payload", "headers": map[string]string{"X-Req": "r1"}})
	if got := text(res); !strings.Contains(got, "HTTP 201") || !strings.Contains(got, "POST r1 payload") {
		t.Errorf("POST result:\n%s", got)
	}

	res, _ = p.callTool("fetch", map[string]any{"url": srv.URL + "/big", "max_bytes": 101})
	if got := text(res); !strings.Contains(got, strings.Repeat("é", 50)+"\n\n[cut: showing 100 of 2000 bytes") {
		t.Errorf("cut result:\n%s", got)
	}
	res, _ = p.callTool("fetch", map[string]any{"url": srv.URL + "/missing"})
	if !strings.Contains(text(res), "HTTP 404") {
		t.Errorf("404 result:\n%s", text(res))
	}
	res, _ = p.callTool("fetch", map[string]any{"url": "ftp://127.0.0.1/x"})
	if res.State != abi.StateError || !strings.Contains(text(res), "not an http or https URL") {
		t.Errorf("ftp result: %+v", res)
	}

	// A host that was not granted: the Extism host refuses it with a
	// trap, which ends the call with an error naming the URL.
	before := hits.Load()
	r := p.call(abi.ExportCall, abi.CallRequest{ABI: 1, Tool: "fetch", Input: json.RawMessage(`{"url":"` + strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + `/hello"}`)})
	if r.err == nil || !strings.Contains(r.err.Error(), "not allowed") {
		t.Errorf("ungranted host: rc %d, err %v, out %s", r.rc, r.err, r.out)
	}
	if hits.Load() != before {
		t.Error("the ungranted request reached the server")
	}

	// Permissions.
	if d := p.check("fetch", map[string]any{"url": srv.URL}); d.Behavior != abi.Passthrough {
		t.Errorf("GET check = %+v", d)
	}
	d := p.check("fetch", map[string]any{"url": "https://api.example.com/v1/items", "method": "DELETE"})
	if d.Behavior != abi.Ask || d.BypassImmune || !slices.Equal(d.Suggestions, []string{"fetch(DELETE https://api.example.com/*)"}) {
		t.Errorf("DELETE check = %+v", d)
	}
	matches := []struct {
		content, url, method string
		want                 bool
	}{
		{"https://api.example.com/*", "https://api.example.com/v1/items", "", true},
		{"https://api.example.com/*", "https://api.example.com/v1/items", "HEAD", true},
		{"https://api.example.com/*", "https://api.example.com/v1/items", "POST", false},
		{"https://api.example.com/*", "https://api.example.com.evil.io/x", "", false},
		{"https://api.example.com/*", "http://api.example.com/x", "", false},
		{"https://api.example.com/v1/*/items", "https://api.example.com/v1/7/items", "", true},
		{"POST https://api.example.com/*", "https://api.example.com/v1", "post", true},
		{"POST https://api.example.com/*", "https://api.example.com/v1", "PUT", false},
		{"* https://api.example.com/*", "https://api.example.com/v1", "DELETE", true},
		{"api.example.com", "https://api.example.com/anything", "", true},
		{"api.example.com", "https://www.example.com/", "", false},
		{"*.example.com", "https://cdn.example.com/a.js", "", true},
		{"*.example.com", "https://example.com.evil.io/", "", false},
	}
	for _, m := range matches {
		if got := p.matchRule("fetch", m.content, map[string]any{"url": m.url, "method": m.method}); got != m.want {
			t.Errorf("match_rule(%q, %s %s) = %v, want %v", m.content, m.method, m.url, got, m.want)
		}
	}
	if got := p.suggestions("fetch", map[string]any{"url": "https://api.example.com/v1/items?q=1"}); !slices.Equal(got, []string{"fetch(https://api.example.com/*)"}) {
		t.Errorf("suggestions = %v", got)
	}
}
