package egress

import (
	"context"
	"encoding/json"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

func TestParseRule(t *testing.T) {
	ok := map[string]rule{
		"https://API.example.com/v1/": {scheme: "https", host: "api.example.com", port: "443", path: "/v1/"},
		"http://h:8080":               {scheme: "http", host: "h", port: "8080", path: "/"},
		"http://[::1]:9/x":            {scheme: "http", host: "::1", port: "9", path: "/x"},
	}
	for prefix, want := range ok {
		got, err := parseRule(Rule{Prefix: prefix})
		require.NoError(t, err, prefix)
		want.methods = []string{"GET", "HEAD"}
		require.Equal(t, want, got, prefix)
	}
	for _, prefix := range []string{
		"ftp://h/", "h/x", "//h/x", "https://u:p@h/", "https://h/?q=1", "https://h/#f", "https://h/a/../b",
		"https://h/a/%2e%2e/b", "https://h/a%2Fb", "https://h//x", "https://bücher.de/", "mailto:x@h", "",
	} {
		_, err := parseRule(Rule{Prefix: prefix})
		require.ErrorIs(t, err, errs.ErrConfig, prefix)
	}
	_, err := parseRule(Rule{Prefix: "https://h/", Methods: []string{"DELETE"}})
	require.ErrorIs(t, err, errs.ErrConfig)
}

func TestRuleAllows(t *testing.T) {
	r, err := parseRule(Rule{Prefix: "https://api.example.com/v1"})
	require.NoError(t, err)
	slash, err := parseRule(Rule{Prefix: "https://api.example.com/v1/", Methods: []string{"POST"}})
	require.NoError(t, err)
	cases := []struct {
		rule   rule
		method string
		url    string
		want   bool
	}{
		{r, "GET", "https://api.example.com/v1", true},
		{r, "GET", "https://API.example.com./v1/users?x=1", true},
		{r, "HEAD", "https://api.example.com:443/v1/x", true},
		{r, "GET", "https://api.example.com/v10", false},
		{r, "GET", "https://api.example.com/", false},
		{r, "GET", "http://api.example.com/v1", false},
		{r, "GET", "https://api.example.com:8443/v1", false},
		{r, "GET", "https://evil.example.com/v1", false},
		{r, "GET", "https://api.example.com.evil.com/v1", false},
		{r, "POST", "https://api.example.com/v1", false},
		{slash, "POST", "https://api.example.com/v1/x", true},
		{slash, "GET", "https://api.example.com/v1/x", false},
		{slash, "POST", "https://api.example.com/v1", false},
	}
	for _, c := range cases {
		u, err := url.Parse(c.url)
		require.NoError(t, err)
		require.Equal(t, c.want, c.rule.allows(c.method, u), "%s %s", c.method, c.url)
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://h/v1/x":        true,
		"https://h":             true,
		"https://h/v1/../admin": false,
		"https://h/v1/./x":      false,
		"https://h/v1/%2e%2e/x": false,
		"https://h/v1%2f..%2fx": false,
		"https://h/v1/%5c":      false,
		"https://h//admin":      false,
		"https://h/a%00":        false,
	} {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		require.Equal(t, ok, checkURL(u) == nil, raw)
	}
}

func TestAddrVerdict(t *testing.T) {
	cases := map[string][2]bool{ // addr -> {allowed by default, allowed with private network}
		"93.184.215.14":             {true, true},
		"2606:2800:21f:cb07::1":     {true, true},
		"127.0.0.1":                 {false, true},
		"127.9.9.9":                 {false, true},
		"::1":                       {false, true},
		"::ffff:127.0.0.1":          {false, true},
		"10.1.2.3":                  {false, true},
		"172.16.0.1":                {false, true},
		"192.168.1.1":               {false, true},
		"fd12::1":                   {false, true},
		"fe80::1":                   {false, true},
		"169.254.1.1":               {false, true},
		"100.64.0.1":                {false, true},
		"169.254.169.254":           {false, false},
		"::ffff:169.254.169.254":    {false, false},
		"fd00:ec2::254":             {false, false},
		"100.100.100.200":           {false, false},
		"0.0.0.0":                   {false, false},
		"::":                        {false, false},
		"224.0.0.1":                 {false, false},
		"ff02::1":                   {false, false},
		"255.255.255.255":           {false, false},
		"240.0.0.1":                 {false, false},
		"64:ff9b::7f00:1":           {false, true},
		"64:ff9b::a9fe:a9fe":        {false, false},
		"2002:7f00:1::1":            {false, true},
		"::7f00:1":                  {false, true},
		"64:ff9b::5db8:d70e":        {true, true},
		"2001:db8::1":               {false, false},
		"fe80::1%eth0":              {false, true},
		"::ffff:10.0.0.1":           {false, true},
		"2002:a9fe:a9fe::1":         {false, false},
		"192.0.0.192":               {false, false},
		"198.18.0.1":                {false, false},
		"2606:4700:4700::1111":      {true, true},
		"fc00::1":                   {false, true},
		"fdff:ffff:ffff:ffff::1":    {false, true},
		"100.127.255.255":           {false, true},
		"100.128.0.0":               {true, true},
		"172.32.0.1":                {true, true},
		"11.0.0.1":                  {true, true},
		"169.253.255.255":           {true, true},
		"::ffff:100.100.100.200":    {false, false},
		"64:ff9b::6464:64c8":        {false, false},
		"2002:6464:64c8::":          {false, false},
		"::a9fe:a9fe":               {false, false},
		"2001:4860:4860::8888":      {true, true},
		"8.8.8.8":                   {true, true},
		"1.1.1.1":                   {true, true},
		"9.9.9.9":                   {true, true},
		"203.0.113.1":               {false, false},
		"198.51.100.1":              {false, false},
		"192.0.2.1":                 {false, false},
		"100::1":                    {false, false},
		"::ffff:0.0.0.0":            {false, false},
		"fe80::a9fe:a9fe":           {false, true},
		"::ffff:192.168.0.1":        {false, true},
		"2002:c0a8:1::":             {false, true},
		"2002:0808:0808::":          {true, true},
		"64:ff9b::808:808":          {true, true},
		"::808:808":                 {true, true},
		"::2":                       {false, false},
		"2001:db8:ffff:ffff:ffff::": {false, false},
	}
	for s, want := range cases {
		a, err := netip.ParseAddr(s)
		require.NoError(t, err, s)
		require.Equal(t, want[0], addrVerdict(a, false) == "", "%s by default: %q", s, addrVerdict(a, false))
		require.Equal(t, want[1], addrVerdict(a, true) == "", "%s with private network: %q", s, addrVerdict(a, true))
	}
}

// testEgress returns an egress for g whose refusals go to logs.
func testEgress(t *testing.T, g Grant) (*Egress, *strings.Builder) {
	t.Helper()
	for _, r := range g.Allow {
		require.NoError(t, CheckRule(r))
	}
	var logs strings.Builder
	l := slog.New(slog.NewTextHandler(&logs, nil))
	e := New(g, func() *slog.Logger { return l })
	require.NotNil(t, e)
	t.Cleanup(e.Close)
	return e, &logs
}

// fetchJSON runs one request through e.fetch and returns the decoded payload.
func fetchJSON(t *testing.T, ctx context.Context, e *Egress, req abi.FetchRequest) abi.FetchResponse {
	t.Helper()
	b, err := json.Marshal(req)
	require.NoError(t, err)
	var out abi.FetchResponse
	require.NoError(t, json.Unmarshal(encodeFetch(e.fetch(ctx, b)), &out))
	return out
}

// requireRefused checks the payload is an error of code whose message
// contains every fragment.
func requireRefused(t *testing.T, r abi.FetchResponse, code string, fragments ...string) {
	t.Helper()
	require.NotNil(t, r.Error, "want %s, got status %d", code, r.Status)
	require.Equal(t, code, r.Error.Code, r.Error.Message)
	for _, f := range fragments {
		require.Contains(t, r.Error.Message, f)
	}
}

func TestEgressFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/json":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Add("X-Multi", "a")
			w.Header().Add("X-Multi", "b")
			_, _ = io.WriteString(w, `{"auth":"`+r.Header.Get("Authorization")+`","method":"`+r.Method+`"}`)
		case "/api/echo":
			b, _ := io.ReadAll(r.Body)
			_, _ = w.Write(b)
		case "/api/binary":
			_, _ = w.Write([]byte{0, 1, 2, 0xff})
		case "/api/missing":
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	e, _ := testEgress(t, Grant{Allow: []Rule{{Prefix: srv.URL + "/api/", Methods: []string{"GET", "POST"}}}, AllowPrivateNetwork: true})
	ctx := t.Context()

	r := fetchJSON(t, ctx, e, abi.FetchRequest{URL: srv.URL + "/api/json", Headers: map[string]string{"Authorization": "Bearer t"}})
	require.Nil(t, r.Error)
	require.Equal(t, 200, r.Status)
	require.JSONEq(t, `{"auth":"Bearer t","method":"GET"}`, r.Body)
	require.Equal(t, "application/json", r.Headers["content-type"])
	require.Equal(t, "a, b", r.Headers["x-multi"])

	r = fetchJSON(t, ctx, e, abi.FetchRequest{Method: "POST", URL: srv.URL + "/api/echo", Body: "ping"})
	require.Equal(t, "ping", r.Body)

	r = fetchJSON(t, ctx, e, abi.FetchRequest{URL: srv.URL + "/api/binary"})
	require.Equal(t, "AAEC/w==", r.BodyBase64)
	require.Empty(t, r.Body)

	r = fetchJSON(t, ctx, e, abi.FetchRequest{URL: srv.URL + "/api/missing"})
	require.Nil(t, r.Error, "a 404 is a response, not an error")
	require.Equal(t, 404, r.Status)
}

