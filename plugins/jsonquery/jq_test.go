package main

import (
	"strings"
	"testing"
)

const doc = `{
  "store": "north",
  "items": [
    {"name": "apple", "price": 3, "tags": ["fruit", "red"]},
    {"name": "melon", "price": 12, "tags": ["fruit"]},
    {"name": "knife", "price": 25, "tags": []},
    {"name": "bread", "price": null}
  ],
  "meta": {"count": 4, "currency": "EUR", "a b": true}
}`

func TestQueries(t *testing.T) {
	tests := []struct {
		query, want string
	}{
		{`.store`, `"north"`},
		{`.meta.count`, `4`},
		{`.items[0].name`, `"apple"`},
		{`.items[-1].name`, `"bread"`},
		{`.items[5]`, `null`},
		{`.items[].name`, "\"apple\"\n\"melon\"\n\"knife\"\n\"bread\""},
		{`.items | length`, `4`},
		{`.meta | keys`, `["a b","count","currency"]`},
		{`.meta."a b"`, `true`},
		{`.meta["currency"]`, `"EUR"`},
		{`.items[] | select(.price > 10) | .name`, "\"melon\"\n\"knife\""},
		{`.items[] | select(.price == 3) | .name`, `"apple"`},
		{`.items[] | select(.price != null and .price < 20) | .name`, "\"apple\"\n\"melon\""},
		{`[.items[] | select(.tags | length > 0) | .name]`, `["apple","melon"]`},
		{`.items | map(.price)`, `[3,12,25,null]`},
		{`.items | map(select(.price >= 12)) | map(.name)`, `["melon","knife"]`},
		{`.items[1:3] | map(.name)`, `["melon","knife"]`},
		{`.items | map(.price // 0) | add`, `40`},
		{`.items[0] | {name, cost: (.price * 2)}`, `{"cost":6,"name":"apple"}`},
		{`.items[0] | {(.name): .price}`, `{"apple":3}`},
		{`.store, .meta.currency`, "\"north\"\n\"EUR\""},
		{`.items | sort_by(.price) | .[0].name`, `"bread"`},
		{`.items | map(.name) | sort | reverse | first`, `"melon"`},
		{`.items[0].tags | join(",")`, `"fruit,red"`},
		{`.items[] | select(.name | startswith("k")) | .price`, `25`},
		{`.items[] | if .price == null then "free" elif .price > 10 then "dear" else "cheap" end`, "\"cheap\"\n\"dear\"\n\"dear\"\n\"free\""},
		{`.meta | to_entries | map(.key)`, `["a b","count","currency"]`},
		{`[.. | .price? | select(. != null)]`, `[3,12,25]`},
		{`.items | map(.tags // []) | add | unique`, `["fruit","red"]`},
		{`.meta | has("count")`, `true`},
		{`.store | type`, `"string"`},
		{`.items | any`, `true`},
		{`[.items[].price | numbers]`, `[3,12,25]`},
		{`.missing.deeper`, `null`},
		{`[1,2,3] | .[1:]`, `[2,3]`},
		{`"abc" | .[1:]`, `"bc"`},
		{`.items | map(.name) | contains(["apple"])`, `true`},
		{`.store | not`, `false`},
		{`[.items[] | .price] | max`, `25`},
		{`"a,b" | split(",")`, `["a","b"]`},
		{`10 % 3, 7 / 2, 1 - 3`, "1\n3.5\n-2"},
		{`.items[0].name | ascii_upcase`, `"APPLE"`},
		{`[.items[] | .name] - ["apple", "knife"]`, `["melon","bread"]`},
		{`.meta | map_values(type)`, `{"a b":"boolean","count":"number","currency":"string"}`},
		// Everyday jq the hand-written subset could not run.
		{`.items as $all | $all | length`, `4`},
		{`reduce .items[] as $i (0; . + ($i.price // 0))`, `40`},
		{`.items[0] | "\(.name) costs \(.price)"`, `"apple costs 3"`},
		{`[.items[] | select(.name | test("^[ab]"))] | map(.name)`, `["apple","bread"]`},
		{`.items | group_by(.tags | length) | map(length)`, `[2,1,1]`},
		{`.store | @base64`, `"bm9ydGg="`},
		{`[paths(type == "number")] | length`, `4`},
		{`.items | map(.name) | join(", ")`, `"apple, melon, knife, bread"`},
		{`[.items[] | .name | ascii_downcase | select(contains("e"))]`, `["apple","melon","knife","bread"]`},
		{`.items | to_entries | map(select(.value.price == null)) | .[0].key`, `3`},
		{`[.items[] | {name, n: (.tags // [] | length)}] | max_by(.n) | .name`, `"apple"`},
		{`.items | map(.price) | map(values) | add / length`, `13.333333333333334`},
		{`[limit(2; .items[])] | length`, `2`},
		{`.items | first(.[] | select(.price > 10)) | .name`, `"melon"`},
		{`.meta | with_entries(.value |= tostring)`, `{"a b":"true","count":"4","currency":"EUR"}`},
		{`.items[0].name | sub("a"; "A")`, `"Apple"`},
		{`.items[0].name | capture("(?<first>.)") | .first`, `"a"`},
		{`[.items[] | .price] | @csv`, `"3,12,25,"`},
		{`.items | [.[] | select(.price)] | length`, `3`},
		{`def double: . * 2; [.items[] | .price // 0 | double]`, `[6,24,50,0]`},
		{`$ENV | length`, `0`},
		{`[range(3)]`, `[0,1,2]`},
		{`.items | any(.price > 20)`, `true`},
		{`.items | all(has("name"))`, `true`},
		{`try error("x") catch .`, `"x"`},
		{`{"a":{"b":1}} | getpath(["a","b"])`, `1`},
		{`9007199254740993`, `9007199254740993`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, _, err := run(Input{JSON: doc, Query: tt.query, Compact: true})
			if tt.want == "" {
				if err == nil {
					t.Fatalf("want an error, got %s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct{ json, query, want string }{
		{doc, `.items[`, "not valid jq"},
		{doc, `.store.name`, `expected an object`},
		{doc, `.store[]`, "cannot iterate over"},
		{doc, `nosuch`, "function not defined: nosuch/0"},
		{doc, `select(1; 2)`, "function not defined: select/2"},
		{`{"a": `, `.a`, "not valid JSON"},
		{`1 2`, `.`, "more than one JSON value"},
		{doc, `.items | {a: .[]} | {b: .a} | [..] | length`, ""},
		{doc, `[range]`, "function not defined"},
		{doc, `1 / 0`, "cannot divide"},
		{doc, `{} + 1`, "cannot add"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_, _, err := run(Input{JSON: tt.json, Query: tt.query})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestFormatting(t *testing.T) {
	got, n, err := run(Input{JSON: `{"a":{"b":"x<y"}}`, Query: `.a, .a.b`})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"b\": \"x<y\"\n}\n\"x<y\""; got != want || n != 2 {
		t.Errorf("got %q (%d), want %q (2)", got, n, want)
	}
	got, _, _ = run(Input{JSON: `["x","y"]`, Query: `.[]`, Raw: true})
	if got != "x\ny" {
		t.Errorf("raw: got %q", got)
	}
}

// TestOutputLimit: a program that generates forever stops at the bound
// with a note, instead of at the plugin's timeout with nothing.
func TestOutputLimit(t *testing.T) {
	got, n, err := run(Input{JSON: `1`, Query: `repeat(.)`, Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if n != maxResults || !strings.Contains(got, "stopped after") {
		t.Fatalf("%d results, text ending %q", n, got[max(0, len(got)-80):])
	}
}
