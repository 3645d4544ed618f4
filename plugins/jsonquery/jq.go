package main

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// This file is a small jq: a parser and an evaluator for a useful subset
// of the jq language, on values decoded by encoding/json (nil, bool,
// float64, string, []any, map[string]any).
//
// Supported: . .a .a.b ."key" .[n] .[-1] .[n:m] .[] .["key"] .. and ?,
// pipes |, commas ,, parentheses, literals (numbers, strings, true,
// false, null), array and object construction [..] {a: .x, b, "c": 1,
// (.k): .v}, arithmetic + - * / %, comparisons == != < <= > >=, and,
// or, //, if-then-elif-else-end, and the functions select map
// map_values keys length not has type first last sort sort_by unique
// reverse to_entries from_entries add min max tostring tonumber
// ascii_downcase ascii_upcase startswith endswith contains split join
// empty any all values.

// maxOutputs bounds how many values one query may produce, so that a
// query cannot blow up memory (e.g. [..] on a cyclic-looking product).
const maxOutputs = 100000

type node interface {
	eval(in any, out *[]any) error
}

// Query is a parsed jq program.
type Query struct{ root node }

// Parse parses a jq program.
func Parse(src string) (*Query, error) {
	p := &parser{src: src}
	if err := p.lex(); err != nil {
		return nil, err
	}
	n, err := p.parsePipe()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tEOF {
		return nil, p.errorf("unexpected %s", p.peek())
	}
	return &Query{root: n}, nil
}

// Run evaluates the query on one input and returns its outputs.
func (q *Query) Run(in any) ([]any, error) {
	var out []any
	err := q.root.eval(in, &out)
	return out, err
}

// ---- lexer ----

type tokKind int

const (
	tEOF tokKind = iota
	tDot
	tDotDot
	tField // .name or ."name": text holds the name
	tIdent
	tString
	tNumber
	tOp // punctuation and operators: text holds it
)

type token struct {
	kind tokKind
	text string
	num  float64
	pos  int
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of query"
	case tField:
		return fmt.Sprintf("%q", "."+t.text)
	case tString:
		return strconv.Quote(t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

type parser struct {
	src  string
	toks []token
	i    int
}

func (p *parser) errorf(format string, args ...any) error {
	pos := len(p.src)
	if p.i < len(p.toks) {
		pos = p.toks[p.i].pos
	}
	return fmt.Errorf("query syntax error at column %d: %s", pos+1, fmt.Sprintf(format, args...))
}

func isIdentStart(r byte) bool { return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
func isIdentChar(r byte) bool  { return isIdentStart(r) || r >= '0' && r <= '9' }

func (p *parser) lex() error {
	s := p.src
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#': // comment to the end of the line
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '.':
			switch {
			case i+1 < len(s) && s[i+1] == '.':
				p.toks = append(p.toks, token{kind: tDotDot, text: "..", pos: i})
				i += 2
			case i+1 < len(s) && isIdentStart(s[i+1]):
				j := i + 1
				for j < len(s) && isIdentChar(s[j]) {
					j++
				}
				p.toks = append(p.toks, token{kind: tField, text: s[i+1 : j], pos: i})
				i = j
			case i+1 < len(s) && s[i+1] == '"':
				str, n, err := lexString(s[i+1:])
				if err != nil {
					return fmt.Errorf("query syntax error at column %d: %v", i+2, err)
				}
				p.toks = append(p.toks, token{kind: tField, text: str, pos: i})
				i += 1 + n
			case i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
				j := lexNumberEnd(s, i)
				f, err := strconv.ParseFloat(s[i:j], 64)
				if err != nil {
					return fmt.Errorf("query syntax error at column %d: bad number %q", i+1, s[i:j])
				}
				p.toks = append(p.toks, token{kind: tNumber, num: f, text: s[i:j], pos: i})
				i = j
			default:
				p.toks = append(p.toks, token{kind: tDot, text: ".", pos: i})
				i++
			}
		case c == '"':
			str, n, err := lexString(s[i:])
			if err != nil {
				return fmt.Errorf("query syntax error at column %d: %v", i+1, err)
			}
			p.toks = append(p.toks, token{kind: tString, text: str, pos: i})
			i += n
		case c >= '0' && c <= '9':
			j := lexNumberEnd(s, i)
			f, err := strconv.ParseFloat(s[i:j], 64)
			if err != nil {
				return fmt.Errorf("query syntax error at column %d: bad number %q", i+1, s[i:j])
			}
			p.toks = append(p.toks, token{kind: tNumber, num: f, text: s[i:j], pos: i})
			i = j
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			p.toks = append(p.toks, token{kind: tIdent, text: s[i:j], pos: i})
			i = j
		default:
			op := ""
			for _, cand := range []string{"==", "!=", "<=", ">=", "//", "|", ",", "(", ")", "[", "]", "{", "}", ":", ";", "?", "<", ">", "+", "-", "*", "/", "%"} {
				if strings.HasPrefix(s[i:], cand) {
					op = cand
					break
				}
			}
			if op == "" {
				return fmt.Errorf("query syntax error at column %d: unexpected character %q", i+1, rune(c))
			}
			p.toks = append(p.toks, token{kind: tOp, text: op, pos: i})
			i += len(op)
		}
	}
	p.toks = append(p.toks, token{kind: tEOF, pos: len(s)})
	return nil
}

func lexNumberEnd(s string, i int) int {
	j := i
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
		j++
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			j = k
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
		}
	}
	return j
}

