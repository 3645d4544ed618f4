package bash

// A syntax tree read out of tree-sitter in one cgo call. Walking the tree
// through go-tree-sitter's Node methods cost one Go-to-C crossing (and
// often a string or a cached Node allocation) per question asked of a
// node, several per node: more than the parse itself. Here a small C
// function parses the command and walks the whole tree with a cursor,
// writing each node's type, field, byte range and links into an array;
// the walker then reads Go values only.

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

// Opaque types and the public value types of the tree-sitter runtime
// that github.com/smacker/go-tree-sitter builds and links into the
// binary (api.h, language version 14). Only the functions below are
// called; TestFlatTreeMatchesSitter and FuzzAnalyze check the result
// node for node against go-tree-sitter's own API.
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct TSLanguage TSLanguage;
typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

TSParser *ts_parser_new(void);
void ts_parser_delete(TSParser *self);
bool ts_parser_set_language(TSParser *self, const TSLanguage *language);
void ts_parser_reset(TSParser *self);
TSTree *ts_parser_parse_string(TSParser *self, const TSTree *old_tree, const char *string, uint32_t length);
void ts_tree_delete(TSTree *self);
TSNode ts_tree_root_node(const TSTree *self);
const char *ts_node_type(TSNode self);
TSSymbol ts_node_symbol(TSNode self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
bool ts_node_is_named(TSNode self);
bool ts_node_has_error(TSNode self);
TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
TSFieldId ts_tree_cursor_current_field_id(const TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
uint32_t ts_language_symbol_count(const TSLanguage *self);
const char *ts_language_symbol_name(const TSLanguage *self, TSSymbol symbol);
uint32_t ts_language_field_count(const TSLanguage *self);
const char *ts_language_field_name_for_id(const TSLanguage *self, TSFieldId id);
const TSLanguage *tree_sitter_bash(void);

// wt_node is one node of the flat tree, in depth-first order.
typedef struct {
	uintptr_t type;           // ts_node_type, a string of the language's tables
	                          // (an integer: a pointer here would make cgo
	                          // scan the whole array on every call)
	uint32_t start, end;      // byte range
	int32_t first, next;      // first child, next sibling (indexes), -1 for none
	uint32_t children, named; // child counts: all, named
	TSSymbol symbol;          // ts_node_symbol, to find type's Go string fast
	TSFieldId field;          // field of the node in its parent, 0 for none
	uint8_t is_named;
} wt_node;

static TSParser *wt_parser_new(void) {
	TSParser *p = ts_parser_new();
	if (p && !ts_parser_set_language(p, tree_sitter_bash())) {
		ts_parser_delete(p);
		return NULL;
	}
	return p;
}

// wt_fill writes the tree's nodes into out (room for cap) and returns how
// many there are; past cap it only counts.
static uint32_t wt_fill(const TSTree *tree, wt_node *out, uint32_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(tree));
	int32_t small[64], *stack = small; // parents of the levels above
	size_t depth = 0, room = 64;
	int32_t parent = -1, prev = -1;
	uint32_t n = 0;
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&c);
		int32_t idx = (int32_t)n++;
		bool named = ts_node_is_named(node);
		if ((uint32_t)idx < cap) {
			wt_node *o = &out[idx];
			o->type = (uintptr_t)ts_node_type(node);
			o->symbol = ts_node_symbol(node);
			o->start = ts_node_start_byte(node);
			o->end = ts_node_end_byte(node);
			o->first = -1;
			o->next = -1;
			o->children = 0;
			o->named = 0;
			o->field = ts_tree_cursor_current_field_id(&c);
			o->is_named = named;
			if (prev >= 0) out[prev].next = idx;
			if (parent >= 0) {
				if (out[parent].first < 0) out[parent].first = idx;
				out[parent].children++;
				if (named) out[parent].named++;
			}
		}
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (depth == room) {
				size_t grown = room * 2;
				int32_t *s = malloc(grown * sizeof *s);
				if (!s) abort();
				for (size_t i = 0; i < depth; i++) s[i] = stack[i];
				if (stack != small) free(stack);
				stack = s;
				room = grown;
			}
			stack[depth++] = parent;
			parent = idx;
			prev = -1;
			continue;
		}
		prev = idx;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (depth == 0 || !ts_tree_cursor_goto_parent(&c)) {
				goto done;
			}
			prev = parent;
			parent = stack[--depth];
		}
	}
