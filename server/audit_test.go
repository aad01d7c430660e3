package server

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testlog"
)

// auditLines returns the audit lines in logs.
func auditLines(logs *testlog.Buffer) []string {
	var out []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "audit=true") {
			out = append(out, l)
		}
	}
	return out
}

// TestAudit_stdio: every resource access has a line with who, what, which
// provider, the decision, the bytes and the duration; the lifecycle has
// none.
func TestAudit_stdio(t *testing.T) {
	log, _ := newLogger()
	audit, logs := newLogger()
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithLogger(log).WithAuditLogger(audit))
	in := strings.NewReader(readLine(1, "notes:///hello") + readLine(2, "notes:///missing") + readLine(3, "other:///x") +
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x",` + stdioMeta + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{` + stdioMeta + `}}` + "\n")
	var out strings.Builder
	require.NoError(t, s.ServeStdio(t.Context(), in, &out))
	lines := auditLines(logs)
	require.Len(t, lines, 4, logs.String())
	want := []string{
		`who=stdio method=resources/read uri=notes:///hello provider=notes decision=allow bytes=12 duration=`,
		`who=stdio method=resources/read uri=notes:///missing provider=notes decision=deny reason=not_found bytes=0`,
		`who=stdio method=resources/read uri=other:///x decision=deny reason=not_found`,
		`who=stdio method=tools/call tool=x decision=deny reason=invalid_params`,
	}
	for _, w := range want {
		require.True(t, slicesContainsSub(lines, w), "no line with %q in\n%s", w, strings.Join(lines, "\n"))
	}
}

func slicesContainsSub(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// TestAudit_http: over HTTP the line names the anonymous client's address,
// the legacy session, and refusals before MCP with their status.
func TestAudit_http(t *testing.T) {
	log, logs := newLogger()
	s := newServer(t, NewConfig().WithProviders(notesProvider()).WithLogger(log))
	url := serveHTTP(t, s, NewHTTPConfig().WithRateLimit(1000, 10))

	status, _, _ := rawPost(t, url, modernHeaders("resources/read", "notes:///logo.png"), modernRead("notes:///logo.png"))
	require.Equal(t, http.StatusOK, status)
	cs := connectHTTP(t, url, "2025-11-25", nil, nil)
	_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///hello"})
	require.NoError(t, err)
	hdr := modernHeaders("resources/read", "notes:///hello")
	hdr["Origin"] = "https://evil.example"
	status, _, _ = rawPost(t, url, hdr, modernRead("notes:///hello"))
	require.Equal(t, http.StatusForbidden, status)

	lines := strings.Join(auditLines(logs), "\n")
	require.Regexp(t, `who=anonymous@127\.0\.0\.1 method=resources/read uri=notes:///logo.png provider=notes decision=allow bytes=`+
		regexp.QuoteMeta(strconv.Itoa(len(pngBytes))), lines)
	require.Contains(t, lines, "who=session:"+cs.ID()+" method=resources/read session="+cs.ID()+" uri=notes:///hello")
	require.Contains(t, lines, `who=anonymous@127.0.0.1 method="POST /mcp" decision=deny reason=origin status=403`)
}

func TestServedBytes(t *testing.T) {
	text, blob := "héllo", "AAECAw==" // 6 bytes of text, 4 bytes of blob
	require.Equal(t, int64(10), servedBytes(&readResult{Contents: []content{{Text: &text}, {Blob: &blob}}}))
	require.Equal(t, int64(0), servedBytes(nil))
}
