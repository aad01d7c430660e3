package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// The end-to-end tests run the real mcp-wasm binary and talk to it with the
// official go-sdk client over stdio, on every protocol revision.

var revisions = []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds mcp-wasm once per test process, and the signature
// verifier it runs (mcp-wasm-verify) beside it, as installed.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcp-wasm-e2e")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "mcp-wasm")
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "../mcp-wasm-verify")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return binPath
}

// connect starts `mcp-wasm serve args...` and connects a go-sdk client
// speaking revision.
func connect(t *testing.T, revision string, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Wait)
	t.Cleanup(cancel)
	full := append([]string{"serve", "--cache-dir", testguest.CompileCache(), "--log-level", "warn"}, patientArgs(args)...)
	cmd := exec.CommandContext(ctx, binary(t), full...)
	cmd.Stderr = testWriter{t}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }

// filesTree makes a directory with a text file, a binary file, a hidden
// file, a .git directory and a symlink pointing outside it.
func filesTree(t *testing.T) string {
	t.Helper()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("host secret"), 0o600))
	dir := t.TempDir()
	files := map[string][]byte{
		"hello.txt":         []byte("hello, world\n"),
		"docs/guide.md":     []byte("# Guide\n"),
		"img/pixel.png":     {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0xff, 0x00},
		".hidden":           []byte("hidden"),
		".git/config":       []byte("[core]"),
		"empty.txt":         {},
		"docs/ünï cødé.txt": []byte("unicode name"),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "escape.txt")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "escape-dir")))
	return dir
}

func listAll(t *testing.T, cs *mcp.ClientSession) []*mcp.Resource {
	t.Helper()
	var all []*mcp.Resource
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 1000, "pagination does not end")
		res, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		require.NoError(t, err)
		all = append(all, res.Resources...)
		if res.NextCursor == "" {
			return all
		}
		cursor = res.NextCursor
	}
}

func rpcCode(t *testing.T, err error) int64 {
	t.Helper()
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "want a JSON-RPC error, got %v", err)
	return werr.Code
}

func TestE2E_DefaultFilesProvider(t *testing.T) {
	dir := filesTree(t)
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			cs := connect(t, rev, "--allow-dir", dir)
			ctx := context.Background()
			if rev != "2026-07-28" {
				require.Equal(t, rev, cs.InitializeResult().ProtocolVersion)
			}

			names := map[string]bool{}
			for _, r := range listAll(t, cs) {
				names[r.URI] = true
			}
			require.Equal(t, map[string]bool{
				uriIn(t, dir, "hello.txt"): true, uriIn(t, dir, "docs/guide.md"): true, uriIn(t, dir, "img/pixel.png"): true,
				uriIn(t, dir, "empty.txt"): true, uriIn(t, dir, "docs/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt"): true,
			}, names, "hidden files, .git and symlinks are not listed")

			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uriIn(t, dir, "hello.txt")})
			require.NoError(t, err)
			require.Len(t, res.Contents, 1)
			require.Equal(t, "hello, world\n", res.Contents[0].Text)
			require.Equal(t, "text/plain", res.Contents[0].MIMEType)

			res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uriIn(t, dir, "img/pixel.png")})
			require.NoError(t, err)
			require.Equal(t, "image/png", res.Contents[0].MIMEType)
			require.Equal(t, []byte{0x89, 'P', 'N', 'G'}, res.Contents[0].Blob[:4])

			res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uriIn(t, dir, "empty.txt")})
			require.NoError(t, err)
			require.Empty(t, res.Contents[0].Text)

			notFound := int64(-32002)
			if rev == "2026-07-28" {
				notFound = -32602
			}
			for _, uri := range []string{uriIn(t, dir, "missing.txt"), uriIn(t, dir, ".git/config"), uriIn(t, dir, "escape.txt"), uriIn(t, dir, "escape-dir/secret.txt"), uriIn(t, dir, ".hidden")} {
				_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				require.Error(t, err, uri)
				require.Equal(t, notFound, rpcCode(t, err), uri)
				require.NotContains(t, err.Error(), "host secret")
			}
			for _, uri := range []string{uriIn(t, dir, "../etc/passwd"), uriIn(t, dir, "docs/%2e%2e/%2e%2e/etc/passwd"), uriIn(t, dir, "a%2Fb"), uriIn(t, dir, "a%00b"), uriIn(t, dir, "docs/./guide.md")} {
				_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				require.Error(t, err, uri)
				require.Equal(t, int64(-32602), rpcCode(t, err), uri)
			}

			tpls, err := cs.ListResourceTemplates(ctx, nil)
			require.NoError(t, err)
			require.NotEmpty(t, tpls.ResourceTemplates)
			comp, err := cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: tpls.ResourceTemplates[0].URITemplate},
				Argument: mcp.CompleteParamsArgument{Name: "path", Value: "do"},
			})
			require.NoError(t, err)
			require.Contains(t, comp.Completion.Values, "docs/")
			comp, err = cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
				Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "x"},
			})
			require.NoError(t, err)
			require.Empty(t, comp.Completion.Values)
		})
	}
}

