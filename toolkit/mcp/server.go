package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/builtin"
)

// ServerOptions configure a Server.
type ServerOptions struct {
	// Name and Version identify the server to clients.
	Name, Version string
	// Instructions are sent to clients at initialisation.
	Instructions string
	// MoreInstructions, when set, is called at each initialisation and its
	// text appended to Instructions: what changes while the server runs
	// (the skills prompt fragment) reaches each new session as it is then.
	MoreInstructions func() string
	// Logger receives the server's logs; nil means slog.Default(). It must
	// not write to standard output when serving over stdio.
	Logger *slog.Logger
	// SharedSessions says that the toolkit's store is shared with other
	// servers (replicas behind a load balancer): a session that ends here
	// (idle here, this server shutting down, a lost connection) goes on
	// elsewhere, so its state stays in the store, where it expires when
	// idle; only a client's DELETE of its session forgets it.
	SharedSessions bool
	// OpenHTTP says that HTTP requests reach this server with no token
	// (wasmtools serve --http on loopback without --token-file): any
	// local process can open a session, a command this server started
	// included. A safety question (a bypass-immune ask: a command asking
	// to run outside the OS sandbox, an operator's ask rule) is then never
	// put to an HTTP client, since the command could answer its own: the
	// call is refused, saying how to allow it. Sessions over stdio are
	// not affected: their client started the server.
	OpenHTTP bool
}

// Server serves a toolkit over MCP.
type Server struct {
	tk   *toolkit.Toolkit
	opts ServerOptions
	log  *slog.Logger
	sdk  *sdk.Server

	mu       sync.Mutex
	sessions map[*sdk.ServerSession]string
	running  map[*runningCall]struct{} // calls in progress, for Shutdown
	changed  map[string]bool           // sessions owed a tools/list_changed
	calls    sync.WaitGroup
	pending  map[string]*pending // calls waiting for confirmation, by request state
	seq      atomic.Uint64
	tools    map[string]bool // names currently registered with the SDK server
	// shared is set with ServerOptions.SharedSessions; stopShared ends
	// the HTTP handlers' bus listeners.
	shared     *shared
	stopShared []context.CancelFunc
}

