package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

var space = abi.URISpace{{Scheme: scheme}}

// call runs op through the SDK as the wasm exports do and strictly decodes
// a successful result into v.
func call(t *testing.T, op, input string, v any) {
	t.Helper()
	status, out := mcpw.Dispatch(context.Background(), newNotes(catalog), op, []byte(input))
	require.Equal(t, abi.StatusOK, status, "output: %s", out)
	require.NoError(t, abi.Decode(out, v))
}

// callErr runs op and returns the error code it answered with.
func callErr(t *testing.T, op, input string) string {
	t.Helper()
	status, out := mcpw.Dispatch(context.Background(), newNotes(catalog), op, []byte(input))
	require.Equal(t, abi.StatusError, status, "output: %s", out)
	var e abi.Error
	require.NoError(t, abi.Decode(out, &e))
	return e.Code
}

func TestDescribe(t *testing.T) {
	var d abi.Describe
	call(t, mcpw.OpDescribe, "{}", &d)
	require.NoError(t, d.Validate())
	require.Equal(t, "notes", d.Name)
	require.Equal(t, []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete}, d.Operations)
	require.Nil(t, d.Requests, "the notes provider asks for nothing")
}

func TestListPagesThroughEveryNote(t *testing.T) {
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		var page abi.ListResult
		call(t, abi.OpList, `{"cursor":"`+cursor+`"}`, &page)
		require.NoError(t, page.Validate(space))
		require.LessOrEqual(t, len(page.Resources), pageSize)
		for _, r := range page.Resources {
			require.False(t, seen[r.Name], "note %s listed twice", r.Name)
			seen[r.Name] = true
			require.Equal(t, markdown, r.MIMEType)
			require.NotNil(t, r.Size)
			require.NotEmpty(t, r.Annotations.LastModified)
			require.NotNil(t, r.Annotations.Priority)
		}
		pages++
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	require.Len(t, seen, len(catalog))
	require.Equal(t, (len(catalog)+pageSize-1)/pageSize, pages)
}

func TestListRejectsForeignCursor(t *testing.T) {
	require.Equal(t, abi.CodeInvalidParams, callErr(t, abi.OpList, `{"cursor":"17"}`))
}

func TestTemplates(t *testing.T) {
	var r abi.TemplatesResult
	call(t, abi.OpTemplates, "{}", &r)
	require.NoError(t, r.Validate(space))
	require.Equal(t, "notes:///{id}", r.ResourceTemplates[0].URITemplate)
	require.Equal(t, "notes:///tag/{tag}", r.ResourceTemplates[1].URITemplate)
	require.Equal(t, abi.CodeInvalidParams, callErr(t, abi.OpTemplates, `{"cursor":"x"}`))
}

func TestCatalogIsWellFormed(t *testing.T) {
	ids := map[string]bool{}
	for _, nt := range catalog {
		require.False(t, ids[nt.ID], "duplicate id %s", nt.ID)
		ids[nt.ID] = true
		require.Regexp(t, `^[a-z0-9-]+$`, nt.ID)
		require.NotEqual(t, "tag", nt.ID, "notes:///tag is the tag template's root")
		require.NotEmpty(t, nt.Tags)
	}
}
