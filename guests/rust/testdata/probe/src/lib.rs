//! A provider that exercises the SDK's host services through the real host,
//! for guests/rust/sdk_test.go: not an example. Reading probe:///fetch GETs
//! the URL in config "url" with the header "x-probe: 1" (probe:///post POSTs
//! "a\"b") and reports the status, content-type and body in hex, or the
//! refusal; it logs one line per call. probe:///nuls, probe:///bytes and
//! probe:///mixed return the large and many contents of [`contents`].

use mcpw::*;

struct Probe;

impl Provider for Probe {
    fn describe(&self) -> Describe {
        Describe { name: "probe".into(), version: "1".into(), uri_space: vec![UriRoot::scheme("probe")], ..Default::default() }
    }
}

impl Reader for Probe {
    fn read(&mut self, uri: &str) -> Result<ReadResult> {
        if let Some(r) = contents(uri) {
            return Ok(r);
        }
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

/// Contents whose inline form would be much larger than their bytes:
/// probe:///nuls is 100 KiB of text that is all NULs but for one "é" at each
/// end (each NUL escaped would be 6 bytes: "\u0000"), probe:///bytes a 96 KiB
/// blob of every byte value in turn (base64 would be 128 KiB), and
/// probe:///mixed four contents: an empty text, an empty blob, a text and a
/// blob.
fn contents(uri: &str) -> Option<ReadResult> {
    let nuls = || format!("é{}é", "\0".repeat(100 * 1024 - 4));
    let bytes = || (0..96 * 1024).map(|i| i as u8).collect::<Vec<u8>>();
    Some(match uri {
        "probe:///nuls" => ReadResult::one(Content::text(uri, "text/plain", nuls())),
        "probe:///bytes" => ReadResult::one(Content::blob(uri, "application/octet-stream", bytes())),
        "probe:///mixed" => ReadResult {
            contents: vec![
                Content::text(uri, "", ""),
                Content::blob(uri, "", Vec::new()),
                Content::text(uri, "", "a\"b\\c\n"),
                Content::blob(uri, "", vec![0, 0xff, 0x80]),
            ],
            cache: None,
        },
        _ => return None,
    })
}

mcpw::export!(Probe, Probe, read);
