package abi

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFetchRequestValidate(t *testing.T) {
	ok := map[string]FetchRequest{
		"get":          {URL: "https://api.example.com/v1/x?q=1"},
		"head":         {Method: "HEAD", URL: "http://h:8080/"},
		"post body":    {Method: "POST", URL: "https://h/", Body: `{"a":1}`, Headers: map[string]string{"Content-Type": "application/json"}},
		"auth header":  {URL: "https://h/", Headers: map[string]string{"Authorization": "Bearer x"}},
		"ipv6 literal": {URL: "http://[2001:db8::1]/"},
	}
	for name, r := range ok {
		require.NoError(t, r.Validate(), name)
	}
	bad := map[string]FetchRequest{
		"put":             {Method: "PUT", URL: "https://h/"},
		"lower get":       {Method: "get", URL: "https://h/"},
		"get body":        {URL: "https://h/", Body: "x"},
		"ftp":             {URL: "ftp://h/"},
		"file":            {URL: "file:///etc/passwd"},
		"relative":        {URL: "/x"},
		"opaque":          {URL: "http:h"},
		"userinfo":        {URL: "https://user:pw@h/"},
		"fragment":        {URL: "https://h/#x"},
		"long url":        {URL: "https://h/" + strings.Repeat("a", MaxURILength)},
		"host header":     {URL: "https://h/", Headers: map[string]string{"Host": "evil"}},
		"te header":       {URL: "https://h/", Headers: map[string]string{"Transfer-Encoding": "chunked"}},
		"proxy header":    {URL: "https://h/", Headers: map[string]string{"Proxy-Foo": "x"}},
		"header crlf":     {URL: "https://h/", Headers: map[string]string{"X": "a\r\nHost: evil"}},
		"header name":     {URL: "https://h/", Headers: map[string]string{"X Y": "a"}},
		"empty name":      {URL: "https://h/", Headers: map[string]string{"": "a"}},
		"long value":      {URL: "https://h/", Headers: map[string]string{"X": strings.Repeat("a", MaxFetchHeaderValue+1)}},
		"too many header": {URL: "https://h/", Headers: manyHeaders(MaxFetchHeaders + 1)},
	}
	for name, r := range bad {
		require.ErrorIs(t, r.Validate(), ErrInvalid, name)
	}
}

func manyHeaders(n int) map[string]string {
	h := map[string]string{}
	for i := range n {
		h["X-"+strings.Repeat("a", i+1)] = "v"
	}
	return h
}

// TestFetchRequestDecode: the host decodes a guest's request strictly.
func TestFetchRequestDecode(t *testing.T) {
	var r FetchRequest
	require.NoError(t, Decode([]byte(`{"method":"GET","url":"https://h/","headers":{"Accept":"application/json"}}`), &r))
	require.Equal(t, "application/json", r.Headers["Accept"])
	for _, in := range []string{
		`{"url":"https://h/","URL":"x"}`,
		`{"url":"https://h/","extra":1}`,
		`{"url":"https://h/","headers":{"a":"1","a":"2"}}`,
		`{"url":1}`,
	} {
		require.ErrorIs(t, Decode([]byte(in), &FetchRequest{}), ErrMalformed, in)
	}
}

// FuzzFetchRequest: no guest bytes make decoding or validating a request
// panic, and a request that passes has an http(s) URL with a host.
func FuzzFetchRequest(f *testing.F) {
	for _, seed := range []string{
		`{"url":"https://h/x"}`,
		`{"method":"POST","url":"http://h:1/","headers":{"A":"b"},"body":"x"}`,
		`{"url":"https://u@h/#f"}`,
		`{"url":"http://[::1]/","headers":{"Host":"x"}}`,
		`{"url":"\u0068ttp://h/"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r FetchRequest
		if Decode(b, &r) != nil || r.Validate() != nil {
			return
		}
		u, err := url.Parse(r.URL)
		require.NoError(t, err)
		require.Contains(t, []string{"http", "https"}, u.Scheme)
		require.NotEmpty(t, u.Host)
		require.Nil(t, u.User)
	})
}
