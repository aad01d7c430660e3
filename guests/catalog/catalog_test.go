// Package catalog_test holds the cross-SDK test: the catalog provider,
// written once in each SDK (Go, C, Rust, AssemblyScript), must serve
// exactly the same thing, through the runtime and through the real server.
// A difference is an SDK drifting from the others (or from the ABI).
package catalog_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// sdk is one implementation of the catalog.
type sdk struct {
	name  string
	build func(testing.TB) string
}

// sdks lists the implementations; the first is the reference the others
// are compared with.
var sdks = []sdk{
	{"go", func(tb testing.TB) string { return testguest.Go(tb, "guests/catalog/go") }},
	{"c", func(tb testing.TB) string {
		return testguest.C(tb, "catalog-c", "guests/c/mcpw.c", "guests/catalog/c/catalog.c")
	}},
	{"rust", func(tb testing.TB) string { return testguest.Rust(tb, "guests/catalog/rust", "catalog") }},
	{"assemblyscript", func(tb testing.TB) string {
		return testguest.AssemblyScript(tb, "guests/catalog/assemblyscript/index.ts")
	}},
}

// Items the catalog holds, in list order; every SDK must serve these.
var itemIDs = []string{"apple", "apricot", "banana", "blueberry", "cherry", "kib", "logo"}

// Inputs a client or the host may send, valid and not.
var (
	readURIs = append(itemURIs(),
		"catalog:///items/", "catalog:///items/nope", "catalog:///items/apple/x", "catalog:///items",
		"catalog:///other", "catalog:x", "catalog:///items/%61pple", "catalog:///items/APPLE")
	completions = []abi.CompleteArgument{
		{Name: "id", Value: ""}, {Name: "id", Value: "a"}, {Name: "id", Value: "b"}, {Name: "id", Value: "bl"},
		{Name: "id", Value: "kib"}, {Name: "id", Value: "z"}, {Name: "id", Value: "ü"}, {Name: "other", Value: "a"},
	}
	badCursors = []string{"0", "7", "8", "01", "-1", "x", "3 ", "1e1", "9999999999", "\u00e9"}
)

func itemURIs() []string {
	var uris []string
	for _, id := range itemIDs {
		uris = append(uris, "catalog:///items/"+id)
	}
	return uris
}

// outcome is a result or the kind of error, comparable across SDKs.
type outcome struct {
	Result any    `json:",omitempty"`
	Error  string `json:",omitempty"`
}

func errKind(err error) string {
	for _, k := range []error{abi.ErrNotFound, abi.ErrInvalidParams, abi.ErrProviderInternal, abi.ErrBadInput} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	return "other: " + err.Error()
}

func record[T any](r T, err error) outcome {
	if err != nil {
		return outcome{Error: errKind(err)}
	}
	return outcome{Result: r}
}

// runtimeTranscript drives every operation of the module through the
// runtime, as the server would, and records what it answered.
func runtimeTranscript(t *testing.T, wasm string) map[string]any {
	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(testguest.CompileCache()))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	p, err := rt.LoadFile(ctx, wasm, testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1))
	require.NoError(t, err)

	tr := map[string]any{"describe": p.Describe()}
	var pages []*abi.ListResult
	for cursor := ""; ; {
		page, err := p.List(ctx, cursor)
		require.NoError(t, err, "list %q", cursor)
		pages = append(pages, page)
		if cursor = page.NextCursor; cursor == "" || len(pages) > 10 {
			break
		}
	}
	tr["list"] = pages
	for _, c := range badCursors {
		tr["list "+c] = record(p.List(ctx, c))
		tr["templates "+c] = record(p.Templates(ctx, c))
		tr["changes "+c] = record(p.Changes(ctx, abi.ChangesRequest{Cursor: c}))
	}
	tr["templates"] = record(p.Templates(ctx, ""))
	for _, u := range readURIs {
		tr["read "+u] = record(p.Read(ctx, u))
	}
	for _, a := range completions {
		for _, tpl := range []string{"catalog:///items/{id}", "catalog:///other/{id}"} {
			tr["complete "+tpl+" "+a.Name+"="+a.Value] = record(p.Complete(ctx, abi.CompleteRequest{Template: tpl, Argument: a}))
		}
	}
	// The change sequence: a baseline, then 10 polls, each with the cursor
	// the previous one returned; then the cursor's wrap-around.
	var seq []outcome
	req := abi.ChangesRequest{}
	for range 11 {
		r, err := p.Changes(ctx, req)
		seq = append(seq, record(r, err))
		require.NoError(t, err)
		req = abi.ChangesRequest{Cursor: r.Cursor, Paths: []string{"/ignored"}}
	}
	tr["changes"] = seq
	tr["changes 999999999"] = record(p.Changes(ctx, abi.ChangesRequest{Cursor: "999999999"}))
	require.Zero(t, p.Stats().Faults, "no call may fault")
	return tr
}

