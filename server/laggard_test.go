package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// laggardURIs are n URIs of the notes provider, each about 2 KiB long, so
// that every announcement of them all is about n*2 KiB on a stream.
func laggardURIs(prefix string, n int) []string {
	pad := strings.Repeat("p", 1900)
	uris := make([]string, n)
	for i := range uris {
		uris[i] = fmt.Sprintf("notes:///%s/%d/%s", prefix, i, pad)
	}
	return uris
}

// subscribeRaw subscribes a raw legacy session to each of uris.
func subscribeRaw(t *testing.T, url string, session map[string]string, uris []string) {
	t.Helper()
	for i, uri := range uris {
		status, _, body := rawPost(t, url, session,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, i+10, uri))
		require.Equal(t, http.StatusOK, status, body)
		require.NotContains(t, body, `"error"`)
	}
}

// neverRead opens the GET stream of a legacy session and never reads its
// body: once the socket buffers are full, every write to it blocks.
func neverRead(t *testing.T, url string, session map[string]string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range session {
		req.Header.Set(k, v)
	}
	hc := &http.Client{Transport: &http.Transport{}} // its own connection
	resp, err := hc.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	t.Cleanup(func() { _ = resp.Body.Close() })
}

// TestLive_laggardCostsOnlyItself: a session that subscribed to all it may
// and never reads its GET stream, beside one that subscribed to all it may
// and reads, does not silence a third: each change reaches the third
// client while the non-reader's stream is full. The write timeout is far
// longer than the test, so what keeps the third client hearing is that no
// session waits for another's writes.
func TestLive_laggardCostsOnlyItself(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()).withNotifyDelay(time.Millisecond))
	url := serveHTTP(t, s, NewHTTPConfig().WithRateLimit(0, 0).WithWriteTimeout(10*time.Minute))

	lagging := laggardURIs("lag", DefaultMaxSubscriptions)
	session := legacySession(t, url)
	subscribeRaw(t, url, session, lagging)
	neverRead(t, url, session)

	busy := laggardURIs("busy", DefaultMaxSubscriptions)
	reader := connectHTTP(t, url, "2025-11-25", nil, nil)
	for _, uri := range busy {
		require.NoError(t, reader.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))
	}

	updated := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "third", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	third, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	defer third.Close()
	require.NoError(t, third.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes:///hello"}))

	// 30 rounds of 2 MiB for the non-reader: far more than loopback
	// socket buffers hold.
	changed := append(append([]string{"notes:///hello"}, lagging...), busy...)
	for round := range 30 {
		s.ResourcesUpdated("notes", changed...)
		select {
		case uri := <-updated:
			require.Equal(t, "notes:///hello", uri)
		case <-time.After(testkit.Wait):
			t.Fatalf("round %d: the third client heard nothing while the non-reader blocks", round)
		}
	}
}

// laggardObserver records the laggards it is told of.
type laggardObserver struct {
	recordingObserver
	lagged chan string
}

func (o *laggardObserver) Laggard(reason string) { o.lagged <- reason }

// TestHTTP_writeTimeoutClosesTheLaggard: the GET stream of a session that
// never reads is closed once a write to it waits past the write timeout
// (200 ms here; the bound below is far longer), logged and counted; the
// session's notifications stop costing anything, and the session itself
// lives on: it may open a new stream.
func TestHTTP_writeTimeoutClosesTheLaggard(t *testing.T) {
	obs := &laggardObserver{lagged: make(chan string, 4)}
	log, logs := newLogger()
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithObserver(obs).WithLogger(log).
		withNotifyDelay(time.Millisecond))
	url := serveHTTP(t, s, NewHTTPConfig().WithRateLimit(0, 0).WithWriteTimeout(200*time.Millisecond))
	uris := laggardURIs("lag", 300)
	session := legacySession(t, url)
	subscribeRaw(t, url, session, uris)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range session {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()

	bound := time.After(testkit.Wait)
	for lagged := false; !lagged; {
		s.ResourcesUpdated("notes", uris...) // 600 KiB a round
		select {
		case reason := <-obs.lagged:
			require.Equal(t, "write_timeout", reason)
			lagged = true
		case <-time.After(50 * time.Millisecond):
		case <-bound:
			t.Fatal("the stream of a client that does not read was never closed")
		}
	}
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, resp.Body); ended <- err }()
	select {
	case <-ended: // what was buffered, then the end of the closed stream
	case <-time.After(testkit.Wait):
		t.Fatal("the laggard's stream stays open")
	}
	require.Contains(t, logs.String(), "closing a stream: its client did not read within the write timeout")
	status, _, body := rawPost(t, url, session, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	require.Equal(t, http.StatusOK, status, "the session outlives its stream: %s", body)
	senders := make(chan struct{})
	go func() { s.out.wait(); close(senders) }()
	select {
	case <-senders: // the laggard's sender found its stream gone and ended
	case <-time.After(testkit.Wait):
		t.Fatal("the laggard's notification sender never ended")
	}
}

// TestStdio_writeTimeoutEndsTheLaggard: a stdio client that never reads
// its output (a pipe, as a real client's stdout is) ends its session once
// a write has waited past the write timeout (200 ms here; the bound below
// is far longer), counted, with an error that says so; the server does
// not hang on it.
func TestStdio_writeTimeoutEndsTheLaggard(t *testing.T) {
	obs := &laggardObserver{lagged: make(chan string, 4)}
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithObserver(obs).
		withStdioWriteTimeout(200*time.Millisecond))
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			_ = f.Close()
		}
	})
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(t.Context(), inR, outW) }()
	go func() {
		_, _ = inW.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		for i := 1; i <= 20_000; i++ { // about 1 MiB of answers: more than a pipe holds
			if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i); err != nil {
				return
			}
		}
	}()
	select {
	case reason := <-obs.lagged:
		require.Equal(t, "write_timeout", reason)
	case <-time.After(testkit.Wait):
		t.Fatal("a stdio client that does not read was never cut off")
	}
	select {
	case err := <-done:
		require.ErrorContains(t, err, "the client did not read its output for 200ms")
	case <-time.After(testkit.Wait):
		t.Fatal("ServeStdio hangs on a client that does not read")
	}
}
