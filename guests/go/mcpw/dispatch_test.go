package mcpw

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// decodeOK runs Dispatch, requires StatusOK, and strictly decodes the output
// into v exactly as the host does.
func decodeOK(t *testing.T, ctx context.Context, p Provider, op, input string, v any) []byte {
	t.Helper()
	status, out := Dispatch(ctx, p, op, []byte(input))
	require.Equal(t, abi.StatusOK, status, "output: %s", out)
	require.NoError(t, abi.Decode(out, v), "output: %s", out)
	return out
}

// decodeErr runs Dispatch, requires StatusError, and returns the error payload.
func decodeErr(t *testing.T, ctx context.Context, p Provider, op, input string) abi.Error {
	t.Helper()
	status, out := Dispatch(ctx, p, op, []byte(input))
	require.Equal(t, abi.StatusError, status, "output: %s", out)
	var e abi.Error
	require.NoError(t, abi.Decode(out, &e), "output: %s", out)
	require.NoError(t, e.Validate())
	return e
}

var space = abi.URISpace{{Scheme: "fake"}}

func TestDispatchDescribeFillsOperations(t *testing.T) {
	tests := []struct {
		name string
		p    Provider
		want []string
	}{
		{"all", &fake{}, abi.Operations},
		{"list only", listOnly{&fake{}}, []string{abi.OpList}},
		{"declared subset", &fake{ops: []string{abi.OpRead}}, []string{abi.OpRead}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d abi.Describe
			decodeOK(t, context.Background(), tt.p, OpDescribe, "{}", &d)
			require.NoError(t, d.Validate())
			require.Equal(t, tt.want, d.Operations)
		})
	}
}

func TestDispatchDescribeRejectsUnimplementedOperation(t *testing.T) {
	e := decodeErr(t, context.Background(), listOnly{&fake{ops: []string{abi.OpList, abi.OpRead}}}, OpDescribe, "{}")
	require.Equal(t, abi.CodeInternal, e.Code)
	require.Contains(t, e.Message, `"read"`)
}

func TestDispatchList(t *testing.T) {
	var page abi.ListResult
	decodeOK(t, context.Background(), &fake{}, abi.OpList, "{}", &page)
	require.NoError(t, page.Validate(space))
	require.Equal(t, "p2", page.NextCursor)
	require.Len(t, page.Resources, 1)

	out := decodeOK(t, context.Background(), &fake{}, abi.OpList, `{"cursor":"p2"}`, &page)
	require.JSONEq(t, `{"resources":[]}`, string(out), "a nil slice is sent as []")
}

func TestDispatchTemplates(t *testing.T) {
	var r abi.TemplatesResult
	decodeOK(t, context.Background(), &fake{}, abi.OpTemplates, "", &r)
	require.NoError(t, r.Validate(space))
	require.Equal(t, "fake:///{id}", r.ResourceTemplates[0].URITemplate)
}

func TestDispatchRead(t *testing.T) {
	host := &MapHost{Values: map[string]string{"greeting": "hello <&>"}}
	ctx := WithHost(context.Background(), host)
	var r abi.ReadResult
	out := decodeOK(t, ctx, &fake{}, abi.OpRead, `{"uri":"fake:///x"}`, &r)
	require.NoError(t, r.Validate(space))
	require.Equal(t, "hello <&>", *r.Contents[0].Text)
	require.Contains(t, string(out), "<&>", "no HTML escaping")
	require.Equal(t, "AAEC", *r.Contents[1].Blob)
	require.Equal(t, []LogEntry{{Level: LevelInfo, Message: "read fake:///x"}}, host.Logs())

	out = decodeOK(t, ctx, &fake{}, abi.OpRead, `{"uri":"fake:///empty"}`, &r)
	require.Contains(t, string(out), `"text":""`)
	require.NoError(t, r.Validate(space))
}

func TestDispatchComplete(t *testing.T) {
	var r abi.CompleteResult
	decodeOK(t, context.Background(), &fake{}, abi.OpComplete, `{"template":"fake:///{id}","argument":{"name":"id","value":"a"}}`, &r)
	require.NoError(t, r.Validate())
	require.Equal(t, []string{"a1"}, r.Values)
}

func TestDispatchChanges(t *testing.T) {
	var r abi.ChangesResult
	decodeOK(t, context.Background(), &fake{}, abi.OpChanges, `{"cursor":"c","paths":["/data/a"]}`, &r)
	require.NoError(t, r.Validate(space))
	require.Equal(t, abi.ChangesResult{Cursor: "c+", Updated: []string{"fake:///a"}, ListChanged: true}, r)
}

