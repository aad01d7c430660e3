//! The call path: decode the host's input, call the provider, check and
//! encode its result, and hand back a status and the output bytes.

use crate::error::{Error, Result};
use crate::json::{self, Value};
use crate::types::*;
use crate::{check, host, Changer, Completer, Level, Lister, Provider, Reader, Templater};

/// An ABI operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Describe = 0,
    List = 1,
    Templates = 2,
    Read = 3,
    Complete = 4,
    Changes = 5,
}

impl Op {
    /// The operation's name in the ABI (the export is `mcpw_v1_` + name).
    pub fn name(self) -> &'static str {
        ["describe", "list", "templates", "read", "complete", "changes"][self as usize]
    }

    const OPTIONAL: [Op; 5] = [Op::List, Op::Templates, Op::Read, Op::Complete, Op::Changes];
}

/// Status 0: the output is the operation's result.
pub const STATUS_OK: i32 = 0;
/// Status 1: the output is an Error payload.
pub const STATUS_ERROR: i32 = 1;

type OpFn<P> = fn(&mut P, &Value, &[UriRoot], &mut Vec<u8>) -> Result<()>;

/// The operations a module serves: `Ops::new().list().read()` makes a table
/// with list and read, each available only if the provider implements its
/// trait. [`export!`](crate::export) builds it from the names it is given.
pub struct Ops<P> {
    fns: [Option<OpFn<P>>; 6],
}

impl<P: Provider> Ops<P> {
    /// A table with no optional operation.
    pub fn new() -> Self {
        Ops { fns: [None; 6] }
    }

    fn with(mut self, op: Op, f: OpFn<P>) -> Self {
        self.fns[op as usize] = Some(f);
        self
    }
}

impl<P: Provider> Default for Ops<P> {
    fn default() -> Self {
        Self::new()
    }
}

fn rejected(op: Op, why: String) -> Error {
    let e = Error::internal(format!("{} result rejected before sending: {}: fix the provider", op.name(), why));
    host::log(Level::Error, &format!("mcpw: {}", e.message));
    e
}

fn invalid(e: String) -> Error {
    Error::invalid_params(format!("decode input: {}", e))
}

fn run_list<P: Lister>(p: &mut P, v: &Value, roots: &[UriRoot], out: &mut Vec<u8>) -> Result<()> {
    let r = p.list(&types_page(v)?)?;
    check::list(&r, roots).map_err(|e| rejected(Op::List, e))?;
    r.encode(out);
    Ok(())
}

fn run_templates<P: Templater>(p: &mut P, v: &Value, _: &[UriRoot], out: &mut Vec<u8>) -> Result<()> {
    let r = p.templates(&types_page(v)?)?;
    check::templates(&r).map_err(|e| rejected(Op::Templates, e))?;
    r.encode(out);
    Ok(())
}

fn run_read<P: Reader>(p: &mut P, v: &Value, roots: &[UriRoot], out: &mut Vec<u8>) -> Result<()> {
    let uri = decode_read(v).map_err(invalid)?;
    let r = p.read(&uri)?;
    check::read(&r, roots).map_err(|e| rejected(Op::Read, e))?;
    // Nothing can fail after this: every body handed to the host is
    // referred to exactly once, as ABI §6.3 requires.
    encode_read(&r, out, &mut host::imp::content);
    Ok(())
}

fn run_complete<P: Completer>(p: &mut P, v: &Value, _: &[UriRoot], out: &mut Vec<u8>) -> Result<()> {
    let req = decode_complete(v).map_err(invalid)?;
    let r = p.complete(&req)?;
    check::complete(&r).map_err(|e| rejected(Op::Complete, e))?;
    r.encode(out);
    Ok(())
}

fn run_changes<P: Changer>(p: &mut P, v: &Value, roots: &[UriRoot], out: &mut Vec<u8>) -> Result<()> {
    let req = decode_changes(v).map_err(invalid)?;
    let r = p.changes(&req)?;
    check::changes(&r, roots).map_err(|e| rejected(Op::Changes, e))?;
    r.encode(out);
    Ok(())
}

fn types_page(v: &Value) -> Result<String> {
    decode_page(v).map_err(invalid)
}

impl<P: Lister> Ops<P> {
    /// Serves list.
    pub fn list(self) -> Self {
        self.with(Op::List, run_list::<P>)
    }
}

impl<P: Templater> Ops<P> {
    /// Serves templates.
    pub fn templates(self) -> Self {
        self.with(Op::Templates, run_templates::<P>)
    }
}

impl<P: Reader> Ops<P> {
    /// Serves read.
    pub fn read(self) -> Self {
        self.with(Op::Read, run_read::<P>)
    }
}

impl<P: Completer> Ops<P> {
    /// Serves complete.
    pub fn complete(self) -> Self {
        self.with(Op::Complete, run_complete::<P>)
    }
}

