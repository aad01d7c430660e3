// Checks a result against the ABI rules a provider bug most often breaks,
// before it is sent: a result the host rejects counts as an ABI violation
// and costs the instance, while a rejected result here becomes an internal
// error with a log line naming the problem. The host's full validation
// (abi/ABI.md §7) still applies; this is not all of it.

import {
  ChangesResult,
  CompleteResult,
  Describe,
  ListResult,
  ReadResult,
  TemplatesResult,
  URIRoot,
} from "./types";

export const MAX_ITEMS = 1000;
export const MAX_VALUES = 100;
export const MAX_CURSOR = 1024;
export const MAX_URI = 2048;
export const MAX_TEXT_FIELD = 4096;

function indexOfAny(s: string, chars: string, from: i32): i32 {
  for (let i = from; i < s.length; i++) if (chars.indexOf(s.charAt(i)) >= 0) return i;
  return s.length;
}

/** Whether uri lies in one of roots (abi/ABI.md §6.1). */
export function inSpace(uri: string, roots: URIRoot[]): bool {
  const colon = uri.indexOf(":");
  if (colon <= 0) return false;
  const scheme = uri.substring(0, colon).toLowerCase();
  let rest = uri.substring(colon + 1);
  let hasAuthority = false;
  let authority = "";
  if (rest.startsWith("//")) {
    const end = indexOfAny(rest, "/?#", 2);
    hasAuthority = true;
    authority = rest.substring(2, end);
    rest = rest.substring(end);
  }
  const path = rest.substring(0, indexOfAny(rest, "?#", 0));
  for (let i = 0; i < roots.length; i++) {
    const r = roots[i];
    if (scheme != r.scheme.toLowerCase()) continue;
    if (r.authority.length == 0) {
      if (hasAuthority && authority.length > 0) continue;
    } else if (r.authority != "*") {
      if (!hasAuthority || authority.toLowerCase() != r.authority.toLowerCase()) continue;
    }
    const p = r.pathPrefix;
    if (p.length > 0 && path != p && !(path.startsWith(p) && (p.endsWith("/") || path.charAt(p.length) == "/"))) continue;
    return true;
  }
  return false;
}

function utf8Len(s: string): i32 {
  return String.UTF8.byteLength(s);
}

function checkURI(uri: string, roots: URIRoot[], what: string): string {
  if (utf8Len(uri) > MAX_URI) return what + " is longer than " + MAX_URI.toString() + " bytes";
  if (!inSpace(uri, roots)) return what + ' "' + uri + "\" is outside the provider's uriSpace";
  return "";
}

function checkCount(n: i32, what: string, max: i32): string {
  return n > max ? n.toString() + " " + what + " (at most " + max.toString() + ")" : "";
}

function checkCursor(c: string): string {
  return utf8Len(c) > MAX_CURSOR ? "cursor is longer than " + MAX_CURSOR.toString() + " bytes" : "";
}

function checkName(n: string, what: string): string {
  const len = utf8Len(n);
  return len == 0 || len > MAX_TEXT_FIELD ? what + " name must be 1 to " + MAX_TEXT_FIELD.toString() + " bytes" : "";
}

const OPERATIONS = ["list", "templates", "read", "complete", "changes"];

/** "" if d is acceptable, else what is wrong. */
export function checkDescribe(d: Describe): string {
  const name = d.name;
  let ok = name.length > 0 && name.length <= 64;
  for (let i = 0; ok && i < name.length; i++) {
    const c = name.charCodeAt(i);
    const alnum = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
    ok = alnum || (i > 0 && (c == 0x2e || c == 0x5f || c == 0x2d));
  }
  if (!ok) return 'name "' + name + '" must be 1-64 of [a-z0-9._-], starting with a letter or digit';
  if (d.version.length == 0 || utf8Len(d.version) > 64) return "version must be 1 to 64 bytes";
  if (d.uriSpace.length == 0 || d.uriSpace.length > 32) return "uriSpace must hold 1 to 32 roots";
  for (let i = 0; i < d.uriSpace.length; i++) {
    const s = d.uriSpace[i].scheme;
    let good = s.length > 0 && s.length <= 32 && s.charCodeAt(0) >= 0x61 && s.charCodeAt(0) <= 0x7a;
    for (let k = 0; good && k < s.length; k++) {
      const c = s.charCodeAt(k);
      good = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c == 0x2b || c == 0x2e || c == 0x2d;
    }
    if (!good) return 'scheme "' + s + '" must be lower case [a-z][a-z0-9+.-]*, at most 32 bytes';
  }
  if (d.operations.length == 0) return 'operations is empty: name the operations the provider serves ("list", "read", ...)';
  for (let i = 0; i < d.operations.length; i++) {
    if (!OPERATIONS.includes(d.operations[i])) return 'unknown operation "' + d.operations[i] + '"';
    if (d.operations.indexOf(d.operations[i]) != i) return 'operation "' + d.operations[i] + '" is listed twice';
  }
  return "";
}

export function checkList(r: ListResult, roots: URIRoot[]): string {
  let e = checkCount(r.resources.length, "resources", MAX_ITEMS);
  for (let i = 0; e.length == 0 && i < r.resources.length; i++) {
    const x = r.resources[i];
    e = checkURI(x.uri, roots, "resource uri");
    if (e.length == 0) e = checkName(x.name, "resource");
  }
  return e.length > 0 ? e : checkCursor(r.nextCursor);
}

export function checkTemplates(r: TemplatesResult): string {
  let e = checkCount(r.resourceTemplates.length, "templates", MAX_ITEMS);
  for (let i = 0; e.length == 0 && i < r.resourceTemplates.length; i++) {
    const t = r.resourceTemplates[i];
    let printable = t.uriTemplate.length > 0;
    for (let k = 0; printable && k < t.uriTemplate.length; k++) {
      const c = t.uriTemplate.charCodeAt(k);
      printable = c > 0x20 && c < 0x7f;
    }
    if (!printable) e = 'uriTemplate "' + t.uriTemplate + '" must be printable ASCII';
    if (e.length == 0) e = checkName(t.name, "template");
  }
  return e.length > 0 ? e : checkCursor(r.nextCursor);
}

export function checkRead(r: ReadResult, roots: URIRoot[]): string {
  if (r.contents.length == 0) return "contents is empty: call notFound and return null instead";
  let e = checkCount(r.contents.length, "contents", MAX_ITEMS);
  for (let i = 0; e.length == 0 && i < r.contents.length; i++) {
    const c = r.contents[i];
    e = checkURI(c.uri, roots, "content uri");
    if (e.length == 0 && (c.text == null) == (c.blob == null)) e = "content " + c.uri + " must have exactly one of text and blob";
  }
  return e;
}

export function checkComplete(r: CompleteResult): string {
  const e = checkCount(r.values.length, "values", MAX_VALUES);
  if (e.length > 0) return e;
  if (r.total >= 0 && r.total < r.values.length) return "total is less than the number of values";
  return "";
}

export function checkChanges(r: ChangesResult, roots: URIRoot[]): string {
  let e = checkCount(r.updated.length, "updated URIs", MAX_ITEMS);
  for (let i = 0; e.length == 0 && i < r.updated.length; i++) e = checkURI(r.updated[i], roots, "updated uri");
  return e.length > 0 ? e : checkCursor(r.cursor);
}
