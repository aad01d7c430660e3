package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// TestE2E_SchemePrefix serves the built-in files module twice, over two
// directories, through a config file: their URI spaces overlap, so the
// operator serves them under the scheme prefixes "docs" and "code". A
// go-sdk client lists, reads and completes both through the real binary;
// without the prefixes the same config is refused, and the error names the
// fix.
func TestE2E_SchemePrefix(t *testing.T) {
	files := testguest.Go(t, "guests/files")
	dir := t.TempDir()
	for sub, name := range map[string]string{"docs": "guide.md", "code": "main.go"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, sub), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, sub, name), []byte("in "+sub), 0o644))
	}
	config := func(docsPrefix, codePrefix string) string {
		path := filepath.Join(dir, "mcp.json")
		text := `{"providers": [
  {"module": "` + files + `", "name": "docs", "schemePrefix": "` + docsPrefix + `", "grants": {"dirs": [{"host": "docs"}]}},
  {"module": "` + files + `", "name": "code", "schemePrefix": "` + codePrefix + `", "grants": {"dirs": [{"host": "code"}]}}
]}`
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}

	out, err := exec.Command(binary(t), "validate", "--config", config("", "")).CombinedOutput()
	require.Error(t, err, "overlapping providers must be refused: %s", out)
	require.Contains(t, string(out), `give one of them a "schemePrefix"`)

	cs := connect(t, "2025-11-25", "--config", config("docs", "code"))
	ctx := context.Background()
	uris := map[string]bool{}
	for _, r := range listAll(t, cs) {
		uris[r.URI] = true
	}
	docs, code := "docs+"+uriIn(t, filepath.Join(dir, "docs"), "guide.md"), "code+"+uriIn(t, filepath.Join(dir, "code"), "main.go")
	require.Equal(t, map[string]bool{docs: true, code: true}, uris)
	for uri, want := range map[string]string{docs: "in docs", code: "in code"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		require.NoError(t, err, uri)
		require.Equal(t, uri, res.Contents[0].URI)
		require.Equal(t, want, res.Contents[0].Text)
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: strings.TrimPrefix(docs, "docs+")})
	require.Error(t, err, "the URI without its prefix belongs to no provider")
	tpls, err := cs.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	var got []string
	for _, tp := range tpls.ResourceTemplates {
		got = append(got, tp.URITemplate)
	}
	docsTpl := "docs+" + uriIn(t, filepath.Join(dir, "docs"), "{+path}")
	require.ElementsMatch(t, []string{"code+" + uriIn(t, filepath.Join(dir, "code"), "{+path}"), docsTpl}, got)
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: docsTpl},
		Argument: mcp.CompleteParamsArgument{Name: "path", Value: "gu"},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"guide.md"}, comp.Completion.Values)
}