// TestEgressRefusals is the evidence that every egress rule holds: each
// case is refused with a code and a message that says what and why.
func TestEgressRefusals(t *testing.T) {
	slow := make(chan struct{})
	t.Cleanup(func() { close(slow) })
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "FORBIDDEN HOST REACHED")
	}))
	t.Cleanup(forbidden.Close)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/redirect-out":
			http.Redirect(w, r, forbidden.URL+"/api/x", http.StatusFound)
		case "/api/redirect-path":
			http.Redirect(w, r, srv.URL+"/admin", http.StatusFound)
		case "/api/redirect-in":
			http.Redirect(w, r, "/api/ok", http.StatusFound)
		case "/api/loop":
			http.Redirect(w, r, "/api/loop", http.StatusFound)
		case "/api/big":
			_, _ = io.WriteString(w, strings.Repeat("x", 2048))
		case "/api/slow":
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		default:
			_, _ = io.WriteString(w, "ok")
		}
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	local := "http://localhost:" + itoa(port)
	g := Grant{
		Allow: []Rule{
			{Prefix: srv.URL + "/api/"},
			{Prefix: local + "/api/"},
			{Prefix: "http://10.0.0.1/"},
			{Prefix: "http://169.254.169.254/"},
			{Prefix: "http://rebind.test:" + itoa(port) + "/"},
		},
		AllowPrivateNetwork: true, MaxResponseBytes: 1024, MaxRequestBytes: 16, Timeout: 200 * time.Millisecond,
	}
	e, logs := testEgress(t, g)
	g.AllowPrivateNetwork = false
	strict, _ := testEgress(t, g)
	system := strict.lookup
	strict.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "rebind.test" {
			// A public-looking name whose DNS answer is loopback.
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return system(ctx, host) // localhost: from /etc/hosts
	}
	ctx := t.Context()
	get := func(e *Egress, u string) abi.FetchResponse { return fetchJSON(t, ctx, e, abi.FetchRequest{URL: u}) }

	r := get(e, srv.URL+"/api/redirect-in")
	require.Equal(t, "ok", r.Body, "a redirect inside the allowlist is followed")

	cases := []struct {
		name string
		r    abi.FetchResponse
		code string
		frag []string
	}{
		{"redirect to a forbidden host", get(e, srv.URL+"/api/redirect-out"), abi.FetchDenied, []string{"refused: redirect to GET http://127.0.0.1:", "not under any allowed http prefix", "--allow-http"}},
		{"redirect outside the path prefix", get(e, srv.URL+"/api/redirect-path"), abi.FetchDenied, []string{"redirect to GET", "/admin: not under"}},
		{"redirect loop", get(e, srv.URL+"/api/loop"), abi.FetchDenied, []string{"more than 5 redirects"}},
		{"DNS name resolving to loopback", get(strict, local+"/api/x"), abi.FetchDenied, []string{"localhost: address", "is a loopback address", "--allow-private-network"}},
		{"rebinding name resolving to loopback", get(strict, "http://rebind.test:"+itoa(port)+"/x"), abi.FetchDenied, []string{"rebind.test: address 127.0.0.1 is a loopback address"}},
		{"private IP literal", get(strict, "http://10.0.0.1/x"), abi.FetchDenied, []string{"address 10.0.0.1 is a private address"}},
		{"metadata even with private network", get(e, "http://169.254.169.254/latest/meta-data/"), abi.FetchDenied, []string{"cloud metadata address, always refused"}},
		{"oversized response", get(e, srv.URL+"/api/big"), abi.FetchTooLarge, []string{"over the 1024-byte cap"}},
		{"slow server past the grant's timeout", get(e, srv.URL+"/api/slow"), abi.FetchTimeout, []string{"200ms"}},
		{"disallowed scheme", get(e, "https://127.0.0.1:"+itoa(port)+"/api/x"), abi.FetchDenied, []string{"not under any allowed http prefix"}},
		{"disallowed port", get(e, "http://127.0.0.1:1/api/x"), abi.FetchDenied, []string{"127.0.0.1:1"}},
		{"disallowed path", get(e, srv.URL+"/admin"), abi.FetchDenied, []string{"/admin"}},
		{"dot segments", get(e, srv.URL+"/api/../admin"), abi.FetchDenied, []string{"ambiguous path", "a segment of dots"}},
		{"encoded dot segments", get(e, srv.URL+"/api/%2e%2e/admin"), abi.FetchDenied, []string{"encoded"}},
		{"disallowed method", fetchJSON(t, ctx, e, abi.FetchRequest{Method: "POST", URL: srv.URL + "/api/x"}), abi.FetchDenied, []string{"POST"}},
		{"oversized request body", fetchJSON(t, ctx, e, abi.FetchRequest{Method: "POST", URL: srv.URL + "/api/x", Body: strings.Repeat("b", 17)}), abi.FetchTooLarge, []string{"16-byte cap"}},
		{"host header", fetchJSON(t, ctx, e, abi.FetchRequest{URL: srv.URL + "/api/x", Headers: map[string]string{"Host": "evil"}}), abi.FetchInvalid, []string{"set by the host"}},
		{"non-http scheme", get(e, "file:///etc/passwd"), abi.FetchInvalid, []string{"http or https"}},
	}
	for _, c := range cases {
		requireRefused(t, c.r, c.code, c.frag...)
		require.NotContains(t, c.r.Error.Message, "FORBIDDEN HOST REACHED", c.name)
	}
	require.Contains(t, logs.String(), "http_fetch refused")

	var bad abi.FetchResponse
	require.NoError(t, json.Unmarshal(encodeFetch(e.fetch(ctx, []byte(`{"url":"http://h/","URL":"x"}`))), &bad))
	requireRefused(t, bad, abi.FetchInvalid, "unknown member")
}

