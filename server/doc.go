// Package server is the MCP layer of mcp-wasm: it serves the resources of a
// set of providers to MCP clients over stdio (Server.ServeStdio) and
// Streamable HTTP (Server.ServeStreamable), both production transports,
// speaking every protocol revision on one connection — the
// initialize-handshake revisions 2024-11-05, 2025-03-26, 2025-06-18 and
// 2025-11-25, and the stateless 2026-07-28.
//
//	srv, err := server.New(server.NewConfig().WithProviders(p1, p2).WithLogger(log))
//	if err != nil { ... }
//	err = srv.ServeStdio(ctx, os.Stdin, os.Stdout)
//
// It owns what a client sees: the merged, paginated resources/list and
// resources/templates/list (with an HMAC-signed cursor the host controls),
// resources/read with URI validation and routing to the one provider that
// owns a URI, completion/complete for resource templates, per-revision error
// codes, and per-revision result shapes (resultType, ttlMs, cacheScope only
// on 2026-07-28; title and icons only on the revisions that define them).
// It is built on github.com/modelcontextprotocol/go-sdk; no go-sdk type
// crosses its API.
//
// It refuses to do anything else. It serves resources and completions; it
// declares tools and prompts (2026-07-28 needs cache hints on every list,
// and clients probe them), answers prompts/list with an empty page, and
// offers tools only as an opt-in view of the same resources
// (Config.WithResourceTools: list_resources, list_resource_templates,
// read_resource, complete_resource_argument), which runs the very code of
// the resource methods; a tool it does not offer is -32602, prompts/get and
// every unknown method -32601. It accepts legacy logging/setLevel and
// ignores it (logs go to stderr). It runs no provider code of its own and
// knows nothing of WebAssembly: providers reach it through the [Provider]
// interface, and cmd/mcp-wasm wires the runtime in (through package served).
//
// The operator decides what clients see at all: a provider given with
// [WithURIFilter] shows only the URIs its include and exclude patterns let
// through, in every method and in the tools view alike. Access rules
// (Config.WithRules, [Server.SetProvidersAndRules]) narrow that per client:
// once any is given, a client (a static token's name, an OAuth subject with
// its scopes and claims, an anonymous HTTP client, the local user on stdio)
// sees only what a rule for it allows, and a hidden resource answers
// exactly as an absent one, without a provider call (acl.go).
//
// # Live resources
//
// Resources may change: the server declares resources.subscribe and
// resources.listChanged, serves resources/subscribe and
// resources/unsubscribe on the handshake revisions and subscriptions/listen
// on 2026-07-28, and turns the changes the composition root reports
// ([Server.ResourcesUpdated], [Server.ResourceListChanged]) into
// notifications/resources/updated and notifications/resources/list_changed:
// after a short delay that coalesces bursts, only for URIs the reporting
// provider owns, only to the sessions and listens that asked, tagged with
// the listen's subscription id, never before its acknowledgement. A session
// holds at most Config.WithMaxSubscriptions subscriptions and open listens.
// [Server.Interested] tells the change feeds whether anyone would hear.
//
// # HTTP
//
// [Server.ServeStreamable] serves the same server over Streamable HTTP at
// /mcp, every revision on one endpoint: 2026-07-28 requests statelessly,
// older ones in Mcp-Session-Id sessions with a GET stream for
// notifications (go-sdk's two handlers behind one router). Around it:
// Host and Origin allowlists, a body limit, a per-client rate limit, caps
// on sessions in total and per client, bearer-token or OAuth 2.1 (JWT)
// authentication (package server/auth), SSE keep-alives, /healthz and
// /readyz, and a graceful shutdown. It refuses requests whose Host or Origin is not allowed, bodies over the limit,
// clients over their rate, and tokens it cannot verify, before any MCP
// handling. Every resource access and every refusal is written to the
// audit log (Config.WithAuditLogger).
//
// # Security
//
// Providers are untrusted. A URI is validated and normalized before any
// provider sees it; a provider only ever receives URIs inside the URI space
// it declared; a provider error reaches the client as a generic message
// (details go to the log, tagged provider=NAME); a provider that fails,
// hangs or loops is left out of a list page rather than failing it, and a
// provider whose list cursors cycle is skipped. A client request has one
// deadline for all the provider calls it makes (Config.WithRequestTimeout).
//
// Clients are untrusted too. Every JSON-RPC envelope is checked before
// go-sdk sees it (envelope.go): a malformed message gets its -32700 or
// -32600 (a notification or a response gets nothing) and never ends a
// session; a request id is echoed exactly or refused, never changed; a
// handshake-era call before initialize is refused whatever its method.
package server
