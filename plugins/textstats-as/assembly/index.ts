// textstats-as: a wasmtools plugin written in AssemblyScript (abi/README.md
// is the contract). Two tools, both read-only and safe to run in parallel:
//
//   word_count  words, lines, characters, bytes and the most frequent words
//   slugify     a URL slug of a text
//
// Every export takes no arguments, reads its JSON request with Host.input,
// writes its JSON answer with output(), and returns 0; it returns non-zero
// (with an error message) only when the request itself is broken.
import { Host } from "@extism/as-pdk";
import { Reader, quote } from "./json";
import { emit, fail, output } from "./host";
import { count, slugify } from "./textstats";
// Compiles in the abort handler that asconfig.json names ("use").
import "./abort";

const SCHEMA =
  `{"abi":1,"name":"textstats-as","version":"1.0.0","tools":[` +
  `{"name":"word_count","description":"Counts the words, lines, characters (Unicode code points) and UTF-8 bytes of a text and lists its most frequent words, ignoring case and surrounding punctuation. Streams the counts first, then the word list.",` +
  `"input_schema":{"type":"object","properties":{` +
  `"text":{"type":"string","description":"The text to measure."},` +
  `"top":{"type":"integer","minimum":0,"maximum":100,"description":"How many of the most frequent words to list (default 10)."}},` +
  `"required":["text"],"additionalProperties":false},"concurrency_safe":true,"read_only":true},` +
  `{"name":"slugify","description":"Turns a text into a URL slug: lower-case ASCII letters and digits, accents removed from Latin letters, one separator between words.",` +
  `"input_schema":{"type":"object","properties":{` +
  `"text":{"type":"string","description":"The text to turn into a slug."},` +
  `"separator":{"type":"string","maxLength":3,"description":"What goes between words (default \\"-\\")."},` +
  `"max_length":{"type":"integer","minimum":0,"description":"The longest slug, cut at a word boundary when possible (default 0: no limit)."}},` +
  `"required":["text"],"additionalProperties":false},"concurrency_safe":true,"read_only":true}]}`;

function known(tool: string): bool {
  return tool == "word_count" || tool == "slugify";
}

// Request is a parsed request: its reader, its "tool", and where its
// "input" object starts (-1 when it has none).
class Request {
  constructor(public reader: Reader, public tool: string, public input: i32) {}
}

// request parses the input of check_permissions, check_read_only and call,
// which all carry "tool" and "input". It returns null (after setting the
// error) when the request is broken.
function request(): Request | null {
  const r = new Reader(Host.inputString());
  const toolAt = r.field(0, "tool");
  const inputAt = r.field(0, "input");
  if (r.failed) {
    fail("textstats-as: the request is not a valid JSON object");
    return null;
  }
  const tool = r.stringAt(toolAt);
  if (tool === null) {
    fail('textstats-as: the request has no "tool"');
    return null;
  }
  return new Request(r, tool, inputAt);
}

// Exports. Each one ends with __collect(): the module is built with
// AssemblyScript's minimal runtime, whose garbage collector runs only when
// called (the incremental one would add 10 KB), and at an export's end
// nothing it allocated is needed any more: its output is already in
// kernel memory. Without it an instance that serves many calls would grow
// until it hit its memory limit.

// schema answers with the tool list. Its input (the host's ABI version)
// needs no reading: a host that does not speak ABI 1 refuses the answer.
export function schema(): i32 {
  output(SCHEMA);
  __collect();
  return 0;
}

export function check_permissions(): i32 {
  const rc = checkPermissions();
  __collect();
  return rc;
}

export function check_read_only(): i32 {
  const rc = checkReadOnly();
  __collect();
  return rc;
}

export function call(): i32 {
  const rc = callTool();
  __collect();
  return rc;
}

// checkPermissions allows every call of the plugin's tools: they only
// compute on the text they are given.
function checkPermissions(): i32 {
  const req = request();
  if (req === null) return 1;
  if (!known(req.tool)) {
    output(`{"behavior":"deny","message":` + quote("textstats-as has no tool " + quote(req.tool)) + `}`);
    return 0;
  }
  output(`{"behavior":"allow"}`);
  return 0;
}

// checkReadOnly says every call is read-only (the schema's flags say so
// too; the export shows how a per-call answer is given).
function checkReadOnly(): i32 {
  const req = request();
  if (req === null) return 1;
  output(`{"read_only":` + (known(req.tool) ? "true" : "false") + `}`);
  return 0;
}

// callTool runs one call. A call the model can fix (an unknown tool, a
// missing text) gets a result in the error state; only a request that is
// not JSON fails the export.
function callTool(): i32 {
  const req = request();
  if (req === null) return 1;
  const r = req.reader;
  const text = r.stringAt(r.field(req.input, "text"));
  if (r.failed) return fail("textstats-as: the call's input is not a valid JSON object");
  if (!known(req.tool)) {
    output(errorResult("textstats-as has no tool " + quote(req.tool) + "; its tools are word_count and slugify"));
    return 0;
  }
  if (text === null) {
    output(errorResult('"text" is required and must be a string'));
    return 0;
  }
  if (req.tool == "word_count") {
    wordCount(text, optionalInt(r, req.input, "top", 10));
  } else {
    const sep = r.stringAt(r.field(req.input, "separator"));
    const slug = slugify(text, sep !== null ? sep : "-", optionalInt(r, req.input, "max_length", 0));
    output(`{"content":[{"type":"text","text":` + quote(slug) + `}]}`);
  }
  return 0;
}

// wordCount streams the counts as a first chunk, then returns the word
// list as the result. Both text blocks carry the same id, so the host
// joins them into one text.
function wordCount(text: string, top: i32): void {
  if (top < 0) top = 0;
  if (top > 100) top = 100;
  const c = count(text, top);
  const head =
    "words: " + c.words.toString() + "\nlines: " + c.lines.toString() +
    "\ncharacters: " + c.characters.toString() + "\nbytes: " + c.bytes.toString() + "\n";
  emit(`{"content":[{"type":"text","id":"word_count","text":` + quote(head) + `}]}`);

  let list = "";
  let meta = "";
  for (let i = 0; i < c.top.length; i++) {
    const w = c.top[i];
    if (i > 0) {
      list += ", ";
      meta += ",";
    }
    list += w.word + " (" + w.count.toString() + ")";
    meta += `{"word":` + quote(w.word) + `,"count":` + w.count.toString() + `}`;
  }
  const tail = "unique words: " + c.unique.toString() + "\nmost frequent: " + (list.length > 0 ? list : "(none)") + "\n";
  output(
    `{"content":[{"type":"text","id":"word_count","text":` + quote(tail) + `}],` +
      `"metadata":{"words":` + c.words.toString() + `,"lines":` + c.lines.toString() +
      `,"characters":` + c.characters.toString() + `,"bytes":` + c.bytes.toString() +
      `,"unique_words":` + c.unique.toString() + `,"top":[` + meta + `]}}`,
  );
}

// optionalInt reads an integer field of the input, or def when it is
// absent. The host has validated the input against the schema already.
function optionalInt(r: Reader, input: i32, key: string, def: i32): i32 {
  return r.intAt(r.field(input, key), def);
}

function errorResult(message: string): string {
  return `{"state":"error","content":[{"type":"text","text":` + quote(message) + `}]}`;
}
