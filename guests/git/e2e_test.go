package main_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi/checkkit"
	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// liveWait bounds the wait for a notification; the host polls about once
// a second, so this only decides a test that is already broken.
const liveWait = testkit.Wait

// demo is a repository named demo with two commits, a tag at the first.
func demo(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "demo")
	require.NoError(t, os.Mkdir(dir, 0o755))
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Write(t, dir, "README.md", "hello\n")
	gittest.Write(t, dir, "src/main.go", "package main\n")
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "first")
	gittest.Git(t, dir, "tag", "v1")
	gittest.Write(t, dir, "README.md", "hello\nworld\n")
	gittest.Git(t, dir, "commit", "-q", "-am", "second")
	gittest.Git(t, dir, "gc", "-q") // packed objects and packed refs, as most clones are
	return dir
}

// heard records the updates a client is sent.
type heard struct {
	mu      sync.Mutex
	updated map[string]int
	lists   int
}

func (h *heard) count(uri string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.updated[uri]
}

// serve runs the real mcp-wasm binary on git.wasm with args and connects
// the official go-sdk client over stdio.
func serve(t *testing.T, args ...string) (*mcp.ClientSession, *heard) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	argv := append(append([]string{"serve", "--module", testguest.Go(t, "guests/git"), "--cache-dir", testguest.CompileCache(), "--log-level", "warn"}, testkit.Flags()...), args...)
	cmd := exec.CommandContext(ctx, testguest.Binary(t), argv...)
	cmd.Stderr = os.Stderr
	h := &heard{updated: map[string]int{}}
	client := mcp.NewClient(&mcp.Implementation{Name: "git-e2e", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.updated[r.Params.URI]++
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.lists++
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, h
}

func readText(t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	require.NoError(t, err, uri)
	require.Len(t, res.Contents, 1)
	return res.Contents[0].Text
}

// TestServeGit drives git.wasm in the real server with the official
// client: list, reads at HEAD, at a tag and of a commit, templates,
// completion, and a branch that moves announcing its file as updated.
func TestServeGit(t *testing.T) {
	dir := demo(t)
	cs, h := serve(t, "--allow-dir", dir)
	ctx := t.Context()

	var uris []string
	for cursor := ""; ; {
		page, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		require.NoError(t, err)
		for _, r := range page.Resources {
			uris = append(uris, r.URI)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	require.Equal(t, []string{"git://demo/refs", "git://demo/tree/main", "git://demo/log/main", "git://demo/commit/main",
		"git://demo/blob/main/README.md", "git://demo/blob/main/src/main.go"}, uris)

	require.Equal(t, "hello\nworld\n", readText(t, cs, "git://demo/blob/main/README.md"))
	require.Equal(t, "hello\n", readText(t, cs, "git://demo/blob/v1/README.md"))
	commit := readText(t, cs, "git://demo/commit/HEAD")
	require.Contains(t, commit, "    second\n")
	require.Contains(t, commit, "@@ -1 +1,2 @@\n hello\n+world\n")
	_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "git://demo/blob/main/nope"})
	require.Error(t, err)

	tpls, err := cs.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tp := range tpls.ResourceTemplates {
		names = append(names, tp.URITemplate)
	}
	require.Contains(t, names, "git://demo/blob/{ref}/{+path}")
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "git://demo/blob/{ref}/{+path}"},
		Argument: mcp.CompleteParamsArgument{Name: "ref", Value: "v"},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"v1"}, comp.Completion.Values)
	comp, err = cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "git://demo/blob/{ref}/{+path}"},
		Argument: mcp.CompleteParamsArgument{Name: "path", Value: "sr"},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"src/"}, comp.Completion.Values)

	// The branch moves: a client subscribed to a file on it hears.
	uri := "git://demo/blob/main/README.md"
	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}))
	n := 0
	require.Eventually(t, func() bool {
		// Commit again until heard: the first commits may precede the
		// host's baseline.
		n++
		gittest.Write(t, dir, "README.md", "edit "+strings.Repeat("x", n)+"\n")
		gittest.Git(t, dir, "commit", "-q", "-am", "edit")
		return h.count(uri) > 0
	}, liveWait, time.Second, "no notifications/resources/updated for %s", uri)
	require.Equal(t, "edit "+strings.Repeat("x", n)+"\n", readText(t, cs, uri))
	require.Zero(t, h.count("git://demo/blob/main/src/main.go"), "an unchanged file is not announced")
}

// TestServeOwnHistory serves this repository's own git directory (for a
// worktree, the common one its .git file points into) and reads files at
// HEAD byte for byte as git cat-file prints them.
func TestServeOwnHistory(t *testing.T) {
	common := strings.TrimSpace(gittest.Git(t, ".", "rev-parse", "--path-format=absolute", "--git-common-dir"))
	cs, _ := serve(t, "--allow-dir", common, "--config-value", "name=mcp-wasm")
	head := strings.TrimSpace(gittest.Git(t, common, "rev-parse", "HEAD"))
	for _, f := range []string{"go.mod", "abi/ABI.md", "Makefile"} {
		want := gittest.Git(t, common, "cat-file", "blob", head+":"+f)
		require.Equal(t, want, readText(t, cs, "git://mcp-wasm/blob/"+head+"/"+f), f)
	}
	log := readText(t, cs, "git://mcp-wasm/log/"+head)
	require.True(t, strings.HasPrefix(log, head+" "))
}

// TestCheck runs `mcp-wasm check` (the real binary) on git.wasm granted a
// repository: every rule passes, none skipped.
func TestCheck(t *testing.T) {
	dir := demo(t)
	out, err := exec.Command(testguest.Binary(t), append(append([]string{"check", "--json"}, testkit.Flags()...), "--cache-dir", testguest.CompileCache(),
		"--allow-dir", dir, testguest.Go(t, "guests/git"))...).Output()
	require.NoError(t, err, "%s", out)
	var rep checkkit.Report
	require.NoError(t, json.Unmarshal(out, &rep))
	require.True(t, rep.Passed)
	for _, c := range rep.Checks {
		require.Equal(t, checkkit.Pass, c.Status, "%s: %+v", c.Name, c)
	}
}
