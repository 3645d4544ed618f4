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
// # Sessions
//
// Per-session state (active groups, granted rules, the task list, the
// read-before-write cache) lives behind [SessionStore]; calls reach it
// through the [Runtime] in their context.
package toolkit
