// A small JSON encoder and decoder, enough for the ABI's payloads.
//
// AssemblyScript strings are UTF-16; the host wants UTF-8 and refuses lone
// surrogates. The encoder converts as it escapes and writes a lone
// surrogate as U+FFFD. The decoder is a complete, validating RFC 8259
// parser over the input bytes (escapes, surrogate pairs, nesting bounded at
// 64): a malformed input is an invalid_params error, never a trap.

import { ByteBuffer } from "./buffer";

const HEX = "0123456789abcdef";

/** Appends s as a quoted JSON string in UTF-8. */
export function writeString(b: ByteBuffer, s: string): void {
  const n = s.length;
  const src = changetype<usize>(s);
  b.byte(0x22);
  // In chunks, each with room for its worst case (6 bytes per UTF-16 unit,
  // for \u00XX), written with plain stores: a call or a bounds check per
  // byte is what a guest pays most for.
  for (let i = 0; i < n; ) {
    const end = min(n, i + 4096);
    b.reserve((end - i) * 6 + 4);
    let p = b.ptr + <usize>b.length;
    const start = p;
    for (; i < end; i++) {
      let c = <u32>load<u16>(src + (<usize>i << 1));
      if (c < 0x80) {
        if (c >= 0x20 && c != 0x22 && c != 0x5c) {
          store<u8>(p++, <u8>c);
          continue;
        }
        store<u8>(p++, 0x5c);
        if (c == 0x22 || c == 0x5c) store<u8>(p++, <u8>c);
        else if (c == 0x0a) store<u8>(p++, 0x6e);
        else if (c == 0x0d) store<u8>(p++, 0x72);
        else if (c == 0x09) store<u8>(p++, 0x74);
        else {
          store<u8>(p, 0x75);
          store<u8>(p + 1, 0x30);
          store<u8>(p + 2, 0x30);
          store<u8>(p + 3, <u8>HEX.charCodeAt(c >> 4));
          store<u8>(p + 4, <u8>HEX.charCodeAt(c & 15));
          p += 5;
        }
        continue;
      }
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
        const lo = <u32>load<u16>(src + (<usize>(i + 1) << 1));
        if (lo >= 0xdc00 && lo < 0xe000) {
          c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
          i++;
        }
      }
      if (c >= 0xd800 && c < 0xe000) c = 0xfffd; // a lone surrogate
      if (c < 0x800) {
        store<u8>(p++, <u8>(0xc0 | (c >> 6)));
      } else if (c < 0x10000) {
        store<u8>(p++, <u8>(0xe0 | (c >> 12)));
        store<u8>(p++, <u8>(0x80 | ((c >> 6) & 0x3f)));
      } else {
        store<u8>(p++, <u8>(0xf0 | (c >> 18)));
        store<u8>(p++, <u8>(0x80 | ((c >> 12) & 0x3f)));
        store<u8>(p++, <u8>(0x80 | ((c >> 6) & 0x3f)));
      }
      store<u8>(p++, <u8>(0x80 | (c & 0x3f)));
    }
    b.length += <i32>(p - start);
  }
  b.byte(0x22);
}

/**
 * Appends s in UTF-8, unquoted and unescaped, and returns the number of
 * bytes written; or -1, leaving b as it was, if s holds a lone surrogate
 * (which has no UTF-8 form).
 */
