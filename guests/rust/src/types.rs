//! The ABI's payloads (abi/ABI.md §6) as Rust types, with their encoders
//! and the decoders of the host's inputs.
//!
//! Optional strings are plain `String`s, left out of the JSON when empty
//! (as the Go SDK does); build values with `..Default::default()`.

use crate::base64;
use crate::json::{self, Obj, Value};

/// The output of describe: who the provider is, the URI space it owns,
/// what it implements, and what it asks the operator for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Describe {
    /// 1–64 of `[a-z0-9._-]`, starting with a letter or digit.
    pub name: String,
    pub version: String,
    pub title: String,
    pub description: String,
    pub uri_space: Vec<UriRoot>,
    /// Leave empty: the SDK fills in the operations `export!` names.
    pub operations: Vec<String>,
    pub requests: Option<Requests>,
    pub cache: Option<CacheHint>,
}

/// One root of the URI space: a scheme, optionally an authority (`"*"`:
/// any) and a path prefix.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UriRoot {
    pub scheme: String,
    pub authority: String,
    pub path_prefix: String,
}

impl UriRoot {
    /// A root owning every URI of `scheme` without an authority.
    pub fn scheme(scheme: &str) -> Self {
        UriRoot { scheme: scheme.to_string(), ..Default::default() }
    }
}

/// Capabilities asked of the operator (ABI §10). Asking grants nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Requests {
    pub filesystem: Vec<FsRequest>,
    pub config: Vec<ConfigRequest>,
    pub http: Vec<HttpRequest>,
    pub clock: bool,
    pub random: bool,
}

/// A read-only directory mounted at `path` in the guest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FsRequest {
    pub path: String,
    pub reason: String,
}

/// A config value readable with [`crate::config_get`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigRequest {
    pub key: String,
    pub secret: bool,
    pub required: bool,
    pub reason: String,
}

/// Outbound HTTP to URLs under `prefix`, through [`crate::http_fetch`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HttpRequest {
    pub prefix: String,
    pub reason: String,
}

/// Who may cache a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Public,
    Private,
}

/// How long a client may reuse a result (0 to one year, in ms) and by whom.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheHint {
    pub ttl_ms: i64,
    pub scope: Scope,
}

/// One page of resources.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListResult {
    pub resources: Vec<Resource>,
    /// Empty on the last page.
    pub next_cursor: String,
    pub cache: Option<CacheHint>,
}

/// One resource.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resource {
    pub uri: String,
    pub name: String,
    pub title: String,
    pub description: String,
    pub mime_type: String,
    /// Size in bytes of the raw content; `Some(0)` is a valid size.
    pub size: Option<i64>,
    pub annotations: Option<Annotations>,
    pub icons: Vec<Icon>,
}

/// MCP annotations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Annotations {
    /// `"user"` and/or `"assistant"`.
    pub audience: Vec<String>,
    /// In [0, 1]; `Some(0.0)` is kept.
    pub priority: Option<f64>,
    /// An RFC 3339 timestamp.
    pub last_modified: String,
}

/// An MCP icon: `src` is an `https:` or `data:` URI.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Icon {
    pub src: String,
    pub mime_type: String,
    pub sizes: Vec<String>,
    /// `"light"` or `"dark"`.
    pub theme: String,
}

/// One page of URI templates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TemplatesResult {
    pub resource_templates: Vec<ResourceTemplate>,
    pub next_cursor: String,
    pub cache: Option<CacheHint>,
}

/// An RFC 6570 URI template with MCP metadata.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceTemplate {
    pub uri_template: String,
    pub name: String,
    pub title: String,
    pub description: String,
    pub mime_type: String,
    pub annotations: Option<Annotations>,
    pub icons: Vec<Icon>,
}

/// The result of read: one or more contents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadResult {
    pub contents: Vec<Content>,
    pub cache: Option<CacheHint>,
}

impl ReadResult {
    /// A result of one content.
    pub fn one(c: Content) -> Self {
        ReadResult { contents: vec![c], cache: None }
    }
}

