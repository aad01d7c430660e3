package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
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

// appMIME is the media type of an MCP Apps user interface.
const appMIME = "text/html;profile=mcp-app"

// puppetConfig is a config file entry serving the puppet guest
// (testdata/puppet.wat) with payloads given as literal config values.
func puppetConfig(t *testing.T, name, prefix string, payloads map[string]any) string {
	t.Helper()
	abs, err := filepath.Abs(puppetModule())
	require.NoError(t, err)
	values := map[string]string{}
	for op, p := range payloads {
		b, err := json.Marshal(p)
		require.NoError(t, err)
		values[op] = string(b)
	}
	entry := map[string]any{"module": abs, "name": name, "schemePrefix": prefix, "grants": map[string]any{"config": values}}
	b, err := json.Marshal(entry)
	require.NoError(t, err)
	return string(b)
}

// appPayloads makes the puppet a provider of x:///a and of one MCP App,
// ui://AUTHORITY/app.html.
func appPayloads(authority string) map[string]any {
	d := puppetDescribe()
	d.URISpace = abi.URISpace{{Scheme: "x"}, {Scheme: "ui", Authority: authority}}
	app := "ui://" + authority + "/app.html"
	return map[string]any{
		"describe": d,
		"list": abi.ListResult{Resources: []abi.Resource{
			{URI: "x:///a", Name: "a"}, {URI: app, Name: "app", MIMEType: appMIME}}},
		"templates": abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{}},
		"read":      abi.ReadResult{Contents: []abi.Content{{URI: app, MIMEType: appMIME, Text: new("<!doctype html><p>app</p>")}}},
		"complete":  abi.CompleteResult{Values: []string{}}, "changes": abi.ChangesResult{},
	}
}

// TestE2E_SchemePrefixKeepsAppScheme: under a schemePrefix, a provider's
// ui:// resources (MCP Apps) keep exactly their scheme and their
// text/html;profile=mcp-app type, listed and read through the real binary
// by a go-sdk client, while its other URIs are prefixed; two providers
// claiming one ui:// authority are refused, whatever their prefixes, with
// an error that says why a prefix does not help.
func TestE2E_SchemePrefixKeepsAppScheme(t *testing.T) {
	dir := t.TempDir()
	write := func(entries ...string) string {
		path := filepath.Join(dir, "mcp.json")
		require.NoError(t, os.WriteFile(path, []byte(`{"providers": [`+strings.Join(entries, ",")+`]}`), 0o644))
		return path
	}
	cs := connect(t, "2025-11-25", "--config", write(
		puppetConfig(t, "one", "p1", appPayloads("dash")),
		puppetConfig(t, "two", "p2", appPayloads("board"))))
	types := map[string]string{}
	for _, r := range listAll(t, cs) {
		types[r.URI] = r.MIMEType
	}
	require.Equal(t, map[string]string{"p1+x:///a": "", "p2+x:///a": "", "ui://dash/app.html": appMIME, "ui://board/app.html": appMIME}, types)
	for _, app := range []string{"ui://dash/app.html", "ui://board/app.html"} {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: app})
		require.NoError(t, err, app)
		require.Equal(t, app, res.Contents[0].URI)
		require.Equal(t, appMIME, res.Contents[0].MIMEType)
	}
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "p1+ui://dash/app.html"})
	require.Error(t, err, "an app is not served under the prefixed scheme")

	out, err := exec.Command(binary(t), "validate", "--config", write(
		puppetConfig(t, "one", "p1", appPayloads("dash")),
		puppetConfig(t, "two", "p2", appPayloads("dash")))).CombinedOutput()
	require.Error(t, err, "two providers claiming ui://dash must be refused: %s", out)
	require.Contains(t, string(out), "two providers cannot share a ui:// authority")
}
