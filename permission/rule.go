package permission

import (
	"fmt"
	"strings"
)

// Rule names a tool and, optionally, which of its calls: Content is what the
// tool's rule matcher interprets ("npm run test:*" for Bash, a glob for
// Read). An empty Content is a tool-level rule that covers every call.
type Rule struct {
	Tool    string
	Content string
	// Host marks a rule that protects the host's own configuration
	// (Context.Protected): tools match it on the paths they are sure to
	// write, not on everything they might, so that guarding a file does
	// not make every script ask.
	Host bool `json:"-"`
}

// ParseRule parses the text form of a rule: "Tool" or "Tool(content)".
//
// The tool name is made of letters, digits, '_', '-' and '.'. The content
// runs from the first '(' to the final ')', so it may itself contain
// parentheses; it must not be empty or only blanks (write "Tool" for a
// tool-level rule).
func ParseRule(text string) (Rule, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return Rule{}, fmt.Errorf("empty permission rule: write Tool or Tool(content), e.g. Bash(npm run test:*)")
	}
	name, content, hasContent := strings.Cut(s, "(")
	if hasContent {
		if !strings.HasSuffix(content, ")") {
			return Rule{}, fmt.Errorf("permission rule %q: missing closing ')' at the end", text)
		}
		content = content[:len(content)-1]
		if strings.TrimSpace(content) == "" {
			return Rule{}, fmt.Errorf("permission rule %q: empty content in parentheses: write %s for a rule on the whole tool", text, name)
		}
	} else if strings.Contains(s, ")") {
		return Rule{}, fmt.Errorf("permission rule %q: ')' without '('", text)
	}
	if name == "" {
		return Rule{}, fmt.Errorf("permission rule %q: missing tool name before '('", text)
	}
	for _, r := range name {
		if !isToolNameRune(r) {
			return Rule{}, fmt.Errorf("permission rule %q: tool name %q has %q: use letters, digits, '_', '-' or '.'", text, name, r)
		}
	}
	return Rule{Tool: name, Content: content}, nil
}

// MustParseRule is ParseRule for rules written in source code; it panics on
// a malformed rule. Use ParseRule for anything that comes from a user.
func MustParseRule(text string) Rule {
	r, err := ParseRule(text)
	if err != nil {
		panic(err)
	}
	return r
}

// ParseRules parses each text with ParseRule; the error names the first bad one.
func ParseRules(texts []string) ([]Rule, error) {
	rules := make([]Rule, 0, len(texts))
	for _, t := range texts {
		r, err := ParseRule(t)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func isToolNameRune(r rune) bool {
	return r == '_' || r == '-' || r == '.' ||
		('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}

// String returns the text form that ParseRule reads back.
func (r Rule) String() string {
	if r.Content == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Content + ")"
}

// IsToolLevel reports whether the rule covers every call of its tool.
func (r Rule) IsToolLevel() bool { return r.Content == "" }

// MarshalText encodes the rule in its text form, so rules appear in JSON
// as "Bash(npm run:*)".
func (r Rule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses the text form.
func (r *Rule) UnmarshalText(b []byte) error {
	parsed, err := ParseRule(string(b))
	if err != nil {
		return err
	}
	*r = parsed
	return nil
}

var _ fmt.Stringer = Rule{}
