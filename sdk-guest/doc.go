// Package guest is the Go SDK for writing wasmtools plugins: Wasm modules
// that provide tools to an LLM agent through the wasmtools plugin ABI
// (abi/README.md in this repository). It works with the standard Go
// toolchain (Go 1.24 or later, for //go:wasmexport) and uses the standard
// library and package abi only.
//
// A plugin is a main package that registers its tools in an init function
// and has an empty main:
//
//	package main
//
//	import (
//		"fmt"
//		"strings"
//
//		"github.com/wasmtools/wasmtools/abi"
//		guest "github.com/wasmtools/wasmtools/sdk-guest"
//	)
//
//	// Input is decoded from the call's JSON arguments; its JSON Schema is
//	// inferred (see SchemaFor): json tags name the properties, a field
//	// is required unless omitempty or a pointer, jsonschema:"..."
//	// describes it, enum:"a,b" lists its values, default:"..." gives
//	// its default.
//	type Input struct {
//		Text  string `json:"text" jsonschema:"the text to shout"`
//		Times int    `json:"times,omitempty" jsonschema:"how many times" default:"1"`
//		Case  string `json:"case,omitempty" enum:"upper,lower"`
//	}
//
//	func init() {
//		guest.SetInfo(guest.PluginInfo{Name: "shout", Version: "1.0.0"})
//		guest.Register(guest.Tool[Input, guest.Result]{
//			Name:            "shout",
//			Description:     "Upper-cases text and repeats it.",
//			ReadOnly:        true,
//			ConcurrencySafe: true,
//			Call: func(c *guest.Call, in Input) (guest.Result, error) {
//				if in.Text == "" {
//					// An error is a result the model reads and can act on.
//					return guest.Result{}, fmt.Errorf("text is empty: pass some text")
//				}
//				c.Progress(0.5, "shouting\n") // a streamed chunk
//				out := strings.Repeat(strings.ToUpper(in.Text), max(in.Times, 1))
//				guest.Log.Debug("shouted ", len(out), " bytes")
//				return guest.Result{
//					Content:  []abi.Block{guest.Text(out)},
//					Metadata: map[string]any{"bytes": len(out)},
//				}, nil
//			},
//			// Optional: the tool's own permission decision. Without it the
//			// tool has no opinion (passthrough).
//			Check: func(in Input, _ abi.PermissionContext) abi.Decision {
//				if in.Times > 1000 {
//					return abi.Decision{Behavior: abi.Ask, Message: "That is a lot of shouting."}
//				}
//				return abi.Decision{Behavior: abi.Passthrough}
//			},
//		})
//	}
//
//	func main() {}
//
// # Building
//
// Build the plugin as a WASI reactor:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o shout.wasm .
//
// -buildmode=c-shared is required. It makes a module that exports
// _initialize (the host calls it once, which runs the init functions) and
// whose exports the host calls again and again on a warm instance. A
// plain `go build` makes a WASI command: its _start runs main once and
// exits, so it cannot serve calls, and the host refuses it. main itself
// is never called.
//
// # What the SDK does
//
// The SDK implements every export of the ABI once: schema (the registered
// tools, with their inferred schemas), check_permissions, call, and the
// optional check_read_only, match_rule and generate_suggestions. Each
// request names its tool; the SDK decodes its input into the tool's In
// type and calls the tool's function. A tool left without an optional
// function gets the default of the host's Tool contract, and the schema
// lists, per tool, the optional exports that apply ("hooks"), so that the
// host does not call the plugin for a default answer.
//
// Results: a string becomes one text block; a [Result] carries content
// blocks, metadata and an error state; any other value is encoded as JSON
// into one text block. An error returned by Call becomes a result in the
// error state, with the error's message: a failure the model reads. A
// panic in any of the tool's functions is recovered: the export returns
// non-zero with the panic's message (set with error_set), and the stack is
// logged. A real trap (an out-of-bounds access, a runtime crash) or
// os.Exit cannot be recovered: the host ends the call and retires the
// instance.
//
// The SDK moves each block between the plugin's memory and the kernel's
// in one call on a wasmtools host (the bulk copies of abi.BulkTag), and
// eight bytes at a time on other Extism hosts (load_u64, store_u64,
// input_load_u64: every kernel call costs the same whatever it moves).
// It reads requests and flat-struct inputs and writes responses without
// encoding/json, falling back to it for anything else. It yields to the
// Go scheduler (runtime.Gosched) before every export returns, or collects
// garbage after a call on a large input: without that, the Go garbage
// collector's workers never get to run between calls and the heap only
// grows.
//
// # Reaching the host
//
//   - [Call.Emit], [Call.EmitText] and [Call.Progress] stream chunks
//     before the final result (the host function wasmtools_emit, imported
//     only by plugins that stream).
//   - [Log] writes to the host's log.
//   - [Config] reads configuration values the operator granted.
//   - [HTTP] makes an HTTP request through the host, which checks it
//     against the hosts the operator granted; ask for them in
//     PluginInfo.Grants.
//
// Nothing else is granted by default: no files, environment, clock or
// network, unless the operator's grants say so.
//
// # Testing
//
// The SDK's logic builds on every platform, so a plugin's tools can be
// tested natively with go test: [Invoke] runs an export as the host would
// (HTTP and Config need the Wasm host and are not available natively).
package guest
