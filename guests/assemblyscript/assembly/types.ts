// The ABI's payloads (abi/ABI.md §6) as classes, with their encoders.
//
// Optional strings are "" when absent and left out of the JSON (as the Go
// SDK does). Optional numbers use a sentinel: size and total are -1, and
// priority is NaN, when absent.

import { ByteBuffer } from "./buffer";
import { content_write } from "./host";
import { Obj, writeFloat, writeUTF8 } from "./json";
import { writeBase64 } from "./base64";

/** One root of the URI space: a scheme, optionally an authority ("*": any) and a path prefix. */
export class URIRoot {
  authority: string = "";
  pathPrefix: string = "";
  constructor(public scheme: string) {}
}

export class FSRequest {
  reason: string = "";
  constructor(public path: string) {}
}

export class ConfigRequest {
  secret: bool = false;
  required: bool = false;
  reason: string = "";
  constructor(public key: string) {}
}

export class HTTPRequest {
  reason: string = "";
  constructor(public prefix: string) {}
}

/** Capabilities asked of the operator (ABI §10). Asking grants nothing. */
export class Requests {
  filesystem: FSRequest[] = [];
  config: ConfigRequest[] = [];
  http: HTTPRequest[] = [];
  clock: bool = false;
  random: bool = false;
}

/** How long a client may reuse a result (ms) and by whom ("public" or "private"). */
export class CacheHint {
  constructor(public ttlMs: i64, public scope: string) {}
}

/** The output of describe. operations must name every operation the provider serves. */
export class Describe {
  title: string = "";
  description: string = "";
  uriSpace: URIRoot[] = [];
  operations: string[] = [];
  requests: Requests | null = null;
  cache: CacheHint | null = null;
  constructor(public name: string, public version: string) {}
}

export class Annotations {
  /** "user" and/or "assistant". */
  audience: string[] = [];
  /** In [0, 1]; NaN leaves it out (0 is kept). */
  priority: f64 = NaN;
  /** An RFC 3339 timestamp. */
  lastModified: string = "";
}

export class Icon {
  mimeType: string = "";
  sizes: string[] = [];
  theme: string = "";
  constructor(public src: string) {}
}

export class Resource {
  title: string = "";
  description: string = "";
  mimeType: string = "";
  /** Size in bytes of the raw content; -1 leaves it out (0 is kept). */
  size: i64 = -1;
  annotations: Annotations | null = null;
  icons: Icon[] = [];
  constructor(public uri: string, public name: string) {}
}

export class ListResult {
  /** Empty on the last page. */
  nextCursor: string = "";
  cache: CacheHint | null = null;
  constructor(public resources: Resource[] = []) {}
}

export class ResourceTemplate {
  title: string = "";
  description: string = "";
  mimeType: string = "";
  annotations: Annotations | null = null;
  icons: Icon[] = [];
  constructor(public uriTemplate: string, public name: string) {}
}

export class TemplatesResult {
  nextCursor: string = "";
  cache: CacheHint | null = null;
  constructor(public resourceTemplates: ResourceTemplate[] = []) {}
}

/** One content of a read result: exactly one of text and blob is set. */
export class Content {
  mimeType: string = "";
  text: string | null = null;
  blob: Uint8Array | null = null;
  annotations: Annotations | null = null;
  constructor(public uri: string) {}
}

/**
 * A text content (an empty text is still sent). Its UTF-8 bytes are handed
 * to the host as they are (rawText, ABI §6.3), not JSON-escaped in the
 * guest; a text with a lone surrogate is sent escaped, the surrogate as
 * U+FFFD.
 */
export function textContent(uri: string, mimeType: string, text: string): Content {
  const c = new Content(uri);
  c.mimeType = mimeType;
  c.text = text;
  return c;
}

/** A binary content. Its bytes are handed to the host as they are (rawBlob, ABI §6.3), not base64-encoded in the guest. */
export function blobContent(uri: string, mimeType: string, data: Uint8Array): Content {
  const c = new Content(uri);
  c.mimeType = mimeType;
  c.blob = data;
  return c;
}

export class ReadResult {
  cache: CacheHint | null = null;
  constructor(public contents: Content[] = []) {}
}

/** The argument being completed and its partial value. */
export class CompleteArgument {
  name: string = "";
  value: string = "";
}

