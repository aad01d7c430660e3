package server

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSubscriptionKey(t *testing.T) {
	tests := []struct{ norm, want string }{
		{"notes:///hello", "notes:///hello"},
		{"notes:///%68ello", "notes:///hello"},         // an unreserved character, decoded
		{"notes:///a%7e%2Db%5F%2e", "notes:///a~-b_."}, // unreserved punctuation too
		{"notes:///a%20b", "notes:///a%20b"},           // a reserved or other byte stays encoded
		{"notes:///a%3f%c3%a9", "notes:///a%3F%C3%A9"}, // in upper case
		{"notes:///100%", "notes:///100%"},             // a stray % is kept
		{"notes:///%4", "notes:///%4"},                 // so is a short one
		{"notes:///%zz%41", "notes:///%zzA"},           // and one that is not hex
		{"notes:///%2541", "notes:///%2541"},           // decoded once, not twice
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, subscriptionKey(tc.norm), tc.norm)
	}
}

// FuzzSubscriptionKey: the key of any URI a client may send is stable (the
// key of a key is itself), never longer than the URI, and names the same
// resource: decoding both gives the same bytes.
func FuzzSubscriptionKey(f *testing.F) {
	for _, s := range []string{"notes:///hello", "NOTES:///%68ello", "x:%41%4a", "file:///a%2541", "s://H/%7E%7e", "a:%", "a:%4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		norm, _, err := checkURI(raw)
		if err != nil {
			return
		}
		key := subscriptionKey(norm)
		require.Equal(t, key, subscriptionKey(key))
		require.LessOrEqual(t, len(key), len(norm))
		want, err1 := url.PathUnescape(norm)
		got, err2 := url.PathUnescape(key)
		if err1 == nil && err2 == nil {
			require.Equal(t, want, got)
		}
		require.Equal(t, strings.Count(norm, "/"), strings.Count(key, "/"), "no separator appears or goes")
	})
}
