// Package permission decides whether a tool call may run.
//
// A decision is taken by [Evaluate] from three inputs: the tool's own view of
// the call (a [Subject]), the permission [Context] (mode, working
// directories and allow, deny and ask [Rule]s), and the parsed input. The
// evaluation order is fixed and the first step that hits wins:
//
//  1. a matching deny rule denies;
//  2. a matching ask rule asks (DONT_ASK turns that into a denial); a rule
//     that only may match (the tool cannot tell) asks too, bypass-immune,
//     except in EXPLORE, which denies a call that may change things;
//  3. a read-only (or coordination-only) call is allowed;
//  4. the tool's own check is consulted (not in EXPLORE): ALLOW and DENY are
//     final, a bypass-immune ASK is returned (denied in DONT_ASK, ignored in
//     BYPASS), any other answer goes on;
//  5. an allow rule covering the call allows it (not in EXPLORE);
//  6. the mode's fallback: ASK in DEFAULT and ACCEPT_EDITS, DENY in EXPLORE
//     and DONT_ASK, ALLOW in BYPASS.
//
// BYPASS skips the tool's asks, including safety asks, but never a deny or an
// ask rule. A call that asks to run with less protection than usual (an
// [Escalator], such as a command outside the OS sandbox) then asks the user
// in every mode, bypass included, unless the steps denied it; DONT_ASK and
// EXPLORE deny it. Rules are written as text, "Tool" or "Tool(content)", and parsed
// by [ParseRule]; what a rule's content means is up to the tool.
package permission
