// Package host runs Wasm plugins as toolkit tools.
//
// A plugin is an Extism-ABI module that speaks the wasmtools ABI (package
// abi). The host compiles each module once per content hash, with an
// on-disk compilation cache so that a restart does not recompile; keeps a
// pool of warm instances per plugin, never sharing one between two calls;
// and gives a plugin nothing it was not granted: no files, network,
// environment or real clock by default (see abi.Grants).
//
// The Extism kernel (the "extism:host/env" imports: memory, input and
// output, config, variables, HTTP, logging) is implemented here in Go on
// wazero, rather than through the extism go-sdk, which looks up exports
// and allocates call engines on every call (about 130 µs and 650 KB per
// call on this machine); full Extism-ABI compatibility is kept, so modules
// built with any Extism PDK run unchanged.
//
// Every call ends within the plugin's timeout, even one whose guest loops
// for ever. Before compiling, the host rewrites the module (see
// internal/wasmbin) so that each function entry and loop iteration counts
// down a budget and, every few thousand of them, lets the Go runtime in
// and reads an interrupt flag, which the host sets when the call's
// context ends. wazero's own guarantee (WithCloseOnContextDone) leaves
// the machine code for Go at every loop iteration, which made a hashing
// plugin three times slower (tetratelabs/wazero#2466); it remains the
// fallback for a module the rewriter cannot read.
//
// A trap, a panic in the guest, a timeout, exhausted memory or a module
// that exits ends that call with an error and retires the instance; the
// host and every other plugin keep working.
package host
