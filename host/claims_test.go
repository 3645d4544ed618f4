package host

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/testplugins"
)

// TestReadOnlyClaimsChecked: a tool may say it is read-only (and so run
// unasked in every mode) only in a plugin that cannot change anything.
func TestReadOnlyClaimsChecked(t *testing.T) {
	h := newTestHost(t)
	dir := t.TempDir()
	hash := testplugins.Go(t, "hash")           // read_only tools
	deploy := testplugins.Go(t, "deploy")       // a check_read_only hook
	httpfetch := testplugins.Go(t, "httpfetch") // no read-only claim
	tests := []struct {
		name    string
		path    string
		grants  abi.Grants
		wantErr []string // nil: loads
	}{
		{"read-only tools, no grants", hash, abi.Grants{}, nil},
		{"read-only tools, a read-only folder", hash, abi.Grants{Dirs: []abi.DirGrant{{Host: dir}}}, nil},
		{"read-only tools, a writable folder", hash, abi.Grants{Dirs: []abi.DirGrant{{Host: dir, Write: true}}}, []string{"says it is read-only", "writes to " + dir}},
		{"read-only tools, a host", hash, abi.Grants{HTTPHosts: []string{"api.example.com"}}, []string{"says it is read-only", "HTTP requests to api.example.com"}},
		{"a read-only hook, a writable folder", deploy, abi.Grants{Dirs: []abi.DirGrant{{Host: dir, Write: true}}}, []string{"says it is read-only"}},
		{"no claim, a host", httpfetch, abi.Grants{HTTPHosts: []string{"api.example.com"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := h.LoadFile(context.Background(), tt.path, Config{Grants: tt.grants})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				p.Close(context.Background())
				return
			}
			if err == nil {
				p.Close(context.Background())
				t.Fatal("loaded")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nwant it to say %q", err, w)
				}
			}
		})
	}
}

// TestHostGrantSpellingsRefused: a wildcard over a whole top-level domain
// is refused at load, like any malformed entry.
func TestHostGrantSpellingsRefused(t *testing.T) {
	for _, g := range []string{"*.com", "*.com.", "*.internal"} {
		if _, _, err := splitHostGrant(g); err == nil || !strings.Contains(err.Error(), "top-level domain") {
			t.Errorf("%q: %v", g, err)
		}
	}
	for _, g := range []string{"*.example.com", "api.example.com", "localhost", "127.0.0.1", "[::1]:8080"} {
		if _, _, err := splitHostGrant(g); err != nil {
			t.Errorf("%q: %v", g, err)
		}
	}
}

// TestGrantedDialer: a granted name that resolves to an internal address
// is refused unless a grant names the address; public addresses and
// named internal ones connect.
func TestGrantedDialer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	names := map[string][]netip.Addr{
		"rebind.example.com": {netip.MustParseAddr("127.0.0.1")},
		"mapped.example.com": {netip.MustParseAddr("::ffff:127.0.0.1")},
		"lan.example.com":    {netip.MustParseAddr("10.1.2.3")},
		"localhost":          {netip.MustParseAddr("127.0.0.1")},
	}
	d := grantedDialer{lookup: func(_ context.Context, _, host string) ([]netip.Addr, error) {
		if ips, ok := names[host]; ok {
			return ips, nil
		}
		ip, err := netip.ParseAddr(host) // a literal
		return []netip.Addr{ip}, err
	}}
	tests := []struct {
		host    string
		grants  []string
		wantErr string
	}{
		{"rebind.example.com", []string{"*.example.com"}, "resolves to 127.0.0.1, an internal address"},
		{"mapped.example.com", []string{"mapped.example.com"}, "an internal address"},
		{"lan.example.com", []string{"lan.example.com"}, "10.1.2.3"},
		{"rebind.example.com", []string{"*.example.com", "127.0.0.1"}, ""}, // the operator named the address
		{"localhost", []string{"localhost"}, ""},
		{"127.0.0.1", []string{"127.0.0.1"}, ""},
	}
	for _, tt := range tests {
		ctx := context.WithValue(context.Background(), grantedHostsKey{}, tt.grants)
		c, err := d.dial(ctx, "tcp", net.JoinHostPort(tt.host, port))
		if c != nil {
			c.Close()
		}
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s with %q: %v", tt.host, tt.grants, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s with %q: %v, want %q", tt.host, tt.grants, err, tt.wantErr)
		}
	}
}
