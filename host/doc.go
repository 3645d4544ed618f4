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
// A trap, a panic in the guest, a timeout, exhausted memory or a module
// that exits ends that call with an error and retires the instance; the
// host and every other plugin keep working.
package host
