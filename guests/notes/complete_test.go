package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

func TestComplete(t *testing.T) {
	tests := []struct {
		arg, value string
		want       []string
	}{
		{"id", "abi-", []string{"abi-calling-convention", "abi-host-imports", "abi-status-codes"}},
		{"id", "zzz", []string{}},
		{"tag", "s", []string{"sdk", "security"}},
	}
	for _, tt := range tests {
		t.Run(tt.arg+"="+tt.value, func(t *testing.T) {
			var r abi.CompleteResult
			call(t, abi.OpComplete, `{"template":"notes:///{`+tt.arg+`}","argument":{"name":"`+tt.arg+`","value":"`+tt.value+`"}}`, &r)
			require.NoError(t, r.Validate())
			require.Equal(t, tt.want, r.Values)
			require.Equal(t, len(tt.want), *r.Total)
			require.False(t, r.HasMore)
		})
	}
	require.Equal(t, abi.CodeInvalidParams, callErr(t, abi.OpComplete, `{"argument":{"name":"colour","value":""}}`))
}

func TestCompleteFromCapsValues(t *testing.T) {
	pool := make([]string, 150)
	for i := range pool {
		pool[i] = "v"
	}
	r := completeFrom(pool, "v")
	require.Len(t, r.Values, abi.MaxCompletionValues)
	require.Equal(t, 150, *r.Total)
	require.True(t, r.HasMore)
	require.NoError(t, r.Validate())
}
