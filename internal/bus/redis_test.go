package bus

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// startRedis starts Debian's redis-server on a loopback port and returns
// its URL. Locally the test skips without it; under CI (.ci/run installs
// it) it fails.
func startRedis(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server not found: .ci/run installs it")
		}
		t.Skip("redis-server not found: apt-get install redis-server to run the bus tests")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, args...)...)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return "redis://127.0.0.1:" + strconv.Itoa(port) + "/0"
}

func open(t *testing.T, url string) *Redis {
	t.Helper()
	b, err := Open(url, "", nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	testkit.Eventually(t, func() bool { return b.Ping(context.Background()) == nil }, "redis-server does not answer")
	return b
}

// TestRedis_bus: events reach every subscriber; a claim is won once per
// ttl; subscriptions are kept per session and expire with it.
func TestRedis_bus(t *testing.T) {
	url := startRedis(t)
	a, b := open(t, url), open(t, url)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got := make(chan server.BusEvent, 4)
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx, func(ev server.BusEvent) { got <- ev }) }()
	testkit.Eventually(t, func() bool {
		n, err := a.Listeners(ctx)
		return err == nil && n == 1
	}, "the subscriber listens")
	want := server.BusEvent{Kind: "updated", Keys: []string{"file:///a"}}
	require.NoError(t, a.Publish(ctx, want))
	require.Equal(t, want, <-got)

	ok, err := a.Claim(ctx, "chg:x", time.Hour)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = b.Claim(ctx, "chg:x", time.Hour)
	require.NoError(t, err)
	require.False(t, ok, "a claim is won once")
	claimed, err := b.Claimed(ctx, "chg:x")
	require.NoError(t, err)
	require.True(t, claimed)

	require.NoError(t, a.PutSubscription(ctx, "s1", "k1", "file:///A", time.Hour))
	require.NoError(t, a.PutSubscription(ctx, "s1", "k2", "file:///B", time.Hour))
	require.NoError(t, b.DeleteSubscription(ctx, "s1", "k2"))
	subs, err := b.Subscriptions(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"k1": "file:///A"}, subs)
	ttl, err := a.do(ctx, "PTTL", a.subsKey("s1"))
	require.NoError(t, err)
	require.Positive(t, ttl, "a session's subscriptions expire")

	_, err = a.do(ctx, "PUBLISH", a.channel(), `{"k":"updated","bogus":1}`)
	require.NoError(t, err)
	_, err = a.do(ctx, "PUBLISH", a.channel(), `not json`)
	require.NoError(t, err)
	require.NoError(t, a.Publish(ctx, server.BusEvent{Kind: "list"}))
	require.Equal(t, "list", (<-got).Kind, "malformed events are dropped, later ones still arrive")
	require.Equal(t, int64(2), b.Dropped())
	cancel()
	<-done
}

// TestRedis_down: with no Redis, every call fails (within its context) and
// says so; nothing blocks for good.
func TestRedis_down(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "redis://" + ln.Addr().String() + "/0"
	require.NoError(t, ln.Close())
	b, err := Open(url, "", nil)
	require.NoError(t, err, "a fleet starts while its bus is down")
	defer b.Close()
	ctx := t.Context()
	_, err = b.Claim(ctx, "k", time.Second)
	require.ErrorContains(t, err, "claiming on the bus")
	require.ErrorContains(t, b.Publish(ctx, server.BusEvent{Kind: "list"}), "publishing on the bus")
}

func TestOpen_badURL(t *testing.T) {
	for _, url := range []string{"http://redis:6379", "redis://:secret@host:6379/notadb", "redis:/x",
		"redis://:secret@host:99999/0", "redis://user@host:6379", "redis://:secret@host:6379/0?dial_timeout=1s", "redis:///0", "redis://:secret@host:6379/-1"} {
		_, err := Open(url, "", nil)
		require.Error(t, err, url)
		require.NotContains(t, err.Error(), "secret", "the password is never echoed")
	}
}

func TestDecode(t *testing.T) {
	_, err := decode(string(make([]byte, MaxEvent+1)))
	require.ErrorContains(t, err, "too large")
	_, err = decode(`{"k":"list"} {"k":"list"}`)
	require.ErrorContains(t, err, "malformed")
	ev, err := decode(`{"k":"sub","s":"f","y":"k","r":"u"}`)
	require.NoError(t, err)
	require.Equal(t, server.BusEvent{Kind: "sub", Session: "f", Key: "k", URI: "u"}, ev)
}

// FuzzDecode: no bytes on the bus panic the replica.
func FuzzDecode(f *testing.F) {
	f.Add(`{"k":"updated","u":["a"]}`)
	f.Add(`{"k":1}`)
	f.Fuzz(func(t *testing.T, s string) { _, _ = decode(s) })
}