export function writeUTF8(b: ByteBuffer, s: string): i32 {
  const start = b.length;
  const n = s.length;
  const src = changetype<usize>(s);
  for (let i = 0; i < n; ) {
    const end = min(n, i + 4096);
    // 3 bytes per UTF-16 unit, and one more for a pair that ends past end.
    b.reserve((end - i) * 3 + 1);
    let p = b.ptr + <usize>b.length;
    const first = p;
    for (; i < end; i++) {
      // Four ASCII units per step while they last: the host charges every
      // loop iteration (its deadline check), so fewer steps is faster.
      while (i + 4 <= end) {
        const u = load<u64>(src + (<usize>i << 1));
        if ((u & 0xff80ff80ff80ff80) != 0) break;
        store<u32>(p, <u32>((u & 0xff) | ((u >> 8) & 0xff00) | ((u >> 16) & 0xff0000) | ((u >> 24) & 0xff000000)));
        p += 4;
        i += 4;
      }
      if (i >= end) break;
      let c = <u32>load<u16>(src + (<usize>i << 1));
      if (c < 0x80) {
        store<u8>(p++, <u8>c);
        continue;
      }
      if (c < 0x800) {
        store<u8>(p, <u8>(0xc0 | (c >> 6)));
        store<u8>(p + 1, <u8>(0x80 | (c & 0x3f)));
        p += 2;
        continue;
      }
      if (c >= 0xd800 && c < 0xe000) {
        const lo = c < 0xdc00 && i + 1 < n ? <u32>load<u16>(src + (<usize>(i + 1) << 1)) : 0;
        if (lo < 0xdc00 || lo >= 0xe000) {
          b.length = start;
          return -1;
        }
        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        i++;
        store<u8>(p, <u8>(0xf0 | (c >> 18)));
        store<u8>(p + 1, <u8>(0x80 | ((c >> 12) & 0x3f)));
        store<u8>(p + 2, <u8>(0x80 | ((c >> 6) & 0x3f)));
        store<u8>(p + 3, <u8>(0x80 | (c & 0x3f)));
        p += 4;
        continue;
      }
      store<u8>(p, <u8>(0xe0 | (c >> 12)));
      store<u8>(p + 1, <u8>(0x80 | ((c >> 6) & 0x3f)));
      store<u8>(p + 2, <u8>(0x80 | (c & 0x3f)));
      p += 3;
    }
    b.length += <i32>(p - first);
  }
  return b.length - start;
}

/** Appends a finite number; NaN and infinities (JSON has none) become 0. */
export function writeFloat(b: ByteBuffer, v: f64): void {
  if (!isFinite(v)) {
    b.byte(0x30);
    return;
  }
  if (v == Math.floor(v) && Math.abs(v) < 1e15) {
    b.ascii((<i64>v).toString());
    return;
  }
  b.ascii(v.toString());
}

/** Writes a JSON object member by member, adding the commas. */
export class Obj {
  first: bool = true;
  constructor(public b: ByteBuffer) {
    b.byte(0x7b);
  }

  key(name: string): ByteBuffer {
    if (!this.first) this.b.byte(0x2c);
    this.first = false;
    writeString(this.b, name);
    this.b.byte(0x3a);
    return this.b;
  }

  str(name: string, v: string): void {
    writeString(this.key(name), v);
  }

  /** A string member, left out when empty. */
  optStr(name: string, v: string): void {
    if (v.length > 0) this.str(name, v);
  }

  int(name: string, v: i64): void {
    this.key(name).ascii(v.toString());
  }

  bool(name: string, v: bool): void {
    this.key(name).ascii(v ? "true" : "false");
  }

  strs(name: string, v: string[]): void {
    const b = this.key(name);
    b.byte(0x5b);
    for (let i = 0; i < v.length; i++) {
      if (i > 0) b.byte(0x2c);
      writeString(b, v[i]);
    }
    b.byte(0x5d);
  }

  end(): void {
    this.b.byte(0x7d);
  }
}

// ---- Decoding ----

export const enum Kind {
  Null,
  Bool,
  Number,
  String,
  Array,
  Object,
}

/** A decoded JSON value. Numbers keep their text; objects keep member order. */
export class Value {
  kind: Kind = Kind.Null;
  bool: bool = false;
  /** The text of a number, or the value of a string. */
  text: string = "";
  items: Value[] = [];
  keys: string[] = [];

  /** The member name of an object (the first, if repeated), or null. */
  get(name: string): Value | null {
    if (this.kind != Kind.Object) return null;
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] == name) return this.items[i];
    return null;
  }
}

