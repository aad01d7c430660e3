// Outbound HTTP through the host (abi/ABI.md §4.4).
//
// A module that calls httpFetch imports mcpw_v1.http_fetch, so it loads
// only where the operator granted outbound HTTP; a module that never calls
// it does not import it. Declare the URL prefixes you need in describe's
// requests.http.

import { decodeBase64 } from "./base64";
import { ByteBuffer } from "./buffer";
import { Kind, Obj, parse, parseError } from "./json";

// @ts-ignore: decorator
@external("mcpw_v1", "http_fetch")
declare function http_fetch(ptr: usize, len: i32): i32;

// @ts-ignore: decorator
@external("mcpw_v1", "http_read")
declare function http_read(ptr: usize, len: i32): i32;

/** A request for the host to send. The host sets Host, Content-Length and the hop-by-hop headers itself. */
export class FetchRequest {
  /** "GET" (when empty), "HEAD" or "POST". */
  method: string = "";
  headerNames: string[] = [];
  headerValues: string[] = [];
  /** Sent only with POST. */
  body: string = "";
  constructor(public url: string) {}

  /** Adds a header and returns the request. */
  header(name: string, value: string): FetchRequest {
    this.headerNames.push(name);
    this.headerValues.push(value);
    return this;
  }
}

/** The host's reason for not answering: code is denied, invalid, too_large, timeout, network or limit. */
export class FetchError {
  constructor(public code: string, public message: string) {}
}

/** An HTTP response (any status, 4xx and 5xx included), or the host's refusal in error. */
export class FetchResponse {
  status: i32 = 0;
  /** Lower-case names; repeated headers are joined with ", ". */
  headerNames: string[] = [];
  headerValues: string[] = [];
  body: Uint8Array = new Uint8Array(0);
  /** Set when there is no response. */
  error: FetchError | null = null;

  /** The value of header name (lower case), or null. */
  header(name: string): string | null {
    const i = this.headerNames.indexOf(name);
    return i < 0 ? null : this.headerValues[i];
  }

  /** The body decoded as UTF-8. */
  text(): string {
    return String.UTF8.decodeUnsafe(this.body.dataStart, <usize>this.body.length);
  }
}

function encodeRequest(b: ByteBuffer, req: FetchRequest): void {
  const o = new Obj(b);
  o.optStr("method", req.method);
  o.str("url", req.url);
  if (req.headerNames.length > 0) {
    const h = new Obj(o.key("headers"));
    for (let i = 0; i < req.headerNames.length; i++) h.str(req.headerNames[i], req.headerValues[i]);
    h.end();
  }
  o.optStr("body", req.body);
  o.end();
}

function sdkError(r: FetchResponse, why: string): FetchResponse {
  r.error = new FetchError("invalid", "mcpw: host response: " + why);
  return r;
}

/**
 * Sends req through the host, which sends it only if the operator's grant
 * allows its method, scheme, host, port and path (and every redirect, and
 * the address it connects to). Check the result's error first.
 */
export function httpFetch(req: FetchRequest): FetchResponse {
  const b = new ByteBuffer(256);
  encodeRequest(b, req);
  const n = http_fetch(b.ptr, b.length);
  const buf = new StaticArray<u8>(max(n, 0));
  const got = n > 0 ? min(max(http_read(changetype<usize>(buf), n), 0), n) : 0;
  return decodeResponse(changetype<usize>(buf), got);
}

/** Decodes a FetchResponse (exported for tests). */
export function decodeResponse(ptr: usize, len: i32): FetchResponse {
  const r = new FetchResponse();
  const v = parse(ptr, len);
  if (v == null) return sdkError(r, parseError);
  const e = v.get("error");
  if (e != null) {
    const code = e.get("code");
    const msg = e.get("message");
    r.error = new FetchError(code != null ? code.text : "", msg != null ? msg.text : "");
    return r;
  }
  const status = v.get("status");
  if (status == null || status.kind != Kind.Number) return sdkError(r, "neither a response nor an error");
  r.status = I32.parseInt(status.text);
  if (r.status < 100 || r.status > 999) return sdkError(r, "bad status " + status.text);
  const h = v.get("headers");
  if (h != null && h.kind == Kind.Object) {
    for (let i = 0; i < h.keys.length; i++) {
      r.headerNames.push(h.keys[i]);
      r.headerValues.push(h.items[i].text);
    }
  }
  const body = v.get("body");
  if (body != null && body.kind == Kind.String) r.body = Uint8Array.wrap(String.UTF8.encode(body.text));
  const b64 = v.get("bodyBase64");
  if (b64 != null && b64.kind == Kind.String) {
    const d = decodeBase64(b64.text);
    if (d == null) return sdkError(r, "bad bodyBase64");
    r.body = d;
  }
  return r;
}
