// Command httpfetch is a wasmtools plugin that fetches a URL through the
// host's http_request kernel function. It reaches only the hosts the
// operator grants it (grants.http_hosts); the host checks every request
// and redirect.
//
// Permissions: a GET or HEAD gets no opinion from the plugin (the host's
// rules and mode decide); any other method asks, so that a rule for
// reading a site does not silently allow writing to it. Rules:
//
//	fetch(https://api.example.com/*)       GET and HEAD of URLs matching the glob
//	fetch(api.example.com)                 GET and HEAD of any URL on that host (*.example.com: subdomains)
//	fetch(POST https://api.example.com/*)  POST to matching URLs
//	fetch(* https://api.example.com/*)     any method
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o httpfetch.wasm .
package main

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

// Input is the input of the fetch tool.
type Input struct {
	URL      string            `json:"url" jsonschema:"the http or https URL to fetch"`
	Method   string            `json:"method,omitempty" enum:"GET,HEAD,POST,PUT,PATCH,DELETE" jsonschema:"the HTTP method (default GET)"`
	Headers  map[string]string `json:"headers,omitempty" jsonschema:"request headers"`
	Body     string            `json:"body,omitempty" jsonschema:"the request body, for POST, PUT and PATCH"`
	MaxBytes int               `json:"max_bytes,omitempty" jsonschema:"the most bytes of the response body to return (default 100000); the rest is cut"`
}

const (
	defaultMaxBytes = 100_000
	maxMaxBytes     = 10 << 20
)

// requestedHosts are the hosts the plugin asks for in its schema: common
// public APIs, as an example. The operator grants what it needs.
var requestedHosts = []string{"api.github.com", "raw.githubusercontent.com", "pypi.org", "registry.npmjs.org"}

func init() {
	guest.SetInfo(guest.PluginInfo{
		Name:    "httpfetch",
		Version: "1.0.0",
		Grants:  &abi.Grants{HTTPHosts: requestedHosts},
	})
	guest.Register(guest.Tool[Input, guest.Result]{
		Name: "fetch",
		Description: "Fetches an http or https URL and returns the status, the response headers and the body as text (cut at max_bytes). " +
			"Only hosts the operator granted are reachable. Methods other than GET and HEAD ask the user first.",
		ConcurrencySafe: true,
		Call:            call,
		Check:           check,
		MatchRule:       matchRule,
		Suggest:         suggest,
	})
}

func method(in Input) string {
	if in.Method == "" {
		return "GET"
	}
	return strings.ToUpper(in.Method)
}

func safeMethod(m string) bool { return m == "GET" || m == "HEAD" }

func check(in Input, _ abi.PermissionContext) abi.Decision {
	m := method(in)
	if safeMethod(m) {
		return abi.Decision{Behavior: abi.Passthrough}
	}
	return abi.Decision{
		Behavior:    abi.Ask,
		Message:     fmt.Sprintf("fetch wants to send a %s request to %s.", m, in.URL),
		Reason:      "a " + m + " request can change data on the server",
		Suggestions: suggest(in),
	}
}

// matchRule interprets a rule's content: [METHOD ]PATTERN, where PATTERN
// is a URL glob (with "://") or a host glob, and METHOD is a method or *
// (GET and HEAD when absent). In globs, * matches any run of characters.
func matchRule(content string, in Input) bool {
	content = strings.TrimSpace(content)
	ruleMethod := ""
	if m, rest, ok := strings.Cut(content, " "); ok {
		ruleMethod, content = strings.ToUpper(m), strings.TrimSpace(rest)
	}
	m := method(in)
	switch ruleMethod {
	case "":
		if !safeMethod(m) {
			return false
		}
	case "*":
	default:
		if ruleMethod != m {
			return false
		}
	}
	if strings.Contains(content, "://") {
		return glob(content, in.URL)
	}
	u, err := url.Parse(in.URL)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	content = strings.ToLower(content)
	if strings.HasPrefix(content, "*.") {
		return strings.HasSuffix(host, content[1:])
	}
	return glob(content, host) || glob(content, strings.ToLower(u.Host))
}

// glob matches s against pattern, where * matches any run of characters
// (slashes included) and every other character matches itself.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// suggest proposes the URL's origin: fetch(https://api.example.com/*),
// with the method for methods other than GET and HEAD.
func suggest(in Input) []string {
	u, err := url.Parse(in.URL)
	if err != nil || u.Host == "" {
		return []string{"fetch"}
	}
	origin := u.Scheme + "://" + u.Host + "/*"
	if m := method(in); !safeMethod(m) {
		return []string{"fetch(" + m + " " + origin + ")"}
	}
	return []string{"fetch(" + origin + ")"}
}

func call(c *guest.Call, in Input) (guest.Result, error) {
	m := method(in)
	limit := in.MaxBytes
	if limit <= 0 {
		limit = defaultMaxBytes
	}
	limit = min(limit, maxMaxBytes)
	if err := c.Progress(0, fmt.Sprintf("%s %s\n", m, in.URL)); err != nil {
		return guest.Result{}, err
	}
	resp, err := guest.HTTP(guest.HTTPRequest{Method: m, URL: in.URL, Headers: in.Headers, Body: []byte(in.Body)})
	if err != nil {
		return guest.Result{}, err
	}
	body := resp.Body
	truncated := len(body) > limit
	if truncated {
		cut := limit
		for cut > 0 && cut > limit-utf8.UTFMax && !utf8.RuneStart(resp.Body[cut]) { // do not split a character
			cut--
		}
		body = body[:cut]
	}

	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d\n", resp.Status)
	names := make([]string, 0, len(resp.Headers))
	for k := range resp.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "%s: %s\n", k, resp.Headers[k])
	}
	b.WriteString("\n")
	content := []abi.Block{}
	switch {
	case len(body) == 0:
		b.WriteString("(empty body)")
	case utf8.Valid(body):
		b.Write(body)
		if truncated {
			fmt.Fprintf(&b, "\n\n[cut: showing %d of %d bytes; raise max_bytes to see more]", len(body), len(resp.Body))
		}
	default:
		fmt.Fprintf(&b, "(binary body: %d bytes, attached as data)", len(resp.Body))
		mt := resp.Headers["content-type"]
		if mt == "" {
			mt = "application/octet-stream"
		}
		content = append(content, guest.Data(mt, body))
	}
	content = append([]abi.Block{guest.Text(b.String())}, content...)
	return guest.Result{
		Content: content,
		Metadata: map[string]any{
			"status": resp.Status, "url": in.URL, "method": m,
			"bytes": len(resp.Body), "truncated": truncated,
		},
	}, nil
}

func main() {}
