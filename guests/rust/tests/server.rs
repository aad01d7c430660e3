//! The call path, run natively through Server::call exactly as an export
//! would run it: decoding, dispatch, result checks, errors.

use mcpw::*;
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Default)]
struct Probe {
    describe_ops: Vec<String>,
}

impl Provider for Probe {
    fn describe(&self) -> Describe {
        Describe { name: "probe".into(), version: "1".into(), uri_space: vec![UriRoot::scheme("p")], operations: self.describe_ops.clone(), ..Default::default() }
    }
}

impl Reader for Probe {
    fn read(&mut self, uri: &str) -> Result<ReadResult> {
        match uri {
            "p:///ok" => Ok(ReadResult::one(Content::text(uri, "text/plain", "é\u{0}\""))),
            "p:///outside" => Ok(ReadResult::one(Content::text("file:///etc/passwd", "", "x"))),
            "p:///empty" => Ok(ReadResult::default()),
            "p:///config" => Ok(ReadResult::one(Content::text(uri, "", config_get("k").unwrap_or_else(|| "none".into())))),
            "p:///long-error" => Err(Error::internal("é".repeat(5000))),
            _ => Err(Error::not_found(format!("no {}", uri))),
        }
    }
}

impl Lister for Probe {
    fn list(&mut self, cursor: &str) -> Result<ListResult> {
        log(Level::Info, &format!("list {:?}", cursor));
        Ok(ListResult { resources: vec![Resource { uri: "p:a".into(), name: "a".into(), size: Some(0), ..Default::default() }], next_cursor: cursor.repeat(2), cache: None })
    }
}

fn call(s: &mut Server<Probe>, op: Op, input: &str) -> (i32, String) {
    let (status, out) = s.call(op, input.as_bytes());
    (status, String::from_utf8(out).expect("output is UTF-8"))
}

fn server() -> Server<Probe> {
    Server::new(Probe::default(), Ops::new().list().read())
}

#[test]
fn describe_fills_operations() {
    let mut s = server();
    assert_eq!(call(&mut s, Op::Describe, ""), (0, r#"{"name":"probe","version":"1","uriSpace":[{"scheme":"p"}],"operations":["list","read"]}"#.into()));
}

#[test]
fn describe_listing_an_operation_not_served_fails_every_call() {
    let mut s = Server::new(Probe { describe_ops: vec!["read".into(), "complete".into()] }, Ops::new().read());
    let (status, out) = call(&mut s, Op::Describe, "{}");
    assert_eq!(status, STATUS_ERROR);
    assert!(out.contains(r#""code":"internal""#) && out.contains("complete"), "{}", out);
    assert_eq!(call(&mut s, Op::Read, r#"{"uri":"p:///ok"}"#).0, STATUS_ERROR);
}

#[test]
fn undeclared_operation_is_invalid_params() {
    let mut s = Server::new(Probe { describe_ops: vec!["read".into()] }, Ops::new().list().read());
    let (status, out) = call(&mut s, Op::List, "{}");
    assert_eq!(status, STATUS_ERROR);
    assert!(out.starts_with(r#"{"code":"invalid_params""#), "{}", out);
    assert_eq!(call(&mut s, Op::Complete, "{}").0, STATUS_ERROR);
}

#[test]
fn read_paths() {
    let mut s = server();
    assert_eq!(call(&mut s, Op::Read, r#"{"uri":"p:///ok","future":[1]}"#), (0, r#"{"contents":[{"uri":"p:///ok","mimeType":"text/plain","text":"é\u0000\""}]}"#.into()));
    assert_eq!(call(&mut s, Op::Read, r#"{"uri":"p:///\u006fk"}"#).0, 0, "escaped input");
    assert_eq!(call(&mut s, Op::Read, r#"{"uri":"p:///nope"}"#), (1, r#"{"code":"not_found","message":"no p:///nope"}"#.into()));
    for bad in ["", "{}", "[]", r#"{"uri":1}"#, r#"{"uri":"p:///ok""#, "{\"uri\":\"\\ud800\"}", "\u{ff}"] {
        let (status, out) = call(&mut s, Op::Read, bad);
        assert_eq!(status, STATUS_ERROR, "{:?}", bad);
        assert!(out.starts_with(r#"{"code":"invalid_params""#), "{:?}: {}", bad, out);
    }
}

#[test]
fn results_the_host_would_reject_become_internal_errors() {
    let mut s = server();
    for uri in ["p:///outside", "p:///empty"] {
        let (status, out) = call(&mut s, Op::Read, &format!(r#"{{"uri":"{}"}}"#, uri));
        assert_eq!(status, STATUS_ERROR);
        assert!(out.contains("rejected before sending") && out.contains("fix the provider"), "{}", out);
    }
    let (_, out) = call(&mut s, Op::List, &format!(r#"{{"cursor":"{}"}}"#, "c".repeat(600)));
    assert!(out.contains("cursor is longer than 1024 bytes"), "{}", out);
}

#[test]
fn error_messages_are_cut_to_4096_bytes() {
    let mut s = server();
    let (status, out) = call(&mut s, Op::Read, r#"{"uri":"p:///long-error"}"#);
    assert_eq!(status, STATUS_ERROR);
    let v = json::parse(out.as_bytes()).unwrap();
    assert_eq!(v.get("message").and_then(json::Value::as_str).unwrap().len(), 4096);
}

struct MapHost {
    logs: Rc<RefCell<Vec<String>>>,
}

impl Host for MapHost {
    fn log(&self, _: Level, msg: &str) {
        self.logs.borrow_mut().push(msg.to_string());
    }
    fn config(&self, key: &str) -> Option<String> {
        (key == "k").then(|| "v".to_string())
    }
    fn fetch(&self, _: &[u8]) -> Vec<u8> {
        Vec::new()
    }
}

#[test]
fn host_services_natively() {
    let logs = Rc::new(RefCell::new(Vec::new()));
    set_host(Some(Box::new(MapHost { logs: logs.clone() })));
    let mut s = server();
    assert!(call(&mut s, Op::Read, r#"{"uri":"p:///config"}"#).1.contains(r#""text":"v""#));
    call(&mut s, Op::List, r#"{"cursor":"x"}"#);
    call(&mut s, Op::Read, r#"{"uri":"p:///outside"}"#);
    set_host(None);
    let logs = logs.borrow();
    assert_eq!(logs[0], r#"list "x""#);
    assert!(logs[1].starts_with("mcpw: read result rejected"), "{:?}", logs);
    assert!(call(&mut s, Op::Read, r#"{"uri":"p:///config"}"#).1.contains(r#""text":"none""#));
}