/** The input of complete. */
export class CompleteRequest {
  template: string = "";
  argument: CompleteArgument = new CompleteArgument();
  /** Other arguments the client already resolved: names and values, in the order sent. */
  argumentNames: string[] = [];
  argumentValues: string[] = [];
}

export class CompleteResult {
  /** -1 leaves it out. */
  total: i64 = -1;
  hasMore: bool = false;
  constructor(public values: string[] = []) {}
}

/** The input of changes (ABI §11). */
export class ChangesRequest {
  /** What this provider returned last time; empty on the first call. */
  cursor: string = "";
  /** Guest paths the host saw change (only with a watched directory). */
  paths: string[] = [];
}

export class ChangesResult {
  cursor: string = "";
  updated: string[] = [];
  listChanged: bool = false;
}

// ---- Encoders ----

function writeCache(o: Obj, c: CacheHint | null): void {
  if (c == null) return;
  const h = new Obj(o.key("cache"));
  h.int("ttlMs", c.ttlMs);
  h.str("scope", c.scope);
  h.end();
}

function writeAnnotations(o: Obj, a: Annotations | null): void {
  if (a == null) return;
  const m = new Obj(o.key("annotations"));
  if (a.audience.length > 0) m.strs("audience", a.audience);
  if (!isNaN(a.priority)) writeFloat(m.key("priority"), a.priority);
  m.optStr("lastModified", a.lastModified);
  m.end();
}

function writeIcons(o: Obj, icons: Icon[]): void {
  if (icons.length == 0) return;
  const b = o.key("icons");
  b.byte(0x5b);
  for (let i = 0; i < icons.length; i++) {
    if (i > 0) b.byte(0x2c);
    const m = new Obj(b);
    m.str("src", icons[i].src);
    m.optStr("mimeType", icons[i].mimeType);
    if (icons[i].sizes.length > 0) m.strs("sizes", icons[i].sizes);
    m.optStr("theme", icons[i].theme);
    m.end();
  }
  b.byte(0x5d);
}

function comma(b: ByteBuffer, i: i32): void {
  if (i > 0) b.byte(0x2c);
}

export function encodeDescribe(b: ByteBuffer, d: Describe): void {
  const o = new Obj(b);
  o.str("name", d.name);
  o.str("version", d.version);
  o.optStr("title", d.title);
  o.optStr("description", d.description);
  const s = o.key("uriSpace");
  s.byte(0x5b);
  for (let i = 0; i < d.uriSpace.length; i++) {
    comma(s, i);
    const m = new Obj(s);
    m.str("scheme", d.uriSpace[i].scheme);
    m.optStr("authority", d.uriSpace[i].authority);
    m.optStr("pathPrefix", d.uriSpace[i].pathPrefix);
    m.end();
  }
  s.byte(0x5d);
  o.strs("operations", d.operations);
  const r = d.requests;
  if (r != null) encodeRequests(o.key("requests"), r);
  writeCache(o, d.cache);
  o.end();
}

function encodeRequests(b: ByteBuffer, r: Requests): void {
  const o = new Obj(b);
  if (r.filesystem.length > 0) {
    const a = o.key("filesystem");
    a.byte(0x5b);
    for (let i = 0; i < r.filesystem.length; i++) {
      comma(a, i);
      const m = new Obj(a);
      m.str("path", r.filesystem[i].path);
      m.optStr("reason", r.filesystem[i].reason);
      m.end();
    }
    a.byte(0x5d);
  }
  if (r.config.length > 0) {
    const a = o.key("config");
    a.byte(0x5b);
    for (let i = 0; i < r.config.length; i++) {
      comma(a, i);
      const c = r.config[i];
      const m = new Obj(a);
      m.str("key", c.key);
      if (c.secret) m.bool("secret", true);
      if (c.required) m.bool("required", true);
      m.optStr("reason", c.reason);
      m.end();
    }
    a.byte(0x5d);
  }
  if (r.http.length > 0) {
    const a = o.key("http");
    a.byte(0x5b);
    for (let i = 0; i < r.http.length; i++) {
      comma(a, i);
      const m = new Obj(a);
      m.str("prefix", r.http[i].prefix);
      m.optStr("reason", r.http[i].reason);
      m.end();
    }
    a.byte(0x5d);
  }
  if (r.clock) o.bool("clock", true);
  if (r.random) o.bool("random", true);
  o.end();
}

