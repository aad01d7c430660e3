package server

import (
	"bufio"
	"fmt"
	"net"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// inUse is the heap and goroutine stack memory in use after a collection.
func inUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

// BenchmarkLiveMemory_subscription measures what one subscription costs
// the host, with a short URI and with one of the longest URIs accepted
// (abi.MaxURILength). It reports B/subscription; the security model
// (docs/security.md) and DefaultMaxSubscriptionsTotal quote it.
//
//	go test ./server -run '^$' -bench LiveMemory -benchtime 1x
func BenchmarkLiveMemory_subscription(b *testing.B) {
	for _, size := range []int{20, 2000} {
		b.Run(fmt.Sprintf("uri%dB", size), func(b *testing.B) {
			const n = 20_000
			s := newServer(b, NewConfig().WithProviders(notesProvider()).WithMaxSubscriptions(n).WithSubscriptionShares(n, n))
			connect(b, s, "2025-11-25")
			var ss *mcp.ServerSession
			for ss = range s.mcp.Sessions() {
			}
			pad := strings.Repeat("p", max(0, size-len("notes:///00000/")))
			b.ResetTimer()
			for range b.N {
				before := inUse()
				for i := range n {
					uri := fmt.Sprintf("notes:///%05d/%s", i, pad)
					require.NoError(b, s.subs.add(ss, "", uri, uri, false))
				}
				b.ReportMetric(float64(inUse()-before)/n, "B/subscription")
				for i := range n {
					s.subs.remove(ss, fmt.Sprintf("notes:///%05d/%s", i, pad), false)
				}
			}
		})
	}
}

// BenchmarkLiveMemory_listen measures what one 2026-07-28 listen over
// Streamable HTTP costs the server: its connection, request, session and
// stream, all held open. The clients are bare TCP connections that send
// the request and read up to the acknowledgement, so that they cost the
// process next to nothing themselves. It reports B/listen; the
// security model (docs/security.md) and DefaultMaxListens quote it.
func BenchmarkLiveMemory_listen(b *testing.B) {
	const n = 500
	s := newServer(b, NewConfig().WithProviders(notesProvider()).WithListenShares(n, n))
	h, err := s.newHTTPHandler(NewHTTPConfig().WithRateLimit(0, 0))
	require.NoError(b, err)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.endStreams()
	body := `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["notes:///hello"]},` + stdioMeta + `}}`
	req := "POST /mcp HTTP/1.1\r\nHost: " + ts.Listener.Addr().String() + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
	for range b.N {
		before := inUse()
		conns := make([]net.Conn, 0, n)
		for range n {
			c, err := net.Dial("tcp", ts.Listener.Addr().String())
			require.NoError(b, err)
			_, err = c.Write([]byte(req))
			require.NoError(b, err)
			br := bufio.NewReader(c)
			for {
				line, err := br.ReadString('\n')
				require.NoError(b, err)
				if strings.Contains(line, notifyAcknowledged) {
					break
				}
			}
			conns = append(conns, c)
		}
		b.ReportMetric(float64(inUse()-before)/n, "B/listen")
		for _, c := range conns {
			_ = c.Close()
		}
	}
}
