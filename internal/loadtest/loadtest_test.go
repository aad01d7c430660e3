package loadtest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/conformance/fixtures"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/server"
)

var fixtureURIs = []string{fixtures.StaticTextURI, fixtures.StaticBinaryURI, "test://template/7/data"}

// serveNative serves the conformance fixtures natively over Streamable
// HTTP on loopback and returns the /mcp URL.
func serveNative(t *testing.T) string {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := server.New(server.NewConfig().WithProviders(NewNative(fixtures.Provider{})).WithLogger(log))
	require.NoError(t, err)
	h, err := s.HTTPHandler(server.NewHTTPConfig().WithRateLimit(0, 0))
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + server.MCPPath
}

func TestRunBothEras(t *testing.T) {
	url := serveNative(t)
	for _, era := range []string{Modern, Legacy} {
		t.Run(era, func(t *testing.T) {
			// MinReads: every client reads twice however slow the machine
			// is; the run waits for that, not for a clock.
			res, err := Run(t.Context(), Config{URL: url, Clients: 8, Duration: 500 * time.Millisecond, MinReads: 2,
				URIs: fixtureURIs, Era: era, Timeout: testkit.Patient})
			require.NoError(t, err)
			require.Zero(t, res.Errors, "samples: %v", res.Samples)
			require.GreaterOrEqual(t, res.Requests, 16, "every client read at least twice")
			require.Positive(t, res.Throughput)
			require.LessOrEqual(t, res.P50, res.P90)
			require.LessOrEqual(t, res.P90, res.P99)
			require.LessOrEqual(t, res.P99, res.Max)
			require.Contains(t, res.String(), "0 errors")
		})
	}
}

func TestRunCountsWrongAnswersAsErrors(t *testing.T) {
	url := serveNative(t)
	res, err := Run(t.Context(), Config{URL: url, Clients: 2, Duration: 200 * time.Millisecond,
		URIs: []string{fixtures.NotFoundURI}, Era: Modern, Timeout: 5 * time.Second})
	require.NoError(t, err)
	require.Zero(t, res.Requests)
	require.Positive(t, res.Errors)
	require.LessOrEqual(t, len(res.Samples), maxSamples)
	require.Contains(t, res.Samples[0], "-32602", "the not-found answer is reported")
}

func TestConfigRefusals(t *testing.T) {
	good := Config{URL: "http://127.0.0.1:1/mcp", Clients: 1, Duration: time.Second, URIs: []string{"x:y"}, Era: Modern, Timeout: time.Second}
	require.NoError(t, good.validate())
	tests := map[string]func(c *Config){
		"not loopback": func(c *Config) { c.URL = "http://10.1.2.3:8080/mcp" },
		"no scheme":    func(c *Config) { c.URL = "127.0.0.1/mcp" },
		"no clients":   func(c *Config) { c.Clients = 0 },
		"no uris":      func(c *Config) { c.URIs = nil },
		"no duration":  func(c *Config) { c.Duration = 0 },
		"bad era":      func(c *Config) { c.Era = "2024" },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			c := good
			mutate(&c)
			_, err := Run(context.Background(), c)
			require.Error(t, err)
		})
	}
	anyHost := good
	anyHost.URL, anyHost.AnyHost = "http://10.1.2.3:8080/mcp", true
	require.NoError(t, anyHost.validate())
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	require.Equal(t, time.Duration(50), percentile(d, 0.50))
	require.Equal(t, time.Duration(99), percentile(d, 0.99))
	require.Equal(t, time.Duration(100), percentile(d, 1))
	require.Equal(t, time.Duration(1), percentile(d[:1], 0.99))
	require.Zero(t, percentile(nil, 0.5))
}

func TestCheckRead(t *testing.T) {
	tests := []struct {
		name, body string
		ok         bool
	}{
		{"json", `{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"x:y","text":"a"}]}}`, true},
		{"sse", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"contents\":[{}]}}\n\n", true},
		{"error", `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"resource not found"}}`, false},
		{"empty contents", `{"jsonrpc":"2.0","id":3,"result":{"contents":[]}}`, false},
		{"other id", `{"jsonrpc":"2.0","id":4,"result":{"contents":[{}]}}`, false},
		{"garbage", `{"jsonrpc":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkRead([]byte(tt.body), 3)
			if tt.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}

func TestNativeMapsDomainErrors(t *testing.T) {
	n := NewNative(fixtures.Provider{})
	require.Equal(t, []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete}, n.Describe().Operations)
	_, err := n.Read(t.Context(), fixtures.NotFoundURI)
	require.ErrorIs(t, err, abi.ErrNotFound)
	_, err = n.Complete(t.Context(), abi.CompleteRequest{Template: fixtures.TemplateURI, Argument: abi.CompleteArgument{Name: "nope"}})
	require.ErrorIs(t, err, abi.ErrInvalidParams)
	res, err := n.Read(t.Context(), fixtures.StaticTextURI)
	require.NoError(t, err)
	require.Equal(t, fixtures.StaticText, *res.Contents[0].Text)
}

func TestPeakRSS(t *testing.T) {
	rss, err := PeakRSS(os.Getpid())
	require.NoError(t, err)
	require.Greater(t, rss, int64(1<<20), "a Go test binary peaks above 1 MiB")
	_, err = PeakRSS(-1)
	require.Error(t, err)
}