/** The deepest nesting parse accepts. */
export const MAX_DEPTH = 64;

/** Set by a failed parse: what was wrong, and where. */
export let parseError: string = "";

/** Parses the JSON value that fills [ptr, ptr+len), or returns null (see parseError). */
export function parse(ptr: usize, len: i32): Value | null {
  const p = new Parser(ptr, len);
  p.ws();
  const v = p.value();
  if (v == null) {
    parseError = p.err;
    return null;
  }
  p.ws();
  if (p.i != len) {
    parseError = "trailing data at byte " + p.i.toString();
    return null;
  }
  return v;
}

/** Parses a string's UTF-8 bytes (convenient in tests). */
export function parseString(s: string): Value | null {
  const b = String.UTF8.encode(s);
  return parse(changetype<usize>(b), b.byteLength);
}

class Parser {
  i: i32 = 0;
  depth: i32 = 0;
  err: string = "";
  constructor(public ptr: usize, public len: i32) {}

  at(k: i32): u32 {
    return <u32>load<u8>(this.ptr + <usize>k);
  }

  peek(): i32 {
    return this.i < this.len ? <i32>this.at(this.i) : -1;
  }

  fail(what: string): Value | null {
    if (this.err.length == 0) this.err = what + " at byte " + this.i.toString();
    return null;
  }

  ws(): void {
    while (this.i < this.len) {
      const c = this.at(this.i);
      if (c != 0x20 && c != 0x09 && c != 0x0a && c != 0x0d) break;
      this.i++;
    }
  }

  value(): Value | null {
    const c = this.peek();
    if (c == 0x7b) return this.container(true);
    if (c == 0x5b) return this.container(false);
    if (c == 0x22) {
      const s = this.string();
      if (s == null) return null;
      const v = new Value();
      v.kind = Kind.String;
      v.text = s;
      return v;
    }
    if (c == 0x74) return this.literal("true", Kind.Bool, true);
    if (c == 0x66) return this.literal("false", Kind.Bool, false);
    if (c == 0x6e) return this.literal("null", Kind.Null, false);
    if (c == 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    return this.fail(c < 0 ? "unexpected end of input" : "unexpected character");
  }

  literal(word: string, kind: Kind, b: bool): Value | null {
    if (this.i + word.length > this.len) return this.fail("invalid literal");
    for (let k = 0; k < word.length; k++) {
      if (this.at(this.i + k) != <u32>word.charCodeAt(k)) return this.fail("invalid literal");
    }
    this.i += word.length;
    const v = new Value();
    v.kind = kind;
    v.bool = b;
    return v;
  }

  digits(): i32 {
    const start = this.i;
    while (this.i < this.len && this.at(this.i) >= 0x30 && this.at(this.i) <= 0x39) this.i++;
    return this.i - start;
  }

  number(): Value | null {
    const start = this.i;
    if (this.peek() == 0x2d) this.i++;
    if (this.peek() == 0x30) this.i++;
    else if (this.digits() == 0) return this.fail("invalid number");
    if (this.peek() == 0x2e) {
      this.i++;
      if (this.digits() == 0) return this.fail("invalid number");
    }
    if (this.peek() == 0x65 || this.peek() == 0x45) {
      this.i++;
      if (this.peek() == 0x2b || this.peek() == 0x2d) this.i++;
      if (this.digits() == 0) return this.fail("invalid number");
    }
    const v = new Value();
    v.kind = Kind.Number;
    v.text = String.UTF8.decodeUnsafe(this.ptr + <usize>start, <usize>(this.i - start));
    return v;
  }

  container(object: bool): Value | null {
    if (++this.depth > MAX_DEPTH) return this.fail("nesting too deep");
    const close = object ? 0x7d : 0x5d;
    const v = new Value();
    v.kind = object ? Kind.Object : Kind.Array;
    this.i++;
    this.ws();
    if (this.peek() == close) {
      this.i++;
      this.depth--;
      return v;
    }
    for (;;) {
      this.ws();
      if (object) {
        if (this.peek() != 0x22) return this.fail("expected a member name");
        const k = this.string();
        if (k == null) return null;
        this.ws();
        if (this.peek() != 0x3a) return this.fail("expected ':'");
        this.i++;
        this.ws();
        v.keys.push(k);
      }
      const x = this.value();
      if (x == null) return null;
      v.items.push(x);
      this.ws();
      const c = this.peek();
      if (c == 0x2c) {
        this.i++;
      } else if (c == close) {
        this.i++;
        this.depth--;
        return v;
      } else {
        return this.fail(object ? "expected ',' or '}'" : "expected ',' or ']'");
      }
    }
    return null; // not reached
  }

  hex4(): i32 {
    if (this.i + 4 > this.len) return -1;
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = <i32>this.at(this.i + k);
      let d = -1;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x61 + 10;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x41 + 10;
      if (d < 0) return -1;
      v = (v << 4) | d;
    }
    this.i += 4;
    return v;
  }

