package gitprov

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw/mcpwtest"
)

// TestCheck holds the provider to mcp-wasm check's battery natively.
func TestCheck(t *testing.T) {
	dir := demoRepo(t)
	mcpwtest.Check(t, func() mcpw.Provider { return newProvider(dir) })
}

func TestRead(t *testing.T) {
	dir := demoRepo(t)
	p, ctx := newProvider(dir), hostCtx(t, nil)
	for uri, want := range map[string]string{
		"git://demo/blob/main/README.md":                       "hello\nworld\n",
		"git://demo/blob/HEAD/README.md":                       "hello\nworld\n",
		"git://demo/blob/v1/README.md":                         "hello\n",
		"git://demo/blob/feature%2Fx/README.md":                "hello\n",
		"git://demo/blob/refs%2Fheads%2Ffeature%2Fx/README.md": "hello\n",
		"git://DEMO/blob/main/src/main.go":                     "package main\n",
		"git://demo/blob/main/link":                            "symbolic link to README.md",
	} {
		c := readText(t, ctx, p, uri)
		require.Equal(t, want, *c.Text, uri)
	}
	head := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD"))
	c := readText(t, ctx, p, "git://demo/blob/"+head+"/README.md")
	require.Equal(t, "hello\nworld\n", *c.Text)

	lfs := readText(t, ctx, p, "git://demo/blob/main/assets/model.bin")
	require.Equal(t, lfsMIME, lfs.MIMEType, "an LFS pointer says what it is")
	png := readText(t, ctx, p, "git://demo/blob/main/img.png")
	require.Equal(t, "application/octet-stream", png.MIMEType)
	require.Equal(t, []byte("\x89PNG\r\n\x1a\n\x00\x01"), png.Data)

	commit := *readText(t, ctx, p, "git://demo/commit/main").Text
	require.Contains(t, commit, "commit "+head+"\n")
	require.Contains(t, commit, "    second\n    \n    with a body\n")
	require.Contains(t, commit, "--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n hello\n+world\n")
	first := *readText(t, ctx, p, "git://demo/commit/v1").Text
	require.Contains(t, first, "new file mode 100644\n--- /dev/null\n+++ b/src/main.go\n@@ -0,0 +1 @@\n+package main\n")

	log := *readText(t, ctx, p, "git://demo/log/main").Text
	require.Len(t, strings.Split(strings.TrimSpace(log), "\n"), 2)
	require.True(t, strings.HasPrefix(log, head+" "))

	tree := *readText(t, ctx, p, "git://demo/tree/v1").Text
	require.Equal(t, gittest.Git(t, dir, "ls-tree", "-r", "v1"), tree)
	sub := *readText(t, ctx, p, "git://demo/tree/v1/src").Text
	require.Equal(t, gittest.Git(t, dir, "ls-tree", "-r", "v1", "src"), sub)
	refs := *readText(t, ctx, p, "git://demo/refs").Text
	require.Contains(t, refs, "refs/heads/feature/x\n")
	require.Contains(t, refs, head+" HEAD -> refs/heads/main\n")
}

func TestReadRefusals(t *testing.T) {
	dir := demoRepo(t)
	p, ctx := newProvider(dir), hostCtx(t, map[string]string{"max_file_bytes": "8"})
	for uri, kind := range map[string]error{
		"git://demo/blob/main/README.md":                            abi.ErrInvalidParams, // over max_file_bytes
		"git://demo/blob/main/missing":                              abi.ErrNotFound,
		"git://demo/blob/nope/README.md":                            abi.ErrNotFound,
		"git://demo/blob/main/src":                                  abi.ErrNotFound,
		"git://demo/blob/main/src/%2E%2E/x":                         abi.ErrInvalidParams,
		"git://demo/blob/main/src%2Fmain.go":                        abi.ErrInvalidParams,
		"git://demo/blob/main//README.md":                           abi.ErrInvalidParams,
		"git://demo/blob/..%2F..%2Fetc/README.md":                   abi.ErrNotFound,
		"git://demo/tree/main/README.md":                            abi.ErrNotFound,
		"git://other/refs":                                          abi.ErrNotFound,
		"git://demo/blob/main":                                      abi.ErrNotFound,
		"git://demo/what/main":                                      abi.ErrNotFound,
		"git://demo/log/main/x":                                     abi.ErrNotFound,
		"git://demo/refs?x=1":                                       abi.ErrInvalidParams,
		"git://demo/blob/" + strings.Repeat("0", 40) + "/README.md": abi.ErrNotFound,
	} {
		_, err := p.Read(ctx, uri)
		require.ErrorIs(t, mcpwErr(err), kind, uri)
	}
}

