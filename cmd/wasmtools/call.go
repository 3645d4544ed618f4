package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

const callHelp = `Usage: wasmtools call [flags] TOOL [JSON]

Call runs one tool call through the whole pipeline, as a model's call
would run: the tool must exist and its group be active, the arguments
must match the tool's input schema, the permission engine decides, and
the tool runs. Its output is printed as it streams.

JSON is the call's arguments, a JSON object; "-" reads it from standard
input; without it the arguments are {}.

When the permission engine asks, call shows the question on standard
error and reads the answer ("Allow? [y/N]") from standard input; --yes
approves without asking. Flags may come before or after TOOL and JSON.

Exit status: 0 success, 1 the tool failed or the call was interrupted,
2 usage error, 3 denied (by a rule, by the mode, or by you).

Examples (the demo tools need WASMTOOLS_DEMO_TOOLS=1):

	wasmtools call echo '{"text": "hello"}'
	wasmtools call upper '{"text": "hello"}' --yes
	echo '{"text": "hello"}' | wasmtools call upper - --yes
	wasmtools call upper '{"text": "hello"}' --allow upper
	wasmtools call upper '{"text": "hello"}' --mode explore      # denied: exit 3
	wasmtools call echo '{"text": "hello"}' --json               # the final response as JSON
`

// callSession is the session every call from the command line runs in.
const callSession = "cli"

func runCall(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "call", callHelp)
	var pf permFlags
	pf.register(fs)
	yes := fs.Bool("yes", false, "approve every confirmation without asking")
	asJSON := fs.Bool("json", false, "print the final response as JSON instead of streaming the output")
	pos, err := parseArgs(e, fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return usageErrorf("name the tool to call: wasmtools call TOOL [JSON]")
	case len(pos) > 2:
		return usageErrorf("too many arguments %q: give the tool and one JSON object (quote it)", pos)
	}
	arguments, err := readArguments(e, pos[1:])
	if err != nil {
		return err
	}
	h, err := pf.open(ctx, e, false, toolkit.Options{})
	if err != nil {
		return err
	}
	defer h.Close()
	tk := h.Toolkit()

	// A first Ctrl-C ends the call as interrupted (the tool sees its
	// context cancelled); a second one kills the process.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop)

	out := &streamPrinter{w: e.stdout}
	opts := toolkit.TurnOptions{}
	if !*asJSON {
		opts.OnEvent = out.event
	}
	turn, err := tk.NewTurn(ctx, callSession, []toolkit.Call{{Name: pos[0], Arguments: arguments}}, opts)
	if err != nil {
		return err
	}
	answers := bufio.NewReader(e.stdin)
	for {
		if err := turn.Run(ctx); err != nil && !errors.Is(err, toolkit.ErrWaiting) {
			return err
		}
		if turn.Done() {
			break
		}
		for _, o := range turn.Outcomes() {
			switch o.Status {
			case toolkit.StatusNeedsConfirmation:
				approve := *yes
				if approve {
					e.log.Info("approved by --yes", "tool", o.Call.Name, "reason", o.Confirmation.Decision.Reason)
				} else {
					approve = confirm(ctx, e, answers, o.Confirmation)
				}
				if ctx.Err() != nil {
					continue // the next Run ends the call as interrupted
				}
				if err := turn.Confirm(o.Call.ID, toolkit.Approval{Approve: approve}); err != nil {
					return err
				}
			case toolkit.StatusNeedsExternal:
				return fmt.Errorf("%s is executed by the program that offers it, not by wasmtools: it cannot be called from the command line", o.Call.Name)
			}
		}
	}

	resp := turn.Responses()[0]
	if *asJSON {
		if err := writeJSON(e.stdout, resp); err != nil {
			return err
		}
	} else {
		out.finish(e.stderr, resp)
	}
	switch resp.State {
	case toolkit.StateSuccess:
		return nil
	case toolkit.StateDenied:
		return exitCode(exitDenied)
	default:
		return exitCode(exitToolError)
	}
}

