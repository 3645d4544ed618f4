// A small JSON reader and writer: just what the plugin needs to read a few
// fields of a request and to write its answers. A full JSON library
// (json-as) would work too, but it needs a compiler transform and more
// than doubles the module; requests here are small objects.

// Reader walks a JSON text. Methods that fail set `failed` and return a
// neutral value, because AssemblyScript has no exceptions to catch: a
// caller checks `failed` once at the end.
export class Reader {
  pos: i32 = 0;
  failed: bool = false;

  constructor(public text: string) {}

  // field returns the position of the value of `key` in the object that
  // starts at `start`, or -1 when the object has no such key or `start`
  // is -1 (a missing value). A value at `start` that is not an object
  // fails. Later duplicates win, as in most parsers.
  field(start: i32, key: string): i32 {
    if (start < 0) return -1;
    this.pos = start;
    this.space();
    if (!this.eat(0x7b /* { */)) {
      this.failed = true;
      return -1;
    }
    let found = -1;
    this.space();
    if (this.eat(0x7d /* } */)) return -1;
    while (!this.failed) {
      this.space();
      const name = this.str();
      this.space();
      if (!this.eat(0x3a /* : */)) {
        this.failed = true;
        break;
      }
      this.space();
      if (name == key) found = this.pos;
      this.skip();
      this.space();
      if (this.eat(0x2c /* , */)) continue;
      if (!this.eat(0x7d /* } */)) this.failed = true;
      break;
    }
    return this.failed ? -1 : found;
  }

  // stringAt returns the string at `at`, or null when the value there is
  // not a string.
  stringAt(at: i32): string | null {
    if (at < 0) return null;
    this.pos = at;
    if (this.peek() != 0x22 /* " */) return null;
    const s = this.str();
    return this.failed ? null : s;
  }

  // intAt returns the integer at `at` (saturated to the i32 range), or
  // `def` when the value there is absent or not an integer. Only
  // integers are read: the plugin needs no fractions, and a float parser
  // would be most of its code.
  intAt(at: i32, def: i32): i32 {
    if (at < 0) return def;
    this.pos = at;
    const neg = this.eat(0x2d /* - */);
    let v: i64 = 0;
    let digits = 0;
    for (let c = this.peek(); c >= 0x30 && c <= 0x39; c = this.peek()) {
      if (v < (<i64>1 << 40)) v = v * 10 + (c - 0x30);
      this.pos++;
      digits++;
    }
    if (digits == 0) return def;
    // 3.0 is an integer in JSON Schema; 3.5 and 1e3 are read as absent.
    if (this.eat(0x2e /* . */)) {
      for (let c = this.peek(); c == 0x30; c = this.peek()) this.pos++;
    }
    const c = this.peek();
    if ((c >= 0x30 && c <= 0x39) || c == 0x65 || c == 0x45) return def;
    if (neg) v = -v;
    return v > i32.MAX_VALUE ? i32.MAX_VALUE : v < i32.MIN_VALUE ? i32.MIN_VALUE : i32(v);
  }

  private peek(): i32 {
    return this.pos < this.text.length ? this.text.charCodeAt(this.pos) : -1;
  }

  private eat(c: i32): bool {
    if (this.peek() != c) return false;
    this.pos++;
    return true;
  }

  private space(): void {
    for (;;) {
      const c = this.peek();
      if (c != 0x20 && c != 0x09 && c != 0x0a && c != 0x0d) return;
      this.pos++;
    }
  }

  // skip moves past one value of any kind.
  private skip(): void {
    const c = this.peek();
    if (c == 0x22) {
      this.str();
    } else if (c == 0x7b || c == 0x5b) {
      const close = c == 0x7b ? 0x7d : 0x5d;
      this.pos++;
      this.space();
      if (this.eat(close)) return;
      while (!this.failed) {
        this.space();
        if (c == 0x7b) {
          this.str();
          this.space();
          if (!this.eat(0x3a)) {
            this.failed = true;
            return;
          }
          this.space();
        }
        this.skip();
        this.space();
        if (this.eat(0x2c)) continue;
        if (!this.eat(close)) this.failed = true;
        return;
      }
    } else if (c == 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.number();
    } else if (!this.word("true") && !this.word("false") && !this.word("null")) {
      this.failed = true;
    }
  }

  private word(w: string): bool {
    if (this.text.substr(this.pos, w.length) != w) return false;
    this.pos += w.length;
    return true;
  }

  private number(): void {
    const begin = this.pos;
    this.eat(0x2d);
    let digits = 0;
    for (let c = this.peek(); c >= 0x30 && c <= 0x39; c = this.peek()) {
      this.pos++;
      digits++;
    }
    if (this.eat(0x2e /* . */)) {
      for (let c = this.peek(); c >= 0x30 && c <= 0x39; c = this.peek()) this.pos++;
    }
    const e = this.peek();
    if (e == 0x65 || e == 0x45) {
      this.pos++;
      if (!this.eat(0x2b)) this.eat(0x2d);
      for (let c = this.peek(); c >= 0x30 && c <= 0x39; c = this.peek()) this.pos++;
    }
    if (digits == 0 || this.pos == begin) this.failed = true;
  }

  // str reads a string literal and returns its decoded value.
  private str(): string {
    if (!this.eat(0x22)) {
      this.failed = true;
      return "";
    }
    // Most strings have no escapes: slice them in one piece.
    let out = "";
    let run = this.pos;
    while (this.pos < this.text.length) {
      const c = this.peek();
      if (c == 0x22) {
        out += this.text.substring(run, this.pos);
        this.pos++;
        return out;
      }
      if (c != 0x5c /* \ */) {
        this.pos++;
        continue;
      }
      out += this.text.substring(run, this.pos);
      this.pos++;
      const e = this.peek();
      this.pos++;
      if (e == 0x6e) out += "\n";
      else if (e == 0x74) out += "\t";
      else if (e == 0x72) out += "\r";
      else if (e == 0x62) out += "\b";
      else if (e == 0x66) out += "\f";
      else if (e == 0x22 || e == 0x5c || e == 0x2f) out += String.fromCharCode(e);
      else if (e == 0x75 /* u */) {
        // \uXXXX is one UTF-16 unit, and AssemblyScript strings are
        // UTF-16: a surrogate pair written as two escapes joins up by
        // itself.
        let v = 0;
        for (let k = 0; k < 4; k++) {
          const d = hexDigit(this.peek());
          if (d < 0) {
            this.failed = true;
            return "";
          }
          v = (v << 4) | d;
          this.pos++;
        }
        out += String.fromCharCode(v);
      } else {
        this.failed = true;
        return "";
      }
      run = this.pos;
    }
    this.failed = true; // no closing quote
    return "";
  }
}

function hexDigit(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

// quote returns s as a JSON string literal.
export function quote(s: string): string {
  let out = '"';
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c != 0x22 && c != 0x5c) continue;
    out += s.substring(run, i);
    run = i + 1;
    if (c == 0x22) out += '\\"';
    else if (c == 0x5c) out += "\\\\";
    else if (c == 0x0a) out += "\\n";
    else if (c == 0x0d) out += "\\r";
    else if (c == 0x09) out += "\\t";
    else out += "\\u00" + (c < 0x10 ? "0" : "") + c.toString(16);
  }
  return out + s.substring(run) + '"';
}