// TestRedis_auth: a password in the URL is sent as Redis's AUTH; a wrong
// one fails, and the error does not echo it.
func TestRedis_auth(t *testing.T) {
	url := startRedis(t, "--requirepass", "s3cret-pass")
	host := url[len("redis://"):]
	good := open(t, "redis://:s3cret-pass@"+host)
	ok, err := good.Claim(t.Context(), "k", time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	bad, err := Open("redis://:wrong-pass@"+host, "", nil)
	require.NoError(t, err)
	defer bad.Close()
	_, err = bad.Claim(t.Context(), "k2", time.Minute)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "wrong-pass")
}

func TestParseURL(t *testing.T) {
	o, err := parseURL("rediss://app:pw@redis.internal:6380/2")
	require.NoError(t, err)
	require.Equal(t, options{addr: "redis.internal:6380", host: "redis.internal", user: "app", pass: "pw", db: 2, tls: true}, o)
	o, err = parseURL("redis://:pw@[::1]")
	require.NoError(t, err)
	require.Equal(t, options{addr: "[::1]:6379", host: "::1", pass: "pw"}, o)
}

// TestReadReply: every RESP2 reply kind the bus reads, and input past
// each bound refused rather than buffered.
func TestReadReply(t *testing.T) {
	read := func(s string) (any, error) { return readReply(bufio.NewReaderSize(strings.NewReader(s), 4096)) }
	for in, want := range map[string]any{
		"+OK\r\n":                 "OK",
		"-ERR wrong\r\n":          replyError("ERR wrong"),
		":42\r\n":                 int64(42),
		"$5\r\nhello\r\n":         "hello",
		"$0\r\n\r\n":              "",
		"$-1\r\n":                 nil,
		"*2\r\n$1\r\na\r\n:1\r\n": []any{"a", int64(1)},
		"*0\r\n":                  []any{},
		"*1\r\n*1\r\n+x\r\n":      []any{[]any{"x"}},
	} {
		got, err := read(in)
		require.NoError(t, err, in)
		if want == nil {
			require.Nil(t, got, in)
			continue
		}
		require.Equal(t, want, got, in)
	}
	for in, why := range map[string]string{
		"$" + strconv.Itoa(maxBulk+1) + "\r\n":   "length",
		"*" + strconv.Itoa(maxArray+1) + "\r\n":  "length",
		"*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n":         "nested",
		"+" + strings.Repeat("a", 5000) + "\r\n": "line too long",
		"$3\r\nabcd\r\n":                         "CRLF",
		":x\r\n":                                 "integer",
		"?\r\n":                                  "unknown reply type",
		"+OK\n":                                  "CRLF",
		"$-2\r\n":                                "length",
	} {
		_, err := read(in)
		require.ErrorIs(t, err, errProtocol, in)
		require.ErrorContains(t, err, why, in)
	}
	// A reply whose parts are each in bounds but whose whole is not.
	var big strings.Builder
	n := maxReply/maxBulk + 1
	big.WriteString("*" + strconv.Itoa(n) + "\r\n")
	for range n {
		big.WriteString("$" + strconv.Itoa(maxBulk) + "\r\n" + strings.Repeat("x", maxBulk) + "\r\n")
	}
	_, err := read(big.String())
	require.ErrorContains(t, err, "reply larger than")
}

// FuzzReadReply: no bytes from the network panic the replica or read
// past the reply's budget.
func FuzzReadReply(f *testing.F) {
	f.Add([]byte("*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$2\r\n{}\r\n"))
	f.Add([]byte("-ERR x\r\n"))
	f.Add([]byte("*-1\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cr := &countingReader{r: bytes.NewReader(b)}
		_, _ = readReply(bufio.NewReaderSize(cr, 4096))
		require.LessOrEqual(t, cr.n, maxReply+4096)
	})
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestRedis_restart: a replica keeps hearing the bus after Redis restarts
// on the same port, and pooled connections to the old process are
// replaced without an error reaching the caller.
func TestRedis_restart(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not found")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	require.NoError(t, ln.Close())
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
		require.NoError(t, cmd.Start())
		return cmd
	}
	srv := start()
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	a := open(t, "redis://127.0.0.1:"+port)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got := make(chan server.BusEvent, 16)
	go a.Run(ctx, func(ev server.BusEvent) { got <- ev })
	testkit.Eventually(t, func() bool { n, err := a.Listeners(ctx); return err == nil && n == 1 }, "the subscriber listens")

	_ = srv.Process.Kill()
	_ = srv.Wait()
	srv = start()
	// Another client waits for the new process, so that a's pooled
	// connection (to the old one) is still the one a's next call takes.
	probe, err := Open("redis://127.0.0.1:"+port, "", nil)
	require.NoError(t, err)
	defer probe.Close()
	testkit.Eventually(t, func() bool { return probe.Ping(ctx) == nil }, "redis-server is back")
	require.NoError(t, a.Ping(ctx), "a stale pooled connection is replaced within the call")
	testkit.Eventually(t, func() bool { n, err := a.Listeners(ctx); return err == nil && n == 1 }, "the subscriber listens again")
	require.NoError(t, a.Publish(ctx, server.BusEvent{Kind: "list"}))
	require.Equal(t, "list", (<-got).Kind)
}
