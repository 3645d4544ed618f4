package main

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// httpGuard checks every HTTP request before it reaches the MCP handler:
// the Host header (DNS rebinding), the Origin header (a web page in the
// user's browser posting to the local server), and, when a token is
// configured, the bearer token. The MCP specification asks servers to
// validate Origin on every connection; a server reachable from the
// network must also authenticate, or anyone who reaches it runs
// commands and answers its approvals.
type httpGuard struct {
	token   []byte          // empty: no token required
	hosts   map[string]bool // Host header values accepted ("" entry: any)
	origins map[string]bool // Origin values accepted besides the server's own
}

// isLoopbackHost reports a host name or address that only this machine
// reaches.
func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// newHTTPGuard returns the guard for a server listening on addr (the
// address actually bound). A non-loopback address (a wildcard included)
// requires a token.
func newHTTPGuard(addr *net.TCPAddr, requested string, token []byte, allowOrigins, allowHosts []string) (*httpGuard, error) {
	host, _, err := net.SplitHostPort(requested)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w (write host:port, e.g. 127.0.0.1:8080)", requested, err)
	}
	loopback := host != "" && isLoopbackHost(host)
	if !loopback && len(token) == 0 {
		return nil, fmt.Errorf("refusing to serve on %s without a token: anyone who can reach it could run commands and answer their approvals. "+
			"Give --token-file FILE (clients then send \"Authorization: Bearer TOKEN\"), or listen on 127.0.0.1", requested)
	}
	g := &httpGuard{token: token, hosts: map[string]bool{}, origins: map[string]bool{}}
	port := fmt.Sprint(addr.Port)
	for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
		g.hosts[h+":"+port] = true
	}
	if host != "" && !addr.IP.IsUnspecified() {
		g.hosts[strings.ToLower(net.JoinHostPort(host, port))] = true
	}
	if !loopback {
		// Reached from the network under names this process cannot list
		// (its addresses, DNS names, a proxy's): the token protects it.
		g.hosts[""] = true
	}
	for _, h := range allowHosts {
		g.hosts[strings.ToLower(h)] = true
	}
	for _, o := range allowOrigins {
		g.origins[strings.TrimSuffix(strings.ToLower(o), "/")] = true
	}
	return g, nil
}

// readToken reads a bearer token from a file: its first line, without
// surrounding blanks.
func readToken(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--token-file: %w", err)
	}
	tok, _, _ := strings.Cut(string(data), "\n")
	tok = strings.TrimSpace(tok)
	if len(tok) < 16 {
		return nil, fmt.Errorf("--token-file %s: the token is %d characters; use at least 16 random ones (e.g. openssl rand -hex 32)", file, len(tok))
	}
	return []byte(tok), nil
}

func (g *httpGuard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hosts[""] && !g.hosts[strings.ToLower(r.Host)] {
			http.Error(w, fmt.Sprintf("Forbidden: the Host header %q is not one this server answers to", r.Host), http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin, r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: requests from the origin %q are not accepted (start the server with --allow-origin %s to accept them)", origin, origin), http.StatusForbidden)
			return
		}
		if len(g.token) > 0 {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), g.token) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="wasmtools"`)
				http.Error(w, "Unauthorized: send the server's token as \"Authorization: Bearer TOKEN\"", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed accepts the server's own origin (a page it served, with
// the same host and port) and the configured ones.
func (g *httpGuard) originAllowed(origin, host string) bool {
	o := strings.TrimSuffix(strings.ToLower(origin), "/")
	if g.origins[o] {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, host) && (g.hosts[""] || g.hosts[strings.ToLower(u.Host)])
}
