// The text measures, free of any host or JSON concern.

// Counts is what word_count finds in a text.
export class Counts {
  words: i32 = 0;
  lines: i32 = 0;
  characters: i32 = 0;
  bytes: i32 = 0;
  unique: i32 = 0;
  top: WordCount[] = [];
}

// WordCount is one word and how often it occurs.
export class WordCount {
  constructor(public word: string, public count: i32) {}
}

// isSpace reports Unicode white space (the characters of \s in
// JavaScript, plus U+0085).
function isSpace(c: i32): bool {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return (
    c == 0x85 ||
    c == 0xa0 ||
    c == 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c == 0x2028 ||
    c == 0x2029 ||
    c == 0x202f ||
    c == 0x205f ||
    c == 0x3000 ||
    c == 0xfeff
  );
}

// isPunct reports punctuation and symbols that are not part of a word:
// ASCII punctuation and the common typographic marks. Every other
// non-space character (letters and digits of any script) belongs to
// words, so the count works for text in any language without Unicode
// tables.
function isPunct(c: i32): bool {
  if (c < 0x80) {
    return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
  }
  return (
    c == 0xa1 || // ¡
    c == 0xab || // «
    c == 0xbb || // »
    c == 0xbf || // ¿
    c == 0xb7 || // ·
    (c >= 0x2010 && c <= 0x2027) || // dashes, quotes, bullets, ellipsis
    (c >= 0x2030 && c <= 0x205e) || // per mille, primes, guillemets, …
    (c >= 0x3001 && c <= 0x3003) || // ideographic comma and full stop
    (c >= 0x300c && c <= 0x300f) // corner brackets
  );
}

// wordKey returns the form under which a word is counted: lower case,
// without the punctuation around it ("The," and "the" are one word;
// "don't" keeps its apostrophe). Empty when the word is all punctuation.
function wordKey(w: string): string {
  let a = 0;
  let b = w.length;
  while (a < b && isPunct(w.charCodeAt(a))) a++;
  while (b > a && isPunct(w.charCodeAt(b - 1))) b--;
  return lower(w.substring(a, b));
}

// lower returns s in lower case for the Latin, Greek and Cyrillic
// alphabets, and unchanged elsewhere. String#toLowerCase covers all of
// Unicode but brings 8 KB of tables into the module.
export function lower(s: string): string {
  let i = 0;
  while (i < s.length && lowerUnit(s.charCodeAt(i)) == s.charCodeAt(i)) i++;
  if (i == s.length) return s; // already lower case: no copy
  const out = new Array<i32>(s.length);
  for (let k = 0; k < s.length; k++) out[k] = lowerUnit(s.charCodeAt(k));
  return String.fromCharCodes(out);
}

// lowerUnit maps one UTF-16 unit to lower case (see lower).
function lowerUnit(c: i32): i32 {
  if (c < 0xc0) return c >= 0x41 && c <= 0x5a ? c + 32 : c; // A-Z
  if (c <= 0xde) return c == 0xd7 ? c : c + 32; // À-Þ, not ×
  if (c < 0x100) return c;
  if (c < 0x180) {
    // Latin Extended-A pairs capitals and small letters, mostly with the
    // capital on the even code point; two runs are shifted by one.
    if (c == 0x130) return 0x69; // İ
    if (c == 0x178) return 0xff; // Ÿ
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e)) return c & 1 ? c + 1 : c;
    if (c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17f) return c;
    return c & 1 ? c : c + 1;
  }
  if (c >= 0x391 && c <= 0x3ab) return c == 0x3a2 ? c : c + 32; // Greek
  if (c == 0x386) return 0x3ac;
  if (c >= 0x388 && c <= 0x38a) return c + 37;
  if (c == 0x38c) return 0x3cc;
  if (c == 0x38e || c == 0x38f) return c + 63;
  if (c >= 0x410 && c <= 0x42f) return c + 32; // Cyrillic
  if (c >= 0x400 && c <= 0x40f) return c + 80;
  return c;
}

