package httpjsonprov

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// fakeAPI is a Host whose Fetch answers from a map of URL -> response.
type fakeAPI struct {
	mcpw.MapHost
	answers map[string]*abi.FetchResponse
	got     []abi.FetchRequest
}

func (f *fakeAPI) Fetch(req abi.FetchRequest) (*abi.FetchResponse, error) {
	f.got = append(f.got, req)
	if r, ok := f.answers[req.URL]; ok {
		return r, nil
	}
	return &abi.FetchResponse{Status: 404}, nil
}

func newAPI(config map[string]string) (*fakeAPI, context.Context) {
	api := &fakeAPI{answers: map[string]*abi.FetchResponse{
		"https://api.test/v1/users/1": {Status: 200, Body: `{"id":1}`},
		"https://api.test/v1/html":    {Status: 200, Body: `<html>`},
		"https://api.test/v1/boom":    {Status: 500, Body: `{}`},
		"https://api.test/v1/denied":  {Error: &abi.FetchError{Code: abi.FetchDenied, Message: "not under any allowed http prefix"}},
	}}
	api.Values = config
	return api, mcpw.WithHost(context.Background(), api)
}

func TestRead(t *testing.T) {
	api, ctx := newAPI(map[string]string{KeyBaseURL: "https://api.test/v1", KeyToken: "t0k"})
	p := New().(provider)
	res, err := p.Read(ctx, "httpjson:///users/1")
	require.NoError(t, err)
	require.Equal(t, `{"id":1}`, *res.Contents[0].Text)
	require.Equal(t, mimeJSON, res.Contents[0].MIMEType)
	require.Equal(t, abi.FetchRequest{Method: "GET", URL: "https://api.test/v1/users/1", Headers: map[string]string{
		"Accept": mimeJSON, "Authorization": "Bearer t0k",
	}}, api.got[0])

	cases := map[string]string{
		"httpjson:///missing":       abi.CodeNotFound,
		"httpjson:///html":          abi.CodeInternal,
		"httpjson:///boom":          abi.CodeInternal,
		"httpjson:///denied":        abi.CodeInternal,
		"httpjson:///a/../users/1":  abi.CodeInvalidParams,
		"httpjson:///a//b":          abi.CodeInvalidParams,
		"httpjson:///a%2Fb":         abi.CodeInvalidParams,
		"httpjson:///users/1?x=1":   abi.CodeInvalidParams,
		"httpjson:///":              abi.CodeInvalidParams,
		"httpjson://host/users/1":   abi.CodeInvalidParams,
		"httpjson:///./users/1":     abi.CodeInvalidParams,
		"httpjson:///users/1#frag":  abi.CodeInvalidParams,
		"httpjson:///users/1/":      abi.CodeInvalidParams,
		"httpjson:///\\etc\\passwd": abi.CodeInvalidParams,
	}
	for uri, code := range cases {
		_, err := p.Read(ctx, uri)
		var e *mcpw.Error
		require.ErrorAs(t, err, &e, uri)
		require.Equal(t, code, e.Code, "%s: %v", uri, err)
	}
	_, err = p.Read(ctx, "httpjson:///denied")
	require.ErrorContains(t, err, "http denied: not under any allowed http prefix", "the host's reason reaches the operator")
}

func TestReadConfig(t *testing.T) {
	for name, cfg := range map[string]map[string]string{
		"no base_url":   {},
		"ftp base_url":  {KeyBaseURL: "ftp://api.test/"},
		"query":         {KeyBaseURL: "https://api.test/?k=1"},
		"relative base": {KeyBaseURL: "/v1/"},
	} {
		_, ctx := newAPI(cfg)
		_, err := New().(provider).Read(ctx, "httpjson:///users/1")
		require.ErrorContains(t, err, KeyBaseURL, name)
	}
	api, ctx := newAPI(map[string]string{KeyBaseURL: "https://api.test/v1/"})
	_, err := New().(provider).Read(ctx, "httpjson:///users/1")
	require.NoError(t, err)
	require.NotContains(t, api.got[0].Headers, "Authorization", "no token, no header")
}

func TestList(t *testing.T) {
	_, ctx := newAPI(map[string]string{KeyPaths: "users/1, status ,,"})
	res, err := New().(provider).List(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []abi.Resource{
		{URI: "httpjson:///users/1", Name: "users/1", MIMEType: mimeJSON},
		{URI: "httpjson:///status", Name: "status", MIMEType: mimeJSON},
	}, res.Resources)
	require.NoError(t, res.Validate(abi.URISpace(New().Describe().URISpace)))

	_, ctx = newAPI(map[string]string{KeyPaths: "ok,../etc"})
	_, err = New().(provider).List(ctx, "")
	require.ErrorContains(t, err, "../etc")
	_, err = New().(provider).List(ctx, "c")
	require.Error(t, err)
}

func TestDescribeValid(t *testing.T) {
	d := New().Describe()
	d.Operations = []string{abi.OpList, abi.OpTemplates, abi.OpRead}
	require.NoError(t, d.Validate())
	res, err := New().(provider).Templates(context.Background(), "")
	require.NoError(t, err)
	require.Len(t, res.ResourceTemplates, 1)
}
