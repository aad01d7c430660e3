package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServe_requestTimeoutFlag: --request-timeout shorter than a provider
// call's deadline is refused before serving, with the fix; the session
// bound per client needs --http like the other transport flags.
func TestServe_requestTimeoutFlag(t *testing.T) {
	code, _, errOut := runCLI(t, "serve", "--timeout", "5s", "--request-timeout", "1s")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "give a request timeout of at least")
	code, _, errOut = runCLI(t, "serve", "--max-sessions-per-client", "3")
	require.NotEqual(t, 0, code)
	require.Contains(t, errOut, "--max-sessions-per-client needs --http ADDR")
}
