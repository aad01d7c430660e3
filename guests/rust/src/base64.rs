//! Standard, padded base64 (RFC 4648 §4): the encoding of `blob` contents
//! and of HTTP response bodies that are not UTF-8.

const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends `data` to `out` as a quoted base64 JSON string.
pub fn write(out: &mut Vec<u8>, data: &[u8]) {
    out.reserve(2 + (data.len() + 2) / 3 * 4);
    out.push(b'"');
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let v = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        out.push(TABLE[(v >> 18 & 63) as usize]);
        out.push(TABLE[(v >> 12 & 63) as usize]);
        out.push(if chunk.len() > 1 { TABLE[(v >> 6 & 63) as usize] } else { b'=' });
        out.push(if chunk.len() > 2 { TABLE[(v & 63) as usize] } else { b'=' });
    }
    out.push(b'"');
}

fn sextet(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// Decodes standard padded base64; None if it is malformed.
pub fn decode(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if s.len() % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    for (i, q) in s.chunks(4).enumerate() {
        let last = i == s.len() / 4 - 1;
        let pad = if last { q.iter().rev().take_while(|&&c| c == b'=').count() } else { 0 };
        if pad > 2 {
            return None;
        }
        let mut v = 0u32;
        for &c in &q[..4 - pad] {
            v = v << 6 | sextet(c)?;
        }
        v <<= 6 * pad as u32;
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        for (raw, enc) in [(&b""[..], ""), (b"f", "Zg=="), (b"fo", "Zm8="), (b"foo", "Zm9v"), (b"\x00\xff\xfe", "AP/+")] {
            let mut out = Vec::new();
            super::write(&mut out, raw);
            assert_eq!(out, format!("\"{}\"", enc).into_bytes());
            assert_eq!(super::decode(enc).as_deref(), Some(raw));
        }
        for bad in ["Zg=", "Z===", "Zg==Zg==", "Zm9*", "===="] {
            assert_eq!(super::decode(bad), None, "{}", bad);
        }
    }
}
