package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// rawWire is a raw client of ServeStdio over OS pipes, as a client process
// would connect, that sees the server's lines exactly as written.
type rawWire struct {
	t     *testing.T
	in    *os.File
	lines chan string
	done  chan error
}

func newRawWire(t *testing.T, s *Server) *rawWire {
	t.Helper()
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	w := &rawWire{t: t, in: inW, lines: make(chan string, 256), done: make(chan error, 1)}
	go func() { w.done <- s.ServeStdio(t.Context(), inR, outW); _ = outW.Close() }()
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close(); _ = inR.Close() })
	return w
}

func (w *rawWire) send(line string) {
	w.t.Helper()
	_, err := w.in.Write([]byte(line + "\n"))
	require.NoError(w.t, err, "the server stopped reading")
}

// line returns the next line the server wrote; it fails when the server
// closed its output, that is, ended the session.
func (w *rawWire) line() string {
	w.t.Helper()
	l, ok := <-w.lines
	if !ok {
		w.t.Fatalf("the session ended: %v", <-w.done)
	}
	return l
}

// answer is a response as the tests compare it.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseAnswer(t *testing.T, line string) answer {
	t.Helper()
	var a answer
	require.NoError(t, json.Unmarshal([]byte(line), &a), line)
	return a
}

// handshake opens the session of rev: initialize and initialized on the
// handshake revisions, nothing on 2026-07-28.
func (w *rawWire) handshake(rev string) {
	w.t.Helper()
	if revision(rev).stateless() {
		return
	}
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, rev))
	a := parseAnswer(w.t, w.line())
	require.Nil(w.t, a.Error)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// readRequest is a resources/read of notes:///hello with id, for rev.
func readRequest(id, rev string) string {
	meta := ""
	if revision(rev).stateless() {
		meta = "," + stdioMeta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"resources/read","params":{"uri":"notes:///hello"%s}}`, id, meta)
}

// requireServed checks that the session still serves: a read with a fresh
// id is answered with a result under that id.
func (w *rawWire) requireServed(id, rev, after string) {
	w.t.Helper()
	w.send(readRequest(id, rev))
	a := parseAnswer(w.t, w.line())
	require.Equal(w.t, id, string(a.ID), "after %s", after)
	require.Nil(w.t, a.Error, "after %s", after)
	require.Contains(w.t, string(a.Result), "Hello, world")
}

// hostileMessages are messages with a member of the wrong type or shape,
// one of each kind, and what the server answers: the refusal's raw id and
// code, or no answer (id "") for notifications and responses.
var hostileMessages = []struct {
	line string
	id   string
	code int64
}{
	{`not json`, "null", -32700},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", "null", -32700},
	{`{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`, "null", -32700},
	{`{"jsonrpc":"2.0","id":10,"method":123}`, "10", -32600},
	{`{"jsonrpc":"2.0","id":11,"method":null}`, "11", -32600},
	{`{"jsonrpc":"2.0","id":12,"method":["ping"]}`, "12", -32600},
	{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", -32600},
	{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, "null", -32600},
	{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null", -32600},
	{`{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping"}`, "null", -32600},
	{`{"jsonrpc":"2.0","id":null,"method":"resources/read","params":{"uri":"notes:///hello"}}`, "null", -32600},
	{`{"jsonrpc":"2.0","id":13,"method":"resources/read","params":"notes:///hello"}`, "13", -32600},
	{`{"jsonrpc":"2.0","id":14,"method":"resources/read","params":7}`, "14", -32600},
	{`{"jsonrpc":2.0,"id":15,"method":"ping"}`, "15", -32600},
	{`{"jsonrpc":"1.0","id":"16","method":"ping"}`, `"16"`, -32600},
	{`{"Jsonrpc":"2.0","id":17,"method":"ping"}`, "17", -32600},
	{`{"jsonrpc":"2.0","id":18,"id":19,"method":"ping"}`, "null", -32600},
	{`{"jsonrpc":"2.0","id":20}`, "20", -32600},
	{`{}`, "null", -32600},
	{`[]`, "null", -32600},
	{`"ping"`, "null", -32600},
	{`42`, "null", -32600},
	{`null`, "null", -32600},
	{`{"jsonrpc":"2.0","id":21,"error":5}`, "", 0},
	{`{"jsonrpc":"2.0","id":22,"error":{"code":"x","message":1}}`, "", 0},
	{`{"jsonrpc":"2.0","id":23,"error":{"code":1.5,"message":"m"}}`, "", 0},
	{`{"jsonrpc":"2.0","id":24,"result":{},"error":{"code":1,"message":"m"}}`, "", 0},
	{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, "", 0},
	{`{"jsonrpc":"2.0","id":{"x":1},"result":{}}`, "", 0},
	{`{"jsonrpc":"2.0","id":25,"result":{}}`, "", 0},
	{`{"jsonrpc":"2.0","method":"notifications/initialized","params":5}`, "", 0},
	{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}}`, "", 0},
	{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[]}}`, "", 0},
}

