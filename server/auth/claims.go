package auth

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Bounds of the claims a Principal carries for access rules: a token may
// hold anything its issuer signs, and what is kept lives as long as the
// request.
const (
	maxClaims      = 64  // claims kept
	maxClaimValues = 64  // values of one list claim
	maxClaimText   = 256 // bytes of a claim name or value
)

// stringClaims returns the claims of a verified JWT whose value is a
// string or a list of strings, besides the registered ones the verifier
// reads itself. Longer names or values, and claims past the bounds, are
// left out, never cut: a cut value could match a rule the whole one does
// not.
func stringClaims(token string) map[string][]string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil
	}
	var raw map[string]any
	if json.Unmarshal(payload, &raw) != nil {
		return nil
	}
	out := map[string][]string{}
	for name, v := range raw {
		if len(out) == maxClaims {
			break
		}
		switch name {
		case "iss", "sub", "aud", "exp", "nbf", "iat", "jti", "scope", "scp", "client_id":
			continue
		}
		if vals, ok := claimValues(v); ok && len(name) <= maxClaimText && utf8.ValidString(name) {
			out[name] = vals
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// claimValues returns a string claim as one value, a list of strings as
// its values, or false for anything else or out of bounds.
func claimValues(v any) ([]string, bool) {
	ok := func(s string) bool { return len(s) <= maxClaimText && utf8.ValidString(s) }
	switch v := v.(type) {
	case string:
		return []string{v}, ok(v)
	case []any:
		if len(v) > maxClaimValues {
			return nil, false
		}
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, is := e.(string)
			if !is || !ok(s) {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}
