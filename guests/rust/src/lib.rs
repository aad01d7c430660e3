//! The Rust SDK for mcp-wasm resource providers (ABI `mcpw_v1`, see
//! abi/ABI.md in the mcp-wasm repository).
//!
//! A provider implements [`Provider`] and the traits of the operations it
//! serves ([`Lister`], [`Templater`], [`Reader`], [`Completer`],
//! [`Changer`]), then names them in [`export!`], which generates the
//! module's exports:
//!
//! ```ignore
//! use mcpw::*;
//!
//! #[derive(Default)]
//! struct Hello;
//!
//! impl Provider for Hello {
//!     fn describe(&self) -> Describe {
//!         Describe { name: "hello".into(), version: "1.0.0".into(), uri_space: vec![UriRoot::scheme("hello")], ..Default::default() }
//!     }
//! }
//!
//! impl Reader for Hello {
//!     fn read(&mut self, uri: &str) -> Result<ReadResult> {
//!         if uri != "hello:///world" {
//!             return Err(Error::not_found(format!("no resource {}", uri)));
//!         }
//!         Ok(ReadResult::one(Content::text(uri, "text/plain", "hello, world")))
//!     }
//! }
//!
//! mcpw::export!(Hello, Hello::default(), read);
//! ```
//!
//! Build as a `cdylib` for `wasm32-wasi` (Rust up to 1.83) or
//! `wasm32-wasip1`. The SDK owns the ABI: it reads the call's input,
//! decodes it, calls the provider, checks and encodes the result, and
//! writes it back; the author never sees a pointer or a byte of JSON.
//!
//! It refuses to send some output the host would reject (a URI outside the
//! declared URI space, empty contents, too many items, an over-long
//! cursor): such a result becomes an `internal` error with a log line, and
//! the instance survives. It does not sandbox the provider; the host does.
//! A panic traps the call (build with `panic = "abort"`): the host counts a
//! fault and replaces the instance.
//!
//! It depends on nothing outside std and uses no feature newer than Rust
//! 1.63.

mod base64;
mod check;
mod dispatch;
mod error;
mod host;
mod http;
pub mod json;
mod types;

pub use dispatch::{Op, Ops, Server, STATUS_ERROR, STATUS_OK};
pub use error::{Code, Error, Result};
#[cfg(not(target_arch = "wasm32"))]
pub use host::set_host;
pub use host::{config_get, log, Host, Level};
pub use http::{http_fetch, FetchError, FetchRequest, Response};
pub use types::*;

#[doc(hidden)]
pub use dispatch::private as __private;

/// The ABI's bound on text fields (names, messages): 4096 bytes.
pub const MAX_TEXT_FIELD: usize = 4096;

/// What every provider implements. `describe` is called once per instance,
/// before any operation, and must not read config: the operator grants
/// config keys after reading the requests it returns.
pub trait Provider {
    fn describe(&self) -> Describe;
}

/// Serves list: one page of resources. `cursor` is empty for the first
/// page, else a `next_cursor` this provider returned.
pub trait Lister: Provider {
    fn list(&mut self, cursor: &str) -> Result<ListResult>;
}

/// Serves templates: one page of URI templates.
pub trait Templater: Provider {
    fn templates(&mut self, cursor: &str) -> Result<TemplatesResult>;
}

/// Serves read. Return [`Error::not_found`] for an unknown URI.
pub trait Reader: Provider {
    fn read(&mut self, uri: &str) -> Result<ReadResult>;
}

/// Serves complete: values for a template argument.
pub trait Completer: Provider {
    fn complete(&mut self, req: &CompleteRequest) -> Result<CompleteResult>;
}

/// Serves changes: what changed since `req.cursor` (abi/ABI.md §11).
pub trait Changer: Provider {
    fn changes(&mut self, req: &ChangesRequest) -> Result<ChangesResult>;
}

/// Generates the module's exports for a provider type, the expression that
/// builds it (run once per instance, on the first call), and the optional
/// operations it serves, any of `list`, `templates`, `read`, `complete`,
/// `changes`:
///
/// ```ignore
/// mcpw::export!(Catalog, Catalog::new(), list, templates, read, complete, changes);
/// ```
///
/// Only the named operations are exported, and the provider must implement
/// each one's trait (a compile error otherwise). If `describe` leaves
/// `operations` empty, the SDK fills it with these names.
#[macro_export]
macro_rules! export {
    ($ty:ty, $ctor:expr $(, $op:ident)* $(,)?) => {
        ::std::thread_local! {
            static __MCPW_SERVER: ::std::cell::RefCell<$crate::Server<$ty>> =
                ::std::cell::RefCell::new($crate::Server::new($ctor, $crate::Ops::new()$(.$op())*));
        }

        #[doc(hidden)]
        fn __mcpw_serve(op: $crate::Op, in_len: i32) -> i32 {
            __MCPW_SERVER.with(|s| $crate::__private::serve(&mut *s.borrow_mut(), op, in_len))
        }

        // The reactor initializer: runs the static constructors of the C
        // library under std once per instance, before any call.
        #[cfg(target_arch = "wasm32")]
        #[doc(hidden)]
        #[export_name = "_initialize"]
        pub extern "C" fn __mcpw_initialize() {
            extern "C" {
                fn __wasm_call_ctors();
            }
            unsafe { __wasm_call_ctors() }
        }

        #[doc(hidden)]
        #[export_name = "mcpw_v1_describe"]
        pub extern "C" fn __mcpw_v1_describe(in_len: i32) -> i32 {
            __mcpw_serve($crate::Op::Describe, in_len)
        }

        $( $crate::__mcpw_export_op!($op); )*
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __mcpw_export_op {
    (list) => {
        #[doc(hidden)]
        #[export_name = "mcpw_v1_list"]
        pub extern "C" fn __mcpw_v1_list(in_len: i32) -> i32 {
            __mcpw_serve($crate::Op::List, in_len)
        }
    };
    (templates) => {
        #[doc(hidden)]
        #[export_name = "mcpw_v1_templates"]
        pub extern "C" fn __mcpw_v1_templates(in_len: i32) -> i32 {
            __mcpw_serve($crate::Op::Templates, in_len)
        }
    };
    (read) => {
        #[doc(hidden)]
        #[export_name = "mcpw_v1_read"]
        pub extern "C" fn __mcpw_v1_read(in_len: i32) -> i32 {
            __mcpw_serve($crate::Op::Read, in_len)
        }
    };
    (complete) => {
        #[doc(hidden)]
        #[export_name = "mcpw_v1_complete"]
        pub extern "C" fn __mcpw_v1_complete(in_len: i32) -> i32 {
            __mcpw_serve($crate::Op::Complete, in_len)
        }
    };
    (changes) => {
        #[doc(hidden)]
        #[export_name = "mcpw_v1_changes"]
        pub extern "C" fn __mcpw_v1_changes(in_len: i32) -> i32 {
            __mcpw_serve($crate::Op::Changes, in_len)
        }
    };
}
