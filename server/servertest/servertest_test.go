package servertest

import (
	"context"
	"errors"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/stretchr/testify/require"
)

func TestProvider_describeValid(t *testing.T) {
	p := New("notes", abi.URIRoot{Scheme: "notes"}).WithCache(abi.CacheHint{TTLMs: 10, Scope: abi.ScopePublic})
	d := p.Describe()
	require.NoError(t, d.Validate())
	require.Equal(t, []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete}, d.Operations)
}

func TestProvider_listPages(t *testing.T) {
	p := New("g", abi.URIRoot{Scheme: "g"}).Generate("g:///", 25, 3).WithPageSize(10)
	space := abi.URISpace(p.Describe().URISpace)
	var uris []string
	cursor := ""
	for {
		res, err := p.List(t.Context(), cursor)
		require.NoError(t, err)
		require.NoError(t, res.Validate(space))
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	require.Len(t, uris, 25)
	require.Equal(t, "g:///000000", uris[0])
	require.Equal(t, "g:///000024", uris[24])

	_, err := p.List(t.Context(), "nope")
	require.ErrorIs(t, err, abi.ErrInvalidParams)
}

func TestProvider_read(t *testing.T) {
	p := New("n", abi.URIRoot{Scheme: "n"}).
		AddText("n:///t", "text/plain", "").
		AddBlob("n:///b", "application/octet-stream", []byte{0, 1, 2}).
		AddTemplate(abi.ResourceTemplate{URITemplate: "n:///items/{id}", Name: "item"})
	space := abi.URISpace(p.Describe().URISpace)
	tests := []struct {
		uri, wantText, wantBlob string
		wantErr                 error
	}{
		{uri: "n:///t", wantText: ""},
		{uri: "n:///b", wantBlob: "AAEC"},
		{uri: "n:///items/7", wantText: `{"id":"7"}`},
		{uri: "n:///zzz", wantErr: abi.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.uri, func(t *testing.T) {
			res, err := p.Read(t.Context(), tc.uri)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.NoError(t, res.Validate(space))
			c := res.Contents[0]
			if c.Text != nil {
				require.Equal(t, tc.wantText, *c.Text)
			} else {
				require.Equal(t, tc.wantBlob, *c.Blob)
			}
		})
	}
}

func TestProvider_complete(t *testing.T) {
	p := New("n", abi.URIRoot{Scheme: "n"}).
		AddTemplate(abi.ResourceTemplate{URITemplate: "n:///{a}", Name: "a"}, "apple", "apricot", "banana")
	res, err := p.Complete(t.Context(), abi.CompleteRequest{Template: "n:///{a}", Argument: abi.CompleteArgument{Name: "a", Value: "ap"}})
	require.NoError(t, err)
	require.NoError(t, res.Validate())
	require.Equal(t, []string{"apple", "apricot"}, res.Values)

	_, err = p.Complete(t.Context(), abi.CompleteRequest{Template: "n:///{a}", Argument: abi.CompleteArgument{Name: "b"}})
	require.ErrorIs(t, err, abi.ErrInvalidParams)
	_, err = p.Complete(t.Context(), abi.CompleteRequest{Template: "n:///{x}", Argument: abi.CompleteArgument{Name: "x"}})
	require.ErrorIs(t, err, abi.ErrNotFound)
}

func TestProvider_intercept(t *testing.T) {
	boom := errors.New("boom")
	var seen []string
	p := New("n", abi.URIRoot{Scheme: "n"}).AddText("n:///a", "text/plain", "a").
		WithIntercept(func(_ context.Context, op, arg string) error {
			seen = append(seen, op+" "+arg)
			if op == abi.OpRead {
				return boom
			}
			return nil
		})
	_, err := p.Read(t.Context(), "n:///a")
	require.ErrorIs(t, err, boom)
	_, err = p.List(t.Context(), "")
	require.NoError(t, err)
	require.Equal(t, []string{"read n:///a", "list "}, seen)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = p.Templates(ctx, "")
	require.ErrorIs(t, err, context.Canceled)
}
