// Tests of the AssemblyScript SDK: test/probe.ts is compiled with the pinned
// compiler and run in node with a mock host, through the module's real
// exports, exactly as the host calls them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(mkdtempSync(join(tmpdir(), "mcpw-as-")), "probe.wasm");
// The flags of internal/testguest.AscFlags and the Makefile.
execFileSync(process.execPath, [
  join(here, "..", "node_modules", "assemblyscript", "bin", "asc.js"),
  join(here, "probe.ts"), "-o", out, "--exportStart", "_initialize", "-O3", "--shrinkLevel", "1",
]);
const wasm = new WebAssembly.Module(readFileSync(out));

// host is a mock of the mcpw_v1 imports for one instance. content_write
// keeps a copy of each body (or refuses it with -2 when h.refuse is set).
function host() {
  const h = { input: new Uint8Array(), output: [], bodies: [], refuse: false, logs: [], config: { k: "v".repeat(300) }, fetched: null, answer: "" };
  let memory;
  const bytes = (ptr, len) => new Uint8Array(memory.buffer, ptr, len);
  const imports = {
    mcpw_v1: {
      input_read(ptr, len) {
        const n = Math.min(len, h.input.length);
        bytes(ptr, n).set(h.input.subarray(0, n));
        return n;
      },
      output_write(ptr, len) {
        h.output.push(Buffer.from(bytes(ptr, len)));
        return 0;
      },
      content_write(ptr, len) {
        if (h.refuse) return -2;
        h.bodies.push(Buffer.from(bytes(ptr, len)));
        return h.bodies.length - 1;
      },
      log(level, ptr, len) {
        h.logs.push(Buffer.from(bytes(ptr, len)).toString());
      },
      config_get(kp, kl, vp, cap) {
        const v = h.config[Buffer.from(bytes(kp, kl)).toString()];
        if (v === undefined) return -1;
        const b = Buffer.from(v);
        if (b.length <= cap) bytes(vp, b.length).set(b);
        return b.length;
      },
      http_fetch(ptr, len) {
        h.fetched = JSON.parse(Buffer.from(bytes(ptr, len)).toString());
        return Buffer.byteLength(h.answer);
      },
      http_read(ptr, len) {
        const b = Buffer.from(h.answer);
        const n = Math.min(len, b.length);
        bytes(ptr, n).set(b.subarray(0, n));
        return n;
      },
    },
    env: {
      abort() {
        throw new Error("abort");
      },
    },
  };
  const inst = new WebAssembly.Instance(wasm, imports);
  memory = inst.exports.memory;
  inst.exports._initialize();
  // call returns the output as the guest wrote it (out, and its bytes in
  // raw) and, for read, as the host resolves it (result).
  h.call = (op, input) => {
    h.input = Buffer.from(input);
    h.output = [];
    h.bodies = [];
    const status = inst.exports["mcpw_v1_" + op](h.input.length);
    assert.equal(h.output.length, 1, "one output_write per call");
    const r = { status, out: h.output[0].toString(), raw: h.output[0] };
    if (op == "read") r.result = resolve(JSON.parse(r.out), h.bodies);
    else assert.equal(h.bodies.length, 0, "content_write outside read");
    return r;
  };
  return h;
}

// resolve replaces each rawText and rawBlob reference of a read result with
// its body, as the host does (ABI §6.3): every body used exactly once,
// rawText valid UTF-8, never beside text or blob.
function resolve(res, bodies) {
  const used = bodies.map(() => false);
  const take = (i) => {
    assert.ok(Number.isInteger(i) && i >= 0 && i < bodies.length && !used[i], `body ${i} of ${bodies.length}, used ${used[i]}`);
    used[i] = true;
    return bodies[i];
  };
  for (const c of res.contents || []) {
    const kinds = ["text", "blob", "rawText", "rawBlob"].filter((k) => k in c);
    assert.ok(kinds.length <= 1, kinds.join(","));
    if ("rawText" in c) {
      c.text = new TextDecoder("utf-8", { fatal: true }).decode(take(c.rawText));
      delete c.rawText;
    }
    if ("rawBlob" in c) {
      c.blob = take(c.rawBlob).toString("base64");
      delete c.rawBlob;
    }
  }
  assert.ok(used.every((u) => u), "every body is referred to");
  return res;
}

