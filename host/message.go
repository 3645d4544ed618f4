package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/wasmtools/wasmtools/abi"
	"github.com/wasmtools/wasmtools/internal/jsontext"
)

// decodeMessage parses a JSON message from a plugin into v. A message
// must be UTF-8 (the JSON decoder alone would replace bad bytes and go
// on); errors are told in JSON's words, never Go's types.
func decodeMessage(b []byte, v any) error {
	if !utf8.Valid(b) {
		return fmt.Errorf("not valid UTF-8 (byte %d); messages are UTF-8 JSON", jsontext.InvalidUTF8(string(b)))
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errors.New(jsonProblem(err))
	}
	return nil
}

// jsonProblem describes a JSON decoding error without the decoder's Go
// type names.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("not valid JSON: %s at byte %d", syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		where := "the document"
		if typ.Field != "" {
			where = "field " + typ.Field
		}
		return fmt.Sprintf("%s is %s where %s is expected", where, jsonValueName(typ.Value), jsonKindOf(typ.Type))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func jsonValueName(v string) string {
	switch {
	case v == "array", v == "object":
		return "an " + v
	case v == "bool":
		return "a boolean"
	case strings.HasPrefix(v, "number"):
		return "a number"
	case v == "":
		return "a value"
	}
	return "a " + v
}

// jsonKindOf names the JSON that decodes into a Go type.
func jsonKindOf(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKindOf(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another value"
}

// checkContent refuses content blocks the ABI does not define: a block
// is text or data, nothing else.
func checkContent(blocks []abi.Block) error {
	for i, b := range blocks {
		switch b.Type {
		case abi.BlockText, abi.BlockData:
		case "":
			return fmt.Errorf("content block %d has no type (%q or %q)", i, abi.BlockText, abi.BlockData)
		default:
			return fmt.Errorf("content block %d has the unknown type %q (%q or %q)", i, b.Type, abi.BlockText, abi.BlockData)
		}
	}
	return nil
}

// checkResult refuses a CallResult the ABI does not define.
func checkResult(r *abi.CallResult) error {
	switch r.State {
	case "", abi.StateSuccess, abi.StateError:
	default:
		return fmt.Errorf("unknown state %q (%q or %q)", r.State, abi.StateSuccess, abi.StateError)
	}
	return checkContent(r.Content)
}
