// Command agent is a ReAct agent on wasmtools: it sends a task to a model
// over the OpenAI Chat Completions API, runs the tool calls the model
// makes through the permission engine (asking on the terminal when the
// engine asks), sends the results back, and repeats until the model
// answers without calling a tool.
//
// It works with any OpenAI-compatible endpoint:
//
//	OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_API_KEY=unused \
//	  go run ./agent -model qwen3 -config wasmtools.yaml "Summarise README.md"
//
// The tools are what `wasmtools serve` would offer for the same
// wasmtools.yaml (built-ins, plugin folders, skills, MCP servers), plus one
// Go function of this program ("note", in the tool group "notes", which
// the model activates with reset_tools). The skills are listed in the
// system prompt.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wasmtools/wasmtools"
	"github.com/wasmtools/wasmtools/sandbox"
	"github.com/wasmtools/wasmtools/skills"
	"github.com/wasmtools/wasmtools/toolkit"
)

func main() {
	// Started as the OS sandbox's helper for a shell command, become it.
	sandbox.Main()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// run is the program: flags, the host, the loop. Standard input answers
// the engine's questions.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("agent", flag.ContinueOnError)
	flags.SetOutput(stderr)
	model := flags.String("model", envOr("OPENAI_MODEL", "gpt-4.1-mini"), "the `model` to ask")
	configPath := flags.String("config", "wasmtools.yaml", "the host's configuration `file` (default: wasmtools.yaml here if there is one, else the built-in tools in this folder)")
	maxSteps := flags.Int("max-steps", 20, "give up after this many model `steps`")
	yes := flags.Bool("yes", false, "approve every call the engine asks about (careful)")
	flags.Usage = func() {
		fmt.Fprintln(stderr, "Usage: agent [flags] TASK\n\nOPENAI_BASE_URL and OPENAI_API_KEY choose the endpoint.")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return err
	}
	task := strings.Join(flags.Args(), " ")
	if task == "" {
		flags.Usage()
		return errors.New("no task given")
	}

	// A configuration named with -config is the operator's word; one
	// found here, in the folder the agent works in, could have been
	// written by a tool call, and is read only as the operator trusted it
	// (wasmtools plugins trust wasmtools.yaml).
	var cfg wasmtools.Config
	var err error
	if flagSet(flags, "config") {
		cfg, err = wasmtools.LoadConfig(*configPath)
	} else if cfg, err = wasmtools.LoadFoundConfig(*configPath, nil); errors.Is(err, fs.ErrNotExist) {
		// No wasmtools.yaml here: the built-in tools, this folder as the
		// working directory.
		cfg, err = wasmtools.Config{}, nil
	}
	if err != nil {
		return err
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	host, err := wasmtools.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer host.Close()
	if err := addNoteTool(host.Toolkit()); err != nil {
		return err
	}

	a := &agent{
		tk:      host.Toolkit(),
		client:  openai.NewClient(option.WithMaxRetries(1)), // OPENAI_BASE_URL, OPENAI_API_KEY
		model:   *model,
		session: "agent",
		answers: bufio.NewReader(stdin),
		out:     stdout,
		yes:     *yes,
	}
	system := "You are a careful assistant. Use the tools to do the task; when it is done, answer without calling a tool."
	if lib := host.Skills(); lib != nil {
		if p := skills.Prompt(lib.Skills()); p != "" {
			system += "\n\n" + p
		}
	}
	answer, err := a.loop(ctx, system, task, *maxSteps)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, answer)
	return nil
}

// agent holds what the loop needs.
type agent struct {
	tk      *toolkit.Toolkit
	client  openai.Client
	model   string
	session string
	answers *bufio.Reader
	out     io.Writer
	yes     bool
}

// loop is the ReAct loop: model, tool calls, results, model, until the
// model answers in words.
func (a *agent) loop(ctx context.Context, system, task string, maxSteps int) (string, error) {
	messages := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system), openai.UserMessage(task)}
	for range maxSteps {
		// The tools are read again each step: reset_tools changes them.
		tools, err := a.tools(ctx)
		if err != nil {
			return "", err
		}
		completion, err := a.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:             a.model,
			Messages:          messages,
			Tools:             tools,
			ParallelToolCalls: openai.Bool(true),
		})
		if err != nil {
			return "", fmt.Errorf("ask the model: %w", err)
		}
		if len(completion.Choices) == 0 {
			return "", errors.New("the model answered with no choice")
		}
		msg := completion.Choices[0].Message
		messages = append(messages, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		results, err := a.act(ctx, msg.ToolCalls)
		if err != nil {
			return "", err
		}
		for _, r := range results {
			messages = append(messages, openai.ToolMessage(r.Text(), r.CallID))
		}
	}
	return "", fmt.Errorf("no answer after %d steps", maxSteps)
}