// TestEgressIgnoresProxyEnvironment: an HTTP_PROXY in the host's
// environment must not route (or leak) provider traffic.
func TestEgressIgnoresProxyEnvironment(t *testing.T) {
	proxied := false
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { proxied = true }))
	t.Cleanup(proxy.Close)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "direct") }))
	t.Cleanup(srv.Close)
	e, _ := testEgress(t, Grant{Allow: []Rule{{Prefix: srv.URL + "/"}}, AllowPrivateNetwork: true})
	r := fetchJSON(t, t.Context(), e, abi.FetchRequest{URL: srv.URL + "/x"})
	require.Equal(t, "direct", r.Body)
	require.False(t, proxied)
}

func TestEgressControl(t *testing.T) {
	e, _ := testEgress(t, Grant{Allow: []Rule{{Prefix: "https://h/"}}})
	require.NoError(t, e.control("tcp4", "93.184.215.14:443", nil))
	require.ErrorContains(t, e.control("tcp4", "127.0.0.1:443", nil), "loopback")
	require.ErrorContains(t, e.control("udp4", "93.184.215.14:53", nil), "not TCP")
	require.ErrorContains(t, e.control("tcp6", "[fd00:ec2::254]:80", nil), "metadata")
}

func TestTextBody(t *testing.T) {
	require.True(t, textBody([]byte(`{"a":"b"}`)))
	require.True(t, textBody([]byte(`""""`)))
	require.True(t, textBody(nil))
	require.True(t, textBody([]byte("héllo\n")))
	require.False(t, textBody([]byte{0xff, 0xfe}))
	require.False(t, textBody([]byte("\x01\x02\x03\x04")))
}

func itoa(n int) string { return strconv.Itoa(n) }
