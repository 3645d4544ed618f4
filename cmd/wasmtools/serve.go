package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/mcp"
)

const serveHelp = `Usage: wasmtools serve [flags]

Serve runs wasmtools as an MCP server: an MCP client (Claude Desktop, an
IDE, your own agent) lists the tools and calls them, and every call goes
through the permission engine first. A call the engine asks about is put
to the user through MCP elicitation (approve once, always for the session
by the suggested rule, or reject); a client that cannot elicit gets a
denial that names the rule that would allow the call.

With no flags it serves the built-in tools over standard input and
output, with the current directory as the working directory. Logs go to
standard error only: standard output is the protocol. It stops on
SIGINT, SIGTERM, or when standard input closes.

Plugin folders (--plugins) and skill folders (--skills) are watched:
drop, replace, rename or delete a .wasm or a skill folder and the running
server follows, telling clients with notifications/tools/list_changed. A
new version is loaded and checked before it replaces the old one; a
broken file is logged and the last good version keeps serving.
--no-watch loads the folders once.

Over --http, every request's Host and Origin headers are checked (a
web page in your browser cannot drive the server), sessions idle for
--session-idle end, and a server on a non-loopback address needs a
token: --token-file FILE holds it, clients send "Authorization: Bearer
TOKEN". SIGINT or SIGTERM cancels running calls, killing their
processes, before the server exits.

With --store redis://HOST:PORT/DB (or store: in wasmtools.yaml),
sessions live in Redis and several replicas behind a load balancer
serve them with no affinity: groups, granted rules, tasks, read stamps
and calls waiting for confirmation follow the session to any replica,
and expire after --session-idle without use.

Examples:

	wasmtools serve
	wasmtools serve --mode accept_edits --workdir ~/src/app
	wasmtools serve --http 127.0.0.1:8080 --allow 'Bash(npm test:*)'
	wasmtools serve --plugins ./plugins --skills ./skills
	wasmtools serve --http 0.0.0.0:8080 --token-file token --store redis://redis:6379/0

A client configuration (Claude Desktop's claude_desktop_config.json):

	{"mcpServers": {"wasmtools": {"command": "wasmtools", "args": ["serve", "--workdir", "/path/to/project"]}}}
`

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "serve", serveHelp)
	var pf permFlags
	pf.register(fs)
	httpAddr := fs.String("http", "", "serve streamable HTTP on `addr`ess (host:port) instead of stdio")
	tokenFile := fs.String("token-file", "", "with --http: require \"Authorization: Bearer TOKEN\", the first line of `file` (required on a non-loopback address)")
	var allowOrigins, allowHosts stringList
	fs.Var(&allowOrigins, "allow-origin", "with --http: also accept requests whose Origin header is `origin` (e.g. https://app.example.com); repeatable")
	fs.Var(&allowHosts, "allow-host", "with --http on a loopback address: also accept the Host header `host:port`; repeatable")
	sessionIdle := fs.Duration("session-idle", 30*time.Minute, "with --http: end a session that sent no request for this `duration` (0: never)")
	fs.StringVar(&pf.store, "store", "", "keep session state in `store`: memory (the default) or redis://HOST:PORT/DB, shared by replicas behind a load balancer (overrides store: in the config file)")
	pos, err := parseArgs(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("serve takes no arguments, got %q", pos)
	}
	pf.tokenFile = *tokenFile
	if *sessionIdle > 0 {
		pf.storeTTL = *sessionIdle
	} else {
		pf.storeTTL = 7 * 24 * time.Hour // "never" idle still needs a bound in a shared store
	}
	h, err := pf.open(ctx, e, true, toolkit.Options{})
	if err != nil {
		return err
	}
	defer h.Close() // cancels running calls, killing their processes, then releases the tools
	srv, err := h.MCPServer()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	pc, cfg := h.Permission(), h.Config()
	e.log.Info("serving", slog.String("mode", string(pc.Mode)), slog.Any("workdirs", pc.WorkingDirs), slog.Int("tools", len(h.Toolkit().Tools())))

	// On SIGINT/SIGTERM (or the end of standard input), h.Close cancels
	// running calls, which kills their process groups, before the process
	// exits: no child outlives the server.
	if *httpAddr == "" {
		// One malformed line is answered with a JSON-RPC error, never the
		// end of the server.
		return h.ServeMCP(ctx, &mcp.GuardedIOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}, Logger: e.log})
	}
	if *tokenFile == "" {
		*tokenFile = cfg.TokenFile // absolute already
	}
	var token []byte
	if *tokenFile != "" {
		if token, err = readToken(*tokenFile); err != nil {
			return err
		}
	}
	allowOrigins = append(allowOrigins, cfg.AllowOrigins...)
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *httpAddr, err)
	}
	// No command the host runs may reach this server: it could open a
	// session of its own and answer its own safety questions.
	if err := h.Sandbox().DenyConnect(ln.Addr().(*net.TCPAddr).Port); err != nil {
		if h.Sandbox().Mode() == sandbox.ModeRequired {
			ln.Close()
			return fmt.Errorf("the OS sandbox is required, and cannot keep commands from connecting to this server: %w. Serve over stdio, or set the sandbox mode to auto", err)
		}
		e.log.Warn("confined commands can connect to this server's port; a token (--token-file) they cannot read still keeps them from using it", "err", err)
	}
	guard, err := newHTTPGuard(ln.Addr().(*net.TCPAddr), *httpAddr, token, allowOrigins, allowHosts)
	if err != nil {
		ln.Close()
		return err
	}
	handler, err := h.HTTPHandler(&sdk.StreamableHTTPOptions{
		SessionTimeout:               *sessionIdle,
		PropagateRequestCancellation: true,
		Logger:                       e.log,
	})
	if err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{Handler: guard.wrap(handler), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "wasmtools: serving MCP on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		// Sessions end first: their open streams would keep the HTTP
		// server's shutdown waiting.
		srv.Shutdown(5 * time.Second)
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return hs.Shutdown(shutdown)
	}
}

// nopWriteCloser is an io.WriteCloser whose Close does nothing.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }
