package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/stretchr/testify/require"
)

const stdioMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func readLine(id int, uri string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q,%s}}`+"\n", id, uri, stdioMeta)
}

// slowProvider answers reads after delay, or hangs when delay is negative.
func slowProvider(delay time.Duration) *servertest.Provider {
	return slowProviderEntered(delay, nil)
}

// slowProviderEntered is slowProvider that also closes entered (if not
// nil) when its first call starts: a test waits for that event instead of
// guessing how long it takes.
func slowProviderEntered(delay time.Duration, entered chan struct{}) *servertest.Provider {
	var once sync.Once
	return servertest.New("slow", abi.URIRoot{Scheme: "slow"}).
		AddText("slow:///a", "text/plain", "a").
		WithIntercept(func(ctx context.Context, _, _ string) error {
			if entered != nil {
				once.Do(func() { close(entered) })
			}
			if delay < 0 {
				<-ctx.Done()
				return fmt.Errorf("%w: %w", abi.ErrTimeout, ctx.Err())
			}
			select {
			case <-time.After(delay):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
}

// TestServer_ServeStdio_drainsAtEOF: calls written before EOF are all
// answered, including slow and timed-out ones, then ServeStdio returns nil.
func TestServer_ServeStdio_drainsAtEOF(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(slowProvider(100*time.Millisecond)).WithCallTimeout(testkit.Patient))
	in := strings.NewReader(readLine(1, "slow:///a") + readLine(2, "slow:///missing") + readLine(3, "slow:///a"))
	var out strings.Builder
	require.NoError(t, s.ServeStdio(t.Context(), in, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	for _, id := range []string{`"id":1,"result"`, `"id":2,"error"`, `"id":3,"result"`} {
		require.Contains(t, out.String(), id)
	}
}

func TestServer_ServeStdio_drainBounded(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(slowProvider(-1)).WithCallTimeout(50*time.Millisecond))
	var out strings.Builder
	start := time.Now()
	require.NoError(t, s.ServeStdio(t.Context(), strings.NewReader(readLine(1, "slow:///a")), &out))
	require.Less(t, time.Since(start), 10*time.Second, "the drain outlived the 50ms call deadline")
	require.Contains(t, out.String(), `"code":-32603`)
}

// TestServer_ServeStdio_stopFinishesInFlight: cancelling ctx (a shutdown
// signal) stops reading but still answers the call in flight.
func TestServer_ServeStdio_stopFinishesInFlight(t *testing.T) {
	entered := make(chan struct{})
	s := newServer(t, NewConfig().WithProviders(slowProviderEntered(200*time.Millisecond, entered)).WithCallTimeout(testkit.Patient))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW); _ = outW.Close() }()
	_, err := inW.Write([]byte(readLine(1, "slow:///a")))
	require.NoError(t, err)
	<-entered // the read is now in flight
	cancel()
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, `"id":1,"result"`)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(testkit.Wait):
		t.Fatal("ServeStdio did not return after its context was cancelled")
	}
	_ = inW.Close()
}

// TestServer_ServeStdio_peerGone: a client that closes its end of the
// output ends the session like the end of its input: ServeStdio returns
// nil. Any other failure to write is still an error.
func TestServer_ServeStdio_peerGone(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(slowProvider(0)))
	for _, tc := range []struct {
		name string
		out  func() io.Writer
		want error
	}{
		{"closed pipe", func() io.Writer { r, w := io.Pipe(); _ = r.Close(); return w }, nil},
		{"broken pipe", func() io.Writer { return failingWriter{syscall.EPIPE} }, nil},
		{"other", func() io.Writer { return failingWriter{errDiskFull} }, errDiskFull},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			defer inW.Close()
			done := make(chan error, 1)
			go func() { done <- s.ServeStdio(t.Context(), inR, tc.out()) }()
			_, err := inW.Write([]byte(readLine(1, "slow:///a")))
			require.NoError(t, err)
			select {
			case err := <-done:
				if tc.want == nil {
					require.NoError(t, err)
				} else {
					require.ErrorIs(t, err, tc.want)
				}
			case <-time.After(testkit.Wait):
				t.Fatal("ServeStdio did not return after its output failed")
			}
		})
	}
}

var errDiskFull = errors.New("no space left on device")

// failingWriter fails every write with err.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// TestServer_ServeStdio_garbage: malformed framing ends the session with an
// error, without a panic.
func TestServer_ServeStdio_garbage(t *testing.T) {
	s := newServer(t, NewConfig())
	var out strings.Builder
	require.NoError(t, s.ServeStdio(t.Context(), strings.NewReader("{not json\n"), &out), "a bad line is answered, not fatal")
	require.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not JSON (or not UTF-8)"}}`, out.String())
}

// TestServer_ServeStdio_noCodeZero: errors go-sdk builds from plain Go
// errors (a call before initialize, a second initialize) get -32600, not 0.
func TestServer_ServeStdio_noCodeZero(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	init := `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n"
	in := `{"jsonrpc":"2.0","id":1,"method":"resources/list"}` + "\n" +
		fmt.Sprintf(init, 2) + fmt.Sprintf(init, 3)
	var out strings.Builder
	require.NoError(t, s.ServeStdio(t.Context(), strings.NewReader(in), &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	require.Contains(t, lines[0], `"id":1,"error":{"code":-32600,`)
	require.Contains(t, lines[1], `"id":2,"result"`)
	require.Contains(t, lines[2], `"id":3,"error":{"code":-32600,`)
}

// TestServer_ServeStdio_drainTimeoutAndInputEnded: at the end of input,
// the input-ended hook runs before the drain, and a call that would hang
// is cancelled after the drain timeout, not after the request timeout (an
// hour here).
func TestServer_ServeStdio_drainTimeoutAndInputEnded(t *testing.T) {
	ended := make(chan struct{})
	s := newServer(t, NewConfig().WithProviders(slowProvider(-1)).
		WithCallTimeout(time.Hour).WithRequestTimeout(time.Hour).
		WithDrainTimeout(100*time.Millisecond).WithInputEnded(func() { close(ended) }))
	inR, inW := io.Pipe()
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(t.Context(), inR, &out) }()
	_, err := inW.Write([]byte(readLine(1, "slow:///a")))
	require.NoError(t, err)
	require.NoError(t, inW.Close())
	select {
	case <-ended:
	case <-time.After(testkit.Wait):
		t.Fatal("the input-ended hook did not run at the end of input")
	}
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(testkit.Wait):
		t.Fatal("ServeStdio waited for the hung call past its drain timeout")
	}
}
