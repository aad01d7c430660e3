// The AssemblyScript SDK for mcp-wasm resource providers (ABI mcpw_v1, see
// abi/ABI.md in the mcp-wasm repository).
//
// A provider extends Provider, overrides describe and the operations it
// serves, calls register() from top-level code, and re-exports the ABI
// exports from its entry file:
//
//   import { Provider, register, ... } from "mcpw";
//   class Hello extends Provider { ... }
//   register(new Hello());
//   export * from "mcpw/assembly/exports";
//
// The SDK owns the ABI: it reads the call's input, decodes it, calls the
// provider, checks and encodes the result, and writes it back. It refuses to
// send some output the host would reject (a URI outside the declared URI
// space, empty contents, too many items, an over-long cursor): such a result
// becomes an internal error with a log line. It does not sandbox the
// provider; the host does.

export * from "./types";
export * from "./errors";
export { Provider, register } from "./provider";
export { Level, log, configGet } from "./host";
export { FetchRequest, FetchResponse, FetchError, httpFetch } from "./http";
export { encodeBase64, decodeBase64 } from "./base64";