/// Text or binary data. In a wasm guest the SDK hands both to the host as
/// they are (ABI §6.3); natively a blob is sent base64-encoded.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Text(String),
    Blob(Vec<u8>),
}

/// One content of a read result.
#[derive(Clone, Debug, PartialEq)]
pub struct Content {
    pub uri: String,
    pub mime_type: String,
    pub body: Body,
    pub annotations: Option<Annotations>,
}

impl Content {
    /// A text content (an empty text is still sent). In a wasm guest its
    /// bytes are handed to the host as they are (`rawText`, ABI §6.3), not
    /// JSON-escaped in the guest.
    pub fn text(uri: &str, mime_type: &str, text: impl Into<String>) -> Self {
        Content { uri: uri.to_string(), mime_type: mime_type.to_string(), body: Body::Text(text.into()), annotations: None }
    }

    /// A binary content. In a wasm guest its bytes are handed to the host as
    /// they are (`rawBlob`, ABI §6.3), not base64-encoded in the guest.
    pub fn blob(uri: &str, mime_type: &str, data: impl Into<Vec<u8>>) -> Self {
        Content { uri: uri.to_string(), mime_type: mime_type.to_string(), body: Body::Blob(data.into()), annotations: None }
    }
}

/// The input of complete.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompleteRequest {
    /// One of the provider's `uri_template` strings.
    pub template: String,
    /// The argument being completed.
    pub argument: CompleteArgument,
    /// Other arguments the client already resolved, in the order sent.
    pub arguments: Vec<(String, String)>,
}

/// The argument being completed and its partial value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompleteArgument {
    pub name: String,
    pub value: String,
}

/// The result of complete: at most 100 values, best first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompleteResult {
    pub values: Vec<String>,
    pub total: Option<i64>,
    pub has_more: bool,
}

/// The input of changes (ABI §11).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChangesRequest {
    /// What this provider returned last time; empty on the first call.
    pub cursor: String,
    /// Guest paths the host saw change (only with a watched directory).
    pub paths: Vec<String>,
}

/// The result of changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChangesResult {
    pub cursor: String,
    pub updated: Vec<String>,
    pub list_changed: bool,
}

// ---- Encoding ----

/// A payload the SDK can send.
pub trait Encode {
    /// Appends the payload's JSON to `out`.
    fn encode(&self, out: &mut Vec<u8>);
}

fn cache(o: &mut Obj, c: &Option<CacheHint>) {
    if let Some(c) = c {
        let mut h = Obj::new(o.key("cache"));
        h.int("ttlMs", c.ttl_ms);
        h.str("scope", if c.scope == Scope::Public { "public" } else { "private" });
        h.end();
    }
}

fn annotations(o: &mut Obj, a: &Option<Annotations>) {
    if let Some(a) = a {
        let mut m = Obj::new(o.key("annotations"));
        if !a.audience.is_empty() {
            m.strs("audience", &a.audience);
        }
        if let Some(p) = a.priority {
            json::write_float(m.key("priority"), p);
        }
        m.opt_str("lastModified", &a.last_modified);
        m.end();
    }
}

fn icons(o: &mut Obj, icons: &[Icon]) {
    if icons.is_empty() {
        return;
    }
    o.array("icons", icons, |out, i| {
        let mut m = Obj::new(out);
        m.str("src", &i.src);
        m.opt_str("mimeType", &i.mime_type);
        if !i.sizes.is_empty() {
            m.strs("sizes", &i.sizes);
        }
        m.opt_str("theme", &i.theme);
        m.end();
    });
}

impl Encode for Describe {
    fn encode(&self, out: &mut Vec<u8>) {
        let mut o = Obj::new(out);
        o.str("name", &self.name);
        o.str("version", &self.version);
        o.opt_str("title", &self.title);
        o.opt_str("description", &self.description);
        o.array("uriSpace", &self.uri_space, |out, r| {
            let mut m = Obj::new(out);
            m.str("scheme", &r.scheme);
            m.opt_str("authority", &r.authority);
            m.opt_str("pathPrefix", &r.path_prefix);
            m.end();
        });
        o.strs("operations", &self.operations);
        if let Some(r) = &self.requests {
            encode_requests(o.key("requests"), r);
        }
        cache(&mut o, &self.cache);
        o.end();
    }
}

