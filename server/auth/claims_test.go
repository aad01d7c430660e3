package auth

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func tokenWith(t *testing.T, claims map[string]any) string {
	t.Helper()
	b, err := json.Marshal(claims)
	require.NoError(t, err)
	return "e30." + base64.RawURLEncoding.EncodeToString(b) + ".sig"
}

// TestStringClaims: string and list-of-string claims are kept whole, the
// registered ones and anything else left out, and the bounds hold.
func TestStringClaims(t *testing.T) {
	long := strings.Repeat("x", maxClaimText+1)
	many := make([]any, maxClaimValues+1)
	for i := range many {
		many[i] = "v"
	}
	got := stringClaims(tokenWith(t, map[string]any{
		"tenant": "acme", "groups": []any{"eng", "ops"}, "sub": "carol", "scope": "a b", "iss": "x",
		"n": 3, "mixed": []any{"a", 1}, "obj": map[string]any{"a": "b"}, "long": long, "many": many, long: "v",
	}))
	require.Equal(t, map[string][]string{"tenant": {"acme"}, "groups": {"eng", "ops"}}, got)
	require.Nil(t, stringClaims("not-a-jwt"))
	require.Nil(t, stringClaims("a.!!!.c"))

	lots := map[string]any{}
	for i := range 2 * maxClaims {
		lots[strings.Repeat("c", i+1)] = "v"
	}
	require.Len(t, stringClaims(tokenWith(t, lots)), maxClaims)
}