// TestServeStdio_malformedKeepsSession: after initialize, on every
// revision, each malformed message gets its JSON-RPC error (or, for a
// notification or a response, nothing) and the session goes on. go-sdk
// alone ends the session at the first of them.
func TestServeStdio_malformedKeepsSession(t *testing.T) {
	for _, rev := range allRevisions {
		t.Run(rev, func(t *testing.T) {
			w := newRawWire(t, newServer(t, NewConfig().WithProviders(notesProvider())))
			w.handshake(rev)
			for i, h := range hostileMessages {
				w.send(h.line)
				if h.id != "" {
					a := parseAnswer(t, w.line())
					require.Equal(t, h.id, string(a.ID), h.line)
					require.NotNil(t, a.Error, h.line)
					require.Equal(t, h.code, a.Error.Code, h.line)
				}
				w.requireServed(fmt.Sprintf(`"ok-%d"`, i), rev, h.line)
			}
		})
	}
}

// TestServeStdio_batches: a batch is served only on 2025-03-26 (and older)
// after initialize, answered as one array; elsewhere it is one -32600. A
// batch holding a malformed message is refused whole: each call in it is
// answered -32600 under its id, the malformed message under null. The
// session goes on in every case.
func TestServeStdio_batches(t *testing.T) {
	good := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"two","method":"ping"}]`
	malformed := []string{
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":123}]`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}]`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":5,"error":5}]`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},7]`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}]`,
	}
	for _, rev := range allRevisions {
		t.Run(rev, func(t *testing.T) {
			w := newRawWire(t, newServer(t, NewConfig().WithProviders(notesProvider())))
			w.send(good)
			requireRefusal(t, w.line(), "null", -32600) // before initialize: no batches
			w.handshake(rev)
			w.send(good)
			if !batchesAllowed(revision(rev)) {
				requireRefusal(t, w.line(), "null", -32600)
				for i, line := range malformed {
					w.send(line)
					requireRefusal(t, w.line(), "null", -32600)
					w.requireServed(fmt.Sprintf(`"ok-%d"`, i), rev, line)
				}
				return
			}
			var got []answer
			require.NoError(t, json.Unmarshal([]byte(w.line()), &got))
			require.Len(t, got, 2)
			require.ElementsMatch(t, []string{"1", `"two"`}, []string{string(got[0].ID), string(got[1].ID)})
			for i, line := range malformed {
				w.send(line)
				var refused []answer
				require.NoError(t, json.Unmarshal([]byte(w.line()), &refused), line)
				require.NotEmpty(t, refused, line)
				require.Equal(t, "3", string(refused[0].ID), line)
				for _, a := range refused {
					require.NotNil(t, a.Error, line)
					require.EqualValues(t, -32600, a.Error.Code, line)
				}
				w.requireServed(fmt.Sprintf(`"ok-%d"`, i), rev, line)
			}
		})
	}
}

