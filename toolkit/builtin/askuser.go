package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmtools/wasmtools/permission"
	"github.com/wasmtools/wasmtools/toolkit"
)

// AskUserName is the name of the AskUser tool.
const AskUserName = "AskUser"

// AskUser lets the model ask the user multiple-choice questions. It is an
// External tool: the host cannot show anything to the user, so a call
// suspends with toolkit.StatusNeedsExternal; the caller's UI shows the
// questions (always adding an "other" free-text answer) and completes the
// call with Turn.SubmitResult(callID, AskUserAnswer(answers)).
// [ParseAskUserInput] decodes the questions for the UI and
// [ValidateAskUserAnswers] checks the answers before they are submitted.
type AskUser struct{}

// NewAskUser returns the AskUser tool.
func NewAskUser() *AskUser { return &AskUser{} }

// askUserSchema enforces the shape the UI relies on: 1–4 questions, a
// header short enough for a chip (12 characters), 2–4 options each.
var askUserSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "questions": {
      "type": "array",
      "minItems": 1,
      "maxItems": 4,
      "description": "The questions to ask, 1 to 4, shown together.",
      "items": {
        "type": "object",
        "properties": {
          "question": {"type": "string", "minLength": 1, "description": "The complete question, ending with a question mark."},
          "header": {"type": "string", "minLength": 1, "maxLength": 12, "description": "A very short label for the question (at most 12 characters), e.g. \"Database\"."},
          "context": {"type": "string", "description": "Optional background the user needs to answer."},
          "options": {
            "type": "array",
            "minItems": 2,
            "maxItems": 4,
            "description": "2 to 4 choices. Do not add an \"Other\" choice: the user can always answer in their own words.",
            "items": {
              "type": "object",
              "properties": {
                "label": {"type": "string", "minLength": 1, "description": "The choice, in a few words."},
                "description": {"type": "string", "description": "What choosing it means or implies."},
                "preview": {"type": "string", "description": "Optional content to show beside the choice (code, a mock-up)."}
              },
              "required": ["label", "description"],
              "additionalProperties": false
            }
          },
          "multi_select": {"type": "boolean", "default": false, "description": "Let the user pick several choices."}
        },
        "required": ["question", "header", "options"],
        "additionalProperties": false
      }
    }
  },
  "required": ["questions"],
  "additionalProperties": false
}`)

// Spec implements toolkit.Tool. AskUser is External (no Call method) and a
// coordination tool: asking the user changes nothing, so it is allowed in
// every mode, EXPLORE included.
func (*AskUser) Spec() toolkit.Spec {
	return toolkit.Spec{
		Name: AskUserName,
		Description: "Asks the user 1 to 4 multiple-choice questions and waits for the answers. Use it when a " +
			"decision is the user's to make (a preference, an ambiguous requirement, a choice between approaches) " +
			"rather than guessing. Each question has a short header and 2 to 4 options; the user can always " +
			"answer in their own words instead.",
		InputSchema:  askUserSchema,
		External:     true,
		Coordination: true,
		Source:       toolkit.Source{Kind: toolkit.SourceBuiltin},
	}
}

// CheckPermissions implements toolkit.Tool: asking the user is always
// allowed (the user sees the questions and can decline to answer).
func (*AskUser) CheckPermissions(context.Context, toolkit.Input, *permission.Context) (permission.Decision, error) {
	return permission.AllowDecision("asking the user changes nothing"), nil
}

// AskUserOption is one choice of an AskUser question.
type AskUserOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Preview     string `json:"preview,omitempty"`
}

// AskUserQuestion is one question of an AskUser call, as the UI shows it.
type AskUserQuestion struct {
	Question    string          `json:"question"`
	Header      string          `json:"header"`
	Context     string          `json:"context,omitempty"`
	Options     []AskUserOption `json:"options"`
	MultiSelect bool            `json:"multi_select,omitempty"`
}

// ParseAskUserInput decodes the questions of an AskUser call (the Input of
// its toolkit.ExternalRequest), for the UI to show.
func ParseAskUserInput(in toolkit.Input) ([]AskUserQuestion, error) {
	var args struct {
		Questions []AskUserQuestion `json:"questions"`
	}
	if err := in.Decode(&args); err != nil {
		return nil, fmt.Errorf("AskUser input: %w", err)
	}
	if len(args.Questions) == 0 {
		return nil, errors.New("AskUser input: no questions")
	}
	return args.Questions, nil
}

// Answer is the user's answer to one AskUser question: the labels of the
// options chosen, and the text typed into the "other" field, if any. Both
// empty means the user skipped the question.
type Answer struct {
	Question string   `json:"question"`
	Selected []string `json:"selected"`
	Other    string   `json:"other"`
}

// AskUserAnswer builds the result of an AskUser call from the user's
// answers, to pass to Turn.SubmitResult: a text listing each question with
// its answer for the model, and the metadata
// {"answers": [{"question", "selected": [...], "other"}]} for programs.
// Check the answers with ValidateAskUserAnswers first.
func AskUserAnswer(answers []Answer) *toolkit.Response {
	var b strings.Builder
	list := make([]any, 0, len(answers))
	if len(answers) == 0 {
		b.WriteString("The user gave no answers.")
	} else {
		b.WriteString("The user answered:")
	}
	for i, a := range answers {
		fmt.Fprintf(&b, "\n%d. %s\n   → %s", i+1, a.Question, answerText(a))
		selected := slices.Clone(a.Selected)
		if selected == nil {
			selected = []string{} // a JSON array, never null
		}
		list = append(list, map[string]any{"question": a.Question, "selected": selected, "other": a.Other})
	}
	return &toolkit.Response{
		Tool:     AskUserName,
		State:    toolkit.StateSuccess,
		Content:  []toolkit.Block{toolkit.TextBlock(b.String())},
		Metadata: map[string]any{"answers": list},
	}
}

// answerText is one answer in words for the model.
func answerText(a Answer) string {
	var parts []string
	for _, s := range a.Selected {
		parts = append(parts, fmt.Sprintf("%q", s))
	}
	if other := strings.TrimSpace(a.Other); other != "" {
		parts = append(parts, fmt.Sprintf("in their own words: %q", other))
	}
	if len(parts) == 0 {
		return "(no answer: the user skipped this question)"
	}
	return strings.Join(parts, "; ")
}

// ValidateAskUserAnswers checks answers against the AskUser call they
// answer (in is the call's input): each answer names a question of the
// call, no question is answered twice or left without an entry (an entry
// with nothing selected and no text means "skipped"), every selected label
// is one of that question's options, and a single-select question gets at
// most one answer — one label, or the "other" text.
func ValidateAskUserAnswers(in toolkit.Input, answers []Answer) error {
	questions, err := ParseAskUserInput(in)
	if err != nil {
		return err
	}
	byText := make(map[string]int, len(questions))
	for i, q := range questions {
		if _, dup := byText[q.Question]; dup {
			return fmt.Errorf("the question %q is asked twice: answers cannot tell them apart", q.Question)
		}
		byText[q.Question] = i
	}
	answered := make([]bool, len(questions))
	var errs []error
	for _, a := range answers {
		i, ok := byText[a.Question]
		if !ok {
			errs = append(errs, fmt.Errorf("answer to %q: no such question was asked", a.Question))
			continue
		}
		if answered[i] {
			errs = append(errs, fmt.Errorf("question %q is answered twice", a.Question))
			continue
		}
		answered[i] = true
		q := questions[i]
		seen := map[string]bool{}
		for _, label := range a.Selected {
			if !slices.ContainsFunc(q.Options, func(o AskUserOption) bool { return o.Label == label }) {
				errs = append(errs, fmt.Errorf("question %q: %q is not one of its options", a.Question, label))
			}
			if seen[label] {
				errs = append(errs, fmt.Errorf("question %q: %q is selected twice", a.Question, label))
			}
			seen[label] = true
		}
		n := len(a.Selected)
		if strings.TrimSpace(a.Other) != "" {
			n++
		}
		if !q.MultiSelect && n > 1 {
			errs = append(errs, fmt.Errorf("question %q takes one answer (an option or the other text), got %d", a.Question, n))
		}
	}
	for i, ok := range answered {
		if !ok {
			errs = append(errs, fmt.Errorf("question %q has no answer entry (submit an empty one if the user skipped it)", questions[i].Question))
		}
	}
	return errors.Join(errs...)
}

// ValidateInput implements toolkit.InputValidator: questions must differ,
// and so must the option labels of each question, or the answers could
// not say which was chosen.
func (*AskUser) ValidateInput(in toolkit.Input) error {
	questions, err := ParseAskUserInput(in)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, q := range questions {
		if seen[q.Question] {
			return fmt.Errorf("the question %q is asked twice", q.Question)
		}
		seen[q.Question] = true
		labels := map[string]bool{}
		for _, o := range q.Options {
			if labels[o.Label] {
				return fmt.Errorf("question %q has the option %q twice: option labels must differ", q.Question, o.Label)
			}
			labels[o.Label] = true
		}
	}
	return nil
}