// tools returns the session's tools in the SDK's form.
func (a *agent) tools(ctx context.Context) ([]openai.ChatCompletionToolUnionParam, error) {
	defs, err := a.tk.Definitions(ctx, a.session, nil)
	if err != nil {
		return nil, err
	}
	var out []openai.ChatCompletionToolUnionParam
	for _, f := range toolkit.OpenAI(defs) {
		var params shared.FunctionParameters
		if err := json.Unmarshal(f.Function.Parameters, &params); err != nil {
			return nil, fmt.Errorf("tool %s: %w", f.Function.Name, err)
		}
		out = append(out, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        f.Function.Name,
			Description: openai.String(f.Function.Description),
			Parameters:  params,
		}))
	}
	return out, nil
}

// act runs one step's tool calls as one turn (concurrency-safe calls in
// parallel), asking on the terminal when the engine asks, and returns
// a response per call, in order.
func (a *agent) act(ctx context.Context, calls []openai.ChatCompletionMessageToolCallUnion) ([]*toolkit.Response, error) {
	batch := make([]toolkit.Call, len(calls))
	for i, c := range calls {
		batch[i] = toolkit.Call{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments}
		fmt.Fprintf(a.out, "→ %s %s\n", c.Function.Name, c.Function.Arguments)
	}
	turn, err := a.tk.NewTurn(ctx, a.session, batch, toolkit.TurnOptions{})
	if err != nil {
		return nil, err
	}
	for {
		err := turn.Run(ctx)
		var waiting *toolkit.WaitingError
		if !errors.As(err, &waiting) {
			if err != nil {
				return nil, err
			}
			break
		}
		for _, c := range waiting.Confirmations {
			if err := turn.Confirm(c.CallID, a.ask(c)); err != nil {
				return nil, err
			}
		}
		for _, x := range waiting.External {
			// This program offers no external tools.
			_ = turn.SubmitResult(x.CallID, &toolkit.Response{State: toolkit.StateError,
				Content: []toolkit.Block{toolkit.TextBlock("No one can run " + x.Tool + " here.")}})
		}
	}
	out := turn.Responses()
	for _, r := range out {
		fmt.Fprintf(a.out, "← %s %s: %s\n", r.Tool, r.Kind, firstLine(r.Text()))
	}
	return out, nil
}

// ask puts a confirmation to the user: y runs the call once, a runs it
// and allows calls like it for the session, anything else rejects it.
func (a *agent) ask(c toolkit.Confirmation) toolkit.Approval {
	input, _ := json.Marshal(c.Input)
	fmt.Fprintf(a.out, "? %s %s\n  %s\n", c.Tool, input, c.Decision.Message)
	if a.yes {
		return toolkit.Approval{Approve: true}
	}
	var always []string
	for _, r := range c.Decision.Suggestions {
		always = append(always, r.String())
	}
	if len(always) > 0 {
		fmt.Fprintf(a.out, "  [y]es, [a]lways (%s), [n]o: ", strings.Join(always, ", "))
	} else {
		fmt.Fprint(a.out, "  [y]es, [n]o: ")
	}
	line, _ := a.answers.ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return toolkit.Approval{Approve: true}
	case "a", "always":
		return toolkit.Approval{Approve: true, Rules: c.Decision.Suggestions}
	}
	return toolkit.Approval{Approve: false}
}

// noteInput is the input of the note tool.
type noteInput struct {
	Text string `json:"text" jsonschema:"the note to keep"`
}

// addNoteTool registers a Go function of this program as a tool in its
// own group, which the model activates with reset_tools.
func addNoteTool(tk *toolkit.Toolkit) error {
	var notes []string
	note, err := toolkit.NewFunc("note", "Keep a note for the user; returns every note so far.",
		func(_ context.Context, in noteInput) ([]string, error) {
			notes = append(notes, in.Text)
			return notes, nil
		},
		toolkit.FuncOptions{ReadOnly: true, Sequential: true})
	if err != nil {
		return err
	}
	if err := tk.AddGroup(toolkit.Group{Name: "notes", Description: "Keep notes for the user."}); err != nil {
		return err
	}
	return tk.Register(note, toolkit.InGroup("notes"))
}

// flagSet reports whether the flag called name was given.
func flagSet(flags *flag.FlagSet, name string) bool {
	set := false
	flags.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 100 {
		line = line[:100] + "…"
	}
	return line
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