test("describe", () => {
  const h = host();
  assert.deepEqual(h.call("describe", ""), {
    status: 0,
    out: '{"name":"probe","version":"1","uriSpace":[{"scheme":"p"}],"operations":["list","read","complete"]}',
    raw: h.output[0],
  });
});

test("read hands bodies to content_write: rawText, rawBlob; a lone surrogate goes inline", () => {
  const h = host();
  const r = h.call("read", '{"uri":"p:///mixed"}');
  assert.equal(r.status, 0);
  const u = '"uri":"p:///mixed"';
  assert.equal(
    r.out,
    `{"contents":[{${u},"rawText":0},{${u},"rawBlob":1},{${u},"rawText":2},{${u},"rawBlob":3},{${u},"rawText":4},` +
      `{${u},"text":"a\uFFFDb"},{${u},"text":"z\uFFFD"}]}`,
  );
  assert.deepEqual(
    h.bodies.map((b) => b.toString("hex")),
    ["", "", Buffer.from('a"b\\c\n').toString("hex"), "00ff80", Buffer.from("x".repeat(4095) + "😀é€\u0000").toString("hex")],
  );
  assert.deepEqual(
    r.result.contents.map((c) => c.text ?? "blob:" + c.blob),
    ["", "blob:", 'a"b\\c\n', "blob:AP+A", "x".repeat(4095) + "😀é€\u0000", "a\uFFFDb", "z\uFFFD"],
  );

  const nuls = h.call("read", '{"uri":"p:///nuls"}');
  assert.equal(nuls.out, '{"contents":[{"uri":"p:///nuls","mimeType":"text/plain","rawText":0}]}');
  assert.equal(nuls.result.contents[0].text, "é" + "\u0000".repeat(100 * 1024 - 4) + "é");
  const bytes = h.call("read", '{"uri":"p:///bytes"}');
  assert.equal(bytes.out, '{"contents":[{"uri":"p:///bytes","mimeType":"application/octet-stream","rawBlob":0}]}');
  assert.ok(h.bodies[0].equals(Buffer.from(Array.from({ length: 96 * 1024 }, (_, i) => i & 255))));
});

test("rawText bodies are the text's UTF-8, every length and code point range", () => {
  const h = host();
  // A small deterministic generator: code points from each UTF-8 length
  // and its edges, runs of ASCII (which the encoder takes four at a time),
  // lengths that cross its 4096-unit chunks.
  let seed = 1;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const edges = [0, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x10ffff];
  const ranges = [[0, 0x80], [0x80, 0x800], [0x800, 0xd800], [0xe000, 0x10000], [0x10000, 0x110000]];
  for (let k = 0; k < 200; k++) {
    const cps = [];
    const n = k < 20 ? 4090 + k : rand(k % 10 == 0 ? 9000 : 40);
    for (let i = 0; i < n; i++) {
      const [lo, hi] = ranges[k % 3 == 0 && rand(10) > 0 ? 0 : rand(ranges.length)]; // mostly ASCII in every third
      cps.push(rand(8) == 0 ? edges[rand(edges.length)] : lo + rand(hi - lo));
    }
    const s = String.fromCodePoint(...cps);
    const r = h.call("read", JSON.stringify({ uri: "p:///echo?" + s }));
    assert.equal(r.out, '{"contents":[{"uri":"p:///echo","rawText":0}]}', `string ${k}`);
    assert.ok(h.bodies[0].equals(Buffer.from(s, "utf8")), `string ${k}`);
  }
});

test("a body content_write refuses (past the output limit) is sent inline", () => {
  const h = host();
  h.refuse = true;
  const r = h.call("read", '{"uri":"p:///mixed"}');
  assert.equal(r.status, 0);
  assert.equal(h.bodies.length, 0);
  assert.deepEqual(
    JSON.parse(r.out).contents.map((c) => c.text ?? "blob:" + c.blob),
    ["", "blob:", 'a"b\\c\n', "blob:AP+A", "x".repeat(4095) + "😀é€\u0000", "a\uFFFDb", "z\uFFFD"],
  );
});