// NewServer returns a server for tk. Tools are offered as the toolkit
// defines them at the time of each refresh (see Refresh).
func NewServer(tk *toolkit.Toolkit, opts ServerOptions) *Server {
	if opts.Name == "" {
		opts.Name = "wasmtools"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{tk: tk, opts: opts, log: opts.Logger, sessions: map[*sdk.ServerSession]string{}, tools: map[string]bool{}, pending: map[string]*pending{},
		running: map[*runningCall]struct{}{}, changed: map[string]bool{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: opts.Name, Version: opts.Version}, &sdk.ServerOptions{
		Instructions: opts.Instructions,
		Logger:       s.log,
	})
	s.sdk.AddReceivingMiddleware(s.sessionToolList, s.instructions)
	if opts.SharedSessions {
		s.shared = newShared()
		s.sdk.AddReceivingMiddleware(s.recordInit)
	}
	s.sdk.AddSendingMiddleware(s.onlyChangedSessions)
	return s
}

// onlyChangedSessions lets notifications/tools/list_changed through only
// to the sessions whose tool list changed: one session's reset_tools is
// news to no other. A session the server has not mapped yet has not
// listed its tools, and hears every change.
func (s *Server) onlyChangedSessions(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "notifications/tools/list_changed" {
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok {
				s.mu.Lock()
				id, known := s.sessions[ss]
				owed := !known || s.changed[id]
				delete(s.changed, id)
				s.mu.Unlock()
				if !owed {
					return nil, nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// instructions fills the initialize result's instructions with the
// current MoreInstructions.
func (s *Server) instructions(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || s.opts.MoreInstructions == nil {
			return res, err
		}
		// "initialize" on the older protocol versions, "server/discover"
		// on the newer ones.
		switch r := res.(type) {
		case *sdk.InitializeResult:
			if more := s.opts.MoreInstructions(); more != "" {
				cp := *r
				cp.Instructions = strings.TrimSpace(r.Instructions + "\n\n" + more)
				return &cp, nil
			}
		case *sdk.DiscoverResult:
			if more := s.opts.MoreInstructions(); more != "" {
				cp := *r
				cp.Instructions = strings.TrimSpace(r.Instructions + "\n\n" + more)
				return &cp, nil
			}
		}
		return res, nil
	}
}

// sessionToolList narrows tools/list to what the asking session sees: the
// tools of its active groups, and reset_tools with the schema that shows
// which groups are active now. (Every tool stays registered with the SDK,
// so that a call to a tool of an inactive group gets the toolkit's answer
// saying which group to activate.)
func (s *Server) sessionToolList(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/list" {
			return res, err
		}
		list, ok := res.(*sdk.ListToolsResult)
		ss, ok2 := req.GetSession().(*sdk.ServerSession)
		if !ok || !ok2 {
			return res, nil
		}
		defs, err := s.tk.Definitions(ctx, s.sessionID(ss), &toolkit.View{Mode: toolkit.ViewToolkitOnly})
		if err != nil {
			return res, nil
		}
		visible := map[string]toolkit.Definition{}
		for _, d := range defs {
			visible[d.Name] = d
		}
		out := *list
		out.Tools = nil
		for _, t := range list.Tools {
			d, ok := visible[t.Name]
			if !ok {
				continue
			}
			if t.Name == toolkit.ResetToolsName {
				cp := *t
				cp.InputSchema = d.InputSchema
				t = &cp
			}
			out.Tools = append(out.Tools, t)
		}
		return &out, nil
	}
}

// SDK returns the underlying MCP server, for transports (stdio, HTTP).
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Refresh re-reads the toolkit's tools and registers them with the MCP
// server; clients are told the list changed.
//
// Refreshes are serialised, and each reads the toolkit under the same lock
// as it registers: two refreshes racing (a plugin and a skill reloading at
// once) cannot leave the older tool list registered last. The SDK sends
// tools/list_changed 10 ms after the last registration, and the sending
// middleware waits for that lock, so a client is never told of a change
// before the whole new list is visible.
func (s *Server) Refresh(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defs, err := s.tk.Definitions(ctx, "", &toolkit.View{Mode: toolkit.ViewToolkitOnly})
	if err != nil {
		return err
	}
	// Tools of every group are offered: a call to a tool of an inactive
	// group gets an answer telling the model to activate its group.
	seen := map[string]bool{}
	for _, info := range s.tk.Tools() {
		seen[info.Spec.Name] = true
	}
	all := toolkit.MCP(defsForAll(s.tk, defs))
	// The toolkit changed for everyone: every session is owed the news.
	for _, id := range s.sessions {
		s.changed[id] = true
	}
	var stale []string
	for name := range s.tools {
		if !seen[name] {
			stale = append(stale, name)
			delete(s.tools, name)
		}
	}
	if len(stale) > 0 {
		s.sdk.RemoveTools(stale...)
	}
	for _, t := range all {
		tool := &sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if len(t.OutputSchema) > 0 {
			tool.OutputSchema = t.OutputSchema
		}
		if t.Annotations != nil {
			tool.Annotations = &sdk.ToolAnnotations{ReadOnlyHint: t.Annotations.ReadOnlyHint}
		}
		s.sdk.AddTool(tool, s.handle)
		s.tools[t.Name] = true
	}
	return nil
}

// announceToolsChanged sends notifications/tools/list_changed to one
// session, whose active groups changed: the SDK sends it when a tool is
// (re)added, so reset_tools is added again as it is, and the sending
// middleware (onlyChangedSessions) lets it through to that session only.
func (s *Server) announceToolsChanged(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changed[session] = true
	for _, info := range s.tk.Tools() {
		if info.Spec.Name != toolkit.ResetToolsName {
			continue
		}
		defs := toolkit.MCP(defsForAll(s.tk, nil))
		for _, t := range defs {
			if t.Name == toolkit.ResetToolsName {
				s.sdk.AddTool(&sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}, s.handle)
			}
		}
	}
}

// defsForAll returns definitions for every registered tool, whatever
// group is active in a given session.
func defsForAll(tk *toolkit.Toolkit, active []toolkit.Definition) []toolkit.Definition {
	have := map[string]bool{}
	for _, d := range active {
		have[d.Name] = true
	}
	out := append([]toolkit.Definition(nil), active...)
	for _, info := range tk.Tools() {
		if have[info.Spec.Name] {
			continue
		}
		sp := info.Spec
		schema := sp.InputSchema
		if schema == nil {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, toolkit.Definition{Name: sp.Name, Description: sp.Description, InputSchema: schema, ReadOnly: sp.ReadOnly, Group: info.Group, Source: sp.Source})
	}
	return out
}

// acceptedMedia are the data blocks MCP content can carry.
var acceptedMedia = []string{"image/png", "image/jpeg", "image/gif", "image/webp", "audio/wav", "audio/mpeg"}

// handle runs one tools/call through the toolkit's pipeline. A call the
// engine asks about is answered with an input request (an elicitation,
// SEP-2322 multi round-trip); the client's retry carries the answer and
// the request state that finds the suspended call again. The SDK turns
// this into a plain elicitation for clients on older protocol versions.
func (s *Server) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	sid := s.sessionID(req.Session)
	ctx, done, ok := s.startCall(ctx, sid)
	if !ok {
		return errorResult("The server is shutting down; the call was not run."), nil
	}
	defer done()
	// A call may change the session's active groups (reset_tools, or the
	// Skill viewer activating a skill's group): then its tool list changed.
	groupsBefore, _ := s.tk.ActiveGroups(ctx, sid)
	var turn *toolkit.Turn
	var prog *progress
	if state := req.Params.RequestState; state != "" {
		p, err := s.takePending(ctx, state, sid)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return errorResult("This approval is unknown or has expired; call the tool again."), nil
		}
		turn, prog = p.turn, p.progress
		if p.external != nil {
			ans, _ := req.Params.InputResponses[askInputID].(*sdk.ElicitResult)
			if err := turn.SubmitResult(p.callID, answerFrom(ans, p.external)); err != nil {
				return nil, err
			}
		} else {
			ans, _ := req.Params.InputResponses[confirmInputID].(*sdk.ElicitResult)
			if err := turn.Confirm(p.callID, approvalFrom(ans, p.decision)); err != nil {
				return nil, err
			}
		}
	} else {
		var err error
		prog = &progress{}
		turn, err = s.tk.NewTurn(ctx, sid, []toolkit.Call{{Name: req.Params.Name, Arguments: string(req.Params.Arguments)}},
			toolkit.TurnOptions{Accept: acceptedMedia, OnEvent: prog.event})
		if err != nil {
			return nil, err
		}
	}
	// Progress goes to this request: a resumed call reports to the retry.
	prog.to(ctx, req.Session, req.Params.GetProgressToken())
	defer prog.to(context.Background(), nil, nil)
	for range 8 { // an edited input can be asked about again; bound the loop
		if err := turn.Run(ctx); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
			return nil, err
		}
		out := turn.Outcomes()[0]
		s.logOutcome(ctx, req.Session, out)
		switch out.Status {
		case toolkit.StatusDone:
			if after, err := s.tk.ActiveGroups(ctx, sid); err == nil && !slices.Equal(groupsBefore, after) {
				s.announceToolsChanged(sid)
			}
			return toResult(out.Response), nil
		case toolkit.StatusNeedsConfirmation:
			if !canElicit(req.Session) {
				if err := turn.Confirm(out.Call.ID, cannotAsk(out.Confirmation.Decision)); err != nil {
					return nil, err
				}
				continue
			}
			if d := out.Confirmation.Decision; d.BypassImmune && s.opts.OpenHTTP && overHTTP(req) {
				if err := turn.Confirm(out.Call.ID, toolkit.Approval{Approve: false, Message: "this server takes HTTP requests without a token, " +
					"so a command it runs could answer this safety question itself; it is not asked over HTTP. " + d.Message +
					" Start the server with --token-file, or serve this client over stdio."}); err != nil {
					return nil, err
				}
				continue
			}
			token, err := s.putPending(ctx, sid, out.Call.ID, turn, out.Confirmation.Decision, nil, prog)
			if err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{
				InputRequests: sdk.InputRequestMap{confirmInputID: elicitation(out.Confirmation)},
				RequestState:  token,
			}, nil
		case toolkit.StatusNeedsExternal:
			questions, err := builtin.ParseAskUserInput(out.External.Input)
			if out.Call.Name != builtin.AskUserName || err != nil || !canElicit(req.Session) {
				return errorResult(fmt.Sprintf("%s needs the user, and this MCP client cannot ask them (it does not support elicitation).", out.Call.Name)), nil
			}
			token, err := s.putPending(ctx, sid, out.Call.ID, turn, permission.Decision{}, questions, prog)
			if err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{
				InputRequests: sdk.InputRequestMap{askInputID: askElicitation(questions)},
				RequestState:  token,
			}, nil
		default:
			return errorResult("the call could not be completed"), nil
		}
	}
	return errorResult("the call was asked about too many times"), nil
}