func TestE2E_ShowHidden(t *testing.T) {
	dir := filesTree(t)
	cs := connect(t, "2025-11-25", "--allow-dir", dir, "--show-hidden")
	names := map[string]bool{}
	for _, r := range listAll(t, cs) {
		names[r.URI] = true
	}
	require.True(t, names[uriIn(t, dir, ".hidden")])
	require.True(t, names[uriIn(t, dir, ".git/config")])
	require.False(t, names[uriIn(t, dir, "escape.txt")], "symlinks stay hidden")
}

func TestE2E_ModulesTogether(t *testing.T) {
	notes := testguest.Go(t, "guests/notes")
	cdocs := testguest.C(t, "cdocs", "guests/c/mcpw.c", "guests/cdocs/cdocs.c")
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			cs := connect(t, rev, "--module", notes, "--module", cdocs)
			schemes := map[string]int{}
			for _, r := range listAll(t, cs) {
				u := r.URI
				for i := 0; i < len(u); i++ {
					if u[i] == ':' {
						schemes[u[:i]]++
						break
					}
				}
			}
			require.Greater(t, schemes["notes"], 8, "notes has more than one provider page")
			require.Greater(t, schemes["cdocs"], 3)
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "cdocs:///crc32-table"})
			require.NoError(t, err)
			require.Len(t, res.Contents[0].Blob, 1024)
		})
	}
}

func TestE2E_StartupErrors(t *testing.T) {
	notes := testguest.Go(t, "guests/notes")
	outer := t.TempDir()
	inner := filepath.Join(outer, "inner")
	require.NoError(t, os.Mkdir(inner, 0o755))
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"overlapping providers", []string{"--module", notes, "--module", notes}, "notes"},
		{"missing module", []string{"--module", "/nonexistent.wasm"}, "no such file"},
		{"garbage module", []string{"--module", filepath.Join(testguest.Root(), "testdata", "hostile", "garbage.wasm")}, "not WebAssembly"},
		{"missing dir", []string{"--allow-dir", "/nonexistent-dir"}, "not a readable directory"},
		{"nested grants", []string{"--allow-dir", outer, "--allow-dir", inner}, "granted paths " + outer + " and " + inner + " overlap (one is inside the other): grant only the outer directory"},
		{"one grant twice", []string{"--allow-dir", outer, "--allow-dir", outer + "/"}, "granted paths " + outer + " and " + outer + " overlap"},
		{"grants with two modules", []string{"--module", notes, "--module", notes, "--allow-dir", "."}, "config file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := exec.Command(binary(t), append([]string{"serve", "--cache-dir", testguest.CompileCache()}, tc.args...)...).CombinedOutput()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "serve must fail: %s", out)
			require.Equal(t, 1, ee.ExitCode())
			require.Contains(t, string(out), tc.msg)
		})
	}
}

// TestE2E_DefaultSeveralGrants: the built-in provider serves several
// --allow-dir at once, a directory and a single file of another, each
// under its real file:// URI, without scheme prefixes; the start-up line
// says where each is served.
func TestE2E_DefaultSeveralGrants(t *testing.T) {
	docs, other := filesTree(t), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "todo.md"), []byte("- [ ] it\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(other, "private.md"), []byte("no"), 0o644))
	todo := uriIn(t, other, "todo.md")
	cs := connect(t, "2025-11-25", "--allow-dir", docs, "--allow-dir", filepath.Join(other, "todo.md"))
	uris := map[string]bool{}
	for _, r := range listAll(t, cs) {
		uris[r.URI] = true
	}
	require.Equal(t, map[string]bool{
		uriIn(t, docs, "hello.txt"): true, uriIn(t, docs, "docs/guide.md"): true, uriIn(t, docs, "img/pixel.png"): true,
		uriIn(t, docs, "empty.txt"): true, uriIn(t, docs, "docs/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt"): true, todo: true,
	}, uris)
	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: todo})
	require.NoError(t, err)
	require.Equal(t, "- [ ] it\n", res.Contents[0].Text)
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uriIn(t, other, "private.md")})
	require.Error(t, err, "a sibling of a granted file is not served")

	out, err := exec.Command(binary(t), "serve", "--allow-dir", docs, "--allow-dir", filepath.Join(other, "todo.md")).CombinedOutput()
	require.NoError(t, err, "serve ends at the end of stdin: %s", out)
	require.Contains(t, string(out), "serving every regular file under "+docs+" as "+uriIn(t, docs, "...")+", "+
		filepath.Join(other, "todo.md")+" as "+todo+", read-only")
}
