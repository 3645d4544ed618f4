package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/programs"
)

// ServerConfig says how to reach one MCP server and which of its tools
// to offer.
type ServerConfig struct {
	// Name names the server in tool names (mcp__NAME__tool).
	Name string
	// Command, Args and Env start a stdio server. Command is found with
	// ClientOptions.Programs, never in a folder tool calls may write;
	// Env is added to the host's environment, whose PATH is the
	// filtered one (Env may set PATH on purpose).
	Command string
	Args    []string
	Env     map[string]string
	// Dir is the stdio server's working directory. Empty means the
	// host's own, which for wasmtools serve is the agent's working
	// directory: the host's Open sets a folder outside the working
	// directories instead (npx resolves packages from ./node_modules).
	Dir string
	// Sandbox runs a stdio server inside the OS sandbox
	// (ClientOptions.Sandbox): it reads what the user may read, writes
	// only its private temporary directory ($TMPDIR), the paths of
	// Writable and the sandbox's own writable paths, and has the network
	// only when the sandbox gives commands the network. Where the
	// sandbox cannot confine (it is off, or the kernel has no Landlock)
	// the server is not started: the error says why.
	Sandbox bool
	// Writable are the files and folders a sandboxed stdio server may
	// change, with everything below them (a package cache such as ~/.npm
	// for an npx server, say).
	Writable []string
	// URL reaches an HTTP server: SSE when the path ends in /sse,
	// streamable HTTP otherwise. Headers are sent with every request.
	URL     string
	Headers map[string]string
	// Stateless opens a new session for every call (HTTP only).
	Stateless bool
	// EnableTools, when not empty, offers only these tools (by the
	// server's names); DisableTools hides these.
	EnableTools, DisableTools []string
	// Timeout bounds each call; 0 means 60 s.
	Timeout time.Duration
	// TrustReadOnlyHint makes the tools this server annotates with
	// readOnlyHint read-only for the permission engine: they run without
	// asking in every mode, EXPLORE included. The hint is the server's
	// claim, not something wasmtools checks (a tool that dumps the
	// environment may carry it), so it is off by default: the tools then
	// ask like any other tool and are denied in EXPLORE. Either way the
	// hint makes them concurrency-safe, which only affects scheduling.
	TrustReadOnlyHint bool
}

// ClientOptions configure a Client.
type ClientOptions struct {
	Logger *slog.Logger
	// OnToolsChanged is called after the server's tool list changed and
	// was read again.
	OnToolsChanged func(*Client)
	// Programs finds a stdio server's command and gives its PATH; nil
	// means programs.FromEnvironment(nil), which already leaves out
	// relative PATH entries, the temporary folder and folders everyone
	// may write (a host adds its working directories).
	Programs *programs.Resolver
	// Sandbox confines the stdio servers whose ServerConfig.Sandbox is
	// set; nil leaves such servers unstarted.
	Sandbox *sandbox.Sandbox
	// Workspace are the folders tool calls may write (the agent's
	// working directories): a sandboxed server's writable path reached
	// through a link there is not granted (sandbox.Policy.Untrusted).
	Workspace []string
}

// Client is a connection to one MCP server whose tools it offers as
// toolkit tools. The tool list is cached and read again only when the
// server announces a change; a server that went away is reconnected on
// the next call.
type Client struct {
	cfg  ServerConfig
	opts ClientOptions
	log  *slog.Logger

	mu      sync.Mutex
	session *sdk.ClientSession
	tools   []*Tool

	// watchers route the server's progress notifications to the calls
	// that asked for them, by progress token.
	watchers sync.Map // string → chan toolkit.Progress
	seq      atomic.Uint64
}