// confirmInputID names the confirmation among a result's input requests.
const confirmInputID = "confirm"

// pendingTTL is how long a call waits for its confirmation.
const pendingTTL = 15 * time.Minute

// maxPending bounds the calls waiting for confirmation.
const maxPending = 1024

type pending struct {
	progress *progress
	session  string
	callID   string
	turn     *toolkit.Turn
	decision permission.Decision
	// external holds the questions of an AskUser call waiting for its
	// answers (nil for a confirmation).
	external []builtin.AskUserQuestion
	expires  time.Time
}

// askInputID names AskUser's questions among a result's input requests.
const askInputID = "ask_user"

// askElicitation puts AskUser's questions to the user as one form: a
// choice per question (a comma-separated list for multi-select ones) and
// a free-text "other" answer.
func askElicitation(questions []builtin.AskUserQuestion) *sdk.ElicitParams {
	props := map[string]any{}
	var msg strings.Builder
	msg.WriteString("The assistant asks:")
	for i, q := range questions {
		var labels []any
		var opts []string
		for _, o := range q.Options {
			labels = append(labels, o.Label)
			opts = append(opts, fmt.Sprintf("%s (%s)", o.Label, o.Description))
		}
		fmt.Fprintf(&msg, "\n%d. [%s] %s %s", i+1, q.Header, q.Question, q.Context)
		if q.MultiSelect {
			props[fmt.Sprintf("q%d", i+1)] = map[string]any{"type": "string", "title": q.Header,
				"description": q.Question + " Choose any of, separated by commas: " + strings.Join(opts, "; ")}
		} else {
			props[fmt.Sprintf("q%d", i+1)] = map[string]any{"type": "string", "title": q.Header, "enum": labels,
				"description": q.Question + " " + strings.Join(opts, "; ")}
		}
		props[fmt.Sprintf("q%d_other", i+1)] = map[string]any{"type": "string", "title": q.Header + ": other",
			"description": "Or answer in your own words"}
	}
	return &sdk.ElicitParams{Message: msg.String(), RequestedSchema: map[string]any{"type": "object", "properties": props}}
}

