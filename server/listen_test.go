package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// wire is a raw newline-delimited JSON-RPC client of ServeStdio that sees
// every message, notifications included, in order.
type wire struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
	done  chan error
}

func newWire(t *testing.T, s *Server) *wire { return newWireCtx(t, s, context.Background()) }

// newWireCtx is newWire serving until ctx is done, as serve does until a
// signal.
func newWireCtx(t *testing.T, s *Server, ctx context.Context) *wire {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, lines: make(chan map[string]any, 256), done: make(chan error, 1)}
	go func() { w.done <- s.ServeStdio(ctx, inR, outW); _ = outW.Close() }()
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var msg map[string]any
			if json.Unmarshal(sc.Bytes(), &msg) == nil {
				w.lines <- msg
			}
		}
	}()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return w
}

// call sends a request; modern requests carry the 2026-07-28 _meta.
func (w *wire) call(id any, method string, params map[string]any, modern bool) {
	w.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if modern {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}
	}
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id != nil {
		msg["id"] = id
	}
	data, err := json.Marshal(msg)
	require.NoError(w.t, err)
	_, err = w.in.Write(append(data, '\n'))
	require.NoError(w.t, err)
}

// next returns the next message the server sent.
func (w *wire) next() map[string]any {
	w.t.Helper()
	select {
	case msg, ok := <-w.lines:
		require.True(w.t, ok, "server closed its output")
		return msg
	case <-time.After(waitLong):
		w.t.Fatal("no message from the server")
		return nil
	}
}

// note is a notification reduced to what the tests compare.
type note struct {
	Method string
	URI    string
	ID     any // subscription id, float64 from JSON
}

func noteOf(t *testing.T, msg map[string]any) note {
	t.Helper()
	require.Nil(t, msg["id"], "want a notification, got %v", msg)
	p, _ := msg["params"].(map[string]any)
	meta, _ := p["_meta"].(map[string]any)
	uri, _ := p["uri"].(string)
	return note{Method: msg["method"].(string), URI: uri, ID: meta["io.modelcontextprotocol/subscriptionId"]}
}

func listenParams(subs []string, list bool, extra map[string]any) map[string]any {
	n := map[string]any{"resourceSubscriptions": subs, "resourcesListChanged": list}
	for k, v := range extra {
		n[k] = v
	}
	return map[string]any{"notifications": n}
}

// TestListen_wire: on 2026-07-28 the acknowledgement comes first with the
// honoured subset, every notification carries its listen's id, each listen
// hears only what it asked for, and a cancelled listen ends with a result
// and hears nothing more.
func TestListen_wire(t *testing.T) {
	s := liveServer(t, NewConfig())
	w := newWire(t, s)

	w.call(7, methodListen, listenParams([]string{"notes:///hello", "NOTES:///logo.png"}, true,
		map[string]any{"toolsListChanged": true, "promptsListChanged": true}), true)
	ack := w.next()
	require.Equal(t, notifyAcknowledged, ack["method"])
	require.Equal(t, map[string]any{
		"_meta":         map[string]any{"io.modelcontextprotocol/subscriptionId": 7.0},
		"notifications": map[string]any{"resourcesListChanged": true, "resourceSubscriptions": []any{"notes:///hello", "NOTES:///logo.png"}},
	}, ack["params"], "tools and prompts are not honoured")
	// A listen hears changes flushed once its acknowledgement has gone out
	// (the client reads the acknowledgement a moment before that).
	require.Eventually(t, func() bool { return listenedTo(s, "NOTES:///logo.png") }, testkit.Wait, time.Millisecond)

	s.ResourcesUpdated("notes", "notes:///logo.png", "notes:///hello", "notes:///empty")
	s.notify.flush()
	require.Equal(t, note{notifyResourceUpdated, "notes:///hello", 7.0}, noteOf(t, w.next()))
	require.Equal(t, note{notifyResourceUpdated, "NOTES:///logo.png", 7.0}, noteOf(t, w.next()))
	s.ResourceListChanged()
	s.notify.flush()
	require.Equal(t, note{notifyListChanged, "", 7.0}, noteOf(t, w.next()))

	w.call("eight", methodListen, listenParams([]string{"notes:///hello"}, false, nil), true)
	ack = w.next()
	require.Equal(t, map[string]any{"resourceSubscriptions": []any{"notes:///hello"}}, ack["params"].(map[string]any)["notifications"])
	require.Eventually(t, func() bool { return listens(s) == 2 }, testkit.Wait, time.Millisecond)
	s.ResourcesUpdated("notes", "notes:///hello")
	s.ResourceListChanged()
	s.notify.flush()
	got := map[note]bool{noteOf(t, w.next()): true, noteOf(t, w.next()): true, noteOf(t, w.next()): true}
	require.Equal(t, map[note]bool{
		{notifyResourceUpdated, "notes:///hello", 7.0}:     true,
		{notifyResourceUpdated, "notes:///hello", "eight"}: true,
		{notifyListChanged, "", 7.0}:                       true,
	}, got)

	// A cancelled listen ends without an answer: the cancellation rules
	// say the receiver should not respond, and a client that has
	// forgotten the id then meets an answer to an unknown request.
	w.call(nil, "notifications/cancelled", map[string]any{"requestId": 7}, false)
	require.Eventually(t, func() bool { return listens(s) == 1 }, waitLong, time.Millisecond)

	s.ResourcesUpdated("notes", "notes:///hello", "notes:///logo.png")
	s.ResourceListChanged()
	s.notify.flush()
	require.Equal(t, note{notifyResourceUpdated, "notes:///hello", "eight"}, noteOf(t, w.next()))
	w.call(9, "resources/read", map[string]any{"uri": "notes:///hello"}, true)
	require.Equal(t, 9.0, w.next()["id"], "nothing for the ended listen, no list change for listen eight")

	require.NoError(t, w.in.Close())
	select {
	case err := <-w.done:
		require.NoError(t, err, "end of input ends the session though a listen is open")
	case <-time.After(waitLong):
		t.Fatal("ServeStdio waits for an open listen at end of input")
	}
	var rest []any
	for msg := range w.lines {
		rest = append(rest, msg["id"])
	}
	require.Equal(t, []any{"eight"}, rest, "end of input ends listen eight with its result; the cancelled listen 7 is never answered")
}

