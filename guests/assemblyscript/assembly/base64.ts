// Standard, padded base64 (RFC 4648 §4): blob contents and HTTP bodies.

import { ByteBuffer } from "./buffer";

const TABLE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Appends data as a quoted base64 JSON string. */
export function writeBase64(b: ByteBuffer, data: Uint8Array): void {
  const n = data.length;
  b.reserve(2 + ((n + 2) / 3) * 4);
  b.byte(0x22);
  for (let i = 0; i < n; i += 3) {
    const v = (<u32>data[i] << 16) | (i + 1 < n ? <u32>data[i + 1] << 8 : 0) | (i + 2 < n ? <u32>data[i + 2] : 0);
    b.byte(<u8>TABLE.charCodeAt((v >> 18) & 63));
    b.byte(<u8>TABLE.charCodeAt((v >> 12) & 63));
    b.byte(i + 1 < n ? <u8>TABLE.charCodeAt((v >> 6) & 63) : 0x3d);
    b.byte(i + 2 < n ? <u8>TABLE.charCodeAt(v & 63) : 0x3d);
  }
  b.byte(0x22);
}

/** The base64 encoding of data, unquoted. */
export function encodeBase64(data: Uint8Array): string {
  const b = new ByteBuffer(2 + ((data.length + 2) / 3) * 4);
  writeBase64(b, data);
  return String.UTF8.decodeUnsafe(b.ptr + 1, <usize>(b.length - 2));
}

function sextet(c: i32): i32 {
  if (c >= 0x41 && c <= 0x5a) return c - 0x41;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 26;
  if (c >= 0x30 && c <= 0x39) return c - 0x30 + 52;
  if (c == 0x2b) return 62;
  if (c == 0x2f) return 63;
  return -1;
}

/** Decodes standard padded base64, or returns null if it is malformed. */
export function decodeBase64(s: string): Uint8Array | null {
  const n = s.length;
  if (n % 4 != 0) return null;
  let pad = 0;
  if (n > 0 && s.charCodeAt(n - 1) == 0x3d) pad++;
  if (n > 1 && s.charCodeAt(n - 2) == 0x3d) pad++;
  const out = new Uint8Array((n / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < n; i += 4) {
    const last = i + 4 == n;
    const p = last ? pad : 0;
    let v: u32 = 0;
    for (let k = 0; k < 4; k++) {
      let x = 0;
      if (k < 4 - p) {
        x = sextet(s.charCodeAt(i + k));
        if (x < 0) return null;
      }
      v = (v << 6) | <u32>x;
    }
    out[o++] = <u8>(v >> 16);
    if (p < 2) out[o++] = <u8>(v >> 8);
    if (p < 1) out[o++] = <u8>v;
  }
  return out;
}
