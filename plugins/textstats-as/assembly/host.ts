// The few things the plugin says to the host, done the way the ABI asks.
import { Host, Memory } from "@extism/as-pdk";

// wasmtools_emit streams one chunk of a call's result: the offset of a
// kernel-memory block holding the chunk's JSON. The host frees the block.
@external("extism:host/user", "wasmtools_emit")
declare function wasmtoolsEmit(offset: u64): void;

// error_set is in the PDK's env.ts, but the package index exports no
// wrapper for it.
@external("extism:host/env", "error_set")
declare function errorSet(offset: u64): void;

// block copies s, UTF-8 encoded, into a new kernel-memory block.
// Memory.allocate + store moves eight bytes per kernel call, where
// Memory.allocateString stores one byte per call.
function block(s: string): Memory {
  const bytes = Uint8Array.wrap(String.UTF8.encode(s));
  const mem = Memory.allocate(bytes.length);
  mem.store(bytes);
  return mem;
}

// output sets the export's output to the JSON text s. Host.outputString
// is not used: it sizes the block by s.length, which counts UTF-16 units,
// not UTF-8 bytes, so any non-ASCII text came out cut short.
export function output(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

// emit streams the chunk whose JSON is s.
export function emit(s: string): void {
  wasmtoolsEmit(block(s).offset);
}

// fail sets the error message the host reports when an export returns
// non-zero, and returns the code to return.
export function fail(message: string): i32 {
  errorSet(block(message).offset);
  return 1;
}
