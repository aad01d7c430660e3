package served

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPrefixURI(t *testing.T) {
	require.Equal(t, "docs+file:///a.txt", prefixURI("docs", "file:///a.txt"))
	require.Equal(t, "docs+file:///{+path}", prefixURI("docs", "FILE:///{+path}"))
	require.Equal(t, "file:///a.txt", prefixURI("", "file:///a.txt"))
	for in, want := range map[string]string{"docs+file:///a.txt": "file:///a.txt", "DOCS+file:///a": "file:///a"} {
		got, ok := unprefixURI("docs", in)
		require.True(t, ok, in)
		require.Equal(t, want, got)
	}
	for _, in := range []string{"file:///a.txt", "docs:file", "docs+", "code+file:///a", "docsx+file:///a"} {
		_, ok := unprefixURI("docs", in)
		require.False(t, ok, in)
	}
}