done:
	if (stack != small) free(stack);
	ts_tree_cursor_delete(&c);
	return n;
}

// wt_parse parses src. It returns 0 when the parse failed; else it sets
// has_error and, unless there is an error, fills out (see wt_fill). When
// the nodes did not fit, the tree is handed back in *keep for another
// wt_fill and ts_tree_delete; else it is deleted.
static int wt_parse(TSParser *p, const char *src, uint32_t len, wt_node *out, uint32_t cap,
                    uint32_t *count, uint8_t *has_error, TSTree **keep) {
	*keep = NULL;
	*count = 0;
	TSTree *t = ts_parser_parse_string(p, NULL, src, len);
	if (!t) {
		ts_parser_reset(p);
		return 0;
	}
	*has_error = ts_node_has_error(ts_tree_root_node(t));
	if (!*has_error) *count = wt_fill(t, out, cap);
	if (*count > cap) {
		*keep = t;
	} else {
		ts_tree_delete(t);
	}
	return 1;
}

static const TSLanguage *wt_language(void) { return tree_sitter_bash(); }
static const char *wt_string(uintptr_t p) { return (const char *)p; }
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"

	// The tree-sitter runtime and the bash grammar the C code above calls.
	_ "github.com/smacker/go-tree-sitter"
	_ "github.com/smacker/go-tree-sitter/bash"
)

// node is one node of a flatTree, answering the questions the walker
// asks as go-tree-sitter's Node does.
type node struct {
	t           *flatTree
	typ         string
	field       string
	start, end  uint32
	first, next int32
	children    uint32
	named       uint32
	isNamed     bool
}

// flatTree is a parsed command's syntax tree; nodes[0] is the root.
type flatTree struct {
	nodes []node
	buf   []C.wt_node
}

func (n *node) Type() string            { return n.typ }
func (n *node) IsNamed() bool           { return n.isNamed }
func (n *node) StartByte() uint32       { return n.start }
func (n *node) EndByte() uint32         { return n.end }
func (n *node) ChildCount() uint32      { return n.children }
func (n *node) NamedChildCount() uint32 { return n.named }

// Content is the node's text in src, the string it was parsed from.
func (n *node) Content(src string) string { return src[n.start:n.end] }

// Equal reports the same node.
func (n *node) Equal(o *node) bool { return n == o }

// Child returns the i-th child, or nil.
func (n *node) Child(i int) *node {
	for j := n.first; j >= 0; j = n.t.nodes[j].next {
		if i == 0 {
			return &n.t.nodes[j]
		}
		i--
	}
	return nil
}

// NamedChild returns the i-th named child, or nil.
func (n *node) NamedChild(i int) *node {
	for j := n.first; j >= 0; j = n.t.nodes[j].next {
		if c := &n.t.nodes[j]; c.isNamed {
			if i == 0 {
				return c
			}
			i--
		}
	}
	return nil
}

// FieldNameForChild returns the field name of the i-th child, or "".
func (n *node) FieldNameForChild(i int) string {
	if c := n.Child(i); c != nil {
		return c.field
	}
	return ""
}

// Names of the grammar's symbols and fields, read once: a node's type is
// found by its symbol, checked against the very pointer ts_node_type gave
// (an aliased node can be named otherwise than its symbol).
var (
	language    = C.wt_language()
	symbolPtrs  []C.uintptr_t
	symbolNames []string
	fieldNames  []string
	otherTypes  sync.Map // C.uintptr_t -> string, for the types found otherwise
)