// Connect connects to a server and reads its tools. A stateless HTTP
// server is connected for each call instead; Connect only lists its tools.
func Connect(ctx context.Context, cfg ServerConfig, opts ClientOptions) (*Client, error) {
	if cfg.Name == "" {
		return nil, errors.New("mcp server: a name is required")
	}
	if (cfg.Command == "") == (cfg.URL == "") {
		return nil, fmt.Errorf("mcp server %s: give either a command (stdio) or a url (HTTP)", cfg.Name)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 60 * time.Second
	}
	if opts.Programs == nil && cfg.Command != "" {
		opts.Programs = programs.FromEnvironment(nil) // once: reconnects reuse it
	}
	c := &Client{cfg: cfg, opts: opts, log: opts.Logger}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.log = c.log.With(slog.String("mcp_server", cfg.Name))
	if err := c.Refresh(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Name is the server's name.
func (c *Client) Name() string { return c.cfg.Name }

func (c *Client) transport() (sdk.Transport, error) {
	if c.cfg.URL != "" {
		hc := newHeaderClient(c.cfg.Headers)
		if strings.HasSuffix(strings.TrimRight(c.cfg.URL, "/"), "/sse") {
			return &sdk.SSEClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc}, nil
		}
		return &sdk.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc}, nil
	}
	progs := c.opts.Programs
	path, err := progs.LookPath(c.cfg.Command)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: %w", c.cfg.Name, err)
	}
	cmd := exec.Command(path, c.cfg.Args...)
	cmd.Dir = c.cfg.Dir
	cmd.Env = progs.Env(os.Environ())
	for k, v := range c.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if c.cfg.Sandbox {
		sb := c.opts.Sandbox
		if !sb.Active() {
			why := "no OS sandbox is configured"
			if sb != nil {
				why = sb.Status().Reason
			}
			return nil, fmt.Errorf("MCP server %s: it is to run in the OS sandbox (sandbox: true), which cannot confine it here: %s. The server was not started; turn the sandbox on, or drop sandbox from the server's configuration to run it unconfined", c.cfg.Name, why)
		}
		return &confinedCommand{cmd: cmd, sb: sb, policy: sandbox.Policy{WorkingDirs: c.cfg.Writable, Untrusted: c.opts.Workspace}}, nil
	}
	return &sdk.CommandTransport{Command: cmd}, nil
}

// confinedCommand is a stdio server started inside the OS sandbox.
type confinedCommand struct {
	cmd    *exec.Cmd
	sb     *sandbox.Sandbox
	policy sandbox.Policy
}

// Connect confines the command, starts it, and waits until the sandbox
// holds before the first message is sent.
func (t *confinedCommand) Connect(ctx context.Context) (sdk.Connection, error) {
	conf, err := t.sb.Confine(t.cmd, t.policy)
	if err != nil {
		return nil, err
	}
	if conf == nil {
		return nil, errors.New("the OS sandbox did not confine the server; it was not started")
	}
	conn, err := (&sdk.CommandTransport{Command: t.cmd}).Connect(ctx)
	if err != nil {
		conf.Close()
		return nil, err
	}
	if err := conf.Started(ctx); err != nil {
		conn.Close()
		conf.Close()
		return nil, err
	}
	return &confinedConn{Connection: conn, conf: conf}, nil
}

// confinedConn releases the confinement (its temporary directory) once
// the server has ended.
type confinedConn struct {
	sdk.Connection
	conf *sandbox.Confinement
}

func (c *confinedConn) Close() error {
	err := c.Connection.Close() // waits for the server to end
	c.conf.Close()
	return err
}

// connect opens a session.
func (c *Client) connect(ctx context.Context) (*sdk.ClientSession, error) {
	client := sdk.NewClient(&sdk.Implementation{Name: "wasmtools", Version: "dev"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(ctx context.Context, _ *sdk.ToolListChangedRequest) {
			go func() {
				// Outside the notification handler: listing is a request.
				if err := c.Refresh(context.Background()); err != nil {
					c.log.Warn("tool list refresh failed", "err", err)
				}
			}()
		},
		ProgressNotificationHandler: c.progressArrived,
	})
	transport, err := c.transport()
	if err != nil {
		return nil, err
	}
	s, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: connect: %w", c.cfg.Name, err)
	}
	return s, nil
}

