// The call path: read the host's input, decode it, call the provider, check
// and encode its result, and write it back with one output_write.

import { ByteBuffer } from "./buffer";
import * as check from "./check";
import { INTERNAL, INVALID_PARAMS, ProviderError, takeError } from "./errors";
import { input_read, Level, log, output_write } from "./host";
import { Kind, Obj, parse, parseError, Value } from "./json";
import { current, Provider } from "./provider";
import {
  ChangesRequest,
  CompleteRequest,
  encodeChanges,
  encodeComplete,
  encodeDescribe,
  encodeList,
  encodeRead,
  encodeTemplates,
  URIRoot,
} from "./types";

export const OP_DESCRIBE = 0;
export const OP_LIST = 1;
export const OP_TEMPLATES = 2;
export const OP_READ = 3;
export const OP_COMPLETE = 4;
export const OP_CHANGES = 5;

const OP_NAMES = ["describe", "list", "templates", "read", "complete", "changes"];

export const STATUS_OK = 0;
export const STATUS_ERROR = 1;

/** The largest output buffer kept for the next call. */
const KEEP_BUFFER = 64 << 10;

let out = new ByteBuffer(1024);
let ready = false;
let describeJSON: ByteBuffer | null = null;
let describeError: ProviderError | null = null;
let declared = new StaticArray<bool>(6);
let roots: URIRoot[] = [];

function prepare(p: Provider): void {
  ready = true;
  const d = p.describe();
  const why = check.checkDescribe(d);
  if (why.length > 0) {
    describeError = new ProviderError(INTERNAL, "describe output is invalid: " + why + ": fix the provider");
    return;
  }
  for (let i = 0; i < d.operations.length; i++) declared[OP_NAMES.indexOf(d.operations[i])] = true;
  roots = d.uriSpace;
  const b = new ByteBuffer(256);
  encodeDescribe(b, d);
  describeJSON = b;
}

function writeError(e: ProviderError): i32 {
  out.length = 0;
  const o = new Obj(out);
  o.str("code", e.code);
  let msg = e.message;
  if (String.UTF8.byteLength(msg) > check.MAX_TEXT_FIELD) {
    // Cut at a character boundary, below the ABI's bound in UTF-8 bytes.
    let n = min(msg.length, check.MAX_TEXT_FIELD);
    while (n > 0 && String.UTF8.byteLength(msg.substring(0, n)) > check.MAX_TEXT_FIELD) n -= 64;
    msg = msg.substring(0, max(n, 0));
  }
  o.optStr("message", msg);
  o.end();
  return STATUS_ERROR;
}

function rejected(op: i32, why: string): i32 {
  const e = new ProviderError(INTERNAL, OP_NAMES[op] + " result rejected before sending: " + why + ": fix the provider");
  log(Level.Error, "mcpw: " + e.message);
  return writeError(e);
}

/** The error for a provider that returned null. */
function failed(op: i32): i32 {
  const e = takeError();
  if (e != null) return writeError(e);
  return writeError(new ProviderError(INTERNAL, OP_NAMES[op] + " returned null without calling notFound, invalidParams or internalError"));
}

function str(v: Value, name: string): string | null {
  const m = v.get(name);
  if (m == null || m.kind == Kind.Null) return "";
  if (m.kind != Kind.String) return null;
  return m.text;
}

function badInput(why: string): i32 {
  return writeError(new ProviderError(INVALID_PARAMS, "decode input: " + why));
}

