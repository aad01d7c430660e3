package mcpw

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// TestDispatchSlowCheckAccepts sends results the fast check cannot prove
// (a query, a day of month past 28): abi validation then decides, and they
// are valid.
func TestDispatchSlowCheckAccepts(t *testing.T) {
	ann := &abi.Annotations{LastModified: "2024-02-29T12:00:00Z"}
	p := &fake{read: &abi.ReadResult{Contents: []abi.Content{
		{URI: "fake:///a?b=c", Text: new("t"), Annotations: ann},
	}}}
	var r abi.ReadResult
	decodeOK(t, context.Background(), p, abi.OpRead, `{"uri":"fake:///a"}`, &r)
	require.Equal(t, "fake:///a?b=c", r.Contents[0].URI)
	require.False(t, newChecker(space).readResult(p.read), "the fast check leaves this to abi")
}

// TestCallLeavesResultsAlone: the SDK normalises a copy, so a provider may
// return the same value on every call.
func TestCallLeavesResultsAlone(t *testing.T) {
	shared := &abi.ListResult{}
	p := &fake{list: shared}
	h := newHandler(p)
	for range 2 {
		status, out := h.dispatch(context.Background(), opList, abi.OpList, []byte("{}"), nil)
		require.Equal(t, abi.StatusOK, status)
		require.JSONEq(t, `{"resources":[]}`, string(out))
		require.Nil(t, shared.Resources, "the provider's value is not normalised in place")
	}
}