// sessionFor returns the live session, connecting when there is none.
func (c *Client) sessionFor(ctx context.Context) (*sdk.ClientSession, func(), error) {
	if c.cfg.Stateless {
		s, err := c.connect(ctx)
		if err != nil {
			return nil, nil, err
		}
		return s, func() { s.Close() }, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil {
		s, err := c.connect(ctx)
		if err != nil {
			return nil, nil, err
		}
		c.session = s
	}
	return c.session, func() {}, nil
}

// drop forgets a broken session so the next call reconnects.
func (c *Client) drop(s *sdk.ClientSession) {
	c.mu.Lock()
	if c.session == s {
		c.session = nil
	}
	c.mu.Unlock()
	s.Close()
}

// Refresh reads the server's tool list again.
func (c *Client) Refresh(ctx context.Context) error {
	s, done, err := c.sessionFor(ctx)
	if err != nil {
		return err
	}
	defer done()
	var tools []*Tool
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			if !c.cfg.Stateless {
				c.drop(s)
			}
			return fmt.Errorf("mcp server %s: list tools: %w", c.cfg.Name, err)
		}
		if len(c.cfg.EnableTools) > 0 && !slices.Contains(c.cfg.EnableTools, t.Name) || slices.Contains(c.cfg.DisableTools, t.Name) {
			continue
		}
		tools = append(tools, c.newTool(t))
	}
	c.mu.Lock()
	c.tools = tools
	c.mu.Unlock()
	if c.opts.OnToolsChanged != nil {
		c.opts.OnToolsChanged(c)
	}
	return nil
}

// Tools returns the server's tools, from the cache.
func (c *Client) Tools() []toolkit.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]toolkit.Tool, len(c.tools))
	for i, t := range c.tools {
		out[i] = t
	}
	return out
}

// Close ends the session.
func (c *Client) Close() error {
	c.mu.Lock()
	s := c.session
	c.session = nil
	c.mu.Unlock()
	if s != nil {
		return s.Close()
	}
	return nil
}

// ToolName is the toolkit name of a server's tool: mcp__SERVER__TOOL,
// with characters outside [A-Za-z0-9_-] replaced by '_'.
func ToolName(server, tool string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
				return r
			}
			return '_'
		}, s)
	}
	name := "mcp__" + clean(server) + "__" + clean(tool)
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// Tool is one tool of an MCP server.
type Tool struct {
	c      *Client
	remote string // the server's name for it
	spec   toolkit.Spec
	hint   bool // the server annotates it readOnlyHint
}

func (c *Client) newTool(t *sdk.Tool) *Tool {
	schema, _ := json.Marshal(t.InputSchema)
	if len(schema) == 0 || string(schema) == "null" {
		schema = []byte(`{"type":"object"}`)
	}
	hint := t.Annotations != nil && t.Annotations.ReadOnlyHint
	return &Tool{c: c, remote: t.Name, hint: hint, spec: toolkit.Spec{
		Name:        ToolName(c.cfg.Name, t.Name),
		Description: t.Description,
		InputSchema: schema,
		// A remote server's word is a permission only where the operator
		// said so for that server.
		ReadOnly: hint && c.cfg.TrustReadOnlyHint,
		// Running hinted calls side by side risks at worst a race the
		// server should not have, never a call nobody approved.
		ConcurrencySafe: hint,
		Source:          toolkit.Source{Kind: toolkit.SourceMCP, Name: c.cfg.Name},
	}}
}

// ReadOnlyHint reports whether the server annotates the tool readOnlyHint.
// It makes the tool read-only (Spec().ReadOnly) only when the server's
// configuration sets TrustReadOnlyHint.
func (t *Tool) ReadOnlyHint() bool { return t.hint }

// Spec implements toolkit.Tool.
func (t *Tool) Spec() toolkit.Spec { return t.spec }

// CheckPermissions implements toolkit.Tool: every call asks (read-only
// ones, those with a trusted readOnlyHint, are allowed by the engine
// before it gets here). The question says when the server claims the tool
// is read-only, and how to trust that claim.
func (t *Tool) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	msg := fmt.Sprintf("Run %s on the MCP server %s?", t.remote, t.c.cfg.Name)
	if t.hint {
		msg += fmt.Sprintf(" The server says the tool is read-only, but wasmtools does not take its word: set trust_read_only_hint: true for the server %s to allow its read-only tools without asking.", t.c.cfg.Name)
	}
	return permission.AskDecision(msg, "MCP tools ask unless read-only"), nil
}

