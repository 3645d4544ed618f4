package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/wasmtools/wasmtools/abi"
)

// httpState is the last response of a call, for http_status_code and
// http_headers.
type httpState struct {
	status  int
	headers map[string]string
}

// hostGranted reports whether a URL's host is in the grant. An entry is
// a host name or IP address (any port), "host:port" (that port only; a
// URL without a port has its scheme's, 80 or 443), or "*.domain" (any
// subdomain of domain at any depth, not domain itself; "*.domain:port"
// for one port). Names compare without regard to case; "*" alone grants
// nothing.
func hostGranted(u *url.URL, grants []string) bool {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	for _, g := range grants {
		gh, gp, err := splitHostGrant(g)
		if err != nil || gp != "" && gp != port {
			continue
		}
		if domain, ok := strings.CutPrefix(gh, "*."); ok {
			if strings.HasSuffix(host, "."+domain) {
				return true
			}
			continue
		}
		if host == gh {
			return true
		}
	}
	return false
}

// splitHostGrant splits an http_hosts entry into its host (lower case,
// IPv6 without brackets) and its port ("" for any).
func splitHostGrant(g string) (host, port string, err error) {
	g = strings.ToLower(strings.TrimSpace(g))
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("http_hosts entry %q: %s; give a host name or address, host:port, or *.domain, without scheme or path", g, why)
	}
	switch {
	case g == "":
		return bad("empty")
	case strings.ContainsAny(g, "/?#@ "):
		return bad("not a host")
	case strings.HasPrefix(g, "["): // [v6] or [v6]:port
		end := strings.Index(g, "]")
		if end < 0 || net.ParseIP(g[1:end]) == nil {
			return bad("not an IPv6 address in brackets")
		}
		host, rest := g[1:end], g[end+1:]
		if rest != "" {
			if port, ok := strings.CutPrefix(rest, ":"); ok && validPort(port) {
				return host, port, nil
			}
			return bad("bad port")
		}
		return host, "", nil
	case net.ParseIP(g) != nil: // an IPv4 address, or IPv6 without brackets
		return g, "", nil
	}
	host, port, hasPort := strings.Cut(g, ":")
	if hasPort && !validPort(port) {
		return bad("bad port")
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok && (rest == "" || strings.Contains(rest, "*")) || !strings.HasPrefix(host, "*.") && strings.Contains(host, "*") {
		return bad(`a wildcard is only "*." before a domain`)
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok && !strings.Contains(strings.TrimSuffix(rest, "."), ".") {
		return bad("a wildcard over a whole top-level domain grants every site under it; name the domain (*.example.com)")
	}
	return strings.TrimSuffix(host, "."), port, nil
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 65536 && p[0] != '+'
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
		return 0, fmt.Errorf("http_request: the request: %w", err)
	}
	var req abi.HTTPRequest
	if err := decodeMessage(raw, &req); err != nil {
		return 0, fmt.Errorf("plugin %s: http_request: the request: %w", p.Name, err)
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
			return 0, fmt.Errorf("http_request: the body: %w", err)
		}
		if len(b) > MaxHTTPBody {
			return 0, fmt.Errorf("plugin %s: http_request: the body is %d bytes, more than the %d allowed", p.Name, len(b), MaxHTTPBody)
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
	hreq = hreq.WithContext(context.WithValue(hreq.Context(), grantedHostsKey{}, p.grants.HTTPHosts))
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
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxHTTPBody+1))
	if err != nil {
		return 0, fmt.Errorf("plugin %s: HTTP %s %s: reading the body: %v", p.Name, method, u.Redacted(), err)
	}
	if len(data) > MaxHTTPBody {
		return 0, fmt.Errorf("plugin %s: HTTP response from %s is larger than %d bytes", p.Name, u.Host, MaxHTTPBody)
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
		h.transportOnce.Do(func() {
			t := http.DefaultTransport.(*http.Transport).Clone()
			t.DialContext = grantedDialer{lookup: net.DefaultResolver.LookupNetIP}.dial
			t.Proxy = nil // a proxy would make the address check moot
			h.transport = t
		})
		base = &http.Client{Transport: h.transport}
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

// grantedHostsKey carries a plugin's http_hosts to the grantedDialer.
type grantedHostsKey struct{}

// grantedDialer connects plugins' HTTP requests: it resolves the address
// and connects only to an address the grant allows. A name (the grant
// matched it already) may not lead to a loopback, private, link-local or
// unspecified address unless a grant names that address, or "localhost"
// for a loopback one. The address checked is the one dialled: nothing
// resolves the name again.
type grantedDialer struct {
	lookup func(ctx context.Context, network, host string) ([]netip.Addr, error)
}

func (g grantedDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	grants, _ := ctx.Value(grantedHostsKey{}).([]string)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := g.lookup(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	var firstErr error
	for _, ip := range ips {
		ip = ip.Unmap()
		if internal(ip) && !grantNamesAddress(grants, host, ip) {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s resolves to %s, an internal address no grant names: grant the address itself (http_hosts: [%s]) to allow it", host, ip, ip)
			}
			continue
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("%s: no address", host)
	}
	return nil, firstErr
}

// internal reports an address inside the machine or its network.
func internal(ip netip.Addr) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(ip) // carrier-grade NAT
}

// grantNamesAddress reports whether a grant names ip itself, or is
// "localhost" (the name every system resolves to loopback) for a
// loopback ip reached by that name.
func grantNamesAddress(grants []string, host string, ip netip.Addr) bool {
	for _, g := range grants {
		gh, _, err := splitHostGrant(g)
		if err != nil {
			continue
		}
		if a, err := netip.ParseAddr(gh); err == nil && a.Unmap() == ip {
			return true
		}
		if gh == "localhost" && strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") && ip.IsLoopback() {
			return true
		}
	}
	return false
}