func requireRefusal(t *testing.T, line, id string, code int64) {
	t.Helper()
	a := parseAnswer(t, line)
	require.Equal(t, id, string(a.ID), line)
	require.NotNil(t, a.Error, line)
	require.Equal(t, code, a.Error.Code, line)
}

// TestServeStdio_badLines: framing errors are answered too, and the lines
// after them are served.
func TestServeStdio_badLines(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	in := strings.NewReader("not json\n" + "\n" + `{}` + "\n" + `[1]` + "\n" +
		`{"jsonrpc":"1.0","id":9,"method":"x"}` + "\n" + readLine(2, "notes:///hello") +
		strings.Repeat("x", maxFrame+10) + "\n" + strings.TrimSuffix(readLine(3, "notes:///hello"), "\n"))
	var out strings.Builder
	require.NoError(t, s.ServeStdio(t.Context(), in, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 7, out.String())
	joined := out.String()
	require.Contains(t, joined, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`)
	require.Contains(t, joined, `{"jsonrpc":"2.0","id":9,"error":{"code":-32600`)
	require.Contains(t, joined, `"message":"invalid request: message longer than 16 MiB"`)
	require.Contains(t, joined, `"id":2,"result"`)
	require.Contains(t, joined, `"id":3,"result"`, "a last line without newline is served")
}

// TestServeStdio_duplicateMetaRefused: a request whose params carry _meta
// twice, the 2026-07-28 one and then {}, is refused naming the duplicate:
// inside a 2025-03-26 batch (go-sdk, merging the two, served it as a
// 2026-07-28 request there), and alone on every revision; the session
// goes on.
func TestServeStdio_duplicateMetaRefused(t *testing.T) {
	twice := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes:///hello",` + stdioMeta + `,"_meta":{}}}`
	w := newRawWire(t, newServer(t, NewConfig().WithProviders(notesProvider())))
	w.handshake("2025-03-26")
	w.send(`[` + twice + `,{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	var got []answer
	require.NoError(t, json.Unmarshal([]byte(w.line()), &got))
	require.Len(t, got, 2)
	for _, a := range got {
		require.NotNil(t, a.Error, "nothing of the batch is served: %s", a.Result)
		if string(a.ID) == "1" {
			require.EqualValues(t, -32602, a.Error.Code)
			require.Contains(t, a.Error.Message, `member "_meta" of params is given twice`)
		}
	}
	w.requireServed(`"after-batch"`, "2025-03-26", "the batch")
	for _, rev := range []string{"2025-03-26", "2026-07-28"} {
		w.send(twice)
		a := parseAnswer(t, w.line())
		require.Equal(t, "1", string(a.ID))
		require.NotNil(t, a.Error, rev)
		require.EqualValues(t, -32602, a.Error.Code)
		require.Contains(t, a.Error.Message, "given twice")
		w.requireServed(`"after-`+rev+`"`, rev, "the duplicate")
	}
}

// TestServeStdio_cancelledCallsUnanswered: a call the client cancels while
// it is in flight is not answered (the cancellation rules: the receiver
// should not respond), in a batch too, where the batch's answer then
// holds the other calls only; a cancel naming no call in flight, or a
// call already answered, changes nothing.
func TestServeStdio_cancelledCallsUnanswered(t *testing.T) {
	w := newRawWire(t, newServer(t, NewConfig().WithProviders(notesProvider())))
	w.handshake("2025-03-26")
	w.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}},` +
		`{"jsonrpc":"2.0","id":"two","method":"ping"}]`)
	var got []answer
	require.NoError(t, json.Unmarshal([]byte(w.line()), &got))
	require.Len(t, got, 1, "the cancelled call is left out of the batch's answer")
	require.Equal(t, `"two"`, string(got[0].ID))

	w.send(`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}]`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"two"}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}}`)
	w.requireServed(`"after"`, "2025-03-26", "cancels")
}
