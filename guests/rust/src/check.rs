//! Checks a result against the ABI rules a provider bug most often breaks,
//! before it is sent: a result the host rejects counts as an ABI violation
//! and costs the instance, while a rejected result here becomes an
//! `internal` error with a log line naming the problem. The host's full
//! validation (abi/ABI.md §7) still applies; this is not all of it.

use crate::types::*;
use crate::MAX_TEXT_FIELD;

/// The ABI's fixed bounds.
pub(crate) const MAX_ITEMS: usize = 1000;
pub(crate) const MAX_VALUES: usize = 100;
pub(crate) const MAX_CURSOR: usize = 1024;
pub(crate) const MAX_URI: usize = 2048;

/// Whether `uri` lies in one of `roots` (abi/ABI.md §6.1).
pub(crate) fn in_space(uri: &str, roots: &[UriRoot]) -> bool {
    let colon = match uri.find(':') {
        Some(i) if i > 0 => i,
        _ => return false,
    };
    let (scheme, rest) = (&uri[..colon], &uri[colon + 1..]);
    let (authority, path) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find(|c| c == '/' || c == '?' || c == '#').unwrap_or(r.len());
            (Some(&r[..end]), &r[end..])
        }
        None => (None, rest),
    };
    let path = &path[..path.find(|c| c == '?' || c == '#').unwrap_or(path.len())];
    roots.iter().any(|r| {
        let auth_ok = match (r.authority.as_str(), authority) {
            ("", None) | ("", Some("")) => true,
            ("", Some(_)) => false,
            ("*", _) => true,
            (want, Some(a)) => a.eq_ignore_ascii_case(want),
            (_, None) => false,
        };
        let p = r.path_prefix.as_str();
        let path_ok = p.is_empty() || path == p || (path.starts_with(p) && (p.ends_with('/') || path.as_bytes()[p.len()] == b'/'));
        scheme.eq_ignore_ascii_case(&r.scheme) && auth_ok && path_ok
    })
}

fn uri(u: &str, roots: &[UriRoot], what: &str) -> Result<(), String> {
    if u.len() > MAX_URI {
        return Err(format!("{} is longer than {} bytes", what, MAX_URI));
    }
    if !in_space(u, roots) {
        return Err(format!("{} {:?} is outside the provider's uriSpace", what, u));
    }
    Ok(())
}

fn count(n: usize, what: &str, max: usize) -> Result<(), String> {
    if n > max {
        return Err(format!("{} {} (at most {})", n, what, max));
    }
    Ok(())
}

fn cursor(c: &str) -> Result<(), String> {
    if c.len() > MAX_CURSOR {
        return Err(format!("cursor is longer than {} bytes", MAX_CURSOR));
    }
    Ok(())
}

fn name(n: &str, what: &str) -> Result<(), String> {
    if n.is_empty() || n.len() > MAX_TEXT_FIELD {
        return Err(format!("{} name must be 1 to {} bytes", what, MAX_TEXT_FIELD));
    }
    Ok(())
}

pub(crate) fn describe(d: &Describe) -> Result<(), String> {
    let ok_name = !d.name.is_empty()
        && d.name.len() <= 64
        && d.name.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'.' || c == b'_' || c == b'-')
        && d.name.as_bytes()[0].is_ascii_alphanumeric();
    if !ok_name {
        return Err(format!("name {:?} must be 1-64 of [a-z0-9._-], starting with a letter or digit", d.name));
    }
    if d.version.is_empty() || d.version.len() > 64 {
        return Err("version must be 1 to 64 bytes".to_string());
    }
    if d.uri_space.is_empty() || d.uri_space.len() > 32 {
        return Err("uri_space must hold 1 to 32 roots".to_string());
    }
    for r in &d.uri_space {
        let s = r.scheme.as_bytes();
        if s.is_empty() || s.len() > 32 || !s[0].is_ascii_lowercase() || !s.iter().all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'+' || c == b'.' || c == b'-') {
            return Err(format!("scheme {:?} must be lower case [a-z][a-z0-9+.-]*, at most 32 bytes", r.scheme));
        }
    }
    Ok(())
}