// listens counts the acknowledged listens.
func listens(s *Server) int {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	n := 0
	for _, st := range s.subs.sessions {
		n += len(st.listens)
	}
	return n
}

// TestListen_refusals: listen is 2026-07-28 only, resources/subscribe is
// handshake-era only, and a listen without its notifications fails,
// before any acknowledgement.
func TestListen_refusals(t *testing.T) {
	tests := []struct {
		name   string
		method string
		params map[string]any
		modern bool
		code   float64
	}{
		{"listen on a handshake session", methodListen, listenParams(nil, true, nil), false, -32601},
		{"subscribe on 2026-07-28", methodSubscribe, map[string]any{"uri": "notes:///hello"}, true, -32601},
		{"missing notifications", methodListen, map[string]any{}, true, -32602},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := liveServer(t, NewConfig())
			w := newWire(t, s)
			if !tc.modern {
				w.call(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
					"clientInfo": map[string]any{"name": "t", "version": "1"}}, false)
				require.Equal(t, 1.0, w.next()["id"])
				w.call(nil, "notifications/initialized", nil, false)
			}
			w.call(2, tc.method, tc.params, tc.modern)
			res := w.next()
			require.Equal(t, 2.0, res["id"], "an error, not an acknowledgement: %v", res)
			require.Equal(t, tc.code, res["error"].(map[string]any)["code"])
			require.False(t, s.subs.active())
		})
	}
}