fn encode_requests(out: &mut Vec<u8>, r: &Requests) {
    let mut o = Obj::new(out);
    if !r.filesystem.is_empty() {
        o.array("filesystem", &r.filesystem, |out, f| {
            let mut m = Obj::new(out);
            m.str("path", &f.path);
            m.opt_str("reason", &f.reason);
            m.end();
        });
    }
    if !r.config.is_empty() {
        o.array("config", &r.config, |out, c| {
            let mut m = Obj::new(out);
            m.str("key", &c.key);
            if c.secret {
                m.bool("secret", true);
            }
            if c.required {
                m.bool("required", true);
            }
            m.opt_str("reason", &c.reason);
            m.end();
        });
    }
    if !r.http.is_empty() {
        o.array("http", &r.http, |out, h| {
            let mut m = Obj::new(out);
            m.str("prefix", &h.prefix);
            m.opt_str("reason", &h.reason);
            m.end();
        });
    }
    if r.clock {
        o.bool("clock", true);
    }
    if r.random {
        o.bool("random", true);
    }
    o.end();
}

impl Encode for ListResult {
    fn encode(&self, out: &mut Vec<u8>) {
        let mut o = Obj::new(out);
        o.array("resources", &self.resources, |out, r| {
            let mut m = Obj::new(out);
            m.str("uri", &r.uri);
            m.str("name", &r.name);
            m.opt_str("title", &r.title);
            m.opt_str("description", &r.description);
            m.opt_str("mimeType", &r.mime_type);
            if let Some(n) = r.size {
                m.int("size", n);
            }
            annotations(&mut m, &r.annotations);
            icons(&mut m, &r.icons);
            m.end();
        });
        o.opt_str("nextCursor", &self.next_cursor);
        cache(&mut o, &self.cache);
        o.end();
    }
}

impl Encode for TemplatesResult {
    fn encode(&self, out: &mut Vec<u8>) {
        let mut o = Obj::new(out);
        o.array("resourceTemplates", &self.resource_templates, |out, t| {
            let mut m = Obj::new(out);
            m.str("uriTemplate", &t.uri_template);
            m.str("name", &t.name);
            m.opt_str("title", &t.title);
            m.opt_str("description", &t.description);
            m.opt_str("mimeType", &t.mime_type);
            annotations(&mut m, &t.annotations);
            icons(&mut m, &t.icons);
            m.end();
        });
        o.opt_str("nextCursor", &self.next_cursor);
        cache(&mut o, &self.cache);
        o.end();
    }
}

/// The inline form: `"text"` escaped, `"blob"` in base64. A read served by
/// the SDK in a wasm guest sends its bodies raw instead (see [`encode_read`]).
impl Encode for ReadResult {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_read(self, out, &mut |_| None);
    }
}

/// Appends `r`'s JSON to `out`, offering each content's body to `raw`
/// first: when it returns the index the host gave the body
/// (`content_write`, ABI §6.3), the content refers to it as `"rawText"` or
/// `"rawBlob"`, with no escaping or base64 here; when it returns None, the
/// body is written inline. A text body is always valid UTF-8 (a `String`),
/// as `rawText` requires.
pub(crate) fn encode_read(r: &ReadResult, out: &mut Vec<u8>, raw: &mut dyn FnMut(&[u8]) -> Option<u32>) {
    let mut o = Obj::new(out);
    o.array("contents", &r.contents, |out, c| {
        let mut m = Obj::new(out);
        m.str("uri", &c.uri);
        m.opt_str("mimeType", &c.mime_type);
        match &c.body {
            Body::Text(t) => match raw(t.as_bytes()) {
                Some(n) => m.int("rawText", n as i64),
                None => m.str("text", t),
            },
            Body::Blob(b) => match raw(b) {
                Some(n) => m.int("rawBlob", n as i64),
                None => base64::write(m.key("blob"), b),
            },
        }
        annotations(&mut m, &c.annotations);
        m.end();
    });
    cache(&mut o, &r.cache);
    o.end();
}

