// The catalog example provider in AssemblyScript: the same behaviour as the
// Go, C and Rust versions beside it (see ../README.md), checked by
// guests/catalog's cross-SDK test.

import {
  Annotations,
  blobContent,
  CacheHint,
  ChangesRequest,
  ChangesResult,
  CompleteRequest,
  CompleteResult,
  Content,
  Describe,
  invalidParams,
  ListResult,
  notFound,
  Provider,
  ReadResult,
  register,
  Resource,
  ResourceTemplate,
  TemplatesResult,
  textContent,
  URIRoot,
} from "../../assemblyscript/assembly/index";

const ITEM_PREFIX = "catalog:///items/";
const TEMPLATE = "catalog:///items/{id}";
const PAGE_SIZE = 3;
const CURSOR_WRAP: u32 = 1000000000;

class Item {
  text: string | null = null;
  blob: Uint8Array | null = null;
  annotations: Annotations | null = null;
  constructor(public id: string, public title: string, public description: string, public mimeType: string) {}

  withText(t: string): Item {
    this.text = t;
    return this;
  }

  size(): i64 {
    const t = this.text;
    if (t != null) return String.UTF8.byteLength(t);
    return this.blob!.length;
  }
}

function annotations(audience: string[], priority: f64, lastModified: string): Annotations {
  const a = new Annotations();
  a.audience = audience;
  a.priority = priority;
  a.lastModified = lastModified;
  return a;
}

function logo(): Uint8Array {
  const bytes: u8[] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0x00];
  const a = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) a[i] = bytes[i];
  return a;
}

function makeItems(): Item[] {
  const apple = new Item("apple", "Apple", "A crisp fruit.", "text/plain").withText("Apples are crisp.\n");
  apple.annotations = annotations(["user", "assistant"], 0.5, "");
  const logoItem = new Item("logo", "Logo", "A binary blob.", "image/png");
  logoItem.blob = logo();
  logoItem.annotations = annotations(["user"], 0, "2024-01-02T03:04:05Z");
  return [
    apple,
    new Item("apricot", "Apricot", "A soft fruit.", "text/markdown").withText("# Apricot\n\nSoft and *orange*.\n"),
    new Item("banana", 'Banana "the long one"', "Text that every JSON encoder must escape.", "text/plain").withText(
      'Quote " backslash \\ slash / tab\t newline\n return\r control \x01\x1f delete \x7f unicode \u00fcn\u00ef \u20ac \u{1F600} <&> \u2028\n',
    ),
    new Item("blueberry", "Blueberry", "A small berry.", "application/json").withText('{"berry":true,"size":"small"}'),
    new Item("cherry", "Cherry", "An empty text.", "text/plain").withText(""),
    new Item("kib", "One KiB", "1024 bytes of text.", "text/plain").withText("abcdefghijklmno\n".repeat(64)),
    logoItem,
  ];
}

const items = makeItems();

/** A cursor is the decimal index of the next item or generation: digits only, no leading zero, at most 9 of them. */
function parseCursor(c: string): i64 {
  if (c.length == 0 || c.length > 9 || (c.length > 1 && c.charCodeAt(0) == 0x30)) return -1;
  let v: i64 = 0;
  for (let i = 0; i < c.length; i++) {
    const d = c.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

class Catalog extends Provider {
  describe(): Describe {
    const d = new Describe("catalog", "1.0.0");
    d.title = "Catalog";
    d.description = "An in-memory catalog: the same provider in every mcp-wasm SDK.";
    d.uriSpace = [new URIRoot("catalog")];
    d.operations = ["list", "templates", "read", "complete", "changes"];
    d.cache = new CacheHint(60000, "public");
    return d;
  }

  list(cursor: string): ListResult | null {
    let start = 0;
    if (cursor.length > 0) {
      const n = parseCursor(cursor);
      if (n <= 0 || n >= items.length) {
        invalidParams('bad cursor "' + cursor + '"');
        return null;
      }
      start = <i32>n;
    }
    const end = min(start + PAGE_SIZE, items.length);
    const page = new ListResult();
    for (let i = start; i < end; i++) {
      const it = items[i];
      const r = new Resource(ITEM_PREFIX + it.id, it.id);
      r.title = it.title;
      r.description = it.description;
      r.mimeType = it.mimeType;
      r.size = it.size();
      r.annotations = it.annotations;
      page.resources.push(r);
    }
    if (end < items.length) page.nextCursor = end.toString();
    return page;
  }

  templates(cursor: string): TemplatesResult | null {
    if (cursor.length > 0) {
      invalidParams('bad cursor "' + cursor + '"');
      return null;
    }
    const t = new ResourceTemplate(TEMPLATE, "item");
    t.title = "Catalog item";
    t.description = "One item of the catalog, by id.";
    return new TemplatesResult([t]);
  }

  read(uri: string): ReadResult | null {
    if (uri.startsWith(ITEM_PREFIX)) {
      const id = uri.substring(ITEM_PREFIX.length);
      for (let i = 0; i < items.length; i++) {
        const it = items[i];
        if (it.id != id) continue;
        const text = it.text;
        const c: Content = text != null ? textContent(uri, it.mimeType, text) : blobContent(uri, it.mimeType, it.blob!);
        return new ReadResult([c]);
      }
    }
    notFound('no item "' + uri + '"');
    return null;
  }

  complete(req: CompleteRequest): CompleteResult | null {
    if (req.template != TEMPLATE || req.argument.name != "id") {
      invalidParams('cannot complete "' + req.argument.name + '" of "' + req.template + '": the catalog completes id of ' + TEMPLATE);
      return null;
    }
    const r = new CompleteResult();
    for (let i = 0; i < items.length; i++) {
      if (items[i].id.startsWith(req.argument.value)) r.values.push(items[i].id);
    }
    r.total = r.values.length;
    return r;
  }

  // A deterministic change sequence: the first call is the baseline (cursor
  // "0", no changes); the call with cursor n reports item n mod 7 updated,
  // and a list change when n mod 3 is 2.
  changes(req: ChangesRequest): ChangesResult | null {
    const r = new ChangesResult();
    if (req.cursor.length == 0) {
      r.cursor = "0";
      return r;
    }
    const n = parseCursor(req.cursor);
    if (n < 0) {
      invalidParams('bad cursor "' + req.cursor + '"');
      return null;
    }
    r.cursor = ((<u32>n + 1) % CURSOR_WRAP).toString();
    r.updated = [ITEM_PREFIX + items[<i32>(n % items.length)].id];
    r.listChanged = n % 3 == 2;
    return r;
  }
}

register(new Catalog());

export * from "../../assemblyscript/assembly/exports";
