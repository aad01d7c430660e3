//! Domain errors with the ABI's codes (abi/ABI.md §6.6).

use std::fmt;

/// The code of a domain error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// The URI is in the provider's space but no such resource exists.
    NotFound,
    /// The request is malformed for this provider.
    InvalidParams,
    /// Anything else.
    Internal,
}

impl Code {
    /// The code as the ABI spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::NotFound => "not_found",
            Code::InvalidParams => "invalid_params",
            Code::Internal => "internal",
        }
    }
}

/// A domain error: sent to the host with status 1. The message goes to the
/// operator's log, never to the MCP client; keep secrets out of it anyway.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    pub message: String,
}

/// The result type of every operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with `code` and `message`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error { code, message: message.into() }
    }

    /// The requested resource does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Error::new(Code::NotFound, message)
    }

    /// The request cannot be accepted (a malformed URI, an unknown cursor,
    /// an unsupported argument).
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Error::new(Code::InvalidParams, message)
    }

    /// A failure inside the provider.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(Code::Internal, message)
    }

    /// Appends the ABI's Error payload; the message is cut to 4096 bytes at
    /// a character boundary.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let mut o = crate::json::Obj::new(out);
        o.str("code", self.code.as_str());
        o.opt_str("message", clip(&self.message, crate::MAX_TEXT_FIELD));
        o.end();
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}

/// An HTTP refusal becomes an internal error, so `?` works on
/// [`crate::http_fetch`] in an operation.
impl From<crate::http::FetchError> for Error {
    fn from(e: crate::http::FetchError) -> Self {
        Error::internal(e.to_string())
    }
}

/// `s` cut to at most `max` bytes at a character boundary.
pub(crate) fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_and_clips() {
        let mut out = Vec::new();
        Error::not_found("no \"x\"").encode(&mut out);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"code":"not_found","message":"no \"x\""}"#);
        let mut out = Vec::new();
        Error::internal("").encode(&mut out);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"code":"internal"}"#);
        let long = "é".repeat(3000);
        assert_eq!(clip(&long, 4096).len(), 4096);
        assert_eq!(clip(&long, 4095).len(), 4094);
    }
}
