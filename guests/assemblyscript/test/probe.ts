// A provider that exercises the SDK for sdk.test.js and sdk_test.go: not an
// example.

import {
  CompleteRequest,
  CompleteResult,
  configGet,
  Describe,
  FetchRequest,
  httpFetch,
  internalError,
  Level,
  ListResult,
  log,
  notFound,
  Provider,
  blobContent,
  Content,
  ReadResult,
  register,
  Resource,
  textContent,
  URIRoot,
} from "../assembly/index";

class Probe extends Provider {
  describe(): Describe {
    const d = new Describe("probe", "1");
    d.uriSpace = [new URIRoot("p")];
    d.operations = ["list", "read", "complete"];
    return d;
  }

  list(cursor: string): ListResult | null {
    log(Level.Info, "list " + cursor);
    const r = new Resource("p:a", "a");
    r.size = 0;
    const page = new ListResult([r]);
    page.nextCursor = cursor.repeat(2);
    return page;
  }

  read(uri: string): ReadResult | null {
    if (uri == "p:///ok") return new ReadResult([textContent(uri, "text/plain", "é\u0000\"" + String.fromCharCode(0xd800) + "😀")]);
    const raw = rawContents(uri);
    if (raw != null) return raw;
    if (uri == "p:///outside") return new ReadResult([textContent("file:///etc/passwd", "", "x")]);
    if (uri == "p:///empty") return new ReadResult([]);
    if (uri == "p:///null") return null;
    if (uri == "p:///long-error") {
      internalError("é".repeat(5000));
      return null;
    }
    if (uri == "p:///config") {
      const v = configGet("k");
      return new ReadResult([textContent(uri, "", v != null ? v : "none")]);
    }
    if (uri == "p:///fetch") {
      const url = configGet("url");
      const req = new FetchRequest(url != null ? url : "https://x.test/a").header("accept", "*/*");
      if (configGet("post") != null) {
        req.method = "POST";
        req.body = 'a"b';
      }
      const r = httpFetch(req);
      const e = r.error;
      let hex = "";
      for (let i = 0; i < r.body.length; i++) hex += (r.body[i] < 16 ? "0" : "") + r.body[i].toString(16);
      const text = e != null ? "error " + e.code + " " + e.message : r.status.toString() + " " + (r.header("content-type") || "-") + " " + hex;
      return new ReadResult([textContent(uri, "", text)]);
    }
    notFound("no " + uri);
    return null;
  }

  complete(req: CompleteRequest): CompleteResult | null {
    const r = new CompleteResult([req.argument.name, req.argument.value]);
    for (let i = 0; i < req.argumentNames.length; i++) r.values.push(req.argumentNames[i] + "=" + req.argumentValues[i]);
    return r;
  }
}

/**
 * Contents for the raw path (content_write, ABI §6.3). p:///nuls is 100 KiB
 * of text that is all NULs but for an "é" at each end (each NUL escaped
 * would be 6 bytes), p:///bytes a 96 KiB blob of every byte value in turn
 * (base64 would be 128 KiB); p:///mixed has empty ones, escapes, a blob that
 * is a view into a larger buffer, a surrogate pair across the encoder's
 * 4096-unit chunks, and two texts with lone surrogates (sent inline).
 * p:///echo?TEXT returns TEXT.
 */
function rawContents(uri: string): ReadResult | null {
  if (uri == "p:///nuls") return new ReadResult([textContent(uri, "text/plain", "é" + "\u0000".repeat(100 * 1024 - 4) + "é")]);
  if (uri == "p:///bytes") {
    const b = new Uint8Array(96 * 1024);
    for (let i = 0; i < b.length; i++) b[i] = <u8>i;
    return new ReadResult([blobContent(uri, "application/octet-stream", b)]);
  }
  if (uri.startsWith("p:///echo?")) return new ReadResult([textContent("p:///echo", "", uri.substring(10))]);
  if (uri != "p:///mixed") return null;
  const big = new Uint8Array(8);
  big.fill(0x55);
  big[2] = 0;
  big[3] = 0xff;
  big[4] = 0x80;
  const c: Content[] = [
    textContent(uri, "", ""),
    blobContent(uri, "", new Uint8Array(0)),
    textContent(uri, "", 'a"b\\c\n'),
    blobContent(uri, "", big.subarray(2, 5)),
    textContent(uri, "", "x".repeat(4095) + "😀é€\u0000"),
    textContent(uri, "", "a" + String.fromCharCode(0xdc00) + "b"),
    textContent(uri, "", "z" + String.fromCharCode(0xd83d)),
  ];
  return new ReadResult(c);
}

register(new Probe());

export * from "../assembly/exports";