/** Runs one call; leaves the output in out and returns the status. */
export function dispatch(op: i32, input: Value | null): i32 {
  out.length = 0;
  takeError();
  const p = current();
  if (p == null) return writeError(new ProviderError(INTERNAL, "no provider registered: call register() in the module's top-level code"));
  if (!ready) prepare(p);
  const de = describeError;
  if (de != null) {
    log(Level.Error, "mcpw: " + de.message);
    return writeError(de);
  }
  if (op == OP_DESCRIBE) {
    const d = describeJSON!;
    out.bytes(d.ptr, d.length);
    return STATUS_OK;
  }
  if (!declared[op]) return writeError(new ProviderError(INVALID_PARAMS, 'operation "' + OP_NAMES[op] + '" is not declared by this provider'));
  if (input == null) return badInput(parseError);
  if (input.kind != Kind.Object) return badInput("input is not a JSON object");
  if (op == OP_LIST || op == OP_TEMPLATES) {
    const cursor = str(input, "cursor");
    if (cursor == null) return badInput('member "cursor" is not a string');
    if (op == OP_LIST) {
      const r = p.list(cursor);
      if (r == null) return failed(op);
      const why = check.checkList(r, roots);
      if (why.length > 0) return rejected(op, why);
      encodeList(out, r);
    } else {
      const r = p.templates(cursor);
      if (r == null) return failed(op);
      const why = check.checkTemplates(r);
      if (why.length > 0) return rejected(op, why);
      encodeTemplates(out, r);
    }
    return STATUS_OK;
  }
  if (op == OP_READ) {
    const uri = str(input, "uri");
    if (uri == null || uri.length == 0) return badInput("read request without a uri");
    const r = p.read(uri);
    if (r == null) return failed(op);
    const why = check.checkRead(r, roots);
    if (why.length > 0) return rejected(op, why);
    // Nothing can fail after this: every body handed to the host is
    // referred to exactly once, as ABI §6.3 requires.
    encodeRead(out, r, true);
    return STATUS_OK;
  }
  if (op == OP_COMPLETE) {
    const req = decodeComplete(input);
    if (req == null) return badInput("malformed complete request");
    const r = p.complete(req);
    if (r == null) return failed(op);
    const why = check.checkComplete(r);
    if (why.length > 0) return rejected(op, why);
    encodeComplete(out, r);
    return STATUS_OK;
  }
  const req = decodeChanges(input);
  if (req == null) return badInput("malformed changes request");
  const r = p.changes(req);
  if (r == null) return failed(op);
  const why = check.checkChanges(r, roots);
  if (why.length > 0) return rejected(op, why);
  encodeChanges(out, r);
  return STATUS_OK;
}

function decodeComplete(v: Value): CompleteRequest | null {
  const req = new CompleteRequest();
  const t = str(v, "template");
  if (t == null) return null;
  req.template = t;
  const a = v.get("argument");
  if (a != null && a.kind == Kind.Object) {
    const name = str(a, "name");
    const value = str(a, "value");
    if (name == null || value == null) return null;
    req.argument.name = name;
    req.argument.value = value;
  } else if (a != null && a.kind != Kind.Null) return null;
  const args = v.get("arguments");
  if (args != null && args.kind == Kind.Object) {
    for (let i = 0; i < args.keys.length; i++) {
      if (args.items[i].kind != Kind.String) return null;
      req.argumentNames.push(args.keys[i]);
      req.argumentValues.push(args.items[i].text);
    }
  } else if (args != null && args.kind != Kind.Null) return null;
  return req;
}

function decodeChanges(v: Value): ChangesRequest | null {
  const req = new ChangesRequest();
  const c = str(v, "cursor");
  if (c == null) return null;
  req.cursor = c;
  const paths = v.get("paths");
  if (paths != null && paths.kind == Kind.Array) {
    for (let i = 0; i < paths.items.length; i++) {
      if (paths.items[i].kind != Kind.String) return null;
      req.paths.push(paths.items[i].text);
    }
  } else if (paths != null && paths.kind != Kind.Null) return null;
  return req;
}

/** Reads the input, runs the call, writes the output: the body of every export. */
export function serve(op: i32, inLen: i32): i32 {
  let input: Value | null = null;
  if (op != OP_DESCRIBE) {
    const n = max(inLen, 0);
    const buf = new StaticArray<u8>(n);
    let got = n > 0 ? input_read(changetype<usize>(buf), n) : 0;
    got = min(max(got, 0), n);
    let blank = true;
    for (let i = 0; blank && i < got; i++) {
      const c = buf[i];
      blank = c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d;
    }
    if (blank) {
      const empty = new Value(); // an absent input is the empty request
      empty.kind = Kind.Object;
      input = empty;
    } else {
      input = parse(changetype<usize>(buf), got);
    }
  }
  const status = dispatch(op, input);
  // On -2 (over the output cap) the host fails the call; nothing to do.
  output_write(out.ptr, out.length);
  if (out.data.length > KEEP_BUFFER) out = new ByteBuffer(1024);
  return status;
}
