//! Outbound HTTP through the host (abi/ABI.md §4.4).
//!
//! A module that calls [`http_fetch`] imports `mcpw_v1.http_fetch`, so it
//! loads only where the operator granted outbound HTTP; a module that never
//! calls it does not import it. Declare the URL prefixes you need in
//! `Describe.requests.http`.

use std::fmt;

use crate::json::{self, Obj, Value};

/// A request for the host to send. Header names are RFC 9110 tokens; the
/// host sets Host, Content-Length and the hop-by-hop headers itself and
/// refuses them here.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FetchRequest {
    /// `GET` (when empty), `HEAD` or `POST`.
    pub method: String,
    /// An absolute http or https URL.
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// Sent only with POST.
    pub body: String,
}

impl FetchRequest {
    /// A GET of `url`.
    pub fn get(url: &str) -> Self {
        FetchRequest { url: url.to_string(), ..Default::default() }
    }

    fn encode(&self, out: &mut Vec<u8>) {
        let mut o = Obj::new(out);
        o.opt_str("method", &self.method);
        o.str("url", &self.url);
        if !self.headers.is_empty() {
            let mut h = Obj::new(o.key("headers"));
            for (k, v) in &self.headers {
                h.str(k, v);
            }
            h.end();
        }
        o.opt_str("body", &self.body);
        o.end();
    }
}

/// An HTTP response. Any status, 4xx and 5xx included, is a response.
/// Header names are lower case; repeated headers are joined with ", ".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The value of header `name` (lower case), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// The host's reason for not answering: `code` is one of `denied`,
/// `invalid`, `too_large`, `timeout`, `network`, `limit`; the host wrote
/// the message, never the server at the other end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchError {
    pub code: String,
    pub message: String,
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http {}: {}", self.code, self.message)
    }
}

impl std::error::Error for FetchError {}

/// Sends `req` through the host, which sends it only if the operator's
/// grant allows its method, scheme, host, port and path (and every
/// redirect, and the address it connects to).
pub fn http_fetch(req: &FetchRequest) -> Result<Response, FetchError> {
    let mut b = Vec::new();
    req.encode(&mut b);
    decode_response(&crate::host::imp::fetch(&b))
}

fn sdk_error(msg: String) -> FetchError {
    FetchError { code: "invalid".to_string(), message: format!("mcpw: host response: {}", msg) }
}

fn decode_response(b: &[u8]) -> Result<Response, FetchError> {
    let v = json::parse(b).map_err(sdk_error)?;
    if let Some(e) = v.get("error") {
        let s = |k| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        return Err(FetchError { code: s("code"), message: s("message") });
    }
    let status = match v.get("status") {
        Some(Value::Number(n)) => n.parse::<u16>().map_err(|_| sdk_error(format!("bad status {}", n)))?,
        _ => return Err(sdk_error("neither a response nor an error".to_string())),
    };
    let mut r = Response { status, ..Default::default() };
    if let Some(Value::Object(h)) = v.get("headers") {
        for (k, x) in h {
            r.headers.push((k.clone(), x.as_str().unwrap_or("").to_string()));
        }
    }
    if let Some(s) = v.get("body").and_then(Value::as_str) {
        r.body = s.as_bytes().to_vec();
    }
    if let Some(s) = v.get("bodyBase64").and_then(Value::as_str) {
        r.body = crate::base64::decode(s).ok_or_else(|| sdk_error("bad bodyBase64".to_string()))?;
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{set_host, Host, Level};
    use std::cell::RefCell;
    use std::rc::Rc;

    struct Echo(Rc<RefCell<Vec<u8>>>, &'static str);

    impl Host for Echo {
        fn log(&self, _: Level, _: &str) {}
        fn config(&self, _: &str) -> Option<String> {
            None
        }
        fn fetch(&self, req: &[u8]) -> Vec<u8> {
            *self.0.borrow_mut() = req.to_vec();
            self.1.as_bytes().to_vec()
        }
    }

    fn with(answer: &'static str, req: FetchRequest) -> (Result<Response, FetchError>, String) {
        let sent = Rc::new(RefCell::new(Vec::new()));
        set_host(Some(Box::new(Echo(sent.clone(), answer))));
        let r = http_fetch(&req);
        set_host(None);
        let s = String::from_utf8(sent.borrow().clone()).unwrap();
        (r, s)
    }

    #[test]
    fn response_and_request() {
        let req = FetchRequest { method: "POST".into(), url: "https://x.test/a".into(), headers: vec![("accept".into(), "*/*".into())], body: "b".into() };
        let (r, sent) = with(r#"{"status":404,"headers":{"content-type":"text/plain"},"bodyBase64":"AP8="}"#, req);
        assert_eq!(sent, r#"{"method":"POST","url":"https://x.test/a","headers":{"accept":"*/*"},"body":"b"}"#);
        let r = r.unwrap();
        assert_eq!(r.status, 404);
        assert_eq!(r.header("content-type"), Some("text/plain"));
        assert_eq!(r.body, vec![0, 255]);
        let (r, _) = with(r#"{"status":200,"body":"hi"}"#, FetchRequest::get("https://x.test/"));
        assert_eq!(r.unwrap().body, b"hi");
    }

    #[test]
    fn errors() {
        let (r, _) = with(r#"{"error":{"code":"denied","message":"not granted"}}"#, FetchRequest::get("https://x.test/"));
        assert_eq!(r.unwrap_err(), FetchError { code: "denied".into(), message: "not granted".into() });
        for bad in ["", "{}", r#"{"status":"x"}"#, r#"{"status":200,"bodyBase64":"!"}"#] {
            let (r, _) = with(bad, FetchRequest::get("https://x.test/"));
            assert_eq!(r.unwrap_err().code, "invalid", "{}", bad);
        }
        // No host installed: refused, not a panic.
        assert_eq!(http_fetch(&FetchRequest::get("https://x.test/")).unwrap_err().code, "denied");
    }
}
