package runtime_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// cdocsNames are the documents cdocs lists when motd is not granted, in order.
var cdocsNames = []string{"http-status", "signals", "ascii", "json-escapes", "crc32-table", "bench-1k"}

// loadCdocs builds the C example provider with the C SDK and loads it with
// the given config grants (nil: nothing granted).
func loadCdocs(t *testing.T, config map[string]string) *runtime.Provider {
	t.Helper()
	return loadCdocsWith(t, runtime.NewConfig(), config)
}

func loadCdocsWith(t *testing.T, rcfg runtime.Config, config map[string]string) *runtime.Provider {
	t.Helper()
	wasm, err := os.ReadFile(testguest.C(t, "cdocs", "guests/c/mcpw.c", "guests/cdocs/cdocs.c"))
	require.NoError(t, err)
	ctx := t.Context()
	rt, err := runtime.New(ctx, rcfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	cfg := testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1).WithGrants(runtime.Grants{Config: config})
	p, err := rt.Load(ctx, "cdocs", wasm, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close(ctx)) })
	return p
}

// readText reads uri and returns its single text content.
func readText(t *testing.T, p *runtime.Provider, uri string) string {
	t.Helper()
	res, err := p.Read(t.Context(), uri)
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	require.NotNil(t, res.Contents[0].Text, "want text content")
	return *res.Contents[0].Text
}

func TestCGuestDescribe(t *testing.T) {
	p := loadCdocs(t, nil)
	d := p.Describe()
	require.Equal(t, "cdocs", d.Name)
	require.Equal(t, []abi.URIRoot{{Scheme: "cdocs"}}, d.URISpace)
	require.Equal(t, []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete}, d.Operations)
	for _, op := range abi.Operations {
		require.Equal(t, op != abi.OpChanges, p.Supports(op), op)
	}
	require.NotNil(t, d.Requests)
	require.Equal(t, "motd", d.Requests.Config[0].Key)
	require.Equal(t, &abi.CacheHint{TTLMs: 3600000, Scope: abi.ScopePublic}, d.Cache)
}

func TestCGuestList(t *testing.T) {
	tests := []struct {
		name   string
		config map[string]string
		want   []string
	}{
		{"nothing granted", nil, cdocsNames},
		{"motd granted", map[string]string{"motd": "hello"}, append(append([]string{}, cdocsNames...), "motd")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := loadCdocs(t, tt.config)
			page, err := p.List(t.Context(), "")
			require.NoError(t, err)
			require.Empty(t, page.NextCursor)
			var names []string
			for _, r := range page.Resources {
				names = append(names, r.Name)
				require.Equal(t, "cdocs:///"+r.Name, r.URI)
				require.NotEmpty(t, r.Title)
				require.NotEmpty(t, r.MIMEType)
				require.NotNil(t, r.Size)
				require.Equal(t, *r.Size, int64(len(readBytes(t, p, r.URI))), "size of %s", r.URI)
			}
			require.Equal(t, tt.want, names)
		})
	}
}

// readBytes reads uri and returns its content bytes (text, or decoded blob).
func readBytes(t *testing.T, p *runtime.Provider, uri string) []byte {
	t.Helper()
	res, err := p.Read(t.Context(), uri)
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	c := res.Contents[0]
	if c.Text != nil {
		return []byte(*c.Text)
	}
	b, err := base64.StdEncoding.DecodeString(*c.Blob)
	require.NoError(t, err)
	return b
}

func TestCGuestListRejectsUnknownCursor(t *testing.T) {
	p := loadCdocs(t, nil)
	_, err := p.List(t.Context(), "page-2")
	require.ErrorIs(t, err, abi.ErrInvalidParams)
	_, err = p.Templates(t.Context(), "page-2")
	require.ErrorIs(t, err, abi.ErrInvalidParams)
}

func TestCGuestTemplates(t *testing.T) {
	p := loadCdocs(t, nil)
	page, err := p.Templates(t.Context(), "")
	require.NoError(t, err)
	require.Len(t, page.ResourceTemplates, 1)
	require.Equal(t, "cdocs:///{name}", page.ResourceTemplates[0].URITemplate)
	require.Empty(t, page.NextCursor)
}

