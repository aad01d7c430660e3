// Package sdktest_test tests the C SDK's helpers (mcpw.h) through a real C guest
// (guests/c/sdktest/testdata/sdktest.c) in the real runtime.
package sdktest_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

func sdkProbe(t *testing.T, g runtime.Grants) *runtime.Provider {
	t.Helper()
	wasm := testguest.C(t, "csdktest", "guests/c/mcpw.c", "guests/c/sdktest/testdata/sdktest.c")
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	p, err := rt.LoadFile(ctx, wasm, testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1).WithGrants(g))
	require.NoError(t, err)
	return p
}

// unused is an HTTP grant for probes that make no request: the probe
// module imports http_fetch, so it loads only with some grant.
var unused = runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: "https://unused.example/"}}}

func probe(t *testing.T, p *runtime.Provider, uri string) string {
	t.Helper()
	res, err := p.Read(t.Context(), uri)
	require.NoError(t, err)
	return *res.Contents[0].Text
}

// TestCHTTPFetch: mcpw_http_fetch sends the method, URL, headers and body,
// and reads the status, a header and a binary body (which the host sends
// as bodyBase64); a refusal comes back as a code and message, not a fault.
func TestCHTTPFetch(t *testing.T) {
	var gotMethod, gotProbe, gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotMethod, gotProbe, gotBody = r.Method, r.Header.Get("X-Probe"), string(b)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte{0, 0xff, 'a', 0x80})
	}))
	t.Cleanup(srv.Close)
	allow := func(prefix string) runtime.HTTPGrant {
		return runtime.HTTPGrant{Allow: []runtime.HTTPRule{{Prefix: prefix, Methods: []string{"GET", "POST"}}}, AllowPrivateNetwork: true}
	}

	p := sdkProbe(t, runtime.Grants{Config: map[string]string{"url": srv.URL + "/x"}, HTTP: allow(srv.URL + "/")})
	require.Equal(t, "status=418 type=application/octet-stream body=00ff6180", probe(t, p, "sdk:///fetch"))
	require.Equal(t, "GET", gotMethod)
	require.Equal(t, "1", gotProbe)
	require.Equal(t, "status=418 type=application/octet-stream body=00ff6180", probe(t, p, "sdk:///post"))
	require.Equal(t, "POST", gotMethod)
	require.Equal(t, `a"b`, gotBody)

	denied := sdkProbe(t, runtime.Grants{Config: map[string]string{"url": srv.URL + "/x"}, HTTP: allow(srv.URL + "/other/")})
	require.Regexp(t, `^rc=1 code=denied message=.+`, probe(t, denied, "sdk:///fetch"))
	require.Zero(t, denied.Stats().Faults)
}

// TestCJSONHelpers: mcpw_json_int and mcpw_json_array_string on nested,
// escaped and malformed inputs.
func TestCJSONHelpers(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"a":{"n":-42},"list":["x","\u00fc\"",3,"y"]}`, `int=1:-42 [0]=x [1]=ü"`},
		{`{"a":{"n":1.5},"list":[]}`, `int=0:0`},
		{`{"a":{"n":12345678901234567890}}`, `int=0:0`},
		{`{"a":{"m":1},"list":"notarray"}`, `int=0:0`},
		{`{"a":{"n":7},"list":["a",`, `int=1:7 [0]=a`},
		{`{"list":["a"],"a":{"n":0}}`, `int=1:0 [0]=a`},
	} {
		p := sdkProbe(t, runtime.Grants{Config: map[string]string{"json": tc.json}, HTTP: unused})
		require.Equal(t, tc.want, probe(t, p, "sdk:///json"), tc.json)
	}
}

// TestCBase64Decode: mcpw_base64_decode accepts standard padded base64 only.
func TestCBase64Decode(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "Zg==": "66", "Zm8=": "666f", "Zm9v": "666f6f", "AP/+": "00fffe",
		"Zg=": "malformed", "Zm9*": "malformed", "Zg==Zg==": "malformed", "-_==": "malformed",
	} {
		p := sdkProbe(t, runtime.Grants{Config: map[string]string{"b64": in}, HTTP: unused})
		require.Equal(t, want, probe(t, p, "sdk:///b64"), in)
	}
}

