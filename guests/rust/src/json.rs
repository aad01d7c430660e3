//! A small JSON encoder and decoder, enough for the ABI's payloads.
//!
//! The encoder writes what the host's strict decoder accepts: valid UTF-8
//! (Rust strings always are), control characters escaped, each member once.
//! The decoder reads the host's inputs into a [`Value`]; it is a complete,
//! validating RFC 8259 parser (escapes, surrogate pairs, nesting bounded at
//! 64) so that a malformed input is an `invalid_params` error, never a panic.

use std::fmt::Write as _;

/// A decoded JSON value. Numbers keep their text; objects keep member order.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `name` of an object (the first, if repeated), or None.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// The deepest nesting [`parse`] accepts.
pub const MAX_DEPTH: usize = 64;

/// Parses one JSON value that fills `input` (surrounding whitespace allowed).
pub fn parse(input: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(input).map_err(|e| format!("input is not UTF-8: {}", e))?;
    let mut p = Parser { s: text.as_bytes(), i: 0, depth: 0 };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("trailing data at byte {}", p.i));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{} at byte {}", what, self.i))
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-') | Some(b'0'..=b'9') => self.number(),
            Some(_) => self.err("unexpected character"),
            None => self.err("unexpected end of input"),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            self.err("invalid literal")
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        if self.peek() == Some(b'0') {
            self.i += 1;
        } else if self.digits() == 0 {
            return self.err("invalid number");
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return self.err("invalid number");
            }
        }
        if matches!(self.peek(), Some(b'e') | Some(b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+') | Some(b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return self.err("invalid number");
            }
        }
        // The input was checked to be UTF-8 and a number is ASCII.
        Ok(Value::Number(String::from_utf8_lossy(&self.s[start..self.i]).into_owned()))
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("nesting too deep");
        }
        self.i += 1;
        self.ws();
        Ok(())
    }

    fn array(&mut self) -> Result<Value, String> {
        self.enter()?;
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(Value::Array(items));
                }
                _ => return self.err("expected ',' or ']'"),
            }
        }
    }

    fn object(&mut self) -> Result<Value, String> {
        self.enter()?;
        let mut members = Vec::new();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return self.err("expected a member name");
            }
            let k = self.string()?;
            self.ws();
            if self.peek() != Some(b':') {
                return self.err("expected ':'");
            }
            self.i += 1;
            self.ws();
            let v = self.value()?;
            members.push((k, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(Value::Object(members));
                }
                _ => return self.err("expected ',' or '}'"),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        if self.i + 4 > self.s.len() {
            return self.err("short \\u escape");
        }
        let mut v = 0u32;
        for k in 0..4 {
            let d = match self.s[self.i + k] {
                c @ b'0'..=b'9' => c - b'0',
                c @ b'a'..=b'f' => c - b'a' + 10,
                c @ b'A'..=b'F' => c - b'A' + 10,
                _ => return self.err("bad \\u escape"),
            };
            v = v << 4 | d as u32;
        }
        self.i += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.i;
            while self.i < self.s.len() && self.s[self.i] != b'"' && self.s[self.i] != b'\\' && self.s[self.i] >= 0x20 {
                self.i += 1;
            }
            // Runs end at ASCII bytes, so they are whole UTF-8 sequences.
            out.push_str(std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?);
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => self.escape(&mut out)?,
                Some(_) => return self.err("control character in string"),
                None => return self.err("unterminated string"),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), String> {
        self.i += 1;
        let c = match self.peek() {
            Some(c) => c,
            None => return self.err("unterminated escape"),
        };
        self.i += 1;
        let ch = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode(out),
            _ => return self.err("invalid escape"),
        };
        out.push(ch);
        Ok(())
    }

    // unicode decodes \uXXXX, joining a surrogate pair; a lone surrogate is
    // an error (the host never sends one).
    fn unicode(&mut self, out: &mut String) -> Result<(), String> {
        let hi = self.hex4()?;
        let cp = if (0xD800..0xDC00).contains(&hi) {
            if !self.s[self.i..].starts_with(b"\\u") {
                return self.err("lone surrogate");
            }
            self.i += 2;
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return self.err("lone surrogate");
            }
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else {
            hi
        };
        match char::from_u32(cp) {
            Some(ch) => {
                out.push(ch);
                Ok(())
            }
            None => self.err("lone surrogate"),
        }
    }
}

/// Appends `s` to `out` as a quoted JSON string.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let b = s.as_bytes();
    let mut run = 0;
    for (i, &c) in b.iter().enumerate() {
        if c >= 0x20 && c != b'"' && c != b'\\' {
            continue;
        }
        out.extend_from_slice(&b[run..i]);
        run = i + 1;
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 15) as usize]]);
            }
        }
    }
    out.extend_from_slice(&b[run..]);
    out.push(b'"');
}

