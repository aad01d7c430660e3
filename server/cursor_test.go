package server

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

func TestCursorCodec_roundTrip(t *testing.T) {
	c := cursorCodec{key: testKey}
	tests := []position{
		{Kind: kindResources, Index: 0, Name: "a"},
		{Kind: kindTemplates, Index: 3, Name: "files", Cursor: opaque(strings.Repeat("z", abi.MaxCursorLength)), Offset: 999, Pages: 7, Empty: 2},
		// the largest position: a provider cursor of characters JSON would
		// escape, the longest name, every counter high, every digest set
		{Kind: kindTemplates, Index: 1 << 20, Name: strings.Repeat("n", abi.MaxNameLength), Cursor: opaque(strings.Repeat("\x01<", abi.MaxCursorLength/2)),
			Offset: abi.MaxListItems, Pages: maxProviderPages, Empty: maxEmptyPages, Seen: make([]byte, seenWindow*digestSize), Mark: make([]byte, digestSize)},
	}
	for _, p := range tests {
		s := c.encode(p)
		require.LessOrEqual(t, len(s), maxCursorText)
		require.NotContains(t, s, "=")
		got, err := c.decode(s)
		require.NoError(t, err)
		require.Equal(t, p, got)
	}
}

func TestCursorCodec_decodeRefuses(t *testing.T) {
	c := cursorCodec{key: testKey}
	other := cursorCodec{key: []byte("another key, also 32 bytes long!")}
	valid := c.encode(position{Kind: kindResources, Name: "a"})
	flipped := []byte(valid)
	flipped[len(flipped)/2] ^= 1
	sign := func(payload string) string {
		msg := append([]byte{cursorVersion}, payload...)
		return base64.RawURLEncoding.EncodeToString(append(msg, c.mac(msg)...))
	}
	tests := []struct{ name, cursor string }{
		{"garbage", "not a cursor"},
		{"padded base64", valid + "=="},
		{"standard alphabet", strings.NewReplacer("-", "+", "_", "/").Replace(valid) + "+/"},
		{"flipped bit", string(flipped)},
		{"other key", other.encode(position{Kind: kindResources, Name: "a"})},
		{"truncated", valid[:len(valid)-4]},
		{"too short", base64.RawURLEncoding.EncodeToString([]byte{cursorVersion, 1, 2})},
		{"too long", strings.Repeat("A", maxCursorText+1)},
		{"unknown field", sign(`{"k":"r","i":0,"n":"a","x":1}`)},
		{"unknown kind", sign(`{"k":"q","i":0,"n":"a"}`)},
		{"negative index", sign(`{"k":"r","i":-1,"n":"a"}`)},
		{"offset over page", sign(`{"k":"r","i":0,"n":"a","o":1001}`)},
		{"trailing data", sign(`{"k":"r","i":0,"n":"a"} {}`)},
		{"provider cursor too long", sign(`{"k":"r","i":0,"n":"a","c":"` + base64.StdEncoding.EncodeToString(make([]byte, abi.MaxCursorLength+1)) + `"}`)},
		{"provider cursor not base64", sign(`{"k":"r","i":0,"n":"a","c":"?"}`)},
		{"digest window too long", sign(`{"k":"r","i":0,"n":"a","s":"` + base64.StdEncoding.EncodeToString(make([]byte, (seenWindow+1)*digestSize)) + `"}`)},
		{"digest cut short", sign(`{"k":"r","i":0,"n":"a","s":"` + base64.StdEncoding.EncodeToString(make([]byte, digestSize+1)) + `"}`)},
		{"mark of another size", sign(`{"k":"r","i":0,"n":"a","m":"` + base64.StdEncoding.EncodeToString(make([]byte, 4)) + `"}`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.decode(tc.cursor)
			require.ErrorIs(t, err, errBadCursor)
		})
	}
}