// count measures text. A word is a run of non-space characters with at
// least one character that is not punctuation; lines are counted like an
// editor does (a last line without a newline still counts); characters
// are Unicode code points; bytes are UTF-8 bytes. top is how many of the
// most frequent words to keep.
export function count(text: string, top: i32): Counts {
  const r = new Counts();
  r.bytes = String.UTF8.byteLength(text);
  const freq = new Map<string, i32>();
  let start = -1;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 0x20;
    if (i < n) {
      // A high surrogate followed by a low one is one code point.
      if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && isHigh(text.charCodeAt(i - 1)))) r.characters++;
      if (c == 0x0a) r.lines++;
    }
    if (!isSpace(c)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0) {
      const key = wordKey(text.substring(start, i));
      if (key.length > 0) {
        r.words++;
        freq.set(key, freq.has(key) ? freq.get(key) + 1 : 1);
      }
      start = -1;
    }
  }
  if (n > 0 && text.charCodeAt(n - 1) != 0x0a) r.lines++;

  const keys = freq.keys();
  r.unique = keys.length;
  r.top = mostFrequent(keys, freq, top);
  return r;
}

// ranksBefore orders words most frequent first, ties alphabetically, so
// answers are stable.
function ranksBefore(a: WordCount, b: WordCount): bool {
  return a.count != b.count ? a.count > b.count : a.word < b.word;
}

// mostFrequent returns the n best-ranked words, best first. It keeps them
// in a sorted list and inserts a word only when it beats the last one:
// n is small, and Array#sort would add 2 KB to the module.
function mostFrequent(keys: string[], freq: Map<string, i32>, n: i32): WordCount[] {
  const best = new Array<WordCount>(0);
  if (n <= 0) return best;
  for (let k = 0; k < keys.length; k++) {
    const w = new WordCount(keys[k], freq.get(keys[k]));
    let i = best.length;
    if (i == n) {
      if (!ranksBefore(w, best[n - 1])) continue;
      i = n - 1;
      best[i] = w;
    } else {
      best.push(w);
    }
    for (; i > 0 && ranksBefore(best[i], best[i - 1]); i--) {
      const t = best[i - 1];
      best[i - 1] = best[i];
      best[i] = t;
    }
  }
  return best;
}

function isHigh(c: i32): bool {
  return c >= 0xd800 && c <= 0xdbff;
}

// Letters of Latin-1 and Latin Extended-A that slugify spells in ASCII.
const FOLD_FROM = "àáâãäåāăąçćĉċčďèéêëēĕėęěĝğġģĥìíîïĩīĭįĵķĺļľńņňñòóôõöøōŏőŕŗřśŝşšţťùúûüũūŭůűųŵýÿŷźżž";
const FOLD_TO = "aaaaaaaaacccccdeeeeeeeeegggghiiiiiiiijklllnnnnooooooooorrrssssttuuuuuuuuuuwyyyzzz";

// fold returns the ASCII spelling of a lower-case letter, or "" when it
// has none.
function fold(c: i32): string {
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) return String.fromCharCode(c);
  if (c < 0x80) return "";
  const at = FOLD_FROM.indexOf(String.fromCharCode(c));
  if (at >= 0) return FOLD_TO.charAt(at);
  if (c == 0xe6) return "ae"; // æ
  if (c == 0x153) return "oe"; // œ
  if (c == 0xdf) return "ss"; // ß
  if (c == 0xfe) return "th"; // þ
  if (c == 0xf0 || c == 0x111) return "d"; // ð đ
  if (c == 0x142) return "l"; // ł
  return "";
}

// slugify turns text into a URL slug: lower-case ASCII letters and
// digits, accented Latin letters spelled without their accents, every
// other run of characters replaced by one separator, none at either end.
// maxLength > 0 cuts the slug at a separator (or hard, for one long
// word).
export function slugify(text: string, separator: string, maxLength: i32): string {
  const low = lower(text);
  let out = "";
  let pending = false;
  for (let i = 0; i < low.length; i++) {
    const f = fold(low.charCodeAt(i));
    if (f.length == 0) {
      pending = out.length > 0;
      continue;
    }
    if (pending) out += separator;
    pending = false;
    out += f;
  }
  if (maxLength > 0 && out.length > maxLength) {
    let cut = out.substring(0, maxLength);
    // Prefer ending at a word boundary, so "hello-world" cut to 8 gives
    // "hello", not "hello-wo".
    if (separator.length > 0 && out.substr(maxLength, separator.length) != separator) {
      const at = cut.lastIndexOf(separator);
      if (at > 0) cut = cut.substring(0, at);
    }
    while (separator.length > 0 && cut.endsWith(separator)) cut = cut.substring(0, cut.length - separator.length);
    out = cut;
  }
  return out;
}