// mcpwErr maps an mcpw.Error to the abi sentinel of its code.
func mcpwErr(err error) error {
	var e *mcpw.Error
	if err == nil {
		return nil
	}
	if !errorsAs(err, &e) {
		return err
	}
	switch e.Code {
	case abi.CodeNotFound:
		return abi.ErrNotFound
	case abi.CodeInvalidParams:
		return abi.ErrInvalidParams
	}
	return abi.ErrProviderInternal
}

func TestListTemplatesComplete(t *testing.T) {
	dir := demoRepo(t)
	p, ctx := newProvider(dir), hostCtx(t, nil)
	page, err := p.List(ctx, "")
	require.NoError(t, err)
	var uris []string
	for _, r := range page.Resources {
		uris = append(uris, r.URI)
	}
	require.Equal(t, []string{"git://demo/refs", "git://demo/tree/main", "git://demo/log/main", "git://demo/commit/main",
		"git://demo/blob/main/README.md", "git://demo/blob/main/assets/model.bin", "git://demo/blob/main/img.png",
		"git://demo/blob/main/link", "git://demo/blob/main/src/main.go"}, uris)
	_, err = p.List(ctx, "0.99")
	require.ErrorIs(t, mcpwErr(err), abi.ErrInvalidParams)

	tpl, err := p.Templates(ctx, "")
	require.NoError(t, err)
	require.Len(t, tpl.ResourceTemplates, 5)
	for _, c := range []struct {
		tpl, arg, value string
		args            map[string]string
		want            []string
	}{
		{"git://demo/blob/{ref}/{+path}", "ref", "", nil, []string{"HEAD", "feature/x", "main", "v1"}},
		{"git://demo/blob/{ref}/{+path}", "ref", "f", nil, []string{"feature/x"}},
		{"git://demo/blob/{ref}/{+path}", "path", "s", nil, []string{"src/"}},
		{"git://demo/blob/{ref}/{+path}", "path", "src/", map[string]string{"ref": "v1"}, []string{"src/main.go"}},
		{"git://demo/tree/{ref}/{+path}", "path", "", nil, []string{"assets/", "src/"}},
	} {
		res, err := p.Complete(ctx, abi.CompleteRequest{Template: c.tpl, Argument: abi.CompleteArgument{Name: c.arg, Value: c.value}, Arguments: c.args})
		require.NoError(t, err)
		require.Equal(t, c.want, res.Values, "%+v", c)
	}
}

// TestName: the repository's name comes from config name, or the
// directory's base name made a URI host; a bad name is refused with the fix.
func TestName(t *testing.T) {
	dir := demoRepo(t)
	p := newProvider(dir)
	ctx := hostCtx(t, map[string]string{"name": "project"})
	readText(t, ctx, p, "git://project/refs")

	odd := filepath.Join(t.TempDir(), "My Repo_1")
	require.NoError(t, os.Rename(dir, odd))
	readText(t, hostCtx(t, nil), newProvider(odd), "git://my-repo-1/refs")

	_, err := newProvider(odd).List(hostCtx(t, map[string]string{"name": "bad name"}), "")
	require.ErrorContains(t, err, "set config name")
	two := New(Root{Path: odd, FS: os.DirFS(odd)}, Root{Path: odd + "2", FS: os.DirFS(odd)})
	_, err = two.List(hostCtx(t, map[string]string{"name": "x"}), "")
	require.ErrorContains(t, err, "2 directories are granted")

	notRepo := t.TempDir()
	_, err = newProvider(notRepo).List(hostCtx(t, nil), "")
	require.ErrorContains(t, err, "grant a repository's working tree or git directory")
}

// TestListPages: a tree larger than a page is listed in pages whose
// cursors resume where the last one stopped, every file once.
func TestListPages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pages")
	require.NoError(t, os.Mkdir(dir, 0o755))
	for i := range 1200 {
		gittest.Write(t, dir, "f/"+strconv.Itoa(10000+i), "x")
	}
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "many")
	p, ctx := newProvider(dir), hostCtx(t, nil)
	seen := map[string]bool{}
	pages := 0
	for cursor := ""; ; pages++ {
		page, err := p.List(ctx, cursor)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Resources), pageSize)
		for _, r := range page.Resources {
			require.False(t, seen[r.URI], r.URI)
			seen[r.URI] = true
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	require.Equal(t, 2, pages)
	require.Len(t, seen, 1200+len(summaries))
	require.True(t, seen["git://pages/blob/main/f/11199"])
}