// TestCUTF8Valid: mcpw_utf8_valid agrees with Go's utf8.Valid around its
// 32- and 8-byte ASCII steps (a bad byte at every offset of every step,
// multi-byte runes split across steps, truncated sequences, surrogates);
// mcpw_out_valid_text_content hands valid text over as it is, and the host
// refuses a provider that calls it on invalid bytes.
func TestCUTF8Valid(t *testing.T) {
	var inputs [][]byte
	for _, tail := range [][]byte{{0x80}, {0xff}, {0xc3}, {0xe2, 0x82}, {0xed, 0xa0, 0x80}, []byte("é"), []byte("€"), []byte("😀"), {0xf4, 0x90, 0x80, 0x80}} {
		for pre := range 70 {
			in := append(bytes.Repeat([]byte("a"), pre), tail...)
			inputs = append(inputs, in, append(append([]byte(nil), in...), bytes.Repeat([]byte("b"), 40)...))
		}
	}
	inputs = append(inputs, bytes.Repeat([]byte("x"), 1000))
	// As many inputs per probe as its config value holds.
	for len(inputs) > 0 {
		var enc []string
		var want strings.Builder
		size := 0
		for len(inputs) > 0 && size+len(base64.StdEncoding.EncodeToString(inputs[0]))+1 < 4000 {
			e := base64.StdEncoding.EncodeToString(inputs[0])
			enc, size = append(enc, e), size+len(e)+1
			want.WriteString(map[bool]string{true: "v", false: "i"}[utf8.Valid(inputs[0])])
			inputs = inputs[1:]
		}
		p := sdkProbe(t, runtime.Grants{Config: map[string]string{"b64": strings.Join(enc, " ")}, HTTP: unused})
		require.Equal(t, want.String(), probe(t, p, "sdk:///utf8"), "inputs %q", enc)
	}
	for _, in := range []string{"plain", "é€😀 and more than thirty-two bytes of text", "bad \xff byte", "cut \xe2\x82"} {
		p := sdkProbe(t, runtime.Grants{Config: map[string]string{"b64": base64.StdEncoding.EncodeToString([]byte(in))}, HTTP: unused})
		res, err := p.Read(t.Context(), "sdk:///rawtext")
		if utf8.ValidString(in) {
			require.NoError(t, err)
			require.Equal(t, in, *res.Contents[0].Text)
		} else {
			require.ErrorIs(t, err, abi.ErrViolation, "the host checks raw text whatever the guest said: %q", in)
		}
	}
}

// TestCErrorMessageCut: mcpw_error cuts a message to the 4096 bytes the ABI
// allows, counting as it sends (an invalid byte goes as U+FFFD, three
// bytes) and cutting between characters, so a message that echoes a long
// input stays the provider's refusal, never an ABI violation. Each piece is
// repeated to just under, at and past the bound, with the bound falling
// inside a character for the multi-byte ones.
func TestCErrorMessageCut(t *testing.T) {
	for _, piece := range []string{"a", "é", "€", "😀", "\xff", "a\xe2\x82"} {
		sent := len(strings.ToValidUTF8(piece, "\uFFFD"))
		if !utf8.ValidString(piece) {
			sent = 0 // each invalid byte is sent as U+FFFD
			for _, r := range []byte(piece) {
				if r < 0x80 {
					sent++
				} else {
					sent += 3
				}
			}
		}
		for _, reps := range []int{abi.MaxTextField/sent - 1, abi.MaxTextField / sent, abi.MaxTextField/sent + 1, 3 * abi.MaxTextField / sent} {
			p := sdkProbe(t, runtime.Grants{Config: map[string]string{
				"b64": base64.StdEncoding.EncodeToString([]byte(piece)), "reps": strconv.Itoa(reps)}, HTTP: unused})
			_, err := p.Read(t.Context(), "sdk:///error")
			require.ErrorIs(t, err, abi.ErrInvalidParams, "%q x%d", piece, reps)
			require.NotErrorIs(t, err, abi.ErrViolation, "%q x%d", piece, reps)
			require.Zero(t, p.Stats().Faults, "%q x%d", piece, reps)
		}
	}
}
