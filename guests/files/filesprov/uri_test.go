package filesprov

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEscapeRoundTrip(t *testing.T) {
	for _, rel := range []string{"a", "a/b", "sp ace/é/日本.txt", "q?h#p%.txt", "semi;colon=x+y@z"} {
		t.Run(rel, func(t *testing.T) {
			got, err := relFromURI(uriFor(rel))
			require.NoError(t, err)
			require.Equal(t, rel, got)
		})
	}
}

func TestUnescapePathRejects(t *testing.T) {
	for _, esc := range []string{"", "a//b", "..", "a/..", "%2e%2e", ".", "a%2Fb", "a%5cb", "a%00", "a\\b", "a\x00b", "%g0", "/a"} {
		t.Run(esc, func(t *testing.T) {
			_, err := unescapePath(esc)
			require.Error(t, err)
		})
	}
}

func TestListableRejectsNonUTF8Names(t *testing.T) {
	require.True(t, listable("é/ok"))
	require.False(t, listable("bad\xffname"), "io/fs cannot open it, so it is not listed")
}