// lexString reads a JSON string literal at the start of s and returns its
// value and its length in s.
func lexString(s string) (string, int, error) {
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			var v string
			if err := json.Unmarshal([]byte(s[:j+1]), &v); err != nil {
				return "", 0, fmt.Errorf("bad string literal %s", s[:j+1])
			}
			return v, j + 1, nil
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == op
}

func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tIdent && t.text == kw
}

func (p *parser) expectOp(op string) error {
	if !p.isOp(op) {
		return p.errorf("expected %q, found %s", op, p.peek())
	}
	p.i++
	return nil
}

func (p *parser) expectKeyword(kw string) error {
	if !p.isKeyword(kw) {
		return p.errorf("expected %q, found %s", kw, p.peek())
	}
	p.i++
	return nil
}

// ---- grammar (lowest precedence first) ----
// pipe := comma ('|' comma)*
// comma := alt (',' alt)*
// alt := or ('//' or)*
// or := and ('or' and)*
// and := cmp ('and' cmp)*
// cmp := sum (cmpop sum)?
// sum := product (('+'|'-') product)*
// product := postfix (('*'|'/'|'%') postfix)*
// postfix := primary suffix*

func (p *parser) parsePipe() (node, error) {
	left, err := p.parseComma()
	if err != nil {
		return nil, err
	}
	for p.isOp("|") {
		p.i++
		right, err := p.parseComma()
		if err != nil {
			return nil, err
		}
		left = pipeNode{left, right}
	}
	return left, nil
}

func (p *parser) parseComma() (node, error) {
	left, err := p.parseAlt()
	if err != nil {
		return nil, err
	}
	for p.isOp(",") {
		p.i++
		right, err := p.parseAlt()
		if err != nil {
			return nil, err
		}
		left = commaNode{left, right}
	}
	return left, nil
}

func (p *parser) parseAlt() (node, error) {
	left, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	for p.isOp("//") {
		p.i++
		right, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		left = altNode{left, right}
	}
	return left, nil
}

func (p *parser) parseOr() (node, error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.isKeyword("or") {
		p.i++
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		left = logicNode{and: false, l: left, r: right}
	}
	return left, nil
}

func (p *parser) parseAnd() (node, error) {
	left, err := p.parseCmp()
	if err != nil {
		return nil, err
	}
	for p.isKeyword("and") {
		p.i++
		right, err := p.parseCmp()
		if err != nil {
			return nil, err
		}
		left = logicNode{and: true, l: left, r: right}
	}
	return left, nil
}

func (p *parser) parseCmp() (node, error) {
	left, err := p.parseSum()
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if p.isOp(op) {
			p.i++
			right, err := p.parseSum()
			if err != nil {
				return nil, err
			}
			return binNode{op: op, l: left, r: right}, nil
		}
	}
	return left, nil
}

func (p *parser) parseSum() (node, error) {
	left, err := p.parseProduct()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.next().text
		right, err := p.parseProduct()
		if err != nil {
			return nil, err
		}
		left = binNode{op: op, l: left, r: right}
	}
	return left, nil
}

func (p *parser) parseProduct() (node, error) {
	left, err := p.parsePostfix()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("%") {
		op := p.next().text
		right, err := p.parsePostfix()
		if err != nil {
			return nil, err
		}
		left = binNode{op: op, l: left, r: right}
	}
	return left, nil
}

func (p *parser) parsePostfix() (node, error) {
	n, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch {
		case t.kind == tField:
			p.i++
			n = pipeNode{n, fieldNode{name: t.text}}
		case t.kind == tDot && p.toks[p.i+1].kind == tOp && p.toks[p.i+1].text == "[":
			p.i++ // .[ after a term: same as [
		case t.kind == tOp && t.text == "[":
			idx, err := p.parseBracket()
			if err != nil {
				return nil, err
			}
			idx.base = n
			n = idx
		case t.kind == tOp && t.text == "?":
			p.i++
			n = tryNode{n}
		default:
			return n, nil
		}
	}
}

