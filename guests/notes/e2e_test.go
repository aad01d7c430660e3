package main_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestNotesWasm loads the real notes.wasm into the real runtime and drives
// every operation it declares end to end.
func TestNotesWasm(t *testing.T) {
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	p, err := rt.LoadFile(ctx, testguest.Go(t, "guests/notes"), testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(2))
	require.NoError(t, err)

	d := p.Describe()
	require.Equal(t, "notes", d.Name)
	require.Equal(t, []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete}, d.Operations)
	require.False(t, p.Supports(abi.OpChanges), "exported by the SDK but not declared, so never called")

	t.Run("list", func(t *testing.T) {
		var names []string
		cursor := ""
		for {
			page, err := p.List(ctx, cursor)
			require.NoError(t, err)
			require.LessOrEqual(t, len(page.Resources), 8)
			for _, r := range page.Resources {
				names = append(names, r.Name)
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
		require.Len(t, names, 21)
		require.IsIncreasing(t, names)
	})
	t.Run("read", func(t *testing.T) {
		res, err := p.Read(ctx, "notes:///uri-space")
		require.NoError(t, err)
		require.Len(t, res.Contents, 1)
		require.Equal(t, "text/markdown", res.Contents[0].MIMEType)
		require.Contains(t, *res.Contents[0].Text, "# URI spaces")

		res, err = p.Read(ctx, "notes:///tag/go")
		require.NoError(t, err)
		require.Len(t, res.Contents, 2)

		_, err = p.Read(ctx, "notes:///no-such-note")
		require.ErrorIs(t, err, abi.ErrNotFound)
		_, err = p.Read(ctx, "notes://elsewhere/x")
		require.ErrorIs(t, err, abi.ErrBadInput, "a URI with an authority is outside notes' space")
	})
	t.Run("templates", func(t *testing.T) {
		tpls, err := p.Templates(ctx, "")
		require.NoError(t, err)
		require.Len(t, tpls.ResourceTemplates, 2)
	})
	t.Run("complete", func(t *testing.T) {
		cr, err := p.Complete(ctx, abi.CompleteRequest{Template: "notes:///tag/{tag}", Argument: abi.CompleteArgument{Name: "tag", Value: "s"}})
		require.NoError(t, err)
		require.Equal(t, []string{"sdk", "security"}, cr.Values)
		require.Equal(t, 2, *cr.Total)
	})
	require.Zero(t, p.Stats().Faults)
}