func TestDispatchErrors(t *testing.T) {
	long := strings.Repeat("é", abi.MaxTextField)
	tests := []struct {
		name     string
		p        Provider
		op       string
		input    string
		wantCode string
		wantMsg  string
	}{
		{"not found", &fake{}, abi.OpRead, `{"uri":"other:x"}`, abi.CodeNotFound, `no resource "other:x"`},
		{"invalid params", &fake{}, abi.OpComplete, `{"argument":{"name":"zz"}}`, abi.CodeInvalidParams, `unknown argument "zz"`},
		{"internal", &fake{err: Internal("db %d down", 3)}, abi.OpList, "{}", abi.CodeInternal, "db 3 down"},
		{"wrapped", &fake{err: fmt.Errorf("load page: %w", NotFound("gone"))}, abi.OpList, "{}", abi.CodeNotFound, "load page: gone"},
		{"plain error", &fake{err: errPlain}, abi.OpList, "{}", abi.CodeInternal, "disk on fire"},
		{"bad code", &fake{err: &Error{Code: "teapot", Message: "m"}}, abi.OpList, "{}", abi.CodeInternal, "m"},
		{"panic", &fake{panicWith: "boom"}, abi.OpList, "{}", abi.CodeInternal, "list panicked: boom"},
		{"bad input", &fake{}, abi.OpRead, `{"uri":7}`, abi.CodeInvalidParams, "decode input"},
		{"undeclared op", listOnly{&fake{}}, abi.OpRead, `{"uri":"fake:///a"}`, abi.CodeInvalidParams, `"read" is not declared`},
		{"unknown op", &fake{}, "frobnicate", "{}", abi.CodeInvalidParams, `"frobnicate" is not declared`},
		{"no provider", nil, abi.OpList, "{}", abi.CodeInternal, "call mcpw.Register"},
		{"long message", &fake{err: Internal("%s", long)}, abi.OpList, "{}", abi.CodeInternal, "éé"},
		{"invalid utf-8", &fake{err: Internal("bad \xff byte")}, abi.OpList, "{}", abi.CodeInternal, "bad \uFFFD byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := decodeErr(t, context.Background(), tt.p, tt.op, tt.input)
			require.Equal(t, tt.wantCode, e.Code)
			require.Contains(t, e.Message, tt.wantMsg)
			require.LessOrEqual(t, len(e.Message), abi.MaxTextField)
		})
	}
}

func TestDispatchRejectsInvalidResults(t *testing.T) {
	tests := []struct {
		name    string
		p       *fake
		op      string
		input   string
		wantMsg string
	}{
		{"foreign uri", &fake{list: &abi.ListResult{Resources: []abi.Resource{{URI: "https://evil.example/", Name: "x"}}}}, abi.OpList, "{}", "outside"},
		{"empty contents", &fake{read: &abi.ReadResult{}}, abi.OpRead, `{"uri":"fake:///a"}`, "contents is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host := &MapHost{}
			e := decodeErr(t, WithHost(context.Background(), host), tt.p, tt.op, tt.input)
			require.Equal(t, abi.CodeInternal, e.Code)
			require.Contains(t, e.Message, tt.wantMsg)
			require.Contains(t, e.Message, "fix the provider")
			require.NotEmpty(t, host.Logs(), "a rejected result is logged")
		})
	}
}

// nilReader returns neither a result nor an error.
type nilReader struct{ fake }

func (nilReader) Read(context.Context, string) (*abi.ReadResult, error) { return nil, nil }

func TestDispatchNilResult(t *testing.T) {
	e := decodeErr(t, context.Background(), &nilReader{}, abi.OpRead, `{"uri":"fake:///a"}`)
	require.Equal(t, abi.CodeInternal, e.Code)
	require.Contains(t, e.Message, "neither a result nor an error")
}

func TestDispatchDescribeInvalid(t *testing.T) {
	e := decodeErr(t, context.Background(), badName{}, OpDescribe, "{}")
	require.Equal(t, abi.CodeInternal, e.Code)
	require.Contains(t, e.Message, "describe output is invalid")
}

type badName struct{}

func (badName) Describe() abi.Describe {
	return abi.Describe{Name: "Bad Name", Version: "1", URISpace: []abi.URIRoot{{Scheme: "x"}}}
}

func TestImplemented(t *testing.T) {
	require.Equal(t, abi.Operations, Implemented(&fake{}))
	require.Equal(t, []string{abi.OpList}, Implemented(listOnly{&fake{}}))
	require.Equal(t, []string{}, Implemented(badName{}))
}

func TestDispatchDescribeMatchesEncodingJSON(t *testing.T) {
	p := &fake{}
	status, out := Dispatch(context.Background(), p, OpDescribe, []byte("{}"))
	require.Equal(t, abi.StatusOK, status)
	d, err := checkedDescribe(p)
	require.NoError(t, err)
	require.Equal(t, string(stdJSON(t, &d)), string(out))
}

// TestHandlerReusesBuffers runs one handler the way the wasm exports do:
// the output appended to a caller's buffer, the input buffer overwritten
// after each call.
func TestHandlerReusesBuffers(t *testing.T) {
	h := newHandler(&fake{})
	ctx := context.Background()
	in := []byte(`{"uri":"fake:///x"}`)
	buf := []byte("kept")
	for range 3 {
		status, out := h.dispatch(ctx, opRead, abi.OpRead, in, buf)
		require.Equal(t, abi.StatusOK, status)
		require.Equal(t, "kept", string(out[:4]), "output is appended")
		var r abi.ReadResult
		require.NoError(t, abi.Decode(out[4:], &r))
		require.Equal(t, "fake:///x", r.Contents[0].URI)
		buf = out[:4]
	}
	status, out := h.dispatch(ctx, opRead, abi.OpRead, []byte(`{"uri":"other:x"}`), buf)
	require.Equal(t, abi.StatusError, status)
	require.Equal(t, "kept", string(out[:4]))
	require.JSONEq(t, `{"code":"not_found","message":"no resource \"other:x\""}`, string(out[4:]))
}

// panicky panics in Describe.
type panicky struct{ fake }

func (*panicky) Describe() abi.Describe { panic("no describe today") }

func TestDispatchDescribePanicSticks(t *testing.T) {
	h := newHandler(&panicky{})
	for i, want := range []string{"describe panicked: no describe today", "Describe panicked on an earlier call"} {
		status, out := h.dispatch(context.Background(), opDescribe, OpDescribe, []byte("{}"), nil)
		require.Equal(t, abi.StatusError, status, "call %d", i)
		require.Contains(t, string(out), want)
	}
}