// parseBracket parses [], [e], [e:], [:e] and [e:e] after a term.
func (p *parser) parseBracket() (indexNode, error) {
	p.i++ // [
	if p.isOp("]") {
		p.i++
		return indexNode{iterate: true}, nil
	}
	var n indexNode
	if !p.isOp(":") {
		e, err := p.parsePipe()
		if err != nil {
			return n, err
		}
		n.index = e
	}
	if p.isOp(":") {
		p.i++
		n.slice = true
		n.from, n.index = n.index, nil
		if !p.isOp("]") {
			e, err := p.parsePipe()
			if err != nil {
				return n, err
			}
			n.to = e
		}
	}
	return n, p.expectOp("]")
}

func (p *parser) parsePrimary() (node, error) {
	t := p.peek()
	switch t.kind {
	case tDot:
		p.i++
		if p.isOp("[") {
			idx, err := p.parseBracket()
			if err != nil {
				return nil, err
			}
			idx.base = identityNode{}
			return idx, nil
		}
		return identityNode{}, nil
	case tDotDot:
		p.i++
		return recurseNode{}, nil
	case tField:
		p.i++
		return fieldNode{name: t.text}, nil
	case tString:
		p.i++
		return literalNode{t.text}, nil
	case tNumber:
		p.i++
		return literalNode{t.num}, nil
	case tOp:
		switch t.text {
		case "(":
			p.i++
			n, err := p.parsePipe()
			if err != nil {
				return nil, err
			}
			return n, p.expectOp(")")
		case "[":
			p.i++
			if p.isOp("]") {
				p.i++
				return collectNode{}, nil
			}
			n, err := p.parsePipe()
			if err != nil {
				return nil, err
			}
			return collectNode{n}, p.expectOp("]")
		case "{":
			return p.parseObject()
		case "-":
			p.i++
			n, err := p.parsePostfix()
			if err != nil {
				return nil, err
			}
			return binNode{op: "-", l: literalNode{0.0}, r: n}, nil
		}
	case tIdent:
		switch t.text {
		case "true":
			p.i++
			return literalNode{true}, nil
		case "false":
			p.i++
			return literalNode{false}, nil
		case "null":
			p.i++
			return literalNode{nil}, nil
		case "if":
			return p.parseIf()
		}
		p.i++
		var args []node
		if p.isOp("(") {
			p.i++
			for {
				a, err := p.parsePipe()
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if p.isOp(";") {
					p.i++
					continue
				}
				if err := p.expectOp(")"); err != nil {
					return nil, err
				}
				break
			}
		}
		return newCall(t.text, args, p)
	}
	return nil, p.errorf("unexpected %s", t)
}

func (p *parser) parseIf() (node, error) {
	p.i++ // if
	cond, err := p.parsePipe()
	if err != nil {
		return nil, err
	}
	if err := p.expectKeyword("then"); err != nil {
		return nil, err
	}
	then, err := p.parsePipe()
	if err != nil {
		return nil, err
	}
	n := ifNode{cond: cond, then: then}
	switch {
	case p.isKeyword("elif"):
		// elif c then x ... is if c then x ... end nested in else
		p.toks[p.i].text = "if"
		els, err := p.parseIf()
		if err != nil {
			return nil, err
		}
		n.els = els
		return n, nil
	case p.isKeyword("else"):
		p.i++
		els, err := p.parsePipe()
		if err != nil {
			return nil, err
		}
		n.els = els
	}
	return n, p.expectKeyword("end")
}

func (p *parser) parseObject() (node, error) {
	p.i++ // {
	var n objectNode
	for !p.isOp("}") {
		var e objEntry
		t := p.peek()
		switch {
		case t.kind == tIdent || t.kind == tString:
			p.i++
			e.key = literalNode{t.text}
			if !p.isOp(":") {
				e.value = fieldNode{name: t.text}
			}
		case t.kind == tOp && t.text == "(":
			p.i++
			k, err := p.parsePipe()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			e.key = k
		default:
			return nil, p.errorf("expected an object key, found %s", t)
		}
		if e.value == nil {
			if err := p.expectOp(":"); err != nil {
				return nil, err
			}
			v, err := p.parseAlt()
			if err != nil {
				return nil, err
			}
			for p.isOp("|") { // {a: .b | .c}
				p.i++
				r, err := p.parseAlt()
				if err != nil {
					return nil, err
				}
				v = pipeNode{v, r}
			}
			e.value = v
		}
		n.entries = append(n.entries, e)
		if p.isOp(",") {
			p.i++
			continue
		}
		if !p.isOp("}") {
			return nil, p.errorf("expected \",\" or \"}\" in an object, found %s", p.peek())
		}
	}
	p.i++
	return n, nil
}

// ---- evaluation ----

func emit(out *[]any, v any) error {
	if len(*out) >= maxOutputs {
		return fmt.Errorf("the query produces more than %d values", maxOutputs)
	}
	*out = append(*out, v)
	return nil
}

func evalAll(n node, in any) ([]any, error) {
	var out []any
	err := n.eval(in, &out)
	return out, err
}

type identityNode struct{}

func (identityNode) eval(in any, out *[]any) error { return emit(out, in) }