// TestListen_honoursSubset: a listen naming URIs no provider owns or a
// read would refuse is acknowledged for the rest, and hears the rest, on
// stdio and over HTTP; with nothing left it is acknowledged empty and ends.
func TestListen_honoursSubset(t *testing.T) {
	asked := []string{"notes:///hello", "other:///x", "notes:///a/../b", "notes:///logo.png"}
	honoured := []any{"notes:///hello", "notes:///logo.png"}

	t.Run("stdio", func(t *testing.T) {
		s := liveServer(t, NewConfig())
		w := newWire(t, s)
		w.call(1, methodListen, listenParams(asked, true, nil), true)
		ack := w.next()
		require.Equal(t, notifyAcknowledged, ack["method"], "an acknowledgement, not an error: %v", ack)
		require.Equal(t, map[string]any{"resourcesListChanged": true, "resourceSubscriptions": honoured},
			ack["params"].(map[string]any)["notifications"])
		require.Eventually(t, func() bool { return listenedTo(s, "notes:///logo.png") }, testkit.Wait, time.Millisecond)
		s.ResourcesUpdated("notes", "notes:///logo.png")
		s.notify.flush()
		require.Equal(t, note{notifyResourceUpdated, "notes:///logo.png", 1.0}, noteOf(t, w.next()))

		w.call(2, methodListen, listenParams([]string{"other:///x"}, false, nil), true)
		ack = w.next()
		require.Equal(t, notifyAcknowledged, ack["method"])
		require.Equal(t, map[string]any{}, ack["params"].(map[string]any)["notifications"])
		require.Equal(t, 2.0, w.next()["id"], "a listen honouring nothing ends at once, with its result")
	})

	t.Run("http", func(t *testing.T) {
		s := liveServer(t, NewConfig())
		url := serveHTTP(t, s, NewHTTPConfig())
		params, err := json.Marshal(listenParams(asked, false, nil)["notifications"])
		require.NoError(t, err)
		events := bufioLines(openStream(t, url, http.MethodPost, nil,
			`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":`+string(params)+`,`+stdioMeta+`}}`))
		waitLine(t, events, `"notifications":{"resourceSubscriptions":["notes:///hello","notes:///logo.png"]}`)
		require.Eventually(t, func() bool { return listenedTo(s, "notes:///hello") }, testkit.Wait, time.Millisecond)
		s.ResourcesUpdated("notes", "notes:///hello")
		s.notify.flush()
		waitLine(t, events, `"uri":"notes:///hello"`)
	})
}

// TestListen_endsWithTheTransport: when stdio stops (a signal: its
// context is done) or its input ends, every open listen gets its final
// result before ServeStdio returns, so a client learns that its listens
// ended rather than losing them with the process.
func TestListen_endsWithTheTransport(t *testing.T) {
	for _, how := range []string{"stop", "end of input"} {
		t.Run(how, func(t *testing.T) {
			s := liveServer(t, NewConfig())
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			w := newWireCtx(t, s, ctx)
			w.call("a", methodListen, listenParams([]string{"notes:///hello"}, false, nil), true)
			require.Equal(t, notifyAcknowledged, w.next()["method"])
			w.call("b", methodListen, listenParams(nil, true, nil), true)
			require.Equal(t, notifyAcknowledged, w.next()["method"])
			if how == "stop" {
				stop()
			} else {
				require.NoError(t, w.in.Close())
			}
			results := map[any]any{}
			for range 2 {
				msg := w.next()
				result, ok := msg["result"].(map[string]any)
				require.True(t, ok, "a final result, got %v", msg)
				require.Equal(t, "complete", result["resultType"])
				require.Equal(t, msg["id"], result["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"])
				results[msg["id"]] = true
			}
			require.Equal(t, map[any]any{"a": true, "b": true}, results)
			select {
			case err := <-w.done:
				require.NoError(t, err)
			case <-time.After(waitLong):
				t.Fatal("ServeStdio did not return")
			}
			require.False(t, s.subs.active(), "the listens were released")
		})
	}
}

// TestListen_bounded: a listen naming more URIs than a session may hold
// fails and leaves nothing behind; so does a listen past the open-listen
// bound.
func TestListen_bounded(t *testing.T) {
	s := liveServer(t, NewConfig().WithMaxSubscriptions(2))
	w := newWire(t, s)
	w.call(1, methodListen, listenParams([]string{"notes:///hello", "notes:///logo.png", "notes:///empty"}, false, nil), true)
	res := w.next()
	require.Equal(t, 1.0, res["id"])
	require.Contains(t, res["error"].(map[string]any)["message"], "at most 2 per session")
	require.False(t, s.subs.active(), "the URIs subscribed before the refusal were released")

	w.call(5, methodListen, listenParams([]string{"notes:///hello", "notes:///hello", "notes:///hello"}, false, nil), true)
	res = w.next()
	require.Equal(t, 5.0, res["id"])
	require.Contains(t, res["error"].(map[string]any)["message"], "too many resources named by open listens")
	require.False(t, s.subs.active())

	w.call(2, methodListen, listenParams([]string{"notes:///hello"}, false, nil), true)
	require.Equal(t, notifyAcknowledged, w.next()["method"])
	w.call(3, methodListen, listenParams([]string{"notes:///hello"}, true, nil), true)
	require.Equal(t, notifyAcknowledged, w.next()["method"])
	w.call(4, methodListen, listenParams(nil, true, nil), true)
	res = w.next()
	require.Equal(t, 4.0, res["id"])
	require.Contains(t, res["error"].(map[string]any)["message"], "too many open subscriptions/listen requests")
}
