package server

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.jsonl from the current server")

// transcript is a raw newline-delimited JSON-RPC client of ServeStdio that
// records every line in both directions.
type transcript struct {
	t       testing.TB
	in      *io.PipeWriter
	out     *bufio.Reader
	lines   []string
	nextID  int
	version string
}

func newTranscript(t testing.TB, s *Server) *transcript {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW) }()
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close()
		cancel()
		require.NoError(t, <-done)
	})
	return &transcript{t: t, in: inW, out: bufio.NewReader(outR)}
}

// open starts a session: initialize on the handshake revisions,
// server/discover on 2026-07-28.
func (tr *transcript) open(version string) {
	tr.version = version
	if revision(version).stateless() {
		tr.call("server/discover", nil)
		return
	}
	tr.call("initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "golden", "version": "1"},
	})
	tr.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

// call sends a request (with the stateless _meta on 2026-07-28) and returns
// the response's members.
func (tr *transcript) call(method string, params map[string]any) map[string]json.RawMessage {
	tr.t.Helper()
	if revision(tr.version).stateless() {
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    tr.version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}
	}
	tr.nextID++
	msg := map[string]any{"jsonrpc": "2.0", "id": tr.nextID, "method": method}
	if params != nil {
		msg["params"] = params
	}
	tr.send(msg)
	line, err := tr.out.ReadString('\n')
	require.NoError(tr.t, err)
	tr.lines = append(tr.lines, strings.TrimSuffix(line, "\n"))
	var resp map[string]json.RawMessage
	require.NoError(tr.t, json.Unmarshal([]byte(line), &resp))
	require.Equal(tr.t, json.RawMessage(jsonInt(tr.nextID)), resp["id"], "response out of order")
	return resp
}

func (tr *transcript) send(msg map[string]any) {
	tr.t.Helper()
	data, err := json.Marshal(msg)
	require.NoError(tr.t, err)
	tr.lines = append(tr.lines, string(data))
	_, err = tr.in.Write(append(data, '\n'))
	require.NoError(tr.t, err)
}

func jsonInt(n int) string {
	data, _ := json.Marshal(n)
	return string(data)
}

// cursorOf returns result.nextCursor of a list response.
func cursorOf(t testing.TB, resp map[string]json.RawMessage) string {
	var res struct {
		NextCursor string `json:"nextCursor"`
	}
	require.NoError(t, json.Unmarshal(resp["result"], &res))
	return res.NextCursor
}

// TestServer_golden replays one script per revision over ServeStdio and
// compares the whole transcript with testdata/golden/REVISION.jsonl.
// Regenerate with: go test ./server -run TestServer_golden -update
func TestServer_golden(t *testing.T) {
	for _, version := range allRevisions {
		t.Run(version, func(t *testing.T) {
			files := servertest.New("files", abi.URIRoot{Scheme: "file", PathPrefix: "/srv/"}).
				AddText("file:///srv/a.txt", "text/plain", "alpha").
				WithOperations(abi.OpList, abi.OpRead)
			s := newServer(t, NewConfig().WithProviders(notesProvider(), files).WithPageSize(3))
			tr := newTranscript(t, s)
			goldenScript(t, tr, version)
			got := strings.Join(tr.lines, "\n") + "\n"
			path := filepath.Join("testdata", "golden", version+".jsonl")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "missing golden file: run go test ./server -run TestServer_golden -update")
			require.Equal(t, string(want), got)
		})
	}
}

func goldenScript(t *testing.T, tr *transcript, version string) {
	tr.open(version)
	page := tr.call("resources/list", nil)
	for c := cursorOf(t, page); c != ""; c = cursorOf(t, page) {
		page = tr.call("resources/list", map[string]any{"cursor": c})
	}
	tr.call("resources/list", map[string]any{"cursor": "not-a-host-cursor"})
	tr.call("resources/templates/list", nil)
	for _, uri := range []string{"notes:///hello", "notes:///logo.png", "notes:///empty", "notes:///items/42",
		"NOTES:///hello", "notes:///missing", "notes:///a/../b", "file:///srv/a.txt", "file:///etc/passwd"} {
		tr.call("resources/read", map[string]any{"uri": uri})
	}
	tr.call("completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/resource", "uri": "notes:///items/{id}"},
		"argument": map[string]any{"name": "id", "value": "1"},
	})
	tr.call("completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"},
		"argument": map[string]any{"name": "arg1", "value": "test"},
	})
	tr.call("tools/list", nil)
	tr.call("prompts/list", nil)
	tr.call("logging/setLevel", map[string]any{"level": "info"})
	tr.call("ping", nil) // {} on the handshake revisions, removed in 2026-07-28
}