type literalNode struct{ v any }

func (n literalNode) eval(_ any, out *[]any) error { return emit(out, n.v) }

type pipeNode struct{ l, r node }

func (n pipeNode) eval(in any, out *[]any) error {
	mid, err := evalAll(n.l, in)
	if err != nil {
		return err
	}
	for _, v := range mid {
		if err := n.r.eval(v, out); err != nil {
			return err
		}
	}
	return nil
}

type commaNode struct{ l, r node }

func (n commaNode) eval(in any, out *[]any) error {
	if err := n.l.eval(in, out); err != nil {
		return err
	}
	return n.r.eval(in, out)
}

type fieldNode struct{ name string }

func (n fieldNode) eval(in any, out *[]any) error {
	switch v := in.(type) {
	case nil:
		return emit(out, nil)
	case map[string]any:
		return emit(out, v[n.name])
	}
	return fmt.Errorf("cannot index %s with %q", typeName(in), n.name)
}

type recurseNode struct{}

func (recurseNode) eval(in any, out *[]any) error {
	if err := emit(out, in); err != nil {
		return err
	}
	switch v := in.(type) {
	case []any:
		for _, e := range v {
			if err := (recurseNode{}).eval(e, out); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			if err := (recurseNode{}).eval(v[k], out); err != nil {
				return err
			}
		}
	}
	return nil
}

type tryNode struct{ n node }

func (n tryNode) eval(in any, out *[]any) error {
	vals, err := evalAll(n.n, in)
	if err != nil {
		return nil
	}
	for _, v := range vals {
		if err := emit(out, v); err != nil {
			return err
		}
	}
	return nil
}

type indexNode struct {
	base            node
	iterate, slice  bool
	index, from, to node
}