// answerFrom turns the form back into AskUser's result; a declined form
// is an answer too (the model learns the user did not answer).
func answerFrom(res *sdk.ElicitResult, questions []builtin.AskUserQuestion) *toolkit.Response {
	if res == nil || res.Action != "accept" {
		r := &toolkit.Response{State: toolkit.StateError, Content: []toolkit.Block{toolkit.TextBlock("The user did not answer the questions.")}}
		return r
	}
	answers := make([]builtin.Answer, len(questions))
	for i, q := range questions {
		answers[i] = builtin.Answer{Question: q.Question, Selected: []string{}}
		if v, _ := res.Content[fmt.Sprintf("q%d", i+1)].(string); v != "" {
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part != "" {
					answers[i].Selected = append(answers[i].Selected, part)
				}
			}
		}
		answers[i].Other, _ = res.Content[fmt.Sprintf("q%d_other", i+1)].(string)
	}
	return builtin.AskUserAnswer(answers)
}

// parkedCall is the record of a call waiting for its answer, parked in
// the session's store: the answer may come back through any server that
// shares the store, and only one of them can claim it.
type parkedCall struct {
	CallID   string                    `json:"call_id"`
	Decision permission.Decision       `json:"decision"`
	External []builtin.AskUserQuestion `json:"external,omitempty"`
	Turn     *toolkit.TurnSnapshot     `json:"turn"`
}