export function encodeList(b: ByteBuffer, r: ListResult): void {
  const o = new Obj(b);
  const a = o.key("resources");
  a.byte(0x5b);
  for (let i = 0; i < r.resources.length; i++) {
    comma(a, i);
    const x = r.resources[i];
    const m = new Obj(a);
    m.str("uri", x.uri);
    m.str("name", x.name);
    m.optStr("title", x.title);
    m.optStr("description", x.description);
    m.optStr("mimeType", x.mimeType);
    if (x.size >= 0) m.int("size", x.size);
    writeAnnotations(m, x.annotations);
    writeIcons(m, x.icons);
    m.end();
  }
  a.byte(0x5d);
  o.optStr("nextCursor", r.nextCursor);
  writeCache(o, r.cache);
  o.end();
}

export function encodeTemplates(b: ByteBuffer, r: TemplatesResult): void {
  const o = new Obj(b);
  const a = o.key("resourceTemplates");
  a.byte(0x5b);
  for (let i = 0; i < r.resourceTemplates.length; i++) {
    comma(a, i);
    const t = r.resourceTemplates[i];
    const m = new Obj(a);
    m.str("uriTemplate", t.uriTemplate);
    m.str("name", t.name);
    m.optStr("title", t.title);
    m.optStr("description", t.description);
    m.optStr("mimeType", t.mimeType);
    writeAnnotations(m, t.annotations);
    writeIcons(m, t.icons);
    m.end();
  }
  a.byte(0x5d);
  o.optStr("nextCursor", r.nextCursor);
  writeCache(o, r.cache);
  o.end();
}

/**
 * Hands s's UTF-8 bytes to the host (content_write) and returns their index,
 * or a negative number: -1 if s holds a lone surrogate (no UTF-8 form), -2
 * past the output limit. The bytes are staged past the end of b.
 */
function rawText(b: ByteBuffer, s: string): i32 {
  const start = b.length;
  const n = writeUTF8(b, s);
  if (n < 0) return -1;
  const idx = content_write(b.ptr + <usize>start, n);
  b.length = start;
  return idx;
}

/**
 * Appends r's JSON to b. With raw (the SDK's read, in a wasm guest, ABI
 * §6.3), each content's bytes are handed to the host as they are and the
 * content refers to them as "rawText" or "rawBlob": no escaping or base64
 * here, none for the host to undo. A text with a lone surrogate, or a body
 * the host refuses (past the output limit, where the call fails anyway), is
 * written inline, as it is without raw: "text" escaped, "blob" in base64.
 * Pass raw only while serving read: each body must be referred to exactly
 * once, by the result of that call.
 */
export function encodeRead(b: ByteBuffer, r: ReadResult, raw: bool = false): void {
  const o = new Obj(b);
  const a = o.key("contents");
  a.byte(0x5b);
  for (let i = 0; i < r.contents.length; i++) {
    comma(a, i);
    const c = r.contents[i];
    const m = new Obj(a);
    m.str("uri", c.uri);
    m.optStr("mimeType", c.mimeType);
    const text = c.text;
    const blob = c.blob;
    if (text != null) {
      const n = raw ? rawText(b, text) : -1;
      if (n >= 0) m.int("rawText", n);
      else m.str("text", text);
    } else if (blob != null) {
      const n = raw ? content_write(blob.dataStart, blob.length) : -1;
      if (n >= 0) m.int("rawBlob", n);
      else writeBase64(m.key("blob"), blob);
    }
    writeAnnotations(m, c.annotations);
    m.end();
  }
  a.byte(0x5d);
  writeCache(o, r.cache);
  o.end();
}

export function encodeComplete(b: ByteBuffer, r: CompleteResult): void {
  const o = new Obj(b);
  o.strs("values", r.values);
  if (r.total >= 0) o.int("total", r.total);
  if (r.hasMore) o.bool("hasMore", true);
  o.end();
}

export function encodeChanges(b: ByteBuffer, r: ChangesResult): void {
  const o = new Obj(b);
  o.optStr("cursor", r.cursor);
  if (r.updated.length > 0) o.strs("updated", r.updated);
  if (r.listChanged) o.bool("listChanged", true);
  o.end();
}