func (n indexNode) eval(in any, out *[]any) error {
	bases, err := evalAll(n.base, in)
	if err != nil {
		return err
	}
	for _, b := range bases {
		switch {
		case n.iterate:
			switch v := b.(type) {
			case []any:
				for _, e := range v {
					if err := emit(out, e); err != nil {
						return err
					}
				}
			case map[string]any:
				for _, k := range sortedKeys(v) {
					if err := emit(out, v[k]); err != nil {
						return err
					}
				}
			default:
				return fmt.Errorf("cannot iterate over %s", typeName(b))
			}
		case n.slice:
			if err := n.evalSlice(in, b, out); err != nil {
				return err
			}
		default:
			idxs, err := evalAll(n.index, in)
			if err != nil {
				return err
			}
			for _, idx := range idxs {
				v, err := index(b, idx)
				if err != nil {
					return err
				}
				if err := emit(out, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func index(b, idx any) (any, error) {
	switch i := idx.(type) {
	case string:
		switch v := b.(type) {
		case nil:
			return nil, nil
		case map[string]any:
			return v[i], nil
		}
		return nil, fmt.Errorf("cannot index %s with %q", typeName(b), i)
	case float64:
		switch v := b.(type) {
		case nil:
			return nil, nil
		case []any:
			k := int(math.Floor(i))
			if k < 0 {
				k += len(v)
			}
			if k < 0 || k >= len(v) {
				return nil, nil
			}
			return v[k], nil
		}
		return nil, fmt.Errorf("cannot index %s with a number", typeName(b))
	}
	return nil, fmt.Errorf("cannot index %s with %s", typeName(b), typeName(idx))
}

func (n indexNode) evalSlice(in, b any, out *[]any) error {
	bound := func(e node, def int, length int) (int, error) {
		if e == nil {
			return def, nil
		}
		vs, err := evalAll(e, in)
		if err != nil {
			return 0, err
		}
		if len(vs) != 1 {
			return 0, fmt.Errorf("a slice bound must be one number")
		}
		if vs[0] == nil {
			return def, nil
		}
		f, ok := vs[0].(float64)
		if !ok {
			return 0, fmt.Errorf("a slice bound must be a number, not %s", typeName(vs[0]))
		}
		k := int(math.Floor(f))
		if k < 0 {
			k += length
		}
		return max(0, min(k, length)), nil
	}
	var length int
	switch v := b.(type) {
	case nil:
		return emit(out, nil)
	case []any:
		length = len(v)
	case string:
		length = len([]rune(v))
	default:
		return fmt.Errorf("cannot slice %s", typeName(b))
	}
	from, err := bound(n.from, 0, length)
	if err != nil {
		return err
	}
	to, err := bound(n.to, length, length)
	if err != nil {
		return err
	}
	if to < from {
		to = from
	}
	switch v := b.(type) {
	case []any:
		return emit(out, append([]any{}, v[from:to]...))
	case string:
		return emit(out, string([]rune(v)[from:to]))
	}
	return nil
}

type collectNode struct{ n node }

func (n collectNode) eval(in any, out *[]any) error {
	if n.n == nil {
		return emit(out, []any{})
	}
	vals, err := evalAll(n.n, in)
	if err != nil {
		return err
	}
	if vals == nil {
		vals = []any{}
	}
	return emit(out, vals)
}

type objEntry struct{ key, value node }

type objectNode struct{ entries []objEntry }

func (n objectNode) eval(in any, out *[]any) error {
	objs := []map[string]any{{}}
	for _, e := range n.entries {
		keys, err := evalAll(e.key, in)
		if err != nil {
			return err
		}
		vals, err := evalAll(e.value, in)
		if err != nil {
			return err
		}
		var next []map[string]any
		for _, o := range objs {
			for _, k := range keys {
				ks, ok := k.(string)
				if !ok {
					return fmt.Errorf("object keys must be strings, not %s", typeName(k))
				}
				for _, v := range vals {
					c := make(map[string]any, len(o)+1)
					for kk, vv := range o {
						c[kk] = vv
					}
					c[ks] = v
					next = append(next, c)
					if len(next) > maxOutputs {
						return fmt.Errorf("the query produces more than %d values", maxOutputs)
					}
				}
			}
		}
		objs = next
	}
	for _, o := range objs {
		if err := emit(out, o); err != nil {
			return err
		}
	}
	return nil
}

type altNode struct{ l, r node }

func (n altNode) eval(in any, out *[]any) error {
	vals, err := evalAll(n.l, in)
	found := false
	if err == nil {
		for _, v := range vals {
			if truthy(v) {
				found = true
				if err := emit(out, v); err != nil {
					return err
				}
			}
		}
	}
	if found {
		return nil
	}
	return n.r.eval(in, out)
}

type logicNode struct {
	and  bool
	l, r node
}

func (n logicNode) eval(in any, out *[]any) error {
	ls, err := evalAll(n.l, in)
	if err != nil {
		return err
	}
	for _, l := range ls {
		if n.and && !truthy(l) || !n.and && truthy(l) {
			if err := emit(out, truthy(l)); err != nil {
				return err
			}
			continue
		}
		rs, err := evalAll(n.r, in)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if err := emit(out, truthy(r)); err != nil {
				return err
			}
		}
	}
	return nil
}

type ifNode struct{ cond, then, els node }

func (n ifNode) eval(in any, out *[]any) error {
	conds, err := evalAll(n.cond, in)
	if err != nil {
		return err
	}
	for _, c := range conds {
		switch {
		case truthy(c):
			err = n.then.eval(in, out)
		case n.els != nil:
			err = n.els.eval(in, out)
		default:
			err = emit(out, in)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type binNode struct {
	op   string
	l, r node
}

func (n binNode) eval(in any, out *[]any) error {
	// jq evaluates the right operand in the outer loop.
	rs, err := evalAll(n.r, in)
	if err != nil {
		return err
	}
	ls, err := evalAll(n.l, in)
	if err != nil {
		return err
	}
	for _, r := range rs {
		for _, l := range ls {
			v, err := binary(n.op, l, r)
			if err != nil {
				return err
			}
			if err := emit(out, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func binary(op string, l, r any) (any, error) {
	switch op {
	case "==":
		return compare(l, r) == 0, nil
	case "!=":
		return compare(l, r) != 0, nil
	case "<":
		return compare(l, r) < 0, nil
	case "<=":
		return compare(l, r) <= 0, nil
	case ">":
		return compare(l, r) > 0, nil
	case ">=":
		return compare(l, r) >= 0, nil
	}
	lf, lnum := l.(float64)
	rf, rnum := r.(float64)
	if lnum && rnum {
		switch op {
		case "+":
			return lf + rf, nil
		case "-":
			return lf - rf, nil
		case "*":
			return lf * rf, nil
		case "/":
			if rf == 0 {
				return nil, fmt.Errorf("division by zero")
			}
			return lf / rf, nil
		case "%":
			if int64(rf) == 0 {
				return nil, fmt.Errorf("modulo by zero")
			}
			return float64(int64(lf) % int64(rf)), nil
		}
	}
	if op == "+" {
		switch {
		case l == nil:
			return r, nil
		case r == nil:
			return l, nil
		}
		switch lv := l.(type) {
		case string:
			if rv, ok := r.(string); ok {
				return lv + rv, nil
			}
		case []any:
			if rv, ok := r.([]any); ok {
				return append(append([]any{}, lv...), rv...), nil
			}
		case map[string]any:
			if rv, ok := r.(map[string]any); ok {
				m := make(map[string]any, len(lv)+len(rv))
				for k, v := range lv {
					m[k] = v
				}
				for k, v := range rv {
					m[k] = v
				}
				return m, nil
			}
		}
	}
	if op == "-" {
		if lv, ok := l.([]any); ok {
			if rv, ok := r.([]any); ok {
				var res []any
				for _, a := range lv {
					keep := true
					for _, b := range rv {
						if compare(a, b) == 0 {
							keep = false
							break
						}
					}
					if keep {
						res = append(res, a)
					}
				}
				if res == nil {
					res = []any{}
				}
				return res, nil
			}
		}
	}
	return nil, fmt.Errorf("%s and %s cannot be combined with %s", typeName(l), typeName(r), op)
}

func truthy(v any) bool { return v != nil && v != false }

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func typeRank(v any) int {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 2
		}
		return 1
	case float64:
		return 3
	case string:
		return 4
	case []any:
		return 5
	}
	return 6
}

// compare orders values as jq does: null < false < true < numbers <
// strings < arrays < objects.
func compare(a, b any) int {
	ra, rb := typeRank(a), typeRank(b)
	if ra != rb {
		return ra - rb
	}
	switch x := a.(type) {
	case float64:
		y := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case string:
		return strings.Compare(x, b.(string))
	case []any:
		y := b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := compare(x[i], y[i]); c != 0 {
				return c
			}
		}
		return len(x) - len(y)
	case map[string]any:
		y := b.(map[string]any)
		kx, ky := sortedKeys(x), sortedKeys(y)
		if c := compare(toAny(kx), toAny(ky)); c != 0 {
			return c
		}
		for _, k := range kx {
			if c := compare(x[k], y[k]); c != 0 {
				return c
			}
		}
	}
	return 0
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ---- functions ----

type callNode struct {
	name string
	args []node
	fn   func(in any, args []node, out *[]any) error
}

func (n callNode) eval(in any, out *[]any) error { return n.fn(in, n.args, out) }

type builtin struct {
	arity int
	fn    func(in any, args []node, out *[]any) error
}

var builtins map[string]builtin

func init() {
	simple := func(f func(in any) (any, error)) builtin {
		return builtin{0, func(in any, _ []node, out *[]any) error {
			v, err := f(in)
			if err != nil {
				return err
			}
			return emit(out, v)
		}}
	}
	// oneArg evaluates a function's single argument against the input
	// and calls f for each of its values.
	oneArg := func(f func(in, arg any) (any, error)) builtin {
		return builtin{1, func(in any, args []node, out *[]any) error {
			vals, err := evalAll(args[0], in)
			if err != nil {
				return err
			}
			for _, a := range vals {
				v, err := f(in, a)
				if err != nil {
					return err
				}
				if err := emit(out, v); err != nil {
					return err
				}
			}
			return nil
		}}
	}
	builtins = map[string]builtin{
		"empty": {0, func(any, []node, *[]any) error { return nil }},
		"not":   simple(func(in any) (any, error) { return !truthy(in), nil }),
		"type":  simple(func(in any) (any, error) { return typeName(in), nil }),
		"length": simple(func(in any) (any, error) {
			switch v := in.(type) {
			case nil:
				return 0.0, nil
			case bool:
				return nil, fmt.Errorf("boolean has no length")
			case float64:
				return math.Abs(v), nil
			case string:
				return float64(len([]rune(v))), nil
			case []any:
				return float64(len(v)), nil
			case map[string]any:
				return float64(len(v)), nil
			}
			return nil, fmt.Errorf("%s has no length", typeName(in))
		}),
		"keys": simple(func(in any) (any, error) {
			switch v := in.(type) {
			case map[string]any:
				return toAny(sortedKeys(v)), nil
			case []any:
				ks := make([]any, len(v))
				for i := range v {
					ks[i] = float64(i)
				}
				return ks, nil
			}
			return nil, fmt.Errorf("%s has no keys", typeName(in))
		}),
		"values": {0, func(in any, _ []node, out *[]any) error {
			if in == nil {
				return nil
			}
			return emit(out, in)
		}},
		"select": {1, func(in any, args []node, out *[]any) error {
			conds, err := evalAll(args[0], in)
			if err != nil {
				return err
			}
			for _, c := range conds {
				if truthy(c) {
					if err := emit(out, in); err != nil {
						return err
					}
				}
			}
			return nil
		}},
		"map": {1, func(in any, args []node, out *[]any) error {
			arr, err := iterValues(in)
			if err != nil {
				return err
			}
			res := []any{}
			for _, e := range arr {
				if err := args[0].eval(e, &res); err != nil {
					return err
				}
			}
			return emit(out, res)
		}},
		"map_values": {1, func(in any, args []node, out *[]any) error {
			switch v := in.(type) {
			case map[string]any:
				m := make(map[string]any, len(v))
				for k, e := range v {
					vals, err := evalAll(args[0], e)
					if err != nil {
						return err
					}
					if len(vals) > 0 {
						m[k] = vals[0]
					}
				}
				return emit(out, m)
			case []any:
				res := []any{}
				for _, e := range v {
					vals, err := evalAll(args[0], e)
					if err != nil {
						return err
					}
					if len(vals) > 0 {
						res = append(res, vals[0])
					}
				}
				return emit(out, res)
			}
			return fmt.Errorf("cannot iterate over %s", typeName(in))
		}},
		"has": oneArg(func(in, k any) (any, error) {
			switch v := in.(type) {
			case map[string]any:
				ks, ok := k.(string)
				if !ok {
					return nil, fmt.Errorf("cannot check whether an object has a %s key", typeName(k))
				}
				_, has := v[ks]
				return has, nil
			case []any:
				f, ok := k.(float64)
				if !ok {
					return nil, fmt.Errorf("cannot check whether an array has a %s key", typeName(k))
				}
				return f >= 0 && int(f) < len(v), nil
			}
			return nil, fmt.Errorf("cannot check whether %s has a key", typeName(in))
		}),
		"first": {0, func(in any, _ []node, out *[]any) error {
			v, err := index(in, 0.0)
			if err != nil {
				return err
			}
			return emit(out, v)
		}},
		"last": {0, func(in any, _ []node, out *[]any) error {
			v, err := index(in, -1.0)
			if err != nil {
				return err
			}
			return emit(out, v)
		}},
		"reverse": simple(func(in any) (any, error) {
			switch v := in.(type) {
			case nil:
				return []any{}, nil
			case string:
				r := []rune(v)
				for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
					r[i], r[j] = r[j], r[i]
				}
				return string(r), nil
			case []any:
				res := make([]any, len(v))
				for i, e := range v {
					res[len(v)-1-i] = e
				}
				return res, nil
			}
			return nil, fmt.Errorf("cannot reverse %s", typeName(in))
		}),
		"sort": simple(func(in any) (any, error) {
			arr, ok := in.([]any)
			if !ok {
				return nil, fmt.Errorf("%s cannot be sorted, it is not an array", typeName(in))
			}
			res := append([]any{}, arr...)
			sort.SliceStable(res, func(i, j int) bool { return compare(res[i], res[j]) < 0 })
			return res, nil
		}),
		"sort_by": {1, func(in any, args []node, out *[]any) error {
			arr, ok := in.([]any)
			if !ok {
				return fmt.Errorf("%s cannot be sorted, it is not an array", typeName(in))
			}
			keys := make([]any, len(arr))
			for i, e := range arr {
				k, err := evalAll(args[0], e)
				if err != nil {
					return err
				}
				keys[i] = k
			}
			idx := make([]int, len(arr))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return compare(keys[idx[a]], keys[idx[b]]) < 0 })
			res := make([]any, len(arr))
			for i, k := range idx {
				res[i] = arr[k]
			}
			return emit(out, res)
		}},
		"unique": simple(func(in any) (any, error) {
			arr, ok := in.([]any)
			if !ok {
				return nil, fmt.Errorf("%s cannot be sorted, it is not an array", typeName(in))
			}
			res := append([]any{}, arr...)
			sort.SliceStable(res, func(i, j int) bool { return compare(res[i], res[j]) < 0 })
			uniq := []any{}
			for i, e := range res {
				if i == 0 || compare(res[i-1], e) != 0 {
					uniq = append(uniq, e)
				}
			}
			return uniq, nil
		}),
		"to_entries": simple(func(in any) (any, error) {
			m, ok := in.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s has no entries, it is not an object", typeName(in))
			}
			res := []any{}
			for _, k := range sortedKeys(m) {
				res = append(res, map[string]any{"key": k, "value": m[k]})
			}
			return res, nil
		}),
		"from_entries": simple(func(in any) (any, error) {
			arr, ok := in.([]any)
			if !ok {
				return nil, fmt.Errorf("from_entries needs an array, not %s", typeName(in))
			}
			m := map[string]any{}
			for _, e := range arr {
				em, ok := e.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("from_entries needs objects with key and value")
				}
				k := em["key"]
				if k == nil {
					k = em["name"]
				}
				switch kk := k.(type) {
				case string:
					m[kk] = em["value"]
				case float64:
					m[strconv.FormatFloat(kk, 'f', -1, 64)] = em["value"]
				default:
					return nil, fmt.Errorf("from_entries: a key must be a string, not %s", typeName(k))
				}
			}
			return m, nil
		}),
		"add": simple(func(in any) (any, error) {
			vals, err := iterValues(in)
			if err != nil {
				return nil, err
			}
			var acc any
			for _, v := range vals {
				if acc, err = binary("+", acc, v); err != nil {
					return nil, err
				}
			}
			return acc, nil
		}),
		"min": simple(func(in any) (any, error) { return extreme(in, -1) }),
		"max": simple(func(in any) (any, error) { return extreme(in, 1) }),
		"tostring": simple(func(in any) (any, error) {
			if s, ok := in.(string); ok {
				return s, nil
			}
			b, err := json.Marshal(in)
			return string(b), err
		}),
		"tonumber": simple(func(in any) (any, error) {
			switch v := in.(type) {
			case float64:
				return v, nil
			case string:
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					return nil, fmt.Errorf("cannot parse %q as a number", v)
				}
				return f, nil
			}
			return nil, fmt.Errorf("%s cannot be parsed as a number", typeName(in))
		}),
		"ascii_downcase": simple(func(in any) (any, error) {
			s, ok := in.(string)
			if !ok {
				return nil, fmt.Errorf("ascii_downcase needs a string, not %s", typeName(in))
			}
			return strings.Map(func(r rune) rune {
				if r < unicode.MaxASCII {
					return unicode.ToLower(r)
				}
				return r
			}, s), nil
		}),
		"ascii_upcase": simple(func(in any) (any, error) {
			s, ok := in.(string)
			if !ok {
				return nil, fmt.Errorf("ascii_upcase needs a string, not %s", typeName(in))
			}
			return strings.Map(func(r rune) rune {
				if r < unicode.MaxASCII {
					return unicode.ToUpper(r)
				}
				return r
			}, s), nil
		}),
		"startswith": oneArg(func(in, a any) (any, error) {
			s, ok1 := in.(string)
			p, ok2 := a.(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("startswith needs string input and argument")
			}
			return strings.HasPrefix(s, p), nil
		}),
		"endswith": oneArg(func(in, a any) (any, error) {
			s, ok1 := in.(string)
			p, ok2 := a.(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("endswith needs string input and argument")
			}
			return strings.HasSuffix(s, p), nil
		}),
		"contains": oneArg(func(in, a any) (any, error) { return contains(in, a) }),
		"split": oneArg(func(in, a any) (any, error) {
			s, ok1 := in.(string)
			sep, ok2 := a.(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("split needs string input and separator")
			}
			return toAny(strings.Split(s, sep)), nil
		}),
		"join": oneArg(func(in, a any) (any, error) {
			arr, ok1 := in.([]any)
			sep, ok2 := a.(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("join needs an array input and a string separator")
			}
			parts := make([]string, len(arr))
			for i, e := range arr {
				switch v := e.(type) {
				case nil:
				case string:
					parts[i] = v
				case float64, bool:
					b, _ := json.Marshal(v)
					parts[i] = string(b)
				default:
					return nil, fmt.Errorf("cannot join %s", typeName(e))
				}
			}
			return strings.Join(parts, sep), nil
		}),
		"any": simple(func(in any) (any, error) {
			vals, err := iterValues(in)
			if err != nil {
				return nil, err
			}
			for _, v := range vals {
				if truthy(v) {
					return true, nil
				}
			}
			return false, nil
		}),
		"all": simple(func(in any) (any, error) {
			vals, err := iterValues(in)
			if err != nil {
				return nil, err
			}
			for _, v := range vals {
				if !truthy(v) {
					return false, nil
				}
			}
			return true, nil
		}),
	}
}

func newCall(name string, args []node, p *parser) (node, error) {
	b, ok := builtins[name]
	if !ok {
		return nil, p.errorf("unknown function %s/%d", name, len(args))
	}
	if b.arity != len(args) {
		return nil, p.errorf("%s takes %d argument(s), not %d", name, b.arity, len(args))
	}
	return callNode{name: name, args: args, fn: b.fn}, nil
}

func iterValues(in any) ([]any, error) {
	switch v := in.(type) {
	case []any:
		return v, nil
	case map[string]any:
		vals := make([]any, 0, len(v))
		for _, k := range sortedKeys(v) {
			vals = append(vals, v[k])
		}
		return vals, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("cannot iterate over %s", typeName(in))
}

func extreme(in any, sign int) (any, error) {
	arr, ok := in.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an array", typeName(in))
	}
	var best any
	for i, e := range arr {
		if i == 0 || compare(e, best)*sign > 0 {
			best = e
		}
	}
	return best, nil
}

// contains is jq's contains: substrings, sub-arrays and sub-objects.
func contains(a, b any) (bool, error) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return false, fmt.Errorf("string and %s cannot have their containment checked", typeName(b))
		}
		return strings.Contains(x, y), nil
	case []any:
		y, ok := b.([]any)
		if !ok {
			return false, fmt.Errorf("array and %s cannot have their containment checked", typeName(b))
		}
		for _, want := range y {
			found := false
			for _, have := range x {
				if c, _ := contains(have, want); c {
					found = true
					break
				}
			}
			if !found {
				return false, nil
			}
		}
		return true, nil
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false, fmt.Errorf("object and %s cannot have their containment checked", typeName(b))
		}
		for k, want := range y {
			have, ok := x[k]
			if !ok {
				return false, nil
			}
			if c, _ := contains(have, want); !c {
				return false, nil
			}
		}
		return true, nil
	}
	if typeRank(a) != typeRank(b) && !(isBool(a) && isBool(b)) {
		return false, fmt.Errorf("%s and %s cannot have their containment checked", typeName(a), typeName(b))
	}
	return compare(a, b) == 0, nil
}

func isBool(v any) bool { _, ok := v.(bool); return ok }
