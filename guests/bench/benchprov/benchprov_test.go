package benchprov

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

var space = abi.URISpace{{Scheme: "bench"}}

func dispatch(t *testing.T, p *Provider, op, input string) (abi.Status, []byte) {
	t.Helper()
	return mcpw.Dispatch(context.Background(), p, op, []byte(input))
}

func TestList(t *testing.T) {
	p := New()
	for range 2 { // the page is shared between calls and must not change
		status, out := dispatch(t, p, abi.OpList, `{}`)
		require.Equal(t, abi.StatusOK, status, "%s", out)
		var r abi.ListResult
		require.NoError(t, abi.Decode(out, &r))
		require.NoError(t, r.Validate(space))
		require.Len(t, r.Resources, Items)
		require.Equal(t, "bench:///item/42", r.Resources[42].URI)
		require.Equal(t, "item 42", r.Resources[42].Name)
		require.Equal(t, int64(1024), *r.Resources[42].Size)
	}
	status, out := dispatch(t, p, abi.OpList, `{"cursor":"p2"}`)
	require.Equal(t, abi.StatusError, status)
	require.Contains(t, string(out), "invalid_params")
}

func TestRead(t *testing.T) {
	tests := []struct {
		uri     string
		wantLen int
	}{
		{"bench:///1k", 1 << 10},
		{"bench:///1m", 1 << 20},
		{"bench:///item/7", 1 << 10},
	}
	p := New()
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			status, out := dispatch(t, p, abi.OpRead, `{"uri":"`+tt.uri+`"}`)
			require.Equal(t, abi.StatusOK, status)
			var r abi.ReadResult
			require.NoError(t, abi.Decode(out, &r))
			require.NoError(t, r.Validate(space))
			require.Len(t, *r.Contents[0].Text, tt.wantLen)
			require.True(t, strings.HasPrefix(*r.Contents[0].Text, "abcdefghijklmno\n"))
		})
	}
	status, out := dispatch(t, p, abi.OpRead, `{"uri":"bench:///nope"}`)
	require.Equal(t, abi.StatusError, status)
	require.Contains(t, string(out), "not_found")
}

// BenchmarkDispatch measures the SDK natively (no sandbox): decoding,
// the provider, checking and encoding. Compare with runtime's
// BenchmarkCall/go for what running in a guest adds.
func BenchmarkDispatch(b *testing.B) {
	p := New()
	ctx := context.Background()
	for _, bm := range []struct{ name, op, input string }{
		{"read1k", abi.OpRead, `{"uri":"bench:///1k"}`},
		{"list100", abi.OpList, `{}`},
	} {
		b.Run(bm.name, func(b *testing.B) {
			in := []byte(bm.input)
			for b.Loop() {
				if status, _ := mcpw.Dispatch(ctx, p, bm.op, in); status != abi.StatusOK {
					b.Fatal(status)
				}
			}
		})
	}
}
