// Package toolkit is the core of wasmtools: the Tool contract, the Toolkit
// that holds tools in groups, and the pipeline every call goes through.
//
// # Tools
//
// A [Tool] describes itself with a [Spec] and answers CheckPermissions; it
// runs through [Caller] unless it is External. Optional interfaces
// ([ReadOnlyChecker], [RuleMatcher], [Suggester], [RulesCoverer],
// [ForeignRuleMatcher]) refine how the permission engine sees it. Results
// stream as a [Stream] of [Chunk]s that the toolkit folds into one
// [Response]. [NewFunc] makes a tool from a typed Go function, and
// [NewStreamFunc] one that streams; [InferSchema] gives their input
// schema, by the rules the guest SDK follows too.
//
// # Groups
//
// Tools registered without a group form the always-active "basic" group.
// Named groups ([Group]) are activated per session by the reset_tools meta
// tool, registered automatically when a named group exists. Its schema
// shows which groups are active in the session asking.
//
// # The pipeline
//
// A [Turn] runs the calls of one model turn through five gates:
//
//  1. availability: the tool exists and its group is active;
//  2. input: JSON parsed (and repaired if need be), then validated against
//     the schema compiled at registration; this one parsed [Input] is what
//     the permission check and the call both see. Repaired arguments are a
//     guess: a call that is not read-only ends here with an error asking
//     for them again, and a read-only one runs with a note that says so;
//  3. permission: [permission.Evaluate]; DENY ends the call, ASK suspends
//     it until [Turn.Confirm];
//  4. execution: External tools suspend until [Turn.SubmitResult]; others
//     run through their middleware, streaming chunks as events;
//  5. finish: text over the configured limit is cut and the full text
//     offloaded to a file the model can read.
//
// Consecutive concurrency-safe calls run in parallel, the others one at a
// time, and results keep the calls' order. Mistakes the model can fix
// become ERROR or DENIED responses; Go errors are reserved for mistakes of
// the embedding program.
//
// # Outcomes
//
// Every [Response] says how its call ended ([Kind]: success, unknown
// tool, inactive group, invalid input, denied, rejected, refused, tool
// error, interrupted) and carries the permission [permission.Decision]
// with the rule that decided. [Response.Err] turns a failure into a
// [*CallError] that errors.Is matches against the kind's sentinel
// ([ErrDenied], [ErrUnknownTool], ...) and that unwraps to the tool's own
// Go error.
//
// # Waiting, saving and resuming
//
// [Turn.Run] returns a [*WaitingError] ([ErrWaiting]) when calls wait for
// the user ([Turn.Confirm]) or for an external result
// ([Turn.SubmitResult]), both by call ID. A waiting turn can be saved
// ([Turn.Snapshot], plain JSON) and resumed by another toolkit with the
// same tools ([Toolkit.ResumeTurn]): after a restart, or on another
// replica. [Toolkit.Call] runs a single call through the whole pipeline.
//
// # Middleware
//
// [Options].Middleware wraps every call of every tool (built-in, plugin,
// MCP, Go function, the Skill viewer, reset_tools), outside the
// middleware a registration adds ([WithMiddleware]): it can change the
// input, refuse the call ([Refuse]) or rewrite the result.
//
// # Concurrency
//
// A [Toolkit] is safe for concurrent use: any number of turns of any
// sessions run at once, and tools can be registered and replaced while
// they do. A [Turn] is driven from one goroutine at a time. Callbacks say
// which goroutine runs them: [Options].OnChange runs on the goroutine that
// changed the toolkit, [TurnOptions].OnEvent on the goroutines running
// the turn's calls, one event at a time.
//
// # Sessions
//
// Per-session state (active groups, granted rules, the task list, the
// read-before-write cache, turns parked for an answer) lives behind
// [SessionStore]; calls reach it through the [Runtime] in their context.
// [MemoryStore] is the default; toolkit/redisstore shares sessions
// between processes. Every method of the state takes a context and may
// fail, and updates that read then write are atomic in the store.
package toolkit
