package server

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
)

// beforeInitialize are calls of every method a client may send, with valid
// params, as a handshake-era client would send them before initialize.
var beforeInitialize = []string{
	`"method":"resources/list"`,
	`"method":"resources/templates/list"`,
	`"method":"resources/read","params":{"uri":"notes:///hello"}`,
	`"method":"resources/subscribe","params":{"uri":"notes:///hello"}`,
	`"method":"resources/unsubscribe","params":{"uri":"notes:///hello"}`,
	`"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"notes:///items/{id}"},"argument":{"name":"id","value":"1"}}`,
	`"method":"logging/setLevel","params":{"level":"debug"}`,
	`"method":"tools/list"`,
	`"method":"tools/call","params":{"name":"x"}`,
	`"method":"prompts/list"`,
	`"method":"prompts/get","params":{"name":"x"}`,
	`"method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true}}`,
	`"method":"no/such/method"`,
}

// TestServeStdio_handshakeGate: on every handshake revision, a call before
// initialize is refused with -32600 whatever its method (go-sdk alone
// served resources/subscribe, resources/unsubscribe and logging/setLevel),
// ping is served, and none of it reaches the operator's log above debug.
// After initialize the same calls are served.
func TestServeStdio_handshakeGate(t *testing.T) {
	for _, rev := range allRevisions[:len(allRevisions)-1] {
		t.Run(rev, func(t *testing.T) {
			buf := &testlog.Buffer{}
			log := slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
			s := newServer(t, NewConfig().WithProviders(notesProvider()).WithLogger(log).WithAuditLogger(slog.New(slog.DiscardHandler)))
			w := newRawWire(t, s)
			for round := range 20 { // a client hammering the gate
				for i, call := range beforeInitialize {
					w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, round*100+i, call))
					requireRefusal(t, w.line(), fmt.Sprint(round*100+i), -32600)
				}
			}
			w.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
			require.Nil(t, parseAnswer(t, w.line()).Error, "ping is allowed before initialize")
			require.Empty(t, buf.String(), "a client's mistakes do not fill the log")

			w.handshake(rev)
			w.send(`{"jsonrpc":"2.0","id":"s",` + beforeInitialize[3] + `}`)
			require.Nil(t, parseAnswer(t, w.line()).Error, "subscribe is served after initialize")
			w.requireServed(`"r"`, rev, "initialize")
		})
	}
}

// TestServeStdio_statelessOpensNoLegacyMethod: on stdio, a 2026-07-28
// request does not open the handshake-era methods without an initialize
// (go-sdk counts the connection as initialized after it).
func TestServeStdio_statelessOpensNoLegacyMethod(t *testing.T) {
	w := newRawWire(t, newServer(t, NewConfig().WithProviders(notesProvider())))
	w.requireServed(`"modern"`, "2026-07-28", "start")
	for i, call := range beforeInitialize[:5] {
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, i, call))
		requireRefusal(t, w.line(), fmt.Sprint(i), -32600)
	}
	w.requireServed(`"modern-again"`, "2026-07-28", "legacy refusals")
}

// TestServeStdio_erasOnOneConnection: both eras are served on one stdio
// connection once it opened with initialize; a connection whose first
// request was a 2026-07-28 one stays 2026-07-28, and initialize and every
// legacy call on it are refused with an error that says so and what to do
// (not go-sdk's "duplicate initialize", nor a request for an initialize
// that cannot be sent).
func TestServeStdio_erasOnOneConnection(t *testing.T) {
	t.Run("initialize first", func(t *testing.T) {
		w := newRawWire(t, newServer(t, NewConfig().WithProviders(notesProvider())))
		w.handshake("2025-11-25")
		w.requireServed(`"legacy"`, "2025-11-25", "initialize")
		w.requireServed(`"modern"`, "2026-07-28", "a legacy read")
		w.requireServed(`"legacy-again"`, "2025-11-25", "a 2026-07-28 read")
	})
	t.Run("2026-07-28 first", func(t *testing.T) {
		w := newRawWire(t, newServer(t, NewConfig().WithProviders(notesProvider())))
		w.requireServed(`"modern"`, "2026-07-28", "start")
		init := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		for i, call := range []string{init, readRequest(`"legacy"`, "2025-11-25"), init} {
			w.send(call)
			a := parseAnswer(t, w.line())
			require.NotNil(t, a.Error, "call %d", i)
			require.EqualValues(t, -32600, a.Error.Code)
			require.Contains(t, a.Error.Message, "first request was a protocol 2026-07-28 one")
			require.Contains(t, a.Error.Message, "open a new connection and send initialize first")
			require.NotContains(t, a.Error.Message, "duplicate")
		}
		w.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
		require.Nil(t, parseAnswer(t, w.line()).Error, "ping is served")
		w.requireServed(`"modern-again"`, "2026-07-28", "the refusals")
	})
}