  // string decodes the string at i (a '"'), or returns null.
  string(): string | null {
    this.i++;
    let out = "";
    for (;;) {
      const start = this.i;
      while (this.i < this.len) {
        const c = this.at(this.i);
        if (c == 0x22 || c == 0x5c || c < 0x20) break;
        this.i++;
      }
      if (this.i > start) {
        const run = this.ptr + <usize>start;
        const n = this.i - start;
        if (!validUTF8(run, n)) {
          this.fail("invalid UTF-8");
          return null;
        }
        out += String.UTF8.decodeUnsafe(run, <usize>n);
      }
      const c = this.peek();
      if (c == 0x22) {
        this.i++;
        return out;
      }
      if (c < 0) {
        this.fail("unterminated string");
        return null;
      }
      if (c != 0x5c) {
        this.fail("control character in string");
        return null;
      }
      this.i++;
      const e = this.peek();
      this.i++;
      if (e == 0x22) out += '"';
      else if (e == 0x5c) out += "\\";
      else if (e == 0x2f) out += "/";
      else if (e == 0x62) out += "\b";
      else if (e == 0x66) out += "\f";
      else if (e == 0x6e) out += "\n";
      else if (e == 0x72) out += "\r";
      else if (e == 0x74) out += "\t";
      else if (e == 0x75) {
        const hi = this.hex4();
        if (hi < 0) {
          this.fail("bad \\u escape");
          return null;
        }
        if (hi >= 0xd800 && hi < 0xe000) {
          // Only a high surrogate followed by a low one is a character.
          if (hi >= 0xdc00 || this.peek() != 0x5c || this.i + 1 >= this.len || this.at(this.i + 1) != 0x75) {
            this.fail("lone surrogate");
            return null;
          }
          this.i += 2;
          const lo = this.hex4();
          if (lo < 0xdc00 || lo >= 0xe000) {
            this.fail("lone surrogate");
            return null;
          }
          out += String.fromCharCode(hi, lo);
        } else {
          out += String.fromCharCode(hi);
        }
      } else {
        this.fail("invalid escape");
        return null;
      }
    }
    return null; // not reached
  }
}

/** Whether [ptr, ptr+n) is valid UTF-8 (no overlongs, surrogates, or code points above U+10FFFF). */
export function validUTF8(ptr: usize, n: i32): bool {
  let i = 0;
  while (i < n) {
    const c = <u32>load<u8>(ptr + <usize>i);
    if (c < 0x80) {
      i++;
      continue;
    }
    let len = 0;
    let lo: u32 = 0x80,
      hi: u32 = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    } else return false;
    if (i + len > n) return false;
    const c1 = <u32>load<u8>(ptr + <usize>(i + 1));
    if (c1 < lo || c1 > hi) return false;
    for (let k = 2; k < len; k++) {
      const ck = <u32>load<u8>(ptr + <usize>(i + k));
      if (ck < 0x80 || ck > 0xbf) return false;
    }
    i += len;
  }
  return true;
}
