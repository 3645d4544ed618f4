// Command jsonquery is a wasmtools plugin: a jq-style query on a JSON
// document, with a useful subset of jq (paths, iteration, pipes, select,
// comparisons, map, keys, length, construction, arithmetic, …; see
// jq.go). Read-only and concurrency-safe.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o jsonquery.wasm .
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

// Input is the input of the jsonquery tool.
type Input struct {
	JSON    string `json:"json" jsonschema:"the JSON document to query"`
	Query   string `json:"query" jsonschema:"a jq program, e.g. .items[] | select(.price > 10) | .name"`
	Raw     bool   `json:"raw,omitempty" jsonschema:"write string results without quotes, like jq -r"`
	Compact bool   `json:"compact,omitempty" jsonschema:"write each result on one line, like jq -c (results are indented otherwise)"`
}

func init() {
	guest.SetInfo(guest.PluginInfo{Name: "jsonquery", Version: "1.0.0"})
	guest.Register(guest.Tool[Input, guest.Result]{
		Name: "jsonquery",
		Description: "Runs a jq query on a JSON document and returns the results, one per line. " +
			"Supports a subset of jq: .a.b, .[n], .[n:m], .[], .., ?, pipes |, commas, (), [..] and {..} construction, " +
			"+ - * / %, == != < <= > >=, and/or, //, if-then-else-end, and select, map, map_values, keys, length, not, has, " +
			"type, first, last, sort, sort_by, unique, reverse, to_entries, from_entries, add, min, max, tostring, tonumber, " +
			"ascii_downcase, ascii_upcase, startswith, endswith, contains, split, join, empty, any, all, values. " +
			"Object keys come out sorted; no variables, reduce or string interpolation.",
		ReadOnly:        true,
		ConcurrencySafe: true,
		Call: func(_ *guest.Call, in Input) (guest.Result, error) {
			text, n, err := run(in)
			if err != nil {
				return guest.Result{}, err
			}
			return guest.Result{Content: []abi.Block{guest.Text(text)}, Metadata: map[string]any{"results": n}}, nil
		},
	})
}

// run parses the document and the query, runs the query and formats the
// results.
func run(in Input) (string, int, error) {
	q, err := Parse(in.Query)
	if err != nil {
		return "", 0, err
	}
	var doc any
	dec := json.NewDecoder(strings.NewReader(in.JSON))
	if err := dec.Decode(&doc); err != nil {
		return "", 0, fmt.Errorf("the document is not valid JSON: %v", err)
	}
	if dec.More() {
		return "", 0, fmt.Errorf("the document holds more than one JSON value")
	}
	results, err := q.Run(doc)
	if err != nil {
		return "", 0, fmt.Errorf("query error: %v", err)
	}
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteByte('\n')
		}
		if s, ok := r.(string); ok && in.Raw {
			b.WriteString(s)
			continue
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if !in.Compact {
			enc.SetIndent("", "  ")
		}
		if err := enc.Encode(r); err != nil {
			return "", 0, err
		}
		b.Write(bytes.TrimRight(buf.Bytes(), "\n"))
	}
	return b.String(), len(results), nil
}

func main() {}
