package server

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// roundRobin sends each request to the next of urls' hosts, as a load
// balancer with no affinity does.
type roundRobin struct {
	hosts []string
	n     atomic.Int64
}

func (rr *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Host = rr.hosts[int(rr.n.Add(1))%len(rr.hosts)]
	r.Host = r.URL.Host
	return http.DefaultTransport.RoundTrip(r)
}

func hostOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Host
}

// replicas serves n servers of the notes provider sealing session ids
// with key, and returns their /mcp URLs.
func replicas(t *testing.T, n int, key []byte, hcfg HTTPConfig) []string {
	var urls []string
	for range n {
		s := newServer(t, NewConfig().WithProviders(notesProvider()).WithSessionKeys(0, key))
		urls = append(urls, serveHTTP(t, s, hcfg))
	}
	return urls
}

// TestFleet_anyReplicaServesALegacySession: behind round robin, every
// request of a 2025-era session may land on another replica, which adopts
// the session from its sealed id; the go-sdk client sees one session.
func TestFleet_anyReplicaServesALegacySession(t *testing.T) {
	urls := replicas(t, 3, sealKeyA, NewHTTPConfig())
	rr := &roundRobin{}
	for _, u := range urls {
		rr.hosts = append(rr.hosts, hostOf(t, u))
	}
	for _, rev := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			cs := connectHTTP(t, urls[0], rev, &http.Client{Transport: rr}, nil)
			require.True(t, sealed(cs.ID()), "the session id is sealed: %q", cs.ID())
			for range 6 { // two rounds over the three replicas
				res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
				require.NoError(t, err)
				require.Equal(t, "Hello, world", res.Contents[0].Text)
			}
			uris, _ := listAll(t, cs)
			require.Contains(t, uris, "notes:///styled")
		})
	}
}

// TestFleet_refusedIDs: on the wire, a forged or altered id and another
// fleet's id get 404 (the client initializes again), another principal's
// 403, and a deleted session's id no longer opens a session.
func TestFleet_refusedIDs(t *testing.T) {
	hcfg := NewHTTPConfig().WithAuth(staticAuth())
	urls := replicas(t, 2, sealKeyA, hcfg)
	other := replicas(t, 1, sealKeyB, hcfg)[0]
	alice := map[string]string{"Authorization": "Bearer alice-secret"}
	status, hdr, body := rawPost(t, urls[0], alice,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Equal(t, http.StatusOK, status, body)
	id := hdr.Get(headerSessionID)
	require.True(t, sealed(id))
	call := func(url, token, session string) (int, string) {
		h := map[string]string{"Authorization": "Bearer " + token, headerSessionID: session, headerProtocolVersion: "2025-06-18"}
		status, _, body := rawPost(t, url, h, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"notes:///hello"}}`)
		return status, body
	}
	status, body = call(urls[1], "alice-secret", id)
	require.Equal(t, http.StatusOK, status, "another replica serves it: %s", body)
	require.Contains(t, body, "Hello, world")

	altered := []byte(id)
	altered[len(altered)/2] ^= 1
	for _, c := range []struct {
		name, url, token, id string
		status               int
		why                  string
	}{
		{"another principal", urls[1], "bob-secret", id, http.StatusForbidden, "another principal"},
		{"altered", urls[1], "alice-secret", string(altered), http.StatusNotFound, "invalid session id"},
		{"forged", urls[1], "alice-secret", sealedPrefix + strings.Repeat("A", 120), http.StatusNotFound, "not sealed by this fleet"},
		{"another fleet", other, "alice-secret", id, http.StatusNotFound, "not sealed by this fleet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := call(c.url, c.token, c.id)
			require.Equal(t, c.status, status, body)
			require.Contains(t, body, c.why)
		})
	}

	req, err := http.NewRequestWithContext(t.Context(), http.MethodDelete, urls[1], nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer alice-secret")
	req.Header.Set(headerSessionID, id)
	status, _, body = do(t, req)
	require.Equal(t, http.StatusNoContent, status, body)
	status, body = call(urls[1], "alice-secret", id)
	require.Equal(t, http.StatusNotFound, status, "a deleted session is not adopted again: %s", body)
}

// TestFleet_offByDefault: without session keys, ids are go-sdk's, held by
// one process, as before fleets.
func TestFleet_offByDefault(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()))
	cs := connectHTTP(t, serveHTTP(t, s, NewHTTPConfig()), "2025-11-25", nil, nil)
	require.False(t, sealed(cs.ID()))
	require.Nil(t, s.fleet)
	_, err := New(NewConfig().WithImplementation("x", "1").WithBus(nilBus{}, 0))
	require.ErrorContains(t, err, "a bus needs session keys")
}

// nilBus is a Bus for configuration tests; it is never called.
type nilBus struct{ Bus }

// TestFleet_concurrentAdoption: many requests of one session reaching a
// replica that does not hold it at once make one session there, not one
// each, and every request is served.
func TestFleet_concurrentAdoption(t *testing.T) {
	a := newServer(t, NewConfig().WithProviders(notesProvider()).WithSessionKeys(0, sealKeyA))
	b := newServer(t, NewConfig().WithProviders(notesProvider()).WithSessionKeys(0, sealKeyA))
	ua, ub := serveHTTP(t, a, NewHTTPConfig()), serveHTTP(t, b, NewHTTPConfig())
	status, hdr, body := rawPost(t, ua, nil,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Equal(t, http.StatusOK, status, body)
	h := map[string]string{headerSessionID: hdr.Get(headerSessionID), headerProtocolVersion: "2025-06-18"}
	statuses := make(chan int, 20)
	for i := range 20 {
		go func() {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"notes:///hello"}}`, i+2)
			req, err := http.NewRequest(http.MethodPost, ub, strings.NewReader(body))
			if err != nil {
				statuses <- 0
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range h {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				statuses <- 0
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Logf("%d: %s", resp.StatusCode, b)
			}
			statuses <- resp.StatusCode
		}()
	}
	for range 20 {
		require.Equal(t, http.StatusOK, <-statuses)
	}
	n := 0
	for range b.mcp.Sessions() {
		n++
	}
	require.Equal(t, 1, n, "one adopted session")
}
