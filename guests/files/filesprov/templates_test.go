package filesprov

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

func TestTemplates(t *testing.T) {
	h := newHarness(t, t.TempDir(), nil)
	var r abi.TemplatesResult
	h.ok(abi.OpTemplates, abi.PageRequest{}, &r)
	require.NoError(t, r.Validate(space))
	require.Equal(t, "file:///data/{+path}", r.ResourceTemplates[0].URITemplate)
	require.Equal(t, abi.CodeInvalidParams, h.fail(abi.OpTemplates, abi.PageRequest{Cursor: "x"}).Code)
}

func TestCompletePath(t *testing.T) {
	root := tree(t, map[string]string{
		"docs/readme.md": "", "docs/ref/a.txt": "", "docs/.draft": "", "data.csv": "", ".env": "", "dx": "",
	})
	require.NoError(t, os.Symlink(filepath.Join(root, "docs"), filepath.Join(root, "dlink")))
	tests := []struct {
		name, value string
		config      map[string]string
		want        []string
	}{
		{"top level", "d", nil, []string{"data.csv", "docs/", "dx"}},
		{"everything", "", nil, []string{"data.csv", "docs/", "dx"}},
		{"nested", "docs/re", nil, []string{"docs/readme.md", "docs/ref/"}},
		{"dir contents", "docs/", nil, []string{"docs/readme.md", "docs/ref/"}},
		{"hidden shown", "docs/", map[string]string{keyShowHidden: "true"}, []string{"docs/.draft", "docs/readme.md", "docs/ref/"}},
		{"no such dir", "nope/", nil, []string{}},
		{"through a link", "dlink/", nil, []string{}},
		{"parent escape", "../", nil, []string{}},
		{"absolute", "/etc/", nil, []string{}},
		{"hidden dir", ".git/", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r abi.CompleteResult
			newHarness(t, root, tt.config).ok(abi.OpComplete, abi.CompleteRequest{
				Template: "file:///data/{+path}", Argument: abi.CompleteArgument{Name: "path", Value: tt.value},
			}, &r)
			require.NoError(t, r.Validate())
			require.Equal(t, tt.want, r.Values)
			require.Equal(t, len(tt.want), *r.Total)
		})
	}
}

func TestCompleteCapsAt100(t *testing.T) {
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("f%03d", i)] = ""
	}
	var r abi.CompleteResult
	newHarness(t, tree(t, files), nil).ok(abi.OpComplete, abi.CompleteRequest{Template: "file:///data/{+path}", Argument: abi.CompleteArgument{Name: "path", Value: "f"}}, &r)
	require.Len(t, r.Values, abi.MaxCompletionValues)
	require.Equal(t, "f000", r.Values[0])
	require.Equal(t, 150, *r.Total)
	require.True(t, r.HasMore)
}

func TestCompleteUnknownArgumentOrTemplate(t *testing.T) {
	h := newHarness(t, t.TempDir(), nil)
	e := h.fail(abi.OpComplete, abi.CompleteRequest{Template: "file:///data/{+path}", Argument: abi.CompleteArgument{Name: "id"}})
	require.Equal(t, abi.Error{Code: abi.CodeInvalidParams, Message: "no such argument: the file template takes path"}, e)
	for _, tmpl := range []string{"file:///{+path}", "file:///data{+path}", "file:///other/{+path}", ""} {
		e := h.fail(abi.OpComplete, abi.CompleteRequest{Template: tmpl, Argument: abi.CompleteArgument{Name: "path"}})
		require.Equal(t, abi.CodeInvalidParams, e.Code, tmpl)
		require.Contains(t, e.Message, "complete the path of a template this provider lists", tmpl)
	}
}