test("read encodes UTF-8 and escapes; a lone surrogate becomes U+FFFD", () => {
  const h = host();
  const r = h.call("read", '{"uri":"p:///ok","future":[1]}');
  assert.equal(r.status, 0);
  assert.equal(r.out, '{"contents":[{"uri":"p:///ok","mimeType":"text/plain","text":"é\\u0000\\"\uFFFD😀"}]}');
  assert.ok(r.raw.equals(Buffer.from(r.out, "utf8")), "the bytes are valid UTF-8");
  assert.equal(h.call("read", '{"uri":"p:///\\u006fk"}').status, 0, "escaped input");
  assert.deepEqual(JSON.parse(h.call("read", '{"uri":"p:///nope"}').out), { code: "not_found", message: "no p:///nope" });
});

test("malformed input is invalid_params, never a trap", () => {
  const h = host();
  for (const bad of ["", "{}", "[]", '{"uri":1}', '{"uri":"p:///ok"', '{"uri":"\\ud800"}', '{"uri":"\\udc00\\ud800"}', "\xff", "{\"uri\":\"\x01\"}", "[".repeat(65) + "]".repeat(65)]) {
    const r = h.call("read", bad);
    assert.equal(r.status, 1, bad);
    assert.equal(JSON.parse(r.out).code, "invalid_params", bad);
  }
  for (const bytes of [[0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
    // {"uri":"<overlong / surrogate / above U+10FFFF / truncated UTF-8>"}
    const r = h.call("read", Buffer.concat([Buffer.from('{"uri":"'), Buffer.from(bytes), Buffer.from('"}')]));
    assert.equal(r.status, 1, bytes.join(","));
    assert.equal(JSON.parse(r.out).code, "invalid_params");
  }
});

test("results the host would reject become internal errors", () => {
  const h = host();
  for (const uri of ["p:///outside", "p:///empty"]) {
    const r = h.call("read", JSON.stringify({ uri }));
    assert.equal(r.status, 1);
    assert.match(JSON.parse(r.out).message, /rejected before sending.*fix the provider/);
  }
  assert.match(h.logs.join("\n"), /mcpw: read result rejected/);
  assert.match(JSON.parse(h.call("list", JSON.stringify({ cursor: "c".repeat(600) })).out).message, /cursor is longer than 1024 bytes/);
  assert.match(JSON.parse(h.call("read", '{"uri":"p:///null"}').out).message, /returned null without/);
});

test("error messages are cut to 4096 bytes", () => {
  const r = host().call("read", '{"uri":"p:///long-error"}');
  const msg = JSON.parse(r.out).message;
  assert.ok(Buffer.byteLength(msg) <= 4096 && Buffer.byteLength(msg) > 4000, String(Buffer.byteLength(msg)));
});

test("undeclared operations are invalid_params", () => {
  const r = host().call("changes", "{}");
  assert.equal(r.status, 1);
  assert.equal(JSON.parse(r.out).code, "invalid_params");
});

test("complete decodes the argument and the resolved arguments", () => {
  const r = host().call("complete", '{"template":"p:///{a}","argument":{"name":"a","value":"x"},"arguments":{"b":"c","d":"é"}}');
  assert.deepEqual(JSON.parse(r.out), { values: ["a", "x", "b=c", "d=é"] });
});

test("log and config_get (a value longer than the first buffer)", () => {
  const h = host();
  h.call("list", '{"cursor":"q"}');
  assert.deepEqual(h.logs, ["list q"]);
  assert.equal(h.call("read", '{"uri":"p:///config"}').result.contents[0].text, "v".repeat(300));
  h.config = {};
  assert.equal(h.call("read", '{"uri":"p:///config"}').result.contents[0].text, "none");
});

test("httpFetch sends the request and decodes responses and refusals", () => {
  const h = host();
  h.answer = '{"status":404,"headers":{"content-type":"text/plain"},"bodyBase64":"AP8="}';
  assert.equal(h.call("read", '{"uri":"p:///fetch"}').result.contents[0].text, "404 text/plain 00ff");
  assert.deepEqual(h.fetched, { url: "https://x.test/a", headers: { accept: "*/*" } });
  h.answer = '{"error":{"code":"denied","message":"not granted"}}';
  assert.equal(h.call("read", '{"uri":"p:///fetch"}').result.contents[0].text, "error denied not granted");
  h.answer = '{"status":200,"bodyBase64":"!"}';
  assert.match(h.call("read", '{"uri":"p:///fetch"}').result.contents[0].text, /^error invalid /);
});
