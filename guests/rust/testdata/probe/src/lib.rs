//! A provider that exercises the SDK's host services through the real host,
//! for guests/rust/sdk_test.go: not an example. Reading probe:///fetch GETs
//! the URL in config "url" with the header "x-probe: 1" (probe:///post POSTs
//! "a\"b") and reports the status, content-type and body in hex, or the
//! refusal; it logs one line per call.

use mcpw::*;

struct Probe;

impl Provider for Probe {
    fn describe(&self) -> Describe {
        Describe { name: "probe".into(), version: "1".into(), uri_space: vec![UriRoot::scheme("probe")], ..Default::default() }
    }
}

impl Reader for Probe {
    fn read(&mut self, uri: &str) -> Result<ReadResult> {
        let url = config_get("url").ok_or_else(|| Error::internal("config url not granted"))?;
        let mut req = FetchRequest::get(&url);
        req.headers.push(("x-probe".into(), "1".into()));
        match uri {
            "probe:///fetch" => {}
            "probe:///post" => {
                req.method = "POST".into();
                req.body = "a\"b".into();
            }
            _ => return Err(Error::not_found(uri)),
        }
        log(Level::Info, &format!("probe: {}", uri));
        let text = match http_fetch(&req) {
            Ok(r) => {
                let hex: String = r.body.iter().map(|b| format!("{:02x}", b)).collect();
                format!("status={} type={} body={}", r.status, r.header("content-type").unwrap_or("-"), hex)
            }
            Err(e) => format!("code={} message={}", e.code, e.message),
        };
        Ok(ReadResult::one(Content::text(uri, "text/plain", text)))
    }
}

mcpw::export!(Probe, Probe, read);