/// Appends an integer.
pub fn write_int(out: &mut Vec<u8>, v: i64) {
    let mut s = String::new();
    let _ = write!(s, "{}", v);
    out.extend_from_slice(s.as_bytes());
}

/// Appends a finite number in the shortest form that reads back the same;
/// NaN and infinities (which JSON cannot hold) are written as 0.
pub fn write_float(out: &mut Vec<u8>, v: f64) {
    let mut s = String::new();
    if !v.is_finite() {
        s.push('0');
    } else if v != 0.0 && (v.abs() < 1e-6 || v.abs() >= 1e21) {
        let _ = write!(s, "{:e}", v);
    } else {
        let _ = write!(s, "{}", v);
    }
    out.extend_from_slice(s.as_bytes());
}

/// Writes a JSON object member by member, adding the commas.
pub struct Obj<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Obj<'a> {
    /// Starts an object.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Obj { out, first: true }
    }

    /// Writes the member name and returns the buffer for its value.
    pub fn key(&mut self, name: &str) -> &mut Vec<u8> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        write_str(self.out, name);
        self.out.push(b':');
        self.out
    }

    /// A string member.
    pub fn str(&mut self, name: &str, v: &str) {
        write_str(self.key(name), v);
    }

    /// A string member, left out when empty.
    pub fn opt_str(&mut self, name: &str, v: &str) {
        if !v.is_empty() {
            self.str(name, v);
        }
    }

    /// An integer member.
    pub fn int(&mut self, name: &str, v: i64) {
        write_int(self.key(name), v);
    }

    /// A boolean member.
    pub fn bool(&mut self, name: &str, v: bool) {
        self.key(name).extend_from_slice(if v { b"true" } else { b"false" });
    }

    /// An array of strings.
    pub fn strs(&mut self, name: &str, v: &[String]) {
        let out = self.key(name);
        out.push(b'[');
        for (i, s) in v.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_str(out, s);
        }
        out.push(b']');
    }

    /// An array member whose items write themselves.
    pub fn array<T>(&mut self, name: &str, v: &[T], mut item: impl FnMut(&mut Vec<u8>, &T)) {
        let out = self.key(name);
        out.push(b'[');
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            item(out, x);
        }
        out.push(b']');
    }

    /// Ends the object.
    pub fn end(self) {
        self.out.push(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(s: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn strings_round_trip() {
        for s in ["", "plain", "q\"b\\s/", "\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}", "ünï €😀", "<>&\u{2028}"] {
            let e = enc(s);
            assert_eq!(parse(e.as_bytes()).unwrap(), Value::String(s.to_string()), "{}", e);
        }
        assert_eq!(enc("a\"\u{1}"), "\"a\\\"\\u0001\"");
    }

    #[test]
    fn decodes_what_go_writes() {
        let v = parse(br#"{"uri":"a\u003cb\u0026c","x":[1,-2.5e3,true,null],"s":"\ud83d\ude00\/"}"#).unwrap();
        assert_eq!(v.get("uri").and_then(Value::as_str), Some("a<b&c"));
        assert_eq!(v.get("s").and_then(Value::as_str), Some("😀/"));
        assert_eq!(
            v.get("x"),
            Some(&Value::Array(vec![Value::Number("1".into()), Value::Number("-2.5e3".into()), Value::Bool(true), Value::Null]))
        );
    }

    #[test]
    fn rejects_malformed() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        for bad in [
            &b"{"[..],
            b"{\"a\"}",
            b"{\"a\":1,}",
            b"[1 2]",
            b"\"\\ud800\"",
            b"\"\\ud800\\u0041\"",
            b"\"\\x\"",
            b"\"a\x01\"",
            b"01",
            b"1.",
            b"-",
            b"tru",
            b"{} x",
            b"\"\xff\"",
            b"",
            deep.as_bytes(),
        ] {
            assert!(parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(ok.as_bytes()).is_ok());
    }

    #[test]
    fn floats() {
        for (v, want) in [(0.5, "0.5"), (1.0, "1"), (0.0, "0"), (1e-7, "1e-7"), (f64::NAN, "0"), (0.1, "0.1")] {
            let mut out = Vec::new();
            write_float(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }

    #[test]
    fn objects() {
        let mut out = Vec::new();
        let mut o = Obj::new(&mut out);
        o.str("a", "x");
        o.opt_str("skip", "");
        o.int("n", -3);
        o.bool("b", true);
        o.strs("l", &["p".to_string(), "q".to_string()]);
        o.end();
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":"x","n":-3,"b":true,"l":["p","q"]}"#);
    }
}