impl Encode for CompleteResult {
    fn encode(&self, out: &mut Vec<u8>) {
        let mut o = Obj::new(out);
        o.strs("values", &self.values);
        if let Some(t) = self.total {
            o.int("total", t);
        }
        if self.has_more {
            o.bool("hasMore", true);
        }
        o.end();
    }
}

impl Encode for ChangesResult {
    fn encode(&self, out: &mut Vec<u8>) {
        let mut o = Obj::new(out);
        o.opt_str("cursor", &self.cursor);
        if !self.updated.is_empty() {
            o.strs("updated", &self.updated);
        }
        if self.list_changed {
            o.bool("listChanged", true);
        }
        o.end();
    }
}

// ---- Decoding the host's inputs ----
//
// Members a guest does not know are ignored (ABI §12); a known member of the
// wrong type is an error.

fn str_member(v: &Value, name: &str) -> Result<String, String> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("member {:?} is not a string", name)),
    }
}

fn object(v: &Value) -> Result<&Value, String> {
    match v {
        Value::Object(_) => Ok(v),
        _ => Err("input is not a JSON object".to_string()),
    }
}

/// The cursor of a list or templates request (empty on the first page).
pub(crate) fn decode_page(v: &Value) -> Result<String, String> {
    str_member(object(v)?, "cursor")
}

/// The URI of a read request.
pub(crate) fn decode_read(v: &Value) -> Result<String, String> {
    let uri = str_member(object(v)?, "uri")?;
    if uri.is_empty() {
        return Err("read request without a uri".to_string());
    }
    Ok(uri)
}

pub(crate) fn decode_complete(v: &Value) -> Result<CompleteRequest, String> {
    let v = object(v)?;
    let mut req = CompleteRequest { template: str_member(v, "template")?, ..Default::default() };
    match v.get("argument") {
        Some(a @ Value::Object(_)) => {
            req.argument.name = str_member(a, "name")?;
            req.argument.value = str_member(a, "value")?;
        }
        None | Some(Value::Null) => {}
        Some(_) => return Err("member \"argument\" is not an object".to_string()),
    }
    match v.get("arguments") {
        Some(Value::Object(m)) => {
            for (k, x) in m {
                match x {
                    Value::String(s) => req.arguments.push((k.clone(), s.clone())),
                    _ => return Err(format!("arguments[{:?}] is not a string", k)),
                }
            }
        }
        None | Some(Value::Null) => {}
        Some(_) => return Err("member \"arguments\" is not an object".to_string()),
    }
    Ok(req)
}