// TestCatalogSameThroughRuntime compares, operation by operation, what the
// four catalogs return through the runtime: describe, every list page with
// its cursor, templates, reads, completions, the change sequence, and the
// error kind of every bad input.
func TestCatalogSameThroughRuntime(t *testing.T) {
	ref := runtimeTranscript(t, sdks[0].build(t))
	checkReference(t, ref)
	want := canonical(t, ref)
	for _, s := range sdks[1:] {
		t.Run(s.name, func(t *testing.T) {
			require.JSONEq(t, want, canonical(t, runtimeTranscript(t, s.build(t))), "%s's catalog differs from Go's", s.name)
		})
	}
}

// checkReference pins the reference catalog to its specification, so that
// four identical wrong answers cannot pass.
func checkReference(t *testing.T, tr map[string]any) {
	pages := tr["list"].([]*abi.ListResult)
	require.Len(t, pages, 3, "7 items in pages of 3")
	require.Equal(t, "3", pages[0].NextCursor)
	var ids []string
	for _, p := range pages {
		for _, r := range p.Resources {
			ids = append(ids, r.Name)
		}
	}
	require.Equal(t, itemIDs, ids)
	kib := tr["read catalog:///items/kib"].(outcome).Result.(*abi.ReadResult)
	require.Len(t, *kib.Contents[0].Text, 1024)
	logo := tr["read catalog:///items/logo"].(outcome).Result.(*abi.ReadResult)
	require.Equal(t, "iVBORw0KGgoAAAANSUhEUv8A", *logo.Contents[0].Blob)
	require.Equal(t, abi.ErrNotFound.Error(), tr["read catalog:///items/nope"].(outcome).Error)
	comp := tr["complete catalog:///items/{id} id=b"].(outcome).Result.(*abi.CompleteResult)
	require.Equal(t, []string{"banana", "blueberry"}, comp.Values)
	require.Equal(t, abi.ErrInvalidParams.Error(), tr["complete catalog:///items/{id} other=a"].(outcome).Error)
	seq := tr["changes"].([]outcome)
	require.Equal(t, &abi.ChangesResult{Cursor: "0"}, seq[0].Result, "the first call is the baseline")
	require.Equal(t, &abi.ChangesResult{Cursor: "3", Updated: []string{"catalog:///items/banana"}, ListChanged: true}, seq[3].Result)
	require.Equal(t, abi.ErrInvalidParams.Error(), tr["list x"].(outcome).Error)
}

func canonical(t *testing.T, v any) string {
	b, err := json.MarshalIndent(v, "", " ")
	require.NoError(t, err)
	return string(b)
}

// serve starts the real binary on the module and connects the official
// go-sdk client over stdio, speaking revision.
func serve(t *testing.T, wasm, revision string) *mcp.ClientSession {
	t.Helper()
	return testguest.Serve(t, testkit.Wait, revision, "--module", wasm, "--page-size", "2")
}

// mcpTranscript asks the server everything a client can ask of the catalog.
// List cursors are the server's own (signed) and differ between runs, so
// only their presence is recorded.
func mcpTranscript(t *testing.T, cs *mcp.ClientSession) map[string]any {
	ctx := t.Context()
	tr := map[string]any{}
	var pages []any
	for cursor := ""; ; {
		res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		require.NoError(t, err)
		pages = append(pages, map[string]any{"resources": res.Resources, "more": res.NextCursor != "", "meta": res.Meta})
		if cursor = res.NextCursor; cursor == "" || len(pages) > 20 {
			break
		}
	}
	tr["list"] = pages
	tr["templates"] = testguest.Record(cs.ListResourceTemplates(ctx, nil))
	for _, u := range readURIs {
		tr["read "+u] = testguest.Record(cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: u}))
	}
	for _, a := range completions {
		tr["complete "+a.Name+"="+a.Value] = testguest.Record(cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "catalog:///items/{id}"},
			Argument: mcp.CompleteParamsArgument{Name: a.Name, Value: a.Value},
		}))
	}
	return tr
}

// TestCatalogSameOverMCP runs each catalog in the real mcp-wasm binary over
// stdio and compares what the official go-sdk client sees: every list page,
// templates, every read (and its error), every completion, in the oldest
// handshake era and the newest stateless one.
func TestCatalogSameOverMCP(t *testing.T) {
	reference := sdks[0].build(t)
	for _, revision := range []string{"2025-03-26", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) {
			ref := mcpTranscript(t, serve(t, reference, revision))
			require.Len(t, ref["list"], 4, "7 items in MCP pages of 2")
			require.Equal(t, []string{"banana", "blueberry"}, ref["complete id=b"].(testguest.Outcome).Result.(*mcp.CompleteResult).Completion.Values)
			notFound := int64(-32002) // resource-not-found, -32602 since 2026-07-28
			if revision == "2026-07-28" {
				notFound = -32602
			}
			require.Equal(t, notFound, ref["read catalog:///items/nope"].(testguest.Outcome).Code)
			want := canonical(t, ref)
			for _, s := range sdks[1:] {
				t.Run(s.name, func(t *testing.T) { // a missing toolchain skips only its SDK
					got := canonical(t, mcpTranscript(t, serve(t, s.build(t), revision)))
					require.JSONEq(t, want, got, "%s's catalog differs from Go's over MCP %s", s.name, revision)
				})
			}
		})
	}
}
