package filesprov

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// multi serves two trees at their guest paths, given out of order, with
// preopens that cannot be roots.
func multi(t *testing.T) *harness {
	a := tree(t, map[string]string{"x.md": "ax", "sub/y.md": "ay"})
	b := tree(t, map[string]string{"x.md": "bx", "z w.txt": "bz"})
	roots := []Root{
		{Path: "/srv/a", FS: os.DirFS(a)}, {Path: "/home/me", FS: os.DirFS(b)},
		{Path: "rel", FS: os.DirFS(a)}, {Path: "/srv/../etc", FS: os.DirFS(a)}, {Path: "/bad\\name", FS: os.DirFS(a)},
		{Path: "/srv/a", FS: os.DirFS(b)}, // the same path twice: the first one counts
	}
	return &harness{t: t, p: newFiles(roots), host: &mcpw.MapHost{}}
}

func TestRootsListInOrder(t *testing.T) {
	want := []string{"file:///home/me/x.md", "file:///home/me/z%20w.txt", "file:///srv/a/sub/y.md", "file:///srv/a/x.md"}
	for size := 1; size <= 5; size++ {
		h := multi(t)
		h.p.pageSize = size
		var uris []string
		cursor := ""
		for {
			var page abi.ListResult
			h.ok(abi.OpList, abi.PageRequest{Cursor: cursor}, &page)
			require.NoError(t, page.Validate(space))
			for _, r := range page.Resources {
				uris = append(uris, r.URI)
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
		require.Equal(t, want, uris, "page size %d", size)
	}
	h := multi(t)
	require.Len(t, h.p.skipped, 3)
	var page abi.ListResult
	h.ok(abi.OpList, abi.PageRequest{Cursor: "p:/home/me/z%20w.txt"}, &page)
	require.Equal(t, "file:///srv/a/sub/y.md", page.Resources[0].URI, "a cursor at a root's last file resumes in the next root")
	require.Equal(t, "sub/y.md", page.Resources[0].Name, "names are relative to their root")
}

func TestRootsRead(t *testing.T) {
	h := multi(t)
	for uri, text := range map[string]string{
		"file:///home/me/x.md": "bx", "file:///srv/a/x.md": "ax", "file:///srv/a/sub/y.md": "ay", "file:///home/me/z%20w.txt": "bz",
		"file:///srv/a/sub/%79.md": "ay", // escapes are decoded; the URI read back is the canonical one
	} {
		c := h.read(uri).Contents[0]
		require.Equal(t, text, *c.Text, uri)
	}
	require.Equal(t, "file:///srv/a/sub/y.md", h.read("file:///srv/a/sub/%79.md").Contents[0].URI)
	for uri, msg := range map[string]string{
		"file:///srv/x.md":      `no file "/srv/x.md": it is in no granted directory`,
		"file:///srv/a":         `"/srv/a" is a directory, not a file`,
		"file:///home/me/sub":   `no file "/home/me/sub"`,
		"file:///etc/x.md":      `no file "/etc/x.md": it is in no granted directory`,
		"file:///srv/a/sub":     `"/srv/a/sub" is a directory, not a file`,
		"file:///home/me/.x.md": `no file "/home/me/.x.md" (hidden files are not served unless show_hidden is true)`,
	} {
		require.Equal(t, abi.Error{Code: abi.CodeNotFound, Message: msg}, h.fail(abi.OpRead, abi.ReadRequest{URI: uri}), uri)
	}
}

func TestRootsTemplatesAndCompletion(t *testing.T) {
	h := multi(t)
	var ts abi.TemplatesResult
	h.ok(abi.OpTemplates, abi.PageRequest{}, &ts)
	require.NoError(t, ts.Validate(space))
	require.Len(t, ts.ResourceTemplates, 2)
	require.Equal(t, "file:///home/me/{+path}", ts.ResourceTemplates[0].URITemplate)
	require.Equal(t, "file:///srv/a/{+path}", ts.ResourceTemplates[1].URITemplate)
	for tmpl, want := range map[string][]string{
		"file:///home/me/{+path}": {"x.md", "z w.txt"},
		"file:///srv/a/{+path}":   {"sub/", "x.md"},
	} {
		var r abi.CompleteResult
		h.ok(abi.OpComplete, abi.CompleteRequest{Template: tmpl, Argument: abi.CompleteArgument{Name: "path"}}, &r)
		require.Equal(t, want, r.Values, tmpl)
	}
}

func TestRootsChanges(t *testing.T) {
	h := multi(t)
	base := h.changes("")
	r := h.changes(base.Cursor, "/home/me/x.md", "/srv/a/sub", "/srv/elsewhere", "/home/me/../../srv/a/x.md")
	require.Equal(t, []string{"file:///home/me/x.md", "file:///srv/a/sub/y.md", "file:///srv/a/x.md"}, r.Updated)
	require.False(t, r.ListChanged)
}

// TestRootAtSlash: a grant of "/" (or a file in it) names files file:///x.
func TestRootAtSlash(t *testing.T) {
	dir := tree(t, map[string]string{"x.md": "x"})
	h := &harness{t: t, p: newFiles([]Root{{Path: "/", FS: os.DirFS(dir)}}), host: &mcpw.MapHost{}}
	names, _ := h.listAll()
	require.Equal(t, []string{"x.md"}, names)
	require.Equal(t, "x", *h.read("file:///x.md").Contents[0].Text)
	var ts abi.TemplatesResult
	h.ok(abi.OpTemplates, abi.PageRequest{}, &ts)
	require.Equal(t, "file:///{+path}", ts.ResourceTemplates[0].URITemplate)
	var page abi.ListResult
	h.p.pageSize = 1
	write(t, dir, "y.md", "y")
	h.ok(abi.OpList, abi.PageRequest{}, &page)
	require.Equal(t, "p:/x.md", page.NextCursor)
	require.Equal(t, []string{"file:///y.md"}, h.changes(h.changes("").Cursor, "/y.md").Updated)
}
