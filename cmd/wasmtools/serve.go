package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/skills"
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

Examples:

	wasmtools serve
	wasmtools serve --mode accept_edits --workdir ~/src/app
	wasmtools serve --http 127.0.0.1:8080 --allow 'Bash(npm test:*)'
	wasmtools serve --plugins ./plugins --skills ./skills

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
	pos, err := parseArgs(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("serve takes no arguments, got %q", pos)
	}
	pc, err := pf.context()
	if err != nil {
		return err
	}
	// The MCP server offers what the toolkit holds; when that changes (an
	// MCP server's tool list changed), it refreshes and tells its clients.
	// Folder watchers may report changes before the server exists, hence
	// the atomic pointer.
	var current atomic.Pointer[mcp.Server]
	onChange := func(ch toolkit.Change) {
		if srv := current.Load(); srv != nil {
			if err := srv.Refresh(context.Background()); err != nil {
				e.log.Warn("tool list refresh failed", "err", err)
			}
			srv.LogAll("info", "wasmtools.reload", map[string]any{"added": ch.Added, "removed": ch.Removed, "replaced": ch.Replaced, "groups_changed": ch.Groups})
		}
	}
	pf.watch = true
	tk, closeTools, err := newToolkit(ctx, e, toolkit.Options{Permission: *pc, Logger: e.log, OnChange: onChange}, &pf)
	if err != nil {
		return err
	}
	defer closeTools()
	sopts := mcp.ServerOptions{Name: "wasmtools", Version: versionString(), Logger: e.log}
	if lib := pf.library; lib != nil {
		// Each new session learns the skills as they are when it starts.
		sopts.MoreInstructions = func() string { return skills.Prompt(lib.Skills()) }
	}
	srv := mcp.NewServer(tk, sopts)
	current.Store(srv)
	if err := srv.Refresh(ctx); err != nil {
		return err
	}
	if pf.library != nil {
		offerSkillPrompts(srv.SDK(), pf.library, pf.viewer, e.log)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	e.log.Info("serving", slog.String("mode", string(pc.Mode)), slog.Any("workdirs", pc.WorkingDirs), slog.Int("tools", len(tk.Tools())))

	// On SIGINT/SIGTERM (or the end of standard input), running calls are
	// cancelled, which kills their process groups, before the process
	// exits: no child outlives the server.
	defer srv.Shutdown(5 * time.Second)

	if *httpAddr == "" {
		// One malformed line is answered with a JSON-RPC error, never the
		// end of the server.
		err := srv.SDK().Run(ctx, &mcp.GuardedIOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}, Logger: e.log})
		if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
			return err
		}
		return nil
	}
	if *tokenFile == "" && pf.config != nil && pf.config.TokenFile != "" {
		*tokenFile = pf.config.rel(pf.config.TokenFile)
	}
	var token []byte
	if *tokenFile != "" {
		if token, err = readToken(*tokenFile); err != nil {
			return err
		}
	}
	if pf.config != nil {
		allowOrigins = append(allowOrigins, pf.config.AllowOrigins...)
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *httpAddr, err)
	}
	guard, err := newHTTPGuard(ln.Addr().(*net.TCPAddr), *httpAddr, token, allowOrigins, allowHosts)
	if err != nil {
		ln.Close()
		return err
	}
	handler := srv.HTTPHandler(&sdk.StreamableHTTPOptions{
		SessionTimeout:               *sessionIdle,
		PropagateRequestCancellation: true,
		Logger:                       e.log,
	})
	hs := &http.Server{Handler: guard.wrap(handler), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "wasmtools: serving MCP on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
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
