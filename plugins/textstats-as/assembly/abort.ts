// AssemblyScript calls abort() on a failed assertion, an index out of
// range or an allocation that cannot be met. By default the compiler
// imports it as env.abort, and wasmtools refuses modules that import from
// "env", so asconfig.json routes it here ("use": ["abort=assembly/abort/abort"]):
// the message becomes the export's error, and the trap ends the call (the
// host retires the instance).
import { fail } from "./host";

export function abort(message: string | null, file: string | null, line: u32, column: u32): void {
  const m = message !== null ? message : "abort";
  const f = file !== null ? file : "?";
  fail(m + " (" + f + ":" + line.toString() + ":" + column.toString() + ")");
  unreachable();
}
