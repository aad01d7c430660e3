package filesprov

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

func TestListWalkOrderAndFilters(t *testing.T) {
	root := tree(t, map[string]string{
		"a.txt": "a", "a-b/x.md": "x", "a/c.go": "package c", "a/d/e.json": "{}",
		".hidden": "h", ".git/config": "g", "sub/.env": "secret", "z": "",
	})
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(root, "link")))
	require.NoError(t, os.Symlink("/etc", filepath.Join(root, "linkdir")))

	// Walk order: a directory's files follow it directly, so "a/..." comes
	// before "a-b" although '-' < '/'.
	tests := []struct {
		name   string
		config map[string]string
		want   []string
	}{
		{"default", nil, []string{"a/c.go", "a/d/e.json", "a-b/x.md", "a.txt", "z"}},
		{"show hidden", map[string]string{keyShowHidden: "true"},
			[]string{".git/config", ".hidden", "a/c.go", "a/d/e.json", "a-b/x.md", "a.txt", "sub/.env", "z"}},
		{"show hidden off", map[string]string{keyShowHidden: "no"}, []string{"a/c.go", "a/d/e.json", "a-b/x.md", "a.txt", "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{1, 2, 3, 500} {
				h := newHarness(t, root, tt.config)
				h.p.pageSize = size
				got, pages := h.listAll()
				require.Equal(t, tt.want, got, "page size %d", size)
				require.Equal(t, (len(tt.want)+size-1)/size, pages, "page size %d", size)
			}
		})
	}
}

func TestListResourceFields(t *testing.T) {
	h := newHarness(t, tree(t, map[string]string{"dir/a b#c?.md": "hello", "blob": "\x00\x01"}), nil)
	var page abi.ListResult
	h.ok(abi.OpList, abi.PageRequest{}, &page)
	require.Len(t, page.Resources, 2)
	r := page.Resources[1]
	require.Equal(t, "file:///data/dir/a%20b%23c%3F.md", r.URI)
	require.Equal(t, "", page.Resources[0].MIMEType, "no extension: no type, in list and read alike")
	require.Equal(t, "", h.read(page.Resources[0].URI).Contents[0].MIMEType)
	require.Equal(t, "dir/a b#c?.md", r.Name)
	require.Equal(t, "text/markdown", r.MIMEType)
	require.Equal(t, int64(5), *r.Size)
	require.Equal(t, "2026-11-21T12:00:00Z", r.Annotations.LastModified)
	require.Equal(t, "hello", *h.read(r.URI).Contents[0].Text, "a listed URI reads back")
}

func TestListCursorSurvivesRemoval(t *testing.T) {
	root := tree(t, map[string]string{"a": "", "b": "", "c/d": "", "e": ""})
	h := newHarness(t, root, nil)
	h.p.pageSize = 2
	var page abi.ListResult
	h.ok(abi.OpList, abi.PageRequest{}, &page)
	require.Equal(t, cursorPrefix+"/data/b", page.NextCursor)
	require.NoError(t, os.Remove(filepath.Join(root, "b")))
	h.ok(abi.OpList, abi.PageRequest{Cursor: page.NextCursor}, &page)
	require.Equal(t, "c/d", page.Resources[0].Name)
	require.Equal(t, "e", page.Resources[1].Name)
}

func TestListErrors(t *testing.T) {
	h := newHarness(t, tree(t, map[string]string{"a": ""}), nil)
	for _, c := range []string{"17", "p:../x", "p:", "p:a%2Fb", "p:/data/a%2Fb", "p:/data", "p:/other/a", "p:data/a", "p:/data/../a"} {
		require.Equal(t, abi.CodeInvalidParams, h.fail(abi.OpList, abi.PageRequest{Cursor: c}).Code, c)
	}
	missing := newHarness(t, filepath.Join(t.TempDir(), "absent"), nil)
	e := missing.fail(abi.OpList, abi.PageRequest{})
	require.Equal(t, abi.CodeInternal, e.Code)
	require.Equal(t, "cannot read the granted directory /data: grant an existing directory", e.Message)
	none := &harness{t: t, p: newFiles(nil), host: &mcpw.MapHost{}}
	for _, op := range []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete, abi.OpChanges} {
		e := none.fail(op, map[string]any{"uri": "file:///a", "argument": map[string]any{"name": "path"}})
		require.Equal(t, abi.Error{Code: abi.CodeInternal, Message: errNoRoots().Error()}, e, op)
	}
}

// TestBackslashNamesAbsent: a name holding a backslash (legal on Unix, a
// separator on Windows) has no URI that reads back, since read refuses a
// backslash escaped or not; so it is neither listed, nor completed, nor in
// a directory's listed paths, and reading it is invalid params. Before,
// the list offered file:///.../back%5Cslash.txt and reading it failed.
func TestBackslashNamesAbsent(t *testing.T) {
	root := tree(t, map[string]string{"back\\slash.txt": "b", "ok.txt": "o", "dir\\x/in.txt": "i"})
	h := newHarness(t, root, nil)
	got, _ := h.listAll()
	require.Equal(t, []string{"ok.txt"}, got)
	var r abi.CompleteResult
	h.ok(abi.OpComplete, abi.CompleteRequest{Template: uriPrefix + testMount + "/{+path}", Argument: abi.CompleteArgument{Name: "path"}}, &r)
	require.Equal(t, []string{"ok.txt"}, r.Values)
	e := h.fail(abi.OpRead, abi.ReadRequest{URI: uriPrefix + testMount + "/back%5Cslash.txt"})
	require.Equal(t, abi.CodeInvalidParams, e.Code)
}