// confirm shows a confirmation on standard error and reads the answer
// from in. Only "y" or "yes" approves; the end of the input or a
// cancelled context does not.
func confirm(ctx context.Context, e *env, in *bufio.Reader, c *toolkit.Confirmation) bool {
	input, _ := json.Marshal(c.Input)
	d := c.Decision
	fmt.Fprintf(e.stderr, "%s wants to run with %s\n", c.Tool, input)
	if d.Message != "" {
		fmt.Fprintf(e.stderr, "  %s\n", d.Message)
	}
	if d.Reason != "" {
		fmt.Fprintf(e.stderr, "  (reason: %s)\n", d.Reason)
	}
	if d.BypassImmune {
		fmt.Fprintln(e.stderr, "  This is a safety check: no rule can allow it, only you.")
	} else if len(d.Suggestions) > 0 {
		fmt.Fprintf(e.stderr, "  To allow calls like this one without asking, pass %s.\n", allowFlags(d.Suggestions))
	}
	fmt.Fprint(e.stderr, "Allow? [y/N] ")

	type answer struct {
		line string
		err  error
	}
	answers := make(chan answer, 1)
	go func() {
		line, err := in.ReadString('\n')
		answers <- answer{line, err}
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(e.stderr)
		return false
	case a := <-answers:
		eof := a.err != nil && a.line == ""
		if eof || !isTerminal(e.stdin) {
			fmt.Fprintln(e.stderr, strings.TrimSpace(a.line)) // end the prompt's line
		}
		if eof {
			fmt.Fprintln(e.stderr, "No answer (standard input ended): not allowed. Pass --yes to approve without asking.")
			return false
		}
		switch strings.ToLower(strings.TrimSpace(a.line)) {
		case "y", "yes":
			return true
		}
		return false
	}
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// allowFlags returns the --allow flags that grant rules, quoted for a
// POSIX shell.
func allowFlags(rules []permission.Rule) string {
	flags := make([]string, len(rules))
	for i, r := range rules {
		flags[i] = "--allow '" + strings.ReplaceAll(r.String(), "'", `'\''`) + "'"
	}
	return strings.Join(flags, " ")
}

// streamPrinter prints a call's output as it streams.
type streamPrinter struct {
	w        io.Writer
	streamed strings.Builder // the text printed so far
}

func (p *streamPrinter) event(ev toolkit.Event) {
	if ev.Kind != toolkit.EventChunk {
		return
	}
	if ev.Chunk.State == toolkit.StateError {
		// A tool's error result: finish prints it, on standard error
		// (printed here, it left finish nothing to say but "no message").
		return
	}
	for _, b := range ev.Chunk.Content {
		switch b.Type {
		case toolkit.BlockText:
			io.WriteString(p.w, b.Text)
			p.streamed.WriteString(b.Text)
		case toolkit.BlockData:
			fmt.Fprintf(p.w, "[%s data, %d bytes: use --json to get it]\n", b.MediaType, len(b.Data))
		}
	}
}

// finish ends the output with a newline and, unless the call succeeded,
// prints to errw the part of the final text that was not streamed: the
// error, the denial or the interruption. A success on repaired arguments
// is said on errw too: the toolkit's note about it is not streamed, and
// the user should know the call ran on a guess at what they typed.
func (p *streamPrinter) finish(errw io.Writer, resp *toolkit.Response) {
	streamed := p.streamed.String()
	if streamed != "" && !strings.HasSuffix(streamed, "\n") {
		io.WriteString(p.w, "\n")
	}
	if resp.State == toolkit.StateSuccess {
		if resp.Repaired {
			fmt.Fprintln(errw, "wasmtools call: note: the arguments were not valid JSON and were repaired before the call ran; check them")
		}
		return
	}
	rest := strings.TrimSpace(strings.TrimPrefix(resp.Text(), streamed))
	if rest == "" {
		rest = "(no message)"
	}
	fmt.Fprintf(errw, "wasmtools call: %s: %s\n", resp.State, rest)
}
