// A provider that exercises the SDK for sdk.test.js: not an example.

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

register(new Probe());

export * from "../assembly/exports";
