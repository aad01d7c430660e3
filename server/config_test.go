package server

import (
	"testing"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/stretchr/testify/require"
)

func TestConfig_withDoesNotModifyReceiver(t *testing.T) {
	base := NewConfig()
	key := []byte("0123456789abcdef")
	p := servertest.New("p", abi.URIRoot{Scheme: "p"})
	ps := []Provider{p}
	c := base.WithPageSize(7).WithCallTimeout(time.Second).WithImplementation("n", "v").
		withInstructions("i").WithCursorKey(key).WithProviders(ps...)
	require.Equal(t, NewConfig(), base)
	key[0], ps[0] = 'X', nil
	require.Equal(t, byte('0'), c.cursorKey[0], "WithCursorKey copies the key")
	require.Equal(t, p, c.providers[0], "WithProviders copies the slice")
	require.Equal(t, 7, c.pageSize)
}

func TestNew_configErrors(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"page size zero", NewConfig().WithPageSize(0), "page size 0 out of range: use 1 to 10000"},
		{"page size over max", NewConfig().WithPageSize(MaxPageSize + 1), "page size 10001 out of range"},
		{"timeout", NewConfig().WithCallTimeout(0), "call timeout 0s is not positive"},
		{"short key", NewConfig().WithCursorKey([]byte("short")), "cursor key has 5 bytes: use at least 16"},
		{"short previous key", NewConfig().WithCursorKey([]byte("0123456789abcdef"), []byte("old")), "a previous cursor key has 3 bytes: use at least 16"},
		{"empty name", NewConfig().WithImplementation("", "1"), "must not be empty"},
		{"nil provider", NewConfig().WithProviders(nil), "provider 0 is nil"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

func TestNew_providerErrors(t *testing.T) {
	root := func(scheme, auth, prefix string) abi.URIRoot {
		return abi.URIRoot{Scheme: scheme, Authority: auth, PathPrefix: prefix}
	}
	tests := []struct {
		name      string
		providers []Provider
		wantIs    error
		wantErr   string
	}{
		{
			name: "same scheme",
			providers: []Provider{servertest.New("one", root("file", "", "")),
				servertest.New("two", root("file", "", "/home/"))},
			wantIs:  ErrOverlap,
			wantErr: `provider "one" claims file: and provider "two" claims file:/home/: load only one of them, or configure them with disjoint uri spaces`,
		},
		{
			name: "authority against any",
			providers: []Provider{servertest.New("web", root("https", "a.example", "/v1")),
				servertest.New("all", root("https", "*", ""))},
			wantIs:  ErrOverlap,
			wantErr: `provider "all" claims https://* and provider "web" claims https://a.example/v1`,
		},
		{
			name:      "duplicate name",
			providers: []Provider{servertest.New("n", root("a", "", "")), servertest.New("n", root("b", "", ""))},
			wantIs:    ErrDuplicateName,
			wantErr:   `two providers are named "n": load only one of them`,
		},
		{
			name:      "invalid describe",
			providers: []Provider{servertest.New("Bad Name", root("a", "", ""))},
			wantIs:    ErrInvalidDescribe,
			wantErr:   `provider "Bad Name": invalid payload: name must be`,
		},
		{
			name:      "no uri space",
			providers: []Provider{servertest.New("empty")},
			wantIs:    ErrInvalidDescribe,
			wantErr:   "uriSpace must list 1-32 roots",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(NewConfig().WithProviders(tc.providers...))
			require.ErrorIs(t, err, tc.wantIs)
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

func TestNew_disjointSpacesAccepted(t *testing.T) {
	_, err := New(NewConfig().WithProviders(
		servertest.New("a", abi.URIRoot{Scheme: "file", PathPrefix: "/a/"}),
		servertest.New("b", abi.URIRoot{Scheme: "file", PathPrefix: "/b/"}),
		servertest.New("c", abi.URIRoot{Scheme: "https", Authority: "a.example"}),
		servertest.New("d", abi.URIRoot{Scheme: "https", Authority: "b.example"}),
	))
	require.NoError(t, err)
}

func TestNew_noProviders(t *testing.T) {
	s := newServer(t, NewConfig())
	cs := connect(t, s, "2025-11-25")
	uris, pages := listAll(t, cs)
	require.Empty(t, uris)
	require.Equal(t, 1, pages)
}