impl<P: Changer> Ops<P> {
    /// Serves changes.
    pub fn changes(self) -> Self {
        self.with(Op::Changes, run_changes::<P>)
    }
}

/// What describe produced, computed once per instance.
struct Ready {
    json: Vec<u8>,
    declared: [bool; 6],
    roots: Vec<UriRoot>,
}

/// One provider and its operations: what a wasm instance serves, one call
/// at a time. Natively, call [`Server::call`] to run an operation exactly
/// as the host would (tests).
pub struct Server<P> {
    provider: P,
    ops: Ops<P>,
    ready: Option<std::result::Result<Ready, Error>>,
    buf: Vec<u8>,
}

/// The largest output buffer kept for the next call.
const KEEP_BUFFER: usize = 64 << 10;

impl<P: Provider> Server<P> {
    /// A server of `provider` with the operations in `ops`.
    pub fn new(provider: P, ops: Ops<P>) -> Self {
        Server { provider, ops, ready: None, buf: Vec::new() }
    }

    /// The provider, for tests.
    pub fn provider(&mut self) -> &mut P {
        &mut self.provider
    }

    /// Runs `op` on the host's `input` JSON and returns the status
    /// ([`STATUS_OK`] or [`STATUS_ERROR`]) and the output bytes, what the
    /// export would hand the host, except that natively read contents are
    /// inline (`text`, base64 `blob`) where a wasm guest hands their bytes
    /// over with `content_write` (`rawText`, `rawBlob`).
    pub fn call(&mut self, op: Op, input: &[u8]) -> (i32, Vec<u8>) {
        let mut out = Vec::new();
        let status = self.call_into(op, input, &mut out);
        (status, out)
    }

    /// call, writing into the server's reused buffer; returns the status and
    /// the output.
    pub(crate) fn call_reusing(&mut self, op: Op, input: &[u8]) -> (i32, &[u8]) {
        let mut out = std::mem::take(&mut self.buf);
        out.clear();
        if out.capacity() > KEEP_BUFFER {
            out = Vec::new();
        }
        let status = self.call_into(op, input, &mut out);
        self.buf = out;
        (status, &self.buf)
    }

    fn call_into(&mut self, op: Op, input: &[u8], out: &mut Vec<u8>) -> i32 {
        if self.ready.is_none() {
            self.ready = Some(prepare(&self.provider, &self.ops));
        }
        let ready = match self.ready.as_ref() {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                host::log(Level::Error, &format!("mcpw: {}", e.message));
                return failure(out, e);
            }
            None => unreachable!(),
        };
        if op == Op::Describe {
            out.extend_from_slice(&ready.json);
            return STATUS_OK;
        }
        let f = match self.ops.fns[op as usize] {
            Some(f) if ready.declared[op as usize] => f,
            _ => return failure(out, &Error::invalid_params(format!("operation {:?} is not declared by this provider", op.name()))),
        };
        let input = if input.iter().all(u8::is_ascii_whitespace) { &b"{}"[..] } else { input };
        let res = json::parse(input).map_err(invalid).and_then(|v| f(&mut self.provider, &v, &ready.roots, out));
        match res {
            Ok(()) => STATUS_OK,
            Err(e) => {
                out.clear();
                failure(out, &e)
            }
        }
    }
}

fn failure(out: &mut Vec<u8>, e: &Error) -> i32 {
    e.encode(out);
    STATUS_ERROR
}

/// prepare computes describe's output once: operations filled in or
/// checked against the table, the result checked and encoded.
fn prepare<P: Provider>(p: &P, ops: &Ops<P>) -> std::result::Result<Ready, Error> {
    let mut d = p.describe();
    let served: Vec<Op> = Op::OPTIONAL.iter().copied().filter(|op| ops.fns[*op as usize].is_some()).collect();
    if d.operations.is_empty() {
        d.operations = served.iter().map(|op| op.name().to_string()).collect();
    }
    let mut declared = [false; 6];
    for name in &d.operations {
        match served.iter().find(|op| op.name() == name) {
            Some(op) => declared[*op as usize] = true,
            None => {
                return Err(Error::internal(format!(
                    "describe lists operation {:?} but the module does not serve it: name it in mcpw::export! (and implement its trait) or leave operations empty",
                    name
                )))
            }
        }
    }
    check::describe(&d).map_err(|e| Error::internal(format!("describe output is invalid: {}: fix the provider", e)))?;
    let mut json = Vec::new();
    d.encode(&mut json);
    Ok(Ready { json, declared, roots: d.uri_space })
}

#[doc(hidden)]
pub mod private {
    use super::*;

    /// The body of every export [`export!`](crate::export) generates.
    pub fn serve<P: Provider>(s: &mut Server<P>, op: Op, in_len: i32) -> i32 {
        let input = host::imp::input(in_len);
        let (status, out) = s.call_reusing(op, &input);
        host::imp::output(out);
        status
    }
}