func TestCGuestReadText(t *testing.T) {
	p := loadCdocs(t, nil)
	tests := []struct {
		uri, mime string
		contains  []string
	}{
		{"cdocs:///http-status", "text/markdown", []string{"# HTTP status codes", "| 404 | Not Found |", "| 503 | Service Unavailable |"}},
		{"cdocs:///signals", "text/markdown", []string{"| SIGKILL | 9 | Term |", "| SIGCHLD | 17 | Ign |", "(`Ctrl-\\`)"}},
		{"cdocs:///ascii", "text/plain", []string{"Dec  Hx Oct Chr", "  0  00 000 NUL", " 65  41 101 A", "127  7F 177 DEL"}},
		{"cdocs:///json-escapes", "text/markdown", []string{"| quotation mark \" | `\\\"` |", "日本語"}},
		{"CDOCS:///ascii", "text/plain", []string{"ASCII"}}, // schemes are case-insensitive
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			res, err := p.Read(t.Context(), tt.uri)
			require.NoError(t, err)
			require.Len(t, res.Contents, 1)
			c := res.Contents[0]
			require.Equal(t, strings.ToLower(tt.uri), c.URI)
			require.Equal(t, tt.mime, c.MIMEType)
			require.NotNil(t, c.Text)
			require.Nil(t, c.Blob)
			for _, s := range tt.contains {
				require.Contains(t, *c.Text, s)
			}
		})
	}
}

func TestCGuestReadBench1K(t *testing.T) {
	p := loadCdocs(t, nil)
	text := readText(t, p, "cdocs:///bench-1k")
	require.Len(t, text, 1024)
	require.Equal(t, 16, strings.Count(text, "\n"))
}

func TestCGuestReadBlob(t *testing.T) {
	p := loadCdocs(t, nil)
	res, err := p.Read(t.Context(), "cdocs:///crc32-table")
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	c := res.Contents[0]
	require.Equal(t, "application/octet-stream", c.MIMEType)
	require.Nil(t, c.Text)
	require.NotNil(t, c.Blob)
	got, err := base64.StdEncoding.Strict().DecodeString(*c.Blob)
	require.NoError(t, err)
	want := make([]byte, 0, 1024)
	for _, v := range crc32.MakeTable(crc32.IEEE) {
		want = binary.LittleEndian.AppendUint32(want, v)
	}
	require.Equal(t, want, got)
}

func TestCGuestReadNotFound(t *testing.T) {
	p := loadCdocs(t, nil)
	for _, uri := range []string{
		"cdocs:///nope",
		"cdocs:///motd", // exists only when the operator grants motd
		"cdocs:///",
		"cdocs:ascii",
		"cdocs:///ascii?x=1",
	} {
		t.Run(uri, func(t *testing.T) {
			_, err := p.Read(t.Context(), uri)
			require.ErrorIs(t, err, abi.ErrNotFound)
		})
	}
	_, err := p.Read(t.Context(), "cdocs://host/ascii")
	require.ErrorIs(t, err, abi.ErrBadInput, "a root without authority does not own URIs with one")
}

// TestCGuestNotFoundEchoesName checks the JSON reader (Go escapes <, > and &
// in the input as \u003c...) and the escaper (the message holds quotes and
// backslashes) end to end: the name comes back in the error message intact.
func TestCGuestNotFoundEchoesName(t *testing.T) {
	p := loadCdocs(t, nil)
	name := `a"b\c<d>e&f/é日本😀`
	_, err := p.Read(t.Context(), "cdocs:///"+name)
	require.ErrorIs(t, err, abi.ErrNotFound)
	require.Contains(t, err.Error(), `no cdocs document named "`+name+`"`)
}

// TestCGuestLog checks mcpw_log and its formatter through the real host.
func TestCGuestLog(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := loadCdocsWith(t, runtime.NewConfig().WithLogger(logger), nil)
	_, err := p.Read(t.Context(), "cdocs:///"+strings.Repeat("x", 100))
	require.ErrorIs(t, err, abi.ErrNotFound)
	require.Contains(t, logs.String(), `read: no document named \"`+strings.Repeat("x", 64)+`\""`)
	require.Contains(t, logs.String(), "provider=cdocs")
}

func TestCGuestComplete(t *testing.T) {
	p := loadCdocs(t, map[string]string{"motd": "hi"})
	tests := []struct {
		arg, value string
		want       []string
	}{
		{"name", "", append(append([]string{}, cdocsNames...), "motd")},
		{"name", "s", []string{"signals"}},
		{"name", "c", []string{"crc32-table"}},
		{"name", "m", []string{"motd"}},
		{"name", "zz", []string{}},
		{"name", "<", []string{}},
		{"other", "", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.arg+"="+tt.value, func(t *testing.T) {
			res, err := p.Complete(t.Context(), abi.CompleteRequest{
				Template: "cdocs:///{name}",
				Argument: abi.CompleteArgument{Name: tt.arg, Value: tt.value},
			})
			require.NoError(t, err)
			require.Equal(t, tt.want, res.Values)
			require.NotNil(t, res.Total)
			require.Equal(t, len(tt.want), *res.Total)
		})
	}
}

