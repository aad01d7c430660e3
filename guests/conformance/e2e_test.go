package main_test

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/conformance/fixtures"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestConformanceWasm loads the real conformance.wasm into the real runtime
// and reads every fixture the conformance suite reads.
func TestConformanceWasm(t *testing.T) {
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	p, err := rt.LoadFile(ctx, testguest.Go(t, "guests/conformance"), testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(2))
	require.NoError(t, err)

	d := p.Describe()
	require.Equal(t, "conformance", d.Name)
	require.Equal(t, []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete}, d.Operations)

	page, err := p.List(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Resources, 3)

	tpls, err := p.Templates(ctx, "")
	require.NoError(t, err)
	require.Equal(t, fixtures.TemplateURI, tpls.ResourceTemplates[0].URITemplate)

	tests := []struct {
		uri, mime, text string
	}{
		{fixtures.StaticTextURI, "text/plain", "This is the content of the static text resource."},
		{fixtures.WatchedURI, "text/plain", fixtures.WatchedText},
		{"test://template/123/data", "application/json", `{"id":"123","templateTest":true,"data":"Data for ID: 123"}`},
	}
	for _, tt := range tests {
		res, err := p.Read(ctx, tt.uri)
		require.NoError(t, err, tt.uri)
		require.Len(t, res.Contents, 1)
		require.Equal(t, tt.mime, res.Contents[0].MIMEType)
		require.Equal(t, tt.text, *res.Contents[0].Text)
	}

	res, err := p.Read(ctx, fixtures.StaticBinaryURI)
	require.NoError(t, err)
	require.Equal(t, "image/png", res.Contents[0].MIMEType)
	blob, err := base64.StdEncoding.DecodeString(*res.Contents[0].Blob)
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(blob))
	require.NoError(t, err, "the blob is a real PNG")

	_, err = p.Read(ctx, fixtures.NotFoundURI)
	require.ErrorIs(t, err, abi.ErrNotFound)

	cr, err := p.Complete(ctx, abi.CompleteRequest{Template: fixtures.TemplateURI, Argument: abi.CompleteArgument{Name: "id", Value: "1"}})
	require.NoError(t, err)
	require.Equal(t, []string{"123"}, cr.Values)
	require.Zero(t, p.Stats().Faults)
}