func init() {
	n := C.ts_language_symbol_count(language)
	symbolPtrs = make([]C.uintptr_t, n)
	symbolNames = make([]string, n)
	for i := range symbolPtrs {
		p := C.ts_language_symbol_name(language, C.TSSymbol(i))
		symbolPtrs[i] = C.uintptr_t(uintptr(unsafe.Pointer(p)))
		if p != nil {
			symbolNames[i] = C.GoString(p)
		}
	}
	fieldNames = make([]string, C.ts_language_field_count(language)+1)
	for i := 1; i < len(fieldNames); i++ {
		if p := C.ts_language_field_name_for_id(language, C.TSFieldId(i)); p != nil {
			fieldNames[i] = C.GoString(p)
		}
	}
}

func typeName(sym C.TSSymbol, p C.uintptr_t) string {
	if int(sym) < len(symbolPtrs) && symbolPtrs[sym] == p {
		return symbolNames[sym]
	}
	if p == 0 {
		return ""
	}
	if s, ok := otherTypes.Load(p); ok {
		return s.(string)
	}
	s := C.GoString(C.wt_string(p))
	otherTypes.Store(p, s)
	return s
}

func fieldName(id C.TSFieldId) string {
	if int(id) < len(fieldNames) {
		return fieldNames[id]
	}
	return ""
}

// cParser owns a tree-sitter parser for the bash grammar.
type cParser struct{ p *C.TSParser }

var cParsers = sync.Pool{New: func() any {
	p := C.wt_parser_new()
	if p == nil {
		return nil
	}
	cp := &cParser{p: p}
	runtime.AddCleanup(cp, func(p *C.TSParser) { C.ts_parser_delete(p) }, p)
	return cp
}}

var flatTrees = sync.Pool{New: func() any { return &flatTree{buf: make([]C.wt_node, 256)} }}

// parseFlat parses src (ASCII only, see asciiOnly). ok is false when the
// parser failed; hasError reports a tree with errors, which is not
// walked (t is then nil). Give t back with release once done with it.
func parseFlat(src []byte) (t *flatTree, hasError, ok bool) {
	cp, _ := cParsers.Get().(*cParser)
	if cp == nil {
		return nil, false, false
	}
	defer cParsers.Put(cp)
	t = flatTrees.Get().(*flatTree)
	var text *C.char
	if len(src) > 0 {
		text = (*C.char)(unsafe.Pointer(&src[0]))
	}
	var count C.uint32_t
	var errs C.uint8_t
	var keep *C.TSTree
	if C.wt_parse(cp.p, text, C.uint32_t(len(src)), &t.buf[0], C.uint32_t(len(t.buf)), &count, &errs, &keep) == 0 {
		flatTrees.Put(t)
		return nil, false, false
	}
	if errs != 0 {
		flatTrees.Put(t)
		return nil, true, true
	}
	if keep != nil {
		t.buf = make([]C.wt_node, int(count))
		C.wt_fill(keep, &t.buf[0], C.uint32_t(len(t.buf)))
		C.ts_tree_delete(keep)
	}
	runtime.KeepAlive(src)
	n := int(count)
	if cap(t.nodes) < n {
		t.nodes = make([]node, n)
	}
	t.nodes = t.nodes[:n]
	for i := range t.nodes {
		b := &t.buf[i]
		t.nodes[i] = node{
			t: t, typ: typeName(b.symbol, b._type), field: fieldName(b.field),
			start: uint32(b.start), end: uint32(b.end), first: int32(b.first), next: int32(b.next),
			children: uint32(b.children), named: uint32(b.named), isNamed: b.is_named != 0,
		}
	}
	return t, false, true
}

// root returns the root node.
func (t *flatTree) root() *node { return &t.nodes[0] }

// release gives the tree's memory back for the next parse; its nodes
// must not be used after.
func (t *flatTree) release() {
	if cap(t.buf) > 4096 {
		return // a rare large command: let it go
	}
	flatTrees.Put(t)
}
