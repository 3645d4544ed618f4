// Command jsonquery is a wasmtools plugin: a jq query on a JSON document,
// run by gojq (github.com/itchyny/gojq), a complete implementation of the
// jq language in Go. Read-only and concurrency-safe; the environment and
// input functions (env, $ENV, input, inputs) see nothing of the host.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o jsonquery.wasm .
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/wasmtools/wasmtools/abi"
	guest "github.com/wasmtools/wasmtools/sdk-guest"
)

// Bounds on what one query returns: a program that generates forever
// (range(1e18), repeat(.)) stops here rather than at the plugin's
// timeout with nothing to show.
const (
	maxResults     = 10_000
	maxOutputBytes = 4 << 20
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
		Description: "Runs a jq program on a JSON document and returns the results, one per line (indented, " +
			"or compact with compact: true; strings without quotes with raw: true). The whole jq language: paths, " +
			"pipes, select, map, reduce, variables, string interpolation, regular expressions (test, capture, sub), " +
			"paths, group_by, @base64 and the other formats. Object keys come out sorted.",
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

// run parses the document and the program, runs it and formats the
// results.
func run(in Input) (string, int, error) {
	q, err := gojq.Parse(in.Query)
	if err != nil {
		return "", 0, fmt.Errorf("the query is not valid jq: %v", err)
	}
	// No environment: $ENV and env are empty, input and inputs end.
	code, err := gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return nil }))
	if err != nil {
		return "", 0, fmt.Errorf("the query does not compile: %v", err)
	}
	var doc any
	dec := json.NewDecoder(strings.NewReader(in.JSON))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return "", 0, fmt.Errorf("the document is not valid JSON: %v", err)
	}
	if dec.More() {
		return "", 0, errors.New("the document holds more than one JSON value")
	}
	doc, err = normalizeNumbers(doc)
	if err != nil {
		return "", 0, err
	}
	var b strings.Builder
	n := 0
	iter := code.Run(doc)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := v.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break // halt: a normal end
			}
			return "", 0, fmt.Errorf("query error: %v", err)
		}
		if n == maxResults || b.Len() > maxOutputBytes {
			return b.String() + fmt.Sprintf("\n[stopped after %d results and %d bytes: narrow the query]", n, b.Len()), n, nil
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		n++
		if s, isString := v.(string); isString && in.Raw {
			b.WriteString(s)
			continue
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if !in.Compact {
			enc.SetIndent("", "  ")
		}
		if err := enc.Encode(v); err != nil {
			return "", 0, fmt.Errorf("a result cannot be written as JSON: %v", err)
		}
		b.Write(bytes.TrimRight(buf.Bytes(), "\n"))
	}
	return b.String(), n, nil
}

// normalizeNumbers turns the decoder's json.Number values into what gojq
// computes with: int when the number is an integer that fits, float64
// otherwise (as jq does).
func normalizeNumbers(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil && int64(int(i)) == i {
			return int(i), nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("the document has a number out of range: %s", x)
		}
		return f, nil
	case []any:
		for i := range x {
			n, err := normalizeNumbers(x[i])
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	case map[string]any:
		for k, e := range x {
			n, err := normalizeNumbers(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	}
	return v, nil
}

func main() {}