// putPending parks a waiting call: its record in the session's store,
// and the live turn here, so that an answer reaching this server goes on
// with it (its progress reporting included) without a resume.
func (s *Server) putPending(ctx context.Context, session, callID string, turn *toolkit.Turn, d permission.Decision, external []builtin.AskUserQuestion, prog *progress) (string, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	record, err := json.Marshal(parkedCall{CallID: callID, Decision: d, External: external, Turn: turn.Snapshot()})
	if err != nil {
		return "", fmt.Errorf("park call %s: %w", callID, err)
	}
	st, err := s.tk.Store().Session(ctx, session)
	if err != nil {
		return "", fmt.Errorf("park call %s: %w", callID, err)
	}
	if err := st.Parked().Park(ctx, token, record, pendingTTL); err != nil {
		return "", fmt.Errorf("park call %s: %w", callID, err)
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, p := range s.pending {
		if now.After(p.expires) || len(s.pending) >= maxPending {
			delete(s.pending, k)
		}
	}
	s.pending[token] = &pending{session: session, callID: callID, turn: turn, decision: d, external: external, expires: now.Add(pendingTTL), progress: prog}
	return token, nil
}

// takePending claims the call a request state names in the session's
// store, so that it goes on at most once whichever server the answer
// reaches; nil when it is unknown, expired or claimed already. The live
// turn is used when the call was parked here, else the turn resumes from
// its snapshot.
func (s *Server) takePending(ctx context.Context, token, session string) (*pending, error) {
	st, err := s.tk.Store().Session(ctx, session)
	if err != nil {
		return nil, fmt.Errorf("find the waiting call: %w", err)
	}
	record, ok, err := st.Parked().Claim(ctx, token)
	if err != nil {
		return nil, fmt.Errorf("find the waiting call: %w", err)
	}
	s.mu.Lock()
	p := s.pending[token]
	delete(s.pending, token)
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	if p != nil && p.session == session {
		return p, nil
	}
	var rec parkedCall
	if err := json.Unmarshal(record, &rec); err != nil || rec.Turn == nil {
		return nil, fmt.Errorf("the waiting call's record is damaged: %v", err)
	}
	prog := &progress{}
	turn, err := s.tk.ResumeTurn(ctx, rec.Turn, toolkit.TurnOptions{Accept: acceptedMedia, OnEvent: prog.event})
	if err != nil {
		return nil, fmt.Errorf("resume the waiting call: %w", err)
	}
	s.log.Debug("resumed a call parked by another server", "session", session, "call", rec.CallID)
	return &pending{session: session, callID: rec.CallID, turn: turn, decision: rec.Decision, external: rec.External, progress: prog}, nil
}

// elicitation asks the user about a call: run it once, always (granting
// the suggested rules for the session), or reject it.
func elicitation(c *toolkit.Confirmation) *sdk.ElicitParams {
	d := c.Decision
	input, _ := json.Marshal(c.Input)
	choices := []any{"once", "reject"}
	prompt := fmt.Sprintf("%s\n\nTool: %s\nInput: %s", d.Message, c.Tool, input)
	if len(d.Suggestions) > 0 && !d.BypassImmune {
		choices = []any{"once", "always", "reject"}
		prompt += "\n\"always\" also allows, for this session: " + ruleTexts(d.Suggestions)
	}
	return &sdk.ElicitParams{
		Message: prompt,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"decision": map[string]any{"type": "string", "enum": choices,
					"description": "once: run this call; always: also allow calls like it; reject: do not run it"},
			},
			"required": []string{"decision"},
		},
	}
}

