package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	wt "github.com/wasmtools/wasmtools" // as wt: the tests name a function wasmtools
	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

const checkHelp = `Usage: wasmtools check [flags] TOOL [JSON]
       wasmtools check --batch [flags] < requests.jsonl

Check asks the permission engine whether a call would run, without
running anything. As with call, the tool must exist and be active and
the arguments must match its input schema; then the engine answers
allow, ask or deny, with the message the user or the model would read,
the reason (which step decided), whether the answer is a safety check
that no rule can silence (bypass_immune), and the allow rules that
would stop an asked call from asking (suggestions).

JSON is the call's arguments, a JSON object; "-" reads it from standard
input; without it the arguments are {}.

The exit status is 0 whatever the answer, 1 when the call cannot be
checked (unknown tool, bad JSON, schema violation), 2 on a usage error.

With --batch, check reads one request per line from standard input:

	{"tool": "upper", "input": {"text": "hi"}, "mode": "default",
	 "working_dirs": ["/src/app"], "cwd": "/src/app",
	 "allow": ["upper"], "deny": [], "ask": []}

Only "tool" is required; fields left out take their values from the
flags. Each request is checked on its own, in a new session, and
answered with exactly one line:

	{"behavior": "allow", "bypass_immune": false, "message": "", "reason": "allow rule upper", "suggestions": []}

A request that cannot be checked (bad JSON, unknown tool, schema
violation, malformed rule, unknown mode) is answered {"error": "..."}
and the batch goes on. Blank lines are skipped; lines may be up to
16 MiB long.

Examples (the demo tools need WASMTOOLS_DEMO_TOOLS=1):

	wasmtools check echo '{"text": "hi"}'                    # allow: read-only
	wasmtools check upper '{"text": "hi"}'                   # ask, suggesting the rule upper
	wasmtools check upper '{"text": "hi"}' --allow upper     # allow
	wasmtools check upper '{"text": "hi"}' --mode explore    # deny
	wasmtools check upper '{"text": "hi"}' --json
	echo '{"tool": "upper", "input": {"text": "hi"}, "mode": "bypass"}' | wasmtools check --batch
`

// maxBatchLine is the longest request line check --batch reads.
const maxBatchLine = 16 << 20

// decisionJSON is a decision as check prints it: every field is always
// present, suggestions as rule text.
type decisionJSON struct {
	Behavior     permission.Behavior `json:"behavior"`
	BypassImmune bool                `json:"bypass_immune"`
	Message      string              `json:"message"`
	Reason       string              `json:"reason"`
	Suggestions  []string            `json:"suggestions"`
}

func newDecisionJSON(d permission.Decision) decisionJSON {
	out := decisionJSON{
		Behavior:     d.Behavior,
		BypassImmune: d.BypassImmune,
		Message:      d.Message,
		Reason:       d.Reason,
		Suggestions:  make([]string, len(d.Suggestions)),
	}
	for i, r := range d.Suggestions {
		out.Suggestions[i] = r.String()
	}
	return out
}

// errorJSON is the answer to a call that cannot be checked.
type errorJSON struct {
	Error string `json:"error"`
}

func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "check", checkHelp)
	var pf permFlags
	pf.register(fs)
	batch := fs.Bool("batch", false, "read requests as JSON lines from standard input and answer each with one JSON line")
	asJSON := fs.Bool("json", false, "print the decision as JSON")
	pos, err := parseArgs(e, fs, args)
	if err != nil {
		return err
	}
	switch {
	case *batch && len(pos) > 0:
		return usageErrorf("--batch reads its requests from standard input: give no TOOL or JSON")
	case !*batch && len(pos) == 0:
		return usageErrorf("name the tool to check: wasmtools check TOOL [JSON], or use --batch")
	case len(pos) > 2:
		return usageErrorf("too many arguments %q: give the tool and one JSON object (quote it)", pos)
	}
	store := toolkit.NewMemoryStore()
	h, err := pf.open(ctx, e, false, toolkit.Options{Store: store})
	if err != nil {
		return err
	}
	defer h.Close()
	tk, pc := h.Toolkit(), h.Permission()
	if *batch {
		return checkBatch(ctx, e, tk, store, pc)
	}

	arguments, err := readArguments(e, pos[1:])
	if err != nil {
		return err
	}
	d, err := tk.Check(ctx, callSession, toolkit.Call{Name: pos[0], Arguments: arguments}, toolkit.CheckOptions{Permission: pc})
	switch {
	case err != nil && *asJSON:
		if werr := writeJSON(e.stdout, errorJSON{err.Error()}); werr != nil {
			return werr
		}
		return exitCode(exitToolError)
	case err != nil:
		return &exitError{code: exitToolError, err: err}
	case *asJSON:
		return writeJSON(e.stdout, newDecisionJSON(d))
	}
	return printDecision(e.stdout, newDecisionJSON(d))
}