// TestServer_cursorRefused sends forged, garbled and stale cursors through a
// real client: every one is -32602, never a page.
func TestServer_cursorRefused(t *testing.T) {
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithPageSize(1))
	cs := connect(t, s, "2025-11-25")
	ctx := t.Context()
	first, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, first.NextCursor)

	forge := cursorCodec{key: []byte("attacker key, 32 bytes long ....")}
	tests := []struct{ name, cursor string }{
		{"garbled", first.NextCursor[:10] + "A" + first.NextCursor[11:]},
		{"forged", forge.encode(position{Kind: kindResources, Name: "notes", Offset: 2})},
		{"stale provider", s.cursors.encode(position{Kind: kindResources, Index: 0, Name: "gone"})},
		{"index out of range", s.cursors.encode(position{Kind: kindResources, Index: 5, Name: "notes"})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: tc.cursor})
			require.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcError(t, err).Code)
		})
	}
	t.Run("resources cursor on templates", func(t *testing.T) {
		_, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: first.NextCursor})
		require.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcError(t, err).Code)
	})
}

// TestServer_cursorPerServer checks that a cursor from one server (one
// process, one random key) is refused by another.
func TestServer_cursorPerServer(t *testing.T) {
	p := servertest.New("p", abi.URIRoot{Scheme: "p"}).Generate("p:///", 3, 1)
	a, err := New(NewConfig().WithProviders(p).WithPageSize(1))
	require.NoError(t, err)
	b, err := New(NewConfig().WithProviders(p).WithPageSize(1))
	require.NoError(t, err)
	first, err := connect(t, a, "2025-11-25").ListResources(t.Context(), nil)
	require.NoError(t, err)
	_, err = connect(t, b, "2025-11-25").ListResources(t.Context(), &mcp.ListResourcesParams{Cursor: first.NextCursor})
	require.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcError(t, err).Code)
}

// FuzzDecodeCursor feeds arbitrary client cursors to the decoder, and
// arbitrary payloads through a valid signature to the payload parser: no
// panic, and anything accepted re-encodes to an equal position.
func FuzzDecodeCursor(f *testing.F) {
	c := cursorCodec{key: testKey}
	f.Add(c.encode(position{Kind: kindResources, Name: "notes"}), `{"k":"r","i":0,"n":"a"}`)
	f.Add(c.encode(position{Kind: kindTemplates, Index: 2, Name: "x", Cursor: "42", Offset: 7, Pages: 3, Empty: 1,
		Seen: cursorDigest("42"), Mark: cursorDigest("42")}), `{"k":"t","i":1,"n":"b","c":"OQ==","o":3,"s":"AAAAAAAAAAA=","m":""}`)
	f.Add("", `{}`)
	f.Add("AQ", `{"k":"r","i":1e3,"n":"a"}`)
	f.Fuzz(func(t *testing.T, cursor, payload string) {
		if p, err := c.decode(cursor); err == nil {
			again, err := c.decode(c.encode(p))
			require.NoError(t, err)
			require.Equal(t, p, again)
		}
		msg := append([]byte{cursorVersion}, payload...)
		signed := base64.RawURLEncoding.EncodeToString(append(msg, c.mac(msg)...))
		if p, err := c.decode(signed); err == nil {
			require.GreaterOrEqual(t, p.Index, 0)
			require.LessOrEqual(t, p.Offset, abi.MaxListItems)
		}
	})
}

// TestCursorCodec_rotation: after a key rotation, cursors signed under
// the previous key are still accepted and new ones are signed under the
// new key only; a codec that no longer lists the old key refuses them.
func TestCursorCodec_rotation(t *testing.T) {
	p := position{Kind: kindResources, Index: 1, Name: "b"}
	oldKey, newKey := []byte("old-key-old-key-old-key!"), []byte("new-key-new-key-new-key!")
	before := cursorCodec{key: oldKey}.encode(p)
	rotated := cursorCodec{key: newKey, previous: [][]byte{oldKey}}
	got, err := rotated.decode(before)
	require.NoError(t, err)
	require.Equal(t, p, got)
	after := rotated.encode(p)
	_, err = cursorCodec{key: oldKey}.decode(after)
	require.ErrorContains(t, err, "signature mismatch", "new cursors are signed with the new key")
	_, err = cursorCodec{key: newKey}.decode(before)
	require.ErrorContains(t, err, "signature mismatch", "once the old key is dropped its cursors are refused")
}
