//! Host services: logging, config values, and the raw ABI imports.
//!
//! In a wasm guest these are the `mcpw_v1` imports. Natively (cargo test)
//! they go to the [`Host`] installed with [`set_host`], or nowhere.

/// The severity of a log message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Debug = 0,
    Info = 1,
    Warn = 2,
    Error = 3,
}

/// Sends `msg` to the host log. The host keeps at most 64 messages of at
/// most 4 KiB per call.
pub fn log(level: Level, msg: &str) {
    if !msg.is_empty() {
        imp::log(level, crate::error::clip(msg, 4096));
    }
}

/// The value of an operator-granted config key, or None if the operator
/// did not grant it. Declare every key you read in
/// `Describe.requests.config`. Describe itself must not read config.
pub fn config_get(key: &str) -> Option<String> {
    if key.is_empty() {
        return None;
    }
    imp::config(key)
}

/// The host services as a trait, for running a provider natively: install
/// one with [`set_host`] in tests.
pub trait Host {
    fn log(&self, level: Level, msg: &str);
    fn config(&self, key: &str) -> Option<String>;
    /// Answers an outbound HTTP request with the FetchResponse JSON the
    /// real host would write (see abi/ABI.md §4.4).
    fn fetch(&self, request_json: &[u8]) -> Vec<u8>;
}

#[cfg(not(target_arch = "wasm32"))]
pub use imp::set_host;

#[cfg(target_arch = "wasm32")]
pub(crate) mod imp {
    use super::Level;

    // The symbols carry an mcpw_ prefix so that they cannot collide with
    // libc's (log is also the natural logarithm); the import names are the
    // ABI's.
    #[link(wasm_import_module = "mcpw_v1")]
    extern "C" {
        #[link_name = "input_read"]
        fn mcpw_input_read(ptr: *mut u8, len: i32) -> i32;
        #[link_name = "output_write"]
        fn mcpw_output_write(ptr: *const u8, len: i32) -> i32;
        #[link_name = "log"]
        fn mcpw_log(level: i32, ptr: *const u8, len: i32);
        #[link_name = "config_get"]
        fn mcpw_config_get(key: *const u8, key_len: i32, val: *mut u8, cap: i32) -> i32;
        #[link_name = "content_write"]
        fn mcpw_content_write(ptr: *const u8, len: i32) -> i32;
        #[link_name = "http_fetch"]
        fn mcpw_http_fetch(req: *const u8, len: i32) -> i32;
        #[link_name = "http_read"]
        fn mcpw_http_read(ptr: *mut u8, len: i32) -> i32;
    }

    pub(crate) fn input(in_len: i32) -> Vec<u8> {
        let n = in_len.max(0) as usize;
        let mut buf = vec![0u8; n];
        if n > 0 {
            let got = unsafe { mcpw_input_read(buf.as_mut_ptr(), n as i32) };
            buf.truncate(got.clamp(0, n as i32) as usize);
        }
        buf
    }

    pub(crate) fn output(out: &[u8]) {
        // On -2 (over the output cap) the host fails the call; nothing to do.
        unsafe { mcpw_output_write(out.as_ptr(), out.len() as i32) };
    }

    pub(crate) fn log(level: Level, msg: &str) {
        unsafe { mcpw_log(level as i32, msg.as_ptr(), msg.len() as i32) }
    }

    /// Hands a read content's bytes to the host as they are and returns the
    /// index to refer to them by (ABI §6.3), or None when the host refused
    /// them (past the output limit: the call fails whatever is sent).
    pub(crate) fn content(body: &[u8]) -> Option<u32> {
        if body.len() > i32::MAX as usize {
            return None;
        }
        let n = unsafe { mcpw_content_write(body.as_ptr(), body.len() as i32) };
        if n < 0 {
            return None;
        }
        Some(n as u32)
    }

    pub(crate) fn config(key: &str) -> Option<String> {
        if key.len() > i32::MAX as usize {
            return None;
        }
        let mut buf = vec![0u8; 256];
        // A value longer than the buffer is not copied; the host returns its
        // length, so the second try fits (the value cannot change mid-call).
        for _ in 0..2 {
            let n = unsafe { mcpw_config_get(key.as_ptr(), key.len() as i32, buf.as_mut_ptr(), buf.len() as i32) };
            if n < 0 {
                return None;
            }
            if n as usize <= buf.len() {
                buf.truncate(n as usize);
                return String::from_utf8(buf).ok();
            }
            buf = vec![0u8; n as usize];
        }
        None
    }

    pub(crate) fn fetch(req: &[u8]) -> Vec<u8> {
        let n = unsafe { mcpw_http_fetch(req.as_ptr(), req.len() as i32) };
        let mut buf = vec![0u8; n.max(0) as usize];
        if n > 0 {
            let got = unsafe { mcpw_http_read(buf.as_mut_ptr(), n) };
            buf.truncate(got.clamp(0, n) as usize);
        }
        buf
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod imp {
    use super::{Host, Level};
    use std::cell::RefCell;

    thread_local! {
        static HOST: RefCell<Option<Box<dyn Host>>> = RefCell::new(None);
    }

    /// Installs the host that serves log, config_get and http_fetch on
    /// this thread when the provider runs natively (tests); returns the one
    /// it replaces. Without one, logs are dropped, no config is granted and
    /// HTTP is refused.
    pub fn set_host(h: Option<Box<dyn Host>>) -> Option<Box<dyn Host>> {
        HOST.with(|c| std::mem::replace(&mut *c.borrow_mut(), h))
    }

    // Natively there is no host to pull input from or push output to: tests
    // call Server::call directly.
    pub(crate) fn input(_: i32) -> Vec<u8> {
        Vec::new()
    }

    pub(crate) fn output(_: &[u8]) {}

    // Natively there is no host to hand content bodies to: Server::call
    // sends every read content inline ("text", "blob"), as the ABI also
    // allows.
    pub(crate) fn content(_: &[u8]) -> Option<u32> {
        None
    }

    pub(crate) fn log(level: Level, msg: &str) {
        HOST.with(|c| {
            if let Some(h) = &*c.borrow() {
                h.log(level, msg)
            }
        })
    }

    pub(crate) fn config(key: &str) -> Option<String> {
        HOST.with(|c| c.borrow().as_ref().and_then(|h| h.config(key)))
    }

    pub(crate) fn fetch(req: &[u8]) -> Vec<u8> {
        HOST.with(|c| match &*c.borrow() {
            Some(h) => h.fetch(req),
            None => br#"{"error":{"code":"denied","message":"no host installed: mcpw::set_host"}}"#.to_vec(),
        })
    }
}