func printDecision(w io.Writer, d decisionJSON) error {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintf(tw, "behavior:\t%s\n", d.Behavior)
	fmt.Fprintf(tw, "bypass_immune:\t%t\n", d.BypassImmune)
	fmt.Fprintf(tw, "message:\t%s\n", orNone(d.Message))
	fmt.Fprintf(tw, "reason:\t%s\n", orNone(d.Reason))
	if len(d.Suggestions) == 0 {
		fmt.Fprintf(tw, "suggestions:\t(none)\n")
	}
	for i, s := range d.Suggestions {
		label := ""
		if i == 0 {
			label = "suggestions:"
		}
		fmt.Fprintf(tw, "%s\t%s\n", label, s)
	}
	return tw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// batchRequest is one line of check --batch. A field left out (nil, or
// "" for strings) takes its value from the flags.
type batchRequest struct {
	Tool        string          `json:"tool"`
	Input       json.RawMessage `json:"input"`
	Mode        string          `json:"mode"`
	WorkingDirs []string        `json:"working_dirs"`
	Cwd         string          `json:"cwd"`
	Allow       []string        `json:"allow"`
	Deny        []string        `json:"deny"`
	Ask         []string        `json:"ask"`
}

// checkBatch answers each request line of standard input with one line.
func checkBatch(ctx context.Context, e *env, tk *toolkit.Toolkit, store *toolkit.MemoryStore, defaults *permission.Context) error {
	lines := &lineSplitter{max: maxBatchLine}
	sc := bufio.NewScanner(e.stdin)
	sc.Buffer(make([]byte, 64<<10), maxBatchLine+1)
	sc.Split(lines.split)
	w := bufio.NewWriter(e.stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	warned := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		var answer any
		switch {
		case lines.tooLong:
			answer = errorJSON{fmt.Sprintf("the line is longer than %d MiB: it was skipped", maxBatchLine>>20)}
		case len(bytes.TrimSpace(sc.Bytes())) == 0:
			continue
		default:
			req, err := decodeRequest(sc.Bytes(), func(unknown error) {
				if !warned[unknown.Error()] {
					warned[unknown.Error()] = true
					e.log.Warn("check --batch: ignoring a field it does not know", "line", n, "err", unknown)
				}
			})
			if err != nil {
				answer = errorJSON{err.Error()}
				break
			}
			answer = checkRequest(ctx, tk, store, "batch-"+strconv.Itoa(n), req, defaults)
		}
		if err := enc.Encode(answer); err != nil {
			return err
		}
		// Flush each answer: the requester may wait for it before it
		// writes the next request.
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read the requests: %w", err)
	}
	return nil
}

// decodeRequest decodes one request line. Fields it does not know are
// ignored and reported to warn.
func decodeRequest(line []byte, warn func(unknown error)) (batchRequest, error) {
	var req batchRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return req, fmt.Errorf(`not a request of the form {"tool", "input", "mode", "working_dirs", "cwd", "allow", "deny", "ask"}: %v`, err)
	}
	// The line is valid: a strict decoding fails only on unknown fields.
	strict := json.NewDecoder(bytes.NewReader(line))
	strict.DisallowUnknownFields()
	if err := strict.Decode(new(batchRequest)); err != nil {
		warn(err)
	}
	return req, nil
}

// checkRequest checks one request in a new session.
func checkRequest(ctx context.Context, tk *toolkit.Toolkit, store *toolkit.MemoryStore, session string, req batchRequest, defaults *permission.Context) any {
	if req.Tool == "" {
		return errorJSON{`missing "tool": each line names the tool to check, e.g. {"tool": "Read", "input": {"file_path": "/etc/hosts"}}`}
	}
	pc, err := req.permission(defaults)
	if err != nil {
		return errorJSON{err.Error()}
	}
	defer func() { _ = store.Drop(ctx, session) }() // a memory store never fails
	d, err := tk.Check(ctx, session, toolkit.Call{Name: req.Tool, Arguments: string(req.Input)}, toolkit.CheckOptions{Permission: pc})
	if err != nil {
		return errorJSON{err.Error()}
	}
	return newDecisionJSON(d)
}

// permission returns the request's permission configuration: its own
// fields, and those of defaults for the fields it leaves out.
func (r *batchRequest) permission(defaults *permission.Context) (*permission.Context, error) {
	pc := defaults.Clone()
	if r.Mode != "" {
		m, err := permission.ParseMode(r.Mode)
		if err != nil {
			return nil, err
		}
		pc.Mode = m
	}
	if r.WorkingDirs != nil {
		pc.WorkingDirs = make([]string, len(r.WorkingDirs))
		for i, dir := range r.WorkingDirs {
			abs, err := filepath.Abs(dir)
			if err != nil {
				return nil, fmt.Errorf("working_dirs: %w", err)
			}
			pc.WorkingDirs[i] = abs
		}
	}
	if r.Cwd != "" {
		abs, err := filepath.Abs(r.Cwd)
		if err != nil {
			return nil, fmt.Errorf("cwd: %w", err)
		}
		pc.Cwd = abs
	}
	for _, f := range []struct {
		field string
		texts []string
		rules *[]permission.Rule
	}{
		{"allow", r.Allow, &pc.Allow},
		{"deny", r.Deny, &pc.Deny},
		{"ask", r.Ask, &pc.Ask},
	} {
		if f.texts == nil {
			continue
		}
		rules, err := permission.ParseRules(f.texts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.field, err)
		}
		*f.rules = rules
	}
	wt.ProtectWorkingDirs(pc)
	return pc, nil
}

// lineSplitter is a bufio.SplitFunc like bufio.ScanLines that survives
// lines longer than max bytes: such a line is skipped, and stands as an
// empty token for which tooLong is true.
type lineSplitter struct {
	max      int
	skipping bool // in the middle of a line that is too long
	tooLong  bool // the last token stands for a line that was too long
}

func (s *lineSplitter) split(data []byte, atEOF bool) (advance int, token []byte, err error) {
	s.tooLong = false
	i := bytes.IndexByte(data, '\n')
	switch {
	case s.skipping && i >= 0:
		s.skipping, s.tooLong = false, true
		return i + 1, []byte{}, nil
	case s.skipping && atEOF:
		s.skipping, s.tooLong = false, true
		return len(data), []byte{}, nil
	case s.skipping:
		return len(data), nil, nil
	case i > s.max:
		s.tooLong = true
		return i + 1, []byte{}, nil
	case i < 0 && len(data) > s.max:
		s.skipping = true
		return len(data), nil, nil
	}
	return bufio.ScanLines(data, atEOF)
}
