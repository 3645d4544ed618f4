// Command regex is a wasmtools plugin: match, find-all and replace with
// Go's regexp package (RE2 syntax: linear time, no backreferences).
// Read-only and concurrency-safe.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o regex.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

// Input is the input of the regex tool.
type Input struct {
	Operation string `json:"operation" enum:"match,find_all,replace" jsonschema:"match: the first match and its groups; find_all: every match; replace: the text with matches replaced"`
	Pattern   string `json:"pattern" jsonschema:"an RE2 regular expression (Go regexp syntax); flags go inline, e.g. (?i) for case-insensitive, (?m) for multi-line, (?s) to let . match newlines"`
	Text      string `json:"text" jsonschema:"the text to search"`
	// Replacement is used by replace.
	Replacement string `json:"replacement,omitempty" jsonschema:"for replace: the replacement; $1, ${name} refer to groups unless literal is set"`
	Literal     bool   `json:"literal,omitempty" jsonschema:"for replace: use the replacement as is, without expanding $ groups"`
	Limit       int    `json:"limit,omitempty" jsonschema:"for find_all and replace: the most matches to return or replace (default 1000 for find_all, all for replace)"`
}

// Match is one match in a result.
type Match struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	// Groups are the capturing groups' texts, in order (null for a group
	// that did not take part).
	Groups []*string `json:"groups,omitempty"`
	// Named maps the named groups to their texts.
	Named map[string]string `json:"named,omitempty"`
}

const defaultFindLimit = 1000

func init() {
	guest.SetInfo(guest.PluginInfo{Name: "regex", Version: "1.0.0"})
	guest.Register(guest.Tool[Input, guest.Result]{
		Name: "regex",
		Description: "Regular expressions (Go RE2 syntax) on text: operation match returns the first match with its groups and byte offsets, " +
			"find_all returns every match, replace returns the text with matches replaced ($1 and ${name} expand to groups). " +
			"Match results are JSON.",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Call:            call,
	})
}

func call(_ *guest.Call, in Input) (guest.Result, error) {
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return guest.Result{}, fmt.Errorf("invalid pattern: %v", err)
	}
	switch in.Operation {
	case "match":
		loc := re.FindStringSubmatchIndex(in.Text)
		if loc == nil {
			return jsonResult(map[string]any{"matched": false}, map[string]any{"matches": 0})
		}
		m := makeMatch(re, in.Text, loc)
		return jsonResult(map[string]any{"matched": true, "match": m}, map[string]any{"matches": 1})
	case "find_all":
		limit := in.Limit
		if limit <= 0 {
			limit = defaultFindLimit
		}
		locs := re.FindAllStringSubmatchIndex(in.Text, limit+1)
		truncated := len(locs) > limit
		if truncated {
			locs = locs[:limit]
		}
		matches := make([]Match, 0, len(locs))
		for _, loc := range locs {
			matches = append(matches, makeMatch(re, in.Text, loc))
		}
		return jsonResult(map[string]any{"count": len(matches), "truncated": truncated, "matches": matches},
			map[string]any{"matches": len(matches), "truncated": truncated})
	case "replace":
		out, n := replace(re, in)
		return guest.Result{Content: []abi.Block{guest.Text(out)}, Metadata: map[string]any{"replacements": n}}, nil
	}
	return guest.Result{}, fmt.Errorf("unknown operation %q: use match, find_all or replace", in.Operation)
}

func makeMatch(re *regexp.Regexp, text string, loc []int) Match {
	m := Match{Text: text[loc[0]:loc[1]], Start: loc[0], End: loc[1]}
	names := re.SubexpNames()
	for g := 1; g*2 < len(loc); g++ {
		if loc[2*g] < 0 {
			m.Groups = append(m.Groups, nil)
			continue
		}
		s := text[loc[2*g]:loc[2*g+1]]
		m.Groups = append(m.Groups, &s)
		if names[g] != "" {
			if m.Named == nil {
				m.Named = map[string]string{}
			}
			m.Named[names[g]] = s
		}
	}
	return m
}

// replace replaces up to in.Limit matches (all when Limit <= 0).
func replace(re *regexp.Regexp, in Input) (string, int) {
	n := -1
	if in.Limit > 0 {
		n = in.Limit
	}
	locs := re.FindAllStringSubmatchIndex(in.Text, n)
	var out []byte
	last := 0
	for _, loc := range locs {
		out = append(out, in.Text[last:loc[0]]...)
		if in.Literal {
			out = append(out, in.Replacement...)
		} else {
			out = re.ExpandString(out, in.Replacement, in.Text, loc)
		}
		last = loc[1]
	}
	out = append(out, in.Text[last:]...)
	return string(out), len(locs)
}

func jsonResult(v any, meta map[string]any) (guest.Result, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return guest.Result{}, err
	}
	return guest.Result{Content: []abi.Block{guest.Text(string(b))}, Metadata: meta}, nil
}

func main() {}