func TestCGuestCompleteUnknownTemplate(t *testing.T) {
	p := loadCdocs(t, nil)
	_, err := p.Complete(t.Context(), abi.CompleteRequest{
		Template: "other:///{name}",
		Argument: abi.CompleteArgument{Name: "name", Value: "a"},
	})
	require.ErrorIs(t, err, abi.ErrInvalidParams)
}

// TestCGuestJSONEscapesVector checks the static document whose last line
// holds raw quote, backslash, tab, control characters and non-ASCII.
func TestCGuestJSONEscapesVector(t *testing.T) {
	p := loadCdocs(t, nil)
	text := readText(t, p, "cdocs:///json-escapes")
	require.True(t, strings.HasSuffix(text, "\"\\\t\x01\x1f\x7fé日本語😀\n"), "last line: %q", text[strings.LastIndex(text[:len(text)-1], "\n"):])
}

// TestCGuestTextRoundTrip serves operator-chosen bytes as cdocs:///motd and
// checks they come back exactly through the SDK's JSON escaper, with each
// invalid UTF-8 byte replaced by U+FFFD (as Go's []rune conversion does).
func TestCGuestTextRoundTrip(t *testing.T) {
	var all strings.Builder
	for c := range 0x80 {
		all.WriteByte(byte(c))
	}
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	tests := []struct{ name, motd string }{
		{"quotes and backslashes", `say "hi" \ C:\path\ \"nested\"`},
		{"all ASCII incl. controls", all.String()},
		{"non-ASCII", "é ß Ω 日本語 😀 \u2028 \uffff \U0010FFFF"},
		{"escape-like text", `\u0000 \ud800 \n \"`},
		{"invalid UTF-8", "a\xffb\xc0\xafc\xed\xa0\x80d\xe6\x97 e\xf4\x90\x80\x80f\xe6\x97"},
		{"random bytes", string(random)},
		{"longer than the guest's first buffer", strings.Repeat("0123456789\x00\"\\é", 100)},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := loadCdocs(t, map[string]string{"motd": tt.motd})
			require.Equal(t, string([]rune(tt.motd)), readText(t, p, "cdocs:///motd"))
		})
	}
}

// TestCGuestNoLeak runs many calls on one warm instance: a C SDK or cdocs
// leak would grow linear memory, and any fault would replace the instance.
func TestCGuestNoLeak(t *testing.T) {
	p := loadCdocs(t, map[string]string{"motd": strings.Repeat("m", 1000)})
	ctx := t.Context()
	for i := range 2000 {
		_, err := p.List(ctx, "")
		require.NoError(t, err)
		_, err = p.Read(ctx, "cdocs:///"+cdocsNames[i%len(cdocsNames)])
		require.NoError(t, err)
		_, err = p.Read(ctx, "cdocs:///motd")
		require.NoError(t, err)
		_, err = p.Read(ctx, "cdocs:///missing")
		require.ErrorIs(t, err, abi.ErrNotFound)
		_, err = p.Complete(ctx, abi.CompleteRequest{Template: "cdocs:///{name}", Argument: abi.CompleteArgument{Name: "name", Value: "s"}})
		require.NoError(t, err)
	}
	st := p.Stats()
	require.Zero(t, st.Faults)
	require.Equal(t, uint64(1), st.Instantiated)
	require.LessOrEqual(t, st.MemoryHigh, uint32(256<<10), "linear memory grew: a leak")
}

func BenchmarkCGuestRead1K(b *testing.B) {
	wasm, err := os.ReadFile(testguest.C(b, "cdocs", "guests/c/mcpw.c", "guests/cdocs/cdocs.c"))
	require.NoError(b, err)
	ctx := b.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	require.NoError(b, err)
	defer rt.Close(ctx)
	p, err := rt.Load(ctx, "cdocs", wasm, testkit.Limits(runtime.NewProviderConfig()))
	require.NoError(b, err)
	defer p.Close(ctx)
	b.ReportAllocs()
	for b.Loop() {
		res, err := p.Read(ctx, "cdocs:///bench-1k")
		if err != nil || len(*res.Contents[0].Text) != 1024 {
			b.Fatalf("read: %v", err)
		}
	}
}
