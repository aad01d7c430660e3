//! The catalog example provider, in Rust: the same behaviour as the Go, C
//! and AssemblyScript versions beside it (see ../README.md), checked by
//! guests/catalog's cross-SDK test.

use mcpw::*;

const SCHEME_PREFIX: &str = "catalog:///items/";
const TEMPLATE: &str = "catalog:///items/{id}";
const PAGE_SIZE: usize = 3;
const CURSOR_WRAP: u32 = 1_000_000_000;

struct Item {
    id: &'static str,
    title: &'static str,
    description: &'static str,
    mime_type: &'static str,
    text: Option<&'static str>,
    blob: &'static [u8],
}

const LOGO: &[u8] = &[0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n', 0, 0, 0, 0x0d, b'I', b'H', b'D', b'R', 0xff, 0x00];

const ITEMS: [Item; 7] = [
    Item { id: "apple", title: "Apple", description: "A crisp fruit.", mime_type: "text/plain", text: Some("Apples are crisp.\n"), blob: &[] },
    Item { id: "apricot", title: "Apricot", description: "A soft fruit.", mime_type: "text/markdown", text: Some("# Apricot\n\nSoft and *orange*.\n"), blob: &[] },
    Item {
        id: "banana",
        title: "Banana \"the long one\"",
        description: "Text that every JSON encoder must escape.",
        mime_type: "text/plain",
        text: Some("Quote \" backslash \\ slash / tab\t newline\n return\r control \u{1}\u{1f} delete \u{7f} unicode \u{fc}n\u{ef} \u{20ac} \u{1f600} <&> \u{2028}\n"),
        blob: &[],
    },
    Item { id: "blueberry", title: "Blueberry", description: "A small berry.", mime_type: "application/json", text: Some("{\"berry\":true,\"size\":\"small\"}"), blob: &[] },
    Item { id: "cherry", title: "Cherry", description: "An empty text.", mime_type: "text/plain", text: Some(""), blob: &[] },
    Item { id: "kib", title: "One KiB", description: "1024 bytes of text.", mime_type: "text/plain", text: None, blob: &[] },
    Item { id: "logo", title: "Logo", description: "A binary blob.", mime_type: "image/png", text: None, blob: LOGO },
];

/// The text of the kib item: "abcdefghijklmno\n" 64 times.
fn kib() -> String {
    "abcdefghijklmno\n".repeat(64)
}

fn uri(id: &str) -> String {
    format!("{}{}", SCHEME_PREFIX, id)
}

fn annotations(id: &str) -> Option<Annotations> {
    match id {
        "apple" => Some(Annotations { audience: vec!["user".into(), "assistant".into()], priority: Some(0.5), ..Default::default() }),
        "logo" => Some(Annotations { audience: vec!["user".into()], priority: Some(0.0), last_modified: "2024-01-02T03:04:05Z".into() }),
        _ => None,
    }
}

fn size(it: &Item) -> i64 {
    match (it.id, it.text) {
        ("kib", _) => 1024,
        (_, Some(t)) => t.len() as i64,
        (_, None) => it.blob.len() as i64,
    }
}

/// A cursor is the decimal index of the next item or generation: digits
/// only, no leading zero, at most 9 of them.
fn parse_cursor(c: &str) -> Option<u32> {
    let ok = !c.is_empty() && c.len() <= 9 && c.bytes().all(|b| b.is_ascii_digit()) && (c == "0" || !c.starts_with('0'));
    if ok {
        c.parse().ok()
    } else {
        None
    }
}

struct Catalog;

impl Provider for Catalog {
    fn describe(&self) -> Describe {
        Describe {
            name: "catalog".into(),
            version: "1.0.0".into(),
            title: "Catalog".into(),
            description: "An in-memory catalog: the same provider in every mcp-wasm SDK.".into(),
            uri_space: vec![UriRoot::scheme("catalog")],
            cache: Some(CacheHint { ttl_ms: 60000, scope: Scope::Public }),
            ..Default::default()
        }
    }
}

impl Lister for Catalog {
    fn list(&mut self, cursor: &str) -> Result<ListResult> {
        let start = if cursor.is_empty() { 0 } else { parse_cursor(cursor).map(|n| n as usize).filter(|&n| n > 0 && n < ITEMS.len()).ok_or_else(|| Error::invalid_params(format!("bad cursor {:?}", cursor)))? };
        let end = (start + PAGE_SIZE).min(ITEMS.len());
        let resources = ITEMS[start..end]
            .iter()
            .map(|it| Resource {
                uri: uri(it.id),
                name: it.id.into(),
                title: it.title.into(),
                description: it.description.into(),
                mime_type: it.mime_type.into(),
                size: Some(size(it)),
                annotations: annotations(it.id),
                ..Default::default()
            })
            .collect();
        let next_cursor = if end < ITEMS.len() { end.to_string() } else { String::new() };
        Ok(ListResult { resources, next_cursor, cache: None })
    }
}

impl Templater for Catalog {
    fn templates(&mut self, cursor: &str) -> Result<TemplatesResult> {
        if !cursor.is_empty() {
            return Err(Error::invalid_params(format!("bad cursor {:?}", cursor)));
        }
        Ok(TemplatesResult {
            resource_templates: vec![ResourceTemplate {
                uri_template: TEMPLATE.into(),
                name: "item".into(),
                title: "Catalog item".into(),
                description: "One item of the catalog, by id.".into(),
                ..Default::default()
            }],
            ..Default::default()
        })
    }
}

impl Reader for Catalog {
    fn read(&mut self, u: &str) -> Result<ReadResult> {
        let it = u.strip_prefix(SCHEME_PREFIX).and_then(|id| ITEMS.iter().find(|it| it.id == id)).ok_or_else(|| Error::not_found(format!("no item {:?}", u)))?;
        let c = match (it.id, it.text) {
            ("kib", _) => Content::text(u, it.mime_type, kib()),
            (_, Some(t)) => Content::text(u, it.mime_type, t),
            (_, None) => Content::blob(u, it.mime_type, it.blob),
        };
        Ok(ReadResult::one(c))
    }
}

impl Completer for Catalog {
    fn complete(&mut self, req: &CompleteRequest) -> Result<CompleteResult> {
        if req.template != TEMPLATE || req.argument.name != "id" {
            return Err(Error::invalid_params(format!("cannot complete {:?} of {:?}: the catalog completes id of {}", req.argument.name, req.template, TEMPLATE)));
        }
        let values: Vec<String> = ITEMS.iter().filter(|it| it.id.starts_with(&req.argument.value)).map(|it| it.id.to_string()).collect();
        Ok(CompleteResult { total: Some(values.len() as i64), values, has_more: false })
    }
}

impl Changer for Catalog {
    // A deterministic change sequence: the first call is the baseline
    // (cursor "0", no changes); the call with cursor n reports item n mod 7
    // updated, and a list change when n mod 3 is 2.
    fn changes(&mut self, req: &ChangesRequest) -> Result<ChangesResult> {
        if req.cursor.is_empty() {
            return Ok(ChangesResult { cursor: "0".into(), ..Default::default() });
        }
        let n = parse_cursor(&req.cursor).ok_or_else(|| Error::invalid_params(format!("bad cursor {:?}", req.cursor)))?;
        Ok(ChangesResult {
            cursor: ((n + 1) % CURSOR_WRAP).to_string(),
            updated: vec![uri(ITEMS[n as usize % ITEMS.len()].id)],
            list_changed: n % 3 == 2,
        })
    }
}

mcpw::export!(Catalog, Catalog, list, templates, read, complete, changes);