// approvalFrom reads the user's answer; anything but an accepted "once"
// or "always" rejects the call.
func approvalFrom(res *sdk.ElicitResult, d permission.Decision) toolkit.Approval {
	if res == nil || res.Action != "accept" {
		return toolkit.Approval{Approve: false}
	}
	switch res.Content["decision"] {
	case "once":
		return toolkit.Approval{Approve: true}
	case "always":
		if d.BypassImmune {
			return toolkit.Approval{Approve: true}
		}
		return toolkit.Approval{Approve: true, Rules: d.Suggestions}
	}
	return toolkit.Approval{Approve: false}
}

// cannotAsk rejects a call for a client without elicitation, naming the
// rules that would allow calls like it.
func cannotAsk(d permission.Decision) toolkit.Approval {
	msg := "this MCP client cannot ask the user for approval. " + d.Message
	if rules := ruleTexts(d.Suggestions); rules != "" && !d.BypassImmune {
		msg += " An allow rule such as " + rules + " in the server's configuration would let calls like this one run."
	}
	return toolkit.Approval{Approve: false, Message: msg}
}

// overHTTP reports a request that came over HTTP (the SDK passes its
// headers; stdio has none).
func overHTTP(req *sdk.CallToolRequest) bool {
	return req.Extra != nil && req.Extra.Header != nil
}

func canElicit(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

func ruleTexts(rules []permission.Rule) string {
	var out []string
	for _, r := range rules {
		out = append(out, r.String())
	}
	return strings.Join(out, ", ")
}

// toResult converts a toolkit response to MCP content.
func toResult(r *toolkit.Response) *sdk.CallToolResult {
	res := &sdk.CallToolResult{IsError: r.State != toolkit.StateSuccess}
	for _, b := range r.Content {
		switch {
		case b.Type == toolkit.BlockText:
			res.Content = append(res.Content, &sdk.TextContent{Text: b.Text})
		case strings.HasPrefix(b.MediaType, "image/"):
			res.Content = append(res.Content, &sdk.ImageContent{Data: b.Data, MIMEType: b.MediaType})
		case strings.HasPrefix(b.MediaType, "audio/"):
			res.Content = append(res.Content, &sdk.AudioContent{Data: b.Data, MIMEType: b.MediaType})
		default:
			res.Content = append(res.Content, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "wasmtools://result/" + r.CallID, MIMEType: b.MediaType, Blob: b.Data}})
		}
	}
	if len(res.Content) == 0 {
		res.Content = []sdk.Content{&sdk.TextContent{Text: ""}}
	}
	// How the call ended and the decision with its rule, for clients
	// that tell a denial from a failure; the tool's metadata stays apart.
	res.Meta = sdk.Meta{outcomeMetaKey: outcomeMeta{Kind: r.Kind, Decision: r.Decision}}
	if len(r.Metadata) > 0 {
		res.Meta["wasmtools"] = r.Metadata
	}
	if r.State == toolkit.StateSuccess && r.Structured != nil {
		res.StructuredContent = r.Structured
	}
	return res
}

// outcomeMetaKey is the _meta key of a tool result's outcomeMeta.
const outcomeMetaKey = "wasmtools/outcome"

// outcomeMeta says how a call ended (see toolkit.Kind) and, when it
// reached the permission gate, the decision and the rule that decided.
type outcomeMeta struct {
	Kind     toolkit.Kind         `json:"kind"`
	Decision *permission.Decision `json:"decision,omitempty"`
}

func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}
