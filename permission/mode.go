package permission

import (
	"fmt"
	"strings"
)

// Mode is how permissive the engine is when no rule decides a call.
type Mode string

// The permission modes.
const (
	// ModeDefault asks whenever neither a rule nor the tool allows a call.
	ModeDefault Mode = "default"
	// ModeAcceptEdits is ModeDefault plus tools allowing file edits inside
	// the working directories.
	ModeAcceptEdits Mode = "accept_edits"
	// ModeExplore allows read-only and coordination calls and denies the rest.
	ModeExplore Mode = "explore"
	// ModeBypass allows everything that no deny or ask rule catches.
	ModeBypass Mode = "bypass"
	// ModeDontAsk never asks: what would be asked is denied.
	ModeDontAsk Mode = "dont_ask"
)

// Modes lists every mode, in documentation order.
var Modes = []Mode{ModeDefault, ModeAcceptEdits, ModeExplore, ModeBypass, ModeDontAsk}

// ParseMode parses a mode name. It accepts the canonical names and, for
// convenience on command lines, upper case and hyphens ("ACCEPT-EDITS").
// The empty string is ModeDefault.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return ModeDefault, nil
	}
	m := Mode(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_"))
	for _, known := range Modes {
		if m == known {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown permission mode %q: use one of default, accept_edits, explore, bypass, dont_ask", s)
}

// Behavior is what a decision says about a call.
type Behavior string

// The behaviours.
const (
	Allow Behavior = "allow"
	Deny  Behavior = "deny"
	Ask   Behavior = "ask"
	// Passthrough is a tool's "no opinion": the engine decides. Evaluate
	// never returns it.
	Passthrough Behavior = "passthrough"
)

// Decision is the answer to "may this call run?".
type Decision struct {
	Behavior Behavior `json:"behavior"`
	// Message is shown to the user (for an ASK) or to the model (for a DENY).
	Message string `json:"message,omitempty"`
	// Reason says which step decided, for logs and for the user.
	Reason string `json:"reason,omitempty"`
	// Suggestions are allow rules the user could accept so that calls like
	// this one are no longer asked. Only ASK decisions carry them.
	Suggestions []Rule `json:"suggestions,omitempty"`
	// BypassImmune marks a safety ASK: allow rules cannot silence it.
	BypassImmune bool `json:"bypass_immune"`
	// Rule is the rule that decided, when one did: the deny or ask rule
	// that matched (or may match), or the allow rule that covers the call
	// (nil when several allow rules cover it together, as the commands of
	// one script can be).
	Rule *Rule `json:"rule,omitempty"`
}

// AllowDecision, DenyDecision and AskDecision build decisions with a message.
func AllowDecision(reason string) Decision { return Decision{Behavior: Allow, Reason: reason} }

// DenyDecision builds a DENY with the message the model will read.
func DenyDecision(message, reason string) Decision {
	return Decision{Behavior: Deny, Message: message, Reason: reason}
}

// AskDecision builds a plain (not bypass-immune) ASK.
func AskDecision(message, reason string) Decision {
	return Decision{Behavior: Ask, Message: message, Reason: reason}
}

// SafetyAsk builds a bypass-immune ASK: only the user can approve the call,
// allow rules cannot.
func SafetyAsk(message, reason string) Decision {
	return Decision{Behavior: Ask, Message: message, Reason: reason, BypassImmune: true}
}

// PassthroughDecision is a tool's "no opinion".
func PassthroughDecision() Decision { return Decision{Behavior: Passthrough} }
