package mcpw

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

type fetchHost struct {
	MapHost
	got  abi.FetchRequest
	resp *abi.FetchResponse
}

func (h *fetchHost) Fetch(req abi.FetchRequest) (*abi.FetchResponse, error) {
	h.got = req
	return h.resp, nil
}

func TestFetch(t *testing.T) {
	h := &fetchHost{resp: &abi.FetchResponse{Status: 200, Headers: map[string]string{"content-type": "text/plain"}, Body: "hi"}}
	ctx := WithHost(context.Background(), h)
	r, err := Get(ctx, "https://h/x", map[string]string{"Accept": "text/plain"})
	require.NoError(t, err)
	require.Equal(t, &Response{Status: 200, Header: map[string]string{"content-type": "text/plain"}, Body: []byte("hi")}, r)
	require.Equal(t, abi.FetchRequest{Method: "GET", URL: "https://h/x", Headers: map[string]string{"Accept": "text/plain"}}, h.got)

	h.resp = &abi.FetchResponse{Status: 200, BodyBase64: "AAEC/w=="}
	r, err = Fetch(ctx, abi.FetchRequest{URL: "https://h/bin"})
	require.NoError(t, err)
	require.Equal(t, []byte{0, 1, 2, 0xff}, r.Body)

	h.resp = &abi.FetchResponse{Error: &abi.FetchError{Code: abi.FetchDenied, Message: "not allowed"}}
	_, err = Get(ctx, "https://h/x", nil)
	var fe *FetchError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, abi.FetchDenied, fe.Code)
	require.EqualError(t, err, "http denied: not allowed")

	for _, bad := range []*abi.FetchResponse{{}, {Status: 200, BodyBase64: "!!"}} {
		h.resp = bad
		_, err = Get(ctx, "https://h/x", nil)
		require.Error(t, err)
	}
}

func TestFetchWithoutHost(t *testing.T) {
	_, err := Get(context.Background(), "https://h/", nil)
	require.ErrorIs(t, err, ErrNoHTTP)
}