pub(crate) fn list(r: &ListResult, roots: &[UriRoot]) -> Result<(), String> {
    count(r.resources.len(), "resources", MAX_ITEMS)?;
    for x in &r.resources {
        uri(&x.uri, roots, "resource uri")?;
        name(&x.name, "resource")?;
        if matches!(x.size, Some(n) if n < 0) {
            return Err(format!("resource {:?} has a negative size", x.uri));
        }
    }
    cursor(&r.next_cursor)
}

pub(crate) fn templates(r: &TemplatesResult) -> Result<(), String> {
    count(r.resource_templates.len(), "templates", MAX_ITEMS)?;
    for t in &r.resource_templates {
        if t.uri_template.is_empty() || !t.uri_template.bytes().all(|c| (0x21..0x7f).contains(&c)) {
            return Err(format!("uriTemplate {:?} must be printable ASCII", t.uri_template));
        }
        name(&t.name, "template")?;
    }
    cursor(&r.next_cursor)
}

pub(crate) fn read(r: &ReadResult, roots: &[UriRoot]) -> Result<(), String> {
    if r.contents.is_empty() {
        return Err("contents is empty: return Error::not_found instead".to_string());
    }
    count(r.contents.len(), "contents", MAX_ITEMS)?;
    for c in &r.contents {
        uri(&c.uri, roots, "content uri")?;
    }
    Ok(())
}

pub(crate) fn complete(r: &CompleteResult) -> Result<(), String> {
    count(r.values.len(), "values", MAX_VALUES)?;
    if matches!(r.total, Some(t) if t < r.values.len() as i64) {
        return Err("total is less than the number of values".to_string());
    }
    Ok(())
}

pub(crate) fn changes(r: &ChangesResult, roots: &[UriRoot]) -> Result<(), String> {
    count(r.updated.len(), "updated URIs", MAX_ITEMS)?;
    for u in &r.updated {
        uri(u, roots, "updated uri")?;
    }
    cursor(&r.cursor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_space() {
        let notes = [UriRoot::scheme("notes")];
        let api = [UriRoot { scheme: "https".into(), authority: "api.example.com".into(), path_prefix: "/v1".into() }];
        let any = [UriRoot { scheme: "s3".into(), authority: "*".into(), ..Default::default() }];
        for (u, roots, want) in [
            ("notes:x", &notes[..], true),
            ("notes:///x", &notes, true),
            ("NOTES:///x", &notes, true),
            ("notes://host/x", &notes, false),
            ("file:///etc/passwd", &notes, false),
            (":x", &notes, false),
            ("https://api.example.com/v1", &api, true),
            ("https://API.example.com/v1/x?q", &api, true),
            ("https://api.example.com/v10", &api, false),
            ("https://api.example.com/v2", &api, false),
            ("https://other.example.com/v1", &api, false),
            ("s3://bucket/key", &any, true),
        ] {
            assert_eq!(in_space(u, roots), want, "{}", u);
        }
    }

    #[test]
    fn results() {
        let roots = [UriRoot::scheme("x")];
        assert!(read(&ReadResult::default(), &roots).is_err());
        assert!(read(&ReadResult::one(Content::text("y:a", "", "")), &roots).is_err());
        assert!(read(&ReadResult::one(Content::text("x:a", "", "")), &roots).is_ok());
        let many = CompleteResult { values: vec![String::new(); 101], ..Default::default() };
        assert!(complete(&many).is_err());
        assert!(complete(&CompleteResult { values: vec!["a".into()], total: Some(0), has_more: false }).is_err());
        let page = ListResult { resources: vec![Resource { uri: "x:a".into(), ..Default::default() }], ..Default::default() };
        assert!(list(&page, &roots).is_err(), "empty name");
        assert!(changes(&ChangesResult { cursor: "c".repeat(1025), ..Default::default() }, &roots).is_err());
        assert!(describe(&Describe { name: "Bad".into(), version: "1".into(), uri_space: roots.to_vec(), ..Default::default() }).is_err());
        assert!(describe(&Describe { name: "ok".into(), version: "1".into(), uri_space: roots.to_vec(), ..Default::default() }).is_ok());
    }
}
