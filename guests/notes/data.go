package main

// catalog is the built-in handbook: short notes about mcp-wasm itself. They
// are Go literals rather than embedded files so that the test harness, which
// keys its build cache on .go files, rebuilds the guest when they change.
var catalog = []note{
	{
		ID: "what-is-mcp-wasm", Title: "What mcp-wasm is", Tags: []string{"mcp", "overview"},
		Updated: "2026-11-21T09:00:00Z", Priority: 1,
		Body: `mcp-wasm is an MCP server that serves *resources* from provider modules
compiled to WebAssembly. Each provider runs in a wazero sandbox with no
files, network, environment or real clock unless the operator grants them.

The host speaks MCP to clients; providers speak a small JSON ABI (mcpw_v1).`,
	},
	{
		ID: "abi-calling-convention", Title: "The mcpw_v1 calling convention", Tags: []string{"abi"},
		Updated: "2026-11-21T09:10:00Z", Priority: 0.8,
		Body: `The host calls an export such as ` + "`mcpw_v1_read(in_len)`" + ` with the byte
length of the input JSON. The guest pulls the input with ` + "`input_read`" + `,
pushes its output with ` + "`output_write`" + ` and returns a status.

There are no ` + "`alloc`" + ` or ` + "`free`" + ` exports: the guest owns all of its memory.`,
	},
	{
		ID: "abi-host-imports", Title: "Host imports", Tags: []string{"abi"},
		Updated: "2026-11-21T09:20:00Z", Priority: 0.6,
		Body: `Module ` + "`mcpw_v1`" + ` provides four imports, all i32:

- ` + "`input_read(ptr, len) -> n`" + `
- ` + "`output_write(ptr, len) -> rc`" + ` (appends; -2 over the output cap)
- ` + "`log(level, ptr, len)`" + ` (4 KiB per message, 64 messages per call)
- ` + "`config_get(kptr, klen, vptr, vcap) -> n`" + ` (-1 when not granted)`,
	},
	{
		ID: "abi-status-codes", Title: "Status codes and domain errors", Tags: []string{"abi", "errors"},
		Updated: "2026-11-21T09:30:00Z", Priority: 0.6,
		Body: `An operation returns 0 with its result, or 1 with an error object whose
code is ` + "`not_found`, `invalid_params` or `internal`" + `. Any other status, or no
output at all, is an ABI violation and the instance is discarded.`,
	},
	{
		ID: "uri-space", Title: "URI spaces", Tags: []string{"abi", "security"},
		Updated: "2026-11-21T09:40:00Z", Priority: 0.7,
		Body: `A provider declares the URIs it owns in ` + "`describe`" + ` (a scheme, optionally an
authority and a path prefix). Every URI it returns must lie inside that
space, so one provider cannot answer for another's resources.`,
	},
	{
		ID: "strict-decoding", Title: "Strict decoding of guest output", Tags: []string{"security", "abi"},
		Updated: "2026-11-21T09:50:00Z", Priority: 0.5,
		Body: `Guest output is untrusted. The host rejects invalid UTF-8, lone
surrogates, duplicate keys, keys that differ only in case, unknown keys,
trailing data and deep nesting before it looks at a single field.`,
	},
	{
		ID: "memory-limits", Title: "Memory limits", Tags: []string{"limits", "security"},
		Updated: "2026-11-21T10:00:00Z", Priority: 0.5,
		Body: `Each provider's linear memory is capped (64 MiB by default). A Go guest
needs at least 4 MiB to start. Running out of memory traps the call and the
instance is replaced.`,
	},
	{
		ID: "call-timeouts", Title: "Call timeouts", Tags: []string{"limits", "operations"},
		Updated: "2026-11-21T10:10:00Z", Priority: 0.5,
		Body: `Every guest call has its own deadline (5 s by default; 10 s for
initialisation). A guest stuck in a loop is stopped at the next loop
back-edge and its instance is discarded.`,
	},
	{
		ID: "instance-pools", Title: "Instance pools", Tags: []string{"operations", "performance"},
		Updated: "2026-11-21T10:20:00Z", Priority: 0.4,
		Body: `One wasm instance serves one call at a time, so each provider keeps a
small pool of warm instances (4 by default). A fresh Go instance costs
milliseconds; a warm one answers in microseconds.`,
	},
	{
		ID: "compilation-cache", Title: "The compilation cache", Tags: []string{"performance", "security"},
		Updated: "2026-11-21T10:30:00Z", Priority: 0.3,
		Body: `Compiled modules can be cached on disk. The cache holds executable code
and is checked only with a CRC, so it must live in a private directory
(mode 0700) that nobody else can write.`,
	},
	{
		ID: "wasi-sandbox", Title: "What WASI gives a provider", Tags: []string{"security", "wasm"},
		Updated: "2026-11-21T10:40:00Z", Priority: 0.6,
		Body: `WASI preview 1 is linked with nothing granted: no arguments, environment,
files or sockets; a fake clock and deterministic random numbers; stdout
and stderr go to the bounded provider log.`,
	},
	{
		ID: "filesystem-grants", Title: "Filesystem grants", Tags: []string{"security", "config"},
		Updated: "2026-11-21T10:50:00Z", Priority: 0.6,
		Body: `A provider may request a directory (for example ` + "`/data`" + `). The operator
decides which host directory, if any, is mounted there, always read-only.
Filesystem imports are refused at load when nothing is granted.`,
	},
	{
		ID: "config-grants", Title: "Config grants", Tags: []string{"config"},
		Updated: "2026-11-21T11:00:00Z", Priority: 0.4,
		Body: `A provider lists the config keys it reads in ` + "`describe`" + `. Only the keys
the operator grants are readable through ` + "`config_get`" + `; every other key
reads as not granted.`,
	},
	{
		ID: "go-provider-sdk", Title: "Writing a provider in Go", Tags: []string{"go", "sdk"},
		Updated: "2026-11-21T11:10:00Z", Priority: 0.9,
		Body: `Implement ` + "`mcpw.Provider`" + ` and the operation interfaces you need
(` + "`Lister`, `Reader`, `Templater`, `Completer`, `Changer`" + `), then call
` + "`mcpw.Register`" + ` from ` + "`init`" + `. The SDK handles the ABI, JSON and
validation, and runs the same code natively in ` + "`go test`" + `.`,
	},
	{
		ID: "c-provider-sdk", Title: "Writing a provider in C", Tags: []string{"c", "sdk"},
		Updated: "2026-11-21T11:20:00Z", Priority: 0.5,
		Body: `C providers are built with clang and wasi-libc as reactors
(` + "`-mexec-model=reactor`" + `). They are tiny (tens of KiB) and start in
microseconds, at the price of writing JSON by hand.`,
	},
	{
		ID: "building-go-guests", Title: "Building a Go guest", Tags: []string{"go", "build"},
		Updated: "2026-11-21T11:30:00Z", Priority: 0.7,
		Body: "```sh\nGOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared \\\n  -trimpath -ldflags='-s -w' -o provider.wasm ./myprovider\n```\n\n" +
			"`-buildmode=c-shared` produces a reactor with `_initialize`; `main` is never run.",
	},
	{
		ID: "pagination-cursors", Title: "Pagination cursors", Tags: []string{"design", "mcp"},
		Updated: "2026-11-21T11:40:00Z", Priority: 0.4,
		Body: `List and templates return pages. A cursor is opaque to clients and at most
1 KiB. A cursor that names the last item returned, rather than an offset,
stays correct when items are added or removed between pages.`,
	},
	{
		ID: "completion", Title: "Argument completion", Tags: []string{"mcp", "design"},
		Updated: "2026-11-21T11:50:00Z", Priority: 0.4,
		Body: `For a template such as ` + "`notes:///{id}`" + ` a client can ask for completions of
the ` + "`id`" + ` argument. Return at most 100 values, sorted, with the total and
whether more exist.`,
	},
	{
		ID: "change-notifications", Title: "Change notifications", Tags: []string{"mcp", "design"},
		Updated: "2026-11-21T12:00:00Z", Priority: 0.3,
		Body: `The ` + "`changes`" + ` operation tells the host which URIs changed and whether the
resource list changed since a cursor. The host turns that into MCP
` + "`resources/updated`" + ` and ` + "`list_changed`" + ` notifications.`,
	},
	{
		ID: "resource-annotations", Title: "Resource annotations", Tags: []string{"mcp"},
		Updated: "2026-11-21T12:10:00Z", Priority: 0.3,
		Body: `Annotations tell clients who a resource is for (` + "`audience`" + `: user,
assistant), how important it is (` + "`priority`" + ` 0 to 1) and when it last changed
(` + "`lastModified`" + `, RFC 3339).`,
	},
	{
		ID: "cache-hints", Title: "Cache hints", Tags: []string{"mcp", "performance"},
		Updated: "2026-11-21T12:20:00Z", Priority: 0.3,
		Body: `A provider may say how long results stay fresh (` + "`ttlMs`" + `) and whether they
may be shared between users (` + "`public`" + `) or not (` + "`private`" + `). The host maps
this onto the negotiated MCP revision.`,
	},
}
