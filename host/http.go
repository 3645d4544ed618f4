package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/wasmtools/wasmtools/abi"
)

// maxHTTPBody bounds a response body read for a plugin.
const maxHTTPBody = 50 << 20

// httpState is the last response of a call, for http_status_code and
// http_headers.
type httpState struct {
	status  int
	headers map[string]string
}

// hostGranted reports whether a URL's host is in the grant: an exact
// host name, "host:port", or "*.domain" for any subdomain of domain.
func hostGranted(u *url.URL, grants []string) bool {
	host := strings.ToLower(u.Hostname())
	hostPort := strings.ToLower(u.Host)
	for _, g := range grants {
		g = strings.ToLower(strings.TrimSpace(g))
		switch {
		case g == "":
		case strings.HasPrefix(g, "*."):
			if strings.HasSuffix(host, g[1:]) && len(host) > len(g)-1 {
				return true
			}
		case strings.Contains(g, ":") && net.ParseIP(g) == nil:
			if hostPort == g {
				return true
			}
		case host == strings.Trim(g, "[]"):
			return true
		}
	}
	return false
}

// checkURL refuses a URL the plugin may not reach.
func (p *Plugin) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("plugin %s: HTTP request to %q refused: only http and https URLs are allowed", p.Name, u.String())
	}
	if !hostGranted(u, p.grants.HTTPHosts) {
		return fmt.Errorf("plugin %s: HTTP request to host %q is not granted: add it to the plugin's grants (http_hosts)", p.Name, u.Hostname())
	}
	return nil
}

// httpRequest performs Extism's http_request under the plugin's grant.
// Every redirect is checked against the grant again (the extism go-sdk's
// client follows redirects to any host).
func (k *kernel) httpRequest(ctx context.Context, reqOff, bodyOff uint64) (uint64, error) {
	p := k.call.plugin
	raw, err := k.block(reqOff)
	if err != nil {
		return 0, err
	}
	var req abi.HTTPRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return 0, fmt.Errorf("plugin %s: http_request: the request is not valid JSON: %v", p.Name, err)
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return 0, fmt.Errorf("plugin %s: http_request: bad URL %q: %v", p.Name, req.URL, err)
	}
	if err := p.checkURL(u); err != nil {
		return 0, err
	}
	var body io.Reader
	if bodyOff != 0 {
		b, err := k.block(bodyOff)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(append([]byte(nil), b...))
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return 0, fmt.Errorf("plugin %s: http_request: %v", p.Name, err)
	}
	for name, v := range req.Headers {
		hreq.Header.Set(name, v)
	}
	client := p.host.httpClient(p)
	resp, err := client.Do(hreq)
	if err != nil {
		var refused *redirectRefused
		if errors.As(err, &refused) {
			return 0, refused.err
		}
		return 0, fmt.Errorf("plugin %s: HTTP %s %s: %v", p.Name, method, u.Redacted(), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody+1))
	if err != nil {
		return 0, fmt.Errorf("plugin %s: HTTP %s %s: reading the body: %v", p.Name, method, u.Redacted(), err)
	}
	if len(data) > maxHTTPBody {
		return 0, fmt.Errorf("plugin %s: HTTP response from %s is larger than %d bytes", p.Name, u.Host, maxHTTPBody)
	}
	k.call.http.status = resp.StatusCode
	k.call.http.headers = map[string]string{}
	for name := range resp.Header {
		k.call.http.headers[strings.ToLower(name)] = resp.Header.Get(name)
	}
	return k.allocBytes(data)
}

type redirectRefused struct{ err error }

func (r *redirectRefused) Error() string { return r.err.Error() }

// httpClient returns a client whose redirects stay inside p's grant.
func (h *Host) httpClient(p *Plugin) *http.Client {
	base := h.opts.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if err := p.checkURL(req.URL); err != nil {
			return &redirectRefused{err: fmt.Errorf("%w (a redirect from %s)", err, via[len(via)-1].URL.Host)}
		}
		return nil
	}
	return &c
}
