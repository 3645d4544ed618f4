package permission

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in      string
		want    Rule
		wantErr string
	}{
		{in: "Bash", want: Rule{Tool: "Bash"}},
		{in: "  Read  ", want: Rule{Tool: "Read"}},
		{in: "Bash(npm run test:*)", want: Rule{Tool: "Bash", Content: "npm run test:*"}},
		{in: "Read(src/**)", want: Rule{Tool: "Read", Content: "src/**"}},
		{in: "mcp__github__create_issue", want: Rule{Tool: "mcp__github__create_issue"}},
		{in: "Bash(echo (hi))", want: Rule{Tool: "Bash", Content: "echo (hi)"}},
		{in: "my.tool-2", want: Rule{Tool: "my.tool-2"}},
		{in: "", wantErr: "empty permission rule"},
		{in: "Bash(", wantErr: "missing closing ')'"},
		{in: "Bash(ls", wantErr: "missing closing ')'"},
		{in: "Bash()", wantErr: "empty content"},
		{in: "Bash(  )", wantErr: "empty content"},
		{in: "(ls)", wantErr: "missing tool name"},
		{in: "Bash)", wantErr: "')' without '('"},
		{in: "Ba sh", wantErr: "tool name"},
		{in: "Bash(ls) x", wantErr: "missing closing ')'"},
	}
	for _, tt := range tests {
		got, err := ParseRule(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRule(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseRule(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
		// The text form reads back to the same rule.
		again, err := ParseRule(got.String())
		if err != nil || again != got {
			t.Errorf("round trip of %q: %#v, %v", got.String(), again, err)
		}
	}
}

func TestRuleJSON(t *testing.T) {
	rules := []Rule{{Tool: "Bash", Content: "git:*"}, {Tool: "Read"}}
	b, err := json.Marshal(rules)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `["Bash(git:*)","Read"]` {
		t.Fatalf("json = %s", b)
	}
	var back []Rule
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0] != rules[0] || back[1] != rules[1] {
		t.Fatalf("unmarshal = %#v", back)
	}
	if err := json.Unmarshal([]byte(`["Bash("]`), &back); err == nil {
		t.Fatal("a malformed rule in JSON was accepted")
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range Modes {
		got, err := ParseMode(string(m))
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	for in, want := range map[string]Mode{"": ModeDefault, "ACCEPT-EDITS": ModeAcceptEdits, " Dont_Ask ": ModeDontAsk} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("yolo"); err == nil || !strings.Contains(err.Error(), "accept_edits") {
		t.Errorf("ParseMode(yolo) error = %v, want one listing the modes", err)
	}
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(npm run:*)", "Read(src/**)", "x()", "(", ")", "a(b)c)", "Bash(echo (x))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		if r.Tool == "" {
			t.Fatalf("ParseRule(%q) accepted an empty tool name", s)
		}
		again, err := ParseRule(r.String())
		if err != nil {
			t.Fatalf("ParseRule(%q).String() = %q does not parse: %v", s, r.String(), err)
		}
		if again != r {
			t.Fatalf("round trip of %q: %#v != %#v", s, again, r)
		}
	})
}