pub(crate) fn decode_changes(v: &Value) -> Result<ChangesRequest, String> {
    let v = object(v)?;
    let mut req = ChangesRequest { cursor: str_member(v, "cursor")?, ..Default::default() };
    match v.get("paths") {
        Some(Value::Array(a)) => {
            for x in a {
                match x {
                    Value::String(s) => req.paths.push(s.clone()),
                    _ => return Err("paths holds a non-string".to_string()),
                }
            }
        }
        None | Some(Value::Null) => {}
        Some(_) => return Err("member \"paths\" is not an array".to_string()),
    }
    Ok(req)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(p: &dyn Encode) -> String {
        let mut out = Vec::new();
        p.encode(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn read_result_encoding() {
        let mut text = Content::text("x:///a", "text/plain", "");
        text.annotations = Some(Annotations { audience: vec!["user".into()], priority: Some(0.0), last_modified: String::new() });
        let r = ReadResult { contents: vec![text, Content::blob("x:///b", "", vec![0, 1, 2, 255])], cache: Some(CacheHint { ttl_ms: 1000, scope: Scope::Private }) };
        assert_eq!(
            enc(&r),
            r#"{"contents":[{"uri":"x:///a","mimeType":"text/plain","text":"","annotations":{"audience":["user"],"priority":0}},{"uri":"x:///b","blob":"AAEC/w=="}],"cache":{"ttlMs":1000,"scope":"private"}}"#
        );
    }

    #[test]
    fn read_result_raw_encoding() {
        // Each body is offered once, in order, as it is; the content refers
        // to it by the index the host returned, and a refused body (None)
        // is sent inline.
        let r = ReadResult {
            contents: vec![
                Content::text("x:///a", "text/plain", "é\u{0}\"\\"),
                Content::blob("x:///b", "", vec![0, 1, 2, 255]),
                Content::text("x:///c", "", ""),
                Content::blob("x:///d", "", vec![0xff]),
                Content::blob("x:///e", "", Vec::new()),
            ],
            cache: None,
        };
        let mut bodies: Vec<Vec<u8>> = Vec::new();
        let mut out = Vec::new();
        encode_read(&r, &mut out, &mut |b| {
            bodies.push(b.to_vec());
            if bodies.len() == 4 {
                return None;
            }
            Some(bodies.len() as u32 + 6)
        });
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"contents":[{"uri":"x:///a","mimeType":"text/plain","rawText":7},{"uri":"x:///b","rawBlob":8},{"uri":"x:///c","rawText":9},{"uri":"x:///d","blob":"/w=="},{"uri":"x:///e","rawBlob":11}]}"#
        );
        assert_eq!(bodies, vec!["é\u{0}\"\\".as_bytes().to_vec(), vec![0, 1, 2, 255], vec![], vec![0xff], vec![]]);
    }

    #[test]
    fn list_and_changes_encoding() {
        let l = ListResult { resources: vec![Resource { uri: "x:a".into(), name: "a".into(), size: Some(0), ..Default::default() }], ..Default::default() };
        assert_eq!(enc(&l), r#"{"resources":[{"uri":"x:a","name":"a","size":0}]}"#);
        assert_eq!(enc(&ListResult::default()), r#"{"resources":[]}"#);
        assert_eq!(enc(&ChangesResult::default()), "{}");
        assert_eq!(enc(&CompleteResult::default()), r#"{"values":[]}"#);
    }

    #[test]
    fn describe_encoding() {
        let d = Describe {
            name: "n".into(),
            version: "1".into(),
            uri_space: vec![UriRoot::scheme("x")],
            operations: vec!["read".into()],
            requests: Some(Requests { config: vec![ConfigRequest { key: "k".into(), secret: true, ..Default::default() }], clock: true, ..Default::default() }),
            ..Default::default()
        };
        assert_eq!(
            enc(&d),
            r#"{"name":"n","version":"1","uriSpace":[{"scheme":"x"}],"operations":["read"],"requests":{"config":[{"key":"k","secret":true}],"clock":true}}"#
        );
    }

    #[test]
    fn decodes_inputs() {
        let v = json::parse(br#"{"template":"t:///{a}","argument":{"name":"a","value":"p"},"arguments":{"b":"c"},"future":1}"#).unwrap();
        let req = decode_complete(&v).unwrap();
        assert_eq!(req.argument, CompleteArgument { name: "a".into(), value: "p".into() });
        assert_eq!(req.arguments, vec![("b".to_string(), "c".to_string())]);
        let v = json::parse(br#"{"cursor":"7","paths":["/a","/b"]}"#).unwrap();
        assert_eq!(decode_changes(&v).unwrap(), ChangesRequest { cursor: "7".into(), paths: vec!["/a".into(), "/b".into()] });
        assert_eq!(decode_page(&json::parse(b"{}").unwrap()).unwrap(), "");
        assert!(decode_page(&json::parse(br#"{"cursor":1}"#).unwrap()).is_err());
        assert!(decode_read(&json::parse(b"[]").unwrap()).is_err());
        assert!(decode_read(&json::parse(b"{}").unwrap()).is_err());
    }
}