// Call implements toolkit.Caller. A call on a broken session reconnects
// once before it fails.
func (t *Tool) Call(ctx context.Context, in toolkit.Input) toolkit.Stream {
	return func(yield func(*toolkit.Chunk, error) bool) {
		ctx, cancel := context.WithTimeout(ctx, t.c.cfg.Timeout)
		defer cancel()
		var res *sdk.CallToolResult
		var err error
		for attempt := 0; attempt < 2; attempt++ {
			var s *sdk.ClientSession
			var done func()
			s, done, err = t.c.sessionFor(ctx)
			if err != nil {
				break
			}
			res, err = t.callWatching(ctx, s, in, yield)
			done()
			if errors.Is(err, errStopped) {
				return
			}
			if err == nil || ctx.Err() != nil || t.c.cfg.Stateless {
				break
			}
			// The session may have died with its server: reconnect once.
			t.c.log.Warn("call failed; reconnecting", "tool", t.remote, "err", err)
			t.c.drop(s)
		}
		if err != nil {
			if ctx.Err() != nil {
				yield(nil, fmt.Errorf("mcp server %s: %s: %w", t.c.cfg.Name, t.remote, ctx.Err()))
				return
			}
			yield(nil, fmt.Errorf("mcp server %s is not reachable (%v); it will be tried again on the next call", t.c.cfg.Name, err))
			return
		}
		c := &toolkit.Chunk{State: toolkit.StateSuccess, Last: true, Content: fromContent(res.Content)}
		if res.IsError {
			c.State = toolkit.StateError
		}
		if res.StructuredContent != nil {
			c.Metadata = map[string]any{"structured_content": res.StructuredContent}
		}
		yield(c, nil)
	}
}

// fromContent maps MCP content to blocks: text as text, images and audio
// as data, resources as their text or bytes, links as text.
func fromContent(in []sdk.Content) []toolkit.Block {
	var out []toolkit.Block
	for _, c := range in {
		switch c := c.(type) {
		case *sdk.TextContent:
			out = append(out, toolkit.TextBlock(c.Text))
		case *sdk.ImageContent:
			out = append(out, toolkit.DataBlock(c.MIMEType, c.Data))
		case *sdk.AudioContent:
			out = append(out, toolkit.DataBlock(c.MIMEType, c.Data))
		case *sdk.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			if c.Resource.Text != "" || c.Resource.Blob == nil {
				out = append(out, toolkit.TextBlock(c.Resource.Text))
			} else {
				out = append(out, toolkit.DataBlock(c.Resource.MIMEType, c.Resource.Blob))
			}
		case *sdk.ResourceLink:
			out = append(out, toolkit.TextBlock(fmt.Sprintf("[resource %s: %s]", c.Name, c.URI)))
		}
	}
	return out
}

// errStopped: the consumer of a call's stream stopped reading.
var errStopped = errors.New("stream consumer stopped")

// callWatching calls the tool with a progress token of its own and
// streams the server's progress notifications for it as chunks carrying
// toolkit.Progress while the call runs.
func (t *Tool) callWatching(ctx context.Context, s *sdk.ClientSession, in toolkit.Input, yield func(*toolkit.Chunk, error) bool) (*sdk.CallToolResult, error) {
	token := fmt.Sprintf("wasmtools-%d", t.c.seq.Add(1))
	progress := make(chan toolkit.Progress, 16)
	t.c.watchers.Store(token, progress)
	defer t.c.watchers.Delete(token)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		res *sdk.CallToolResult
		err error
	}
	result := make(chan outcome, 1)
	go func() {
		params := &sdk.CallToolParams{Name: t.remote, Arguments: map[string]any(in)}
		params.SetProgressToken(token)
		res, err := s.CallTool(ctx, params)
		result <- outcome{res, err}
	}()
	for {
		select {
		case p := <-progress:
			if !yield(&toolkit.Chunk{Progress: &p}, nil) {
				cancel()
				<-result
				return nil, errStopped
			}
		case o := <-result:
			// Progress that came with the result still goes first.
			for {
				select {
				case p := <-progress:
					if !yield(&toolkit.Chunk{Progress: &p}, nil) {
						return nil, errStopped
					}
					continue
				default:
				}
				return o.res, o.err
			}
		}
	}
}

// progressArrived hands a progress notification to the call it is for.
// A notification for no running call (it ended, or the token is not
// ours) is dropped; so is one a slow consumer has no room for, since a
// later one says more.
func (c *Client) progressArrived(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
	token, ok := r.Params.ProgressToken.(string)
	if !ok {
		return
	}
	w, ok := c.watchers.Load(token)
	if !ok {
		return
	}
	select {
	case w.(chan toolkit.Progress) <- toolkit.Progress{Done: r.Params.Progress, Total: r.Params.Total, Message: r.Params.Message}:
	default:
	}
}
