package permission

import (
	"context"
	"strings"
	"testing"
)

// escalating is a fakeSubject whose calls with {"escalate": true} ask to
// run with less protection.
type escalating struct{ fakeSubject }

func (e escalating) Escalation(in map[string]any, _ *Context) string {
	if in["escalate"] == true {
		return "Run " + in["cmd"].(string) + " without the sandbox?"
	}
	return ""
}

// TestEscalation: a call that asks for less protection is asked about in
// every mode that asks, bypass included, whatever the steps said; a
// denial stays a denial; dont_ask and explore deny it.
func TestEscalation(t *testing.T) {
	ctx := context.Background()
	in := map[string]any{"cmd": "make", "escalate": true}
	cases := []struct {
		name    string
		subject escalating
		pc      Context
		want    Behavior
		also    string // a message the ask must carry too
	}{
		{name: "bypass", pc: Context{Mode: ModeBypass}, want: Ask},
		{name: "default", pc: Context{Mode: ModeDefault}, want: Ask},
		{name: "accept_edits", pc: Context{Mode: ModeAcceptEdits}, want: Ask},
		{name: "read-only call in bypass", subject: escalating{fakeSubject{readOnly: true}}, pc: Context{Mode: ModeBypass}, want: Ask},
		{name: "allowed by a rule", pc: Context{Mode: ModeDefault, Allow: []Rule{{Tool: "Bash"}}}, want: Ask},
		{name: "allowed by the tool", subject: escalating{fakeSubject{check: AllowDecision("fine")}}, pc: Context{Mode: ModeBypass}, want: Ask},
		{name: "tool asks too", subject: escalating{fakeSubject{check: SafetyAsk("Dangerous.", "danger")}}, pc: Context{Mode: ModeDefault}, want: Ask, also: "Dangerous."},
		{name: "dont_ask", pc: Context{Mode: ModeDontAsk}, want: Deny},
		{name: "explore", subject: escalating{fakeSubject{readOnly: true}}, pc: Context{Mode: ModeExplore}, want: Deny},
		{name: "deny rule", pc: Context{Mode: ModeBypass, Deny: []Rule{{Tool: "Bash"}}}, want: Deny, also: "deny rule"},
		{name: "tool denies", subject: escalating{fakeSubject{check: DenyDecision("No.", "no")}}, pc: Context{Mode: ModeBypass}, want: Deny},
	}
	for _, c := range cases {
		c.subject.name = "Bash"
		d := Evaluate(ctx, c.subject, in, &c.pc)
		if d.Behavior != c.want {
			t.Errorf("%s: %s, want %s (%+v)", c.name, d.Behavior, c.want, d)
			continue
		}
		if c.want == Ask && (!d.BypassImmune || !strings.Contains(d.Message, "Run make without the sandbox?") || d.Suggestions == nil || len(d.Suggestions) != 0) {
			t.Errorf("%s: %+v", c.name, d)
		}
		if c.also != "" && !strings.Contains(d.Message+d.Reason, c.also) {
			t.Errorf("%s: %q lacks %q", c.name, d.Message+d.Reason, c.also)
		}
	}

	// Without the escalation nothing changes.
	plain := map[string]any{"cmd": "make"}
	if d := Evaluate(ctx, escalating{fakeSubject{name: "Bash"}}, plain, &Context{Mode: ModeBypass}); d.Behavior != Allow {
		t.Errorf("no escalation in bypass: %+v", d)
	}
}
