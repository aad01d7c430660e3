package egress

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/textsafe"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// fetchEnvelope is what a request's JSON may add to its body: URL, headers.
const fetchEnvelope = abi.MaxURILength + abi.MaxFetchHeaders*(abi.MaxFetchHeaderName+abi.MaxFetchHeaderValue) + 1024

// Fetch performs the n-th request of a call, raw (a FetchRequest's
// JSON), and returns the FetchResponse's JSON for http_read. Past
// abi.MaxFetchesPerCall requests it sends nothing and answers FetchLimit.
func (e *egress) Fetch(ctx context.Context, raw []byte, n int) []byte {
	if n > abi.MaxFetchesPerCall {
		return encodeFetch(fetchErr(abi.FetchLimit, fmt.Sprintf("more than %d requests in one call", abi.MaxFetchesPerCall)))
	}
	return encodeFetch(e.fetch(ctx, raw))
}

// fetch decodes, checks and performs one request; every failure becomes a
// FetchResponse with an Error, logged for the operator.
func (e *egress) fetch(ctx context.Context, raw []byte) *abi.FetchResponse {
	if len(raw) > e.maxReq+fetchEnvelope {
		return e.refuse(nil, fetchErr(abi.FetchTooLarge, fmt.Sprintf("request is %d bytes, over the %d-byte request cap", len(raw), e.maxReq)))
	}
	var fr abi.FetchRequest
	if err := abi.Decode(raw, &fr); err != nil {
		return e.refuse(nil, fetchErr(abi.FetchInvalid, "request: "+err.Error()))
	}
	if err := fr.Validate(); err != nil {
		return e.refuse(nil, fetchErr(abi.FetchInvalid, "request: "+err.Error()))
	}
	u, _ := url.Parse(fr.URL) // Validate parsed it
	u.Fragment, u.RawFragment = "", ""
	method := cmp.Or(fr.Method, http.MethodGet)
	if len(fr.Body) > e.maxReq {
		return e.refuse(u, fetchErr(abi.FetchTooLarge, fmt.Sprintf("request body is %d bytes, over the %d-byte cap", len(fr.Body), e.maxReq)))
	}
	if err := e.check(method, u); err != nil {
		return e.refuse(u, fetchErr(abi.FetchDenied, method+" "+redact(u)+" refused: "+err.Error()))
	}
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if e.timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, e.timeout)
	}
	defer cancel()
	resp, err := e.do(rctx, method, u, fr)
	if err != nil {
		return e.refuse(u, e.classify(ctx, rctx, method, u, err))
	}
	return resp
}

// do sends the request and reads at most maxResp bytes of the body.
func (e *egress) do(ctx context.Context, method string, u *url.URL, fr abi.FetchRequest) (*abi.FetchResponse, error) {
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(fr.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	// The URL sent is u rendered and parsed again: check that one, so what
	// is checked is what goes on the wire (redirects are checked by the
	// client's CheckRedirect, on the URL they will send).
	if err := e.check(method, req.URL); err != nil {
		return nil, err
	}
	for k, v := range fr.Headers {
		req.Header.Set(k, v)
	}
	res, err := e.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, int64(e.maxResp)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > e.maxResp {
		return nil, &tooLargeError{limit: e.maxResp}
	}
	out := &abi.FetchResponse{Status: res.StatusCode, Headers: responseHeaders(res.Header)}
	if textBody(b) {
		out.Body = string(b)
	} else {
		out.BodyBase64 = base64.StdEncoding.EncodeToString(b)
	}
	return out, nil
}

type tooLargeError struct{ limit int }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("response body over the %d-byte cap: raise the grant's max response size or fetch less", e.limit)
}

// classify turns a failed request into an error payload whose message
// carries no URL query, header value or body.
func (e *egress) classify(ctx, rctx context.Context, method string, u *url.URL, err error) *abi.FetchResponse {
	var denied *deniedError
	var big *tooLargeError
	var ue *url.Error
	switch {
	case errors.As(err, &denied):
		return fetchErr(abi.FetchDenied, method+" "+redact(u)+" refused: "+denied.msg)
	case errors.As(err, &big):
		return fetchErr(abi.FetchTooLarge, method+" "+redact(u)+": "+big.Error())
	case ctx.Err() == nil && rctx.Err() != nil:
		return fetchErr(abi.FetchTimeout, fmt.Sprintf("%s %s: no complete response within the grant's %s timeout", method, redact(u), e.timeout))
	case errors.As(err, &ue):
		err = ue.Err
	}
	return fetchErr(abi.FetchNetwork, method+" "+redact(u)+": "+textsafe.Sanitize(err.Error(), 300))
}

// refuse logs a failed request for the operator and returns resp.
func (e *egress) refuse(u *url.URL, resp *abi.FetchResponse) *abi.FetchResponse {
	level := "warn"
	if resp.Error.Code == abi.FetchNetwork || resp.Error.Code == abi.FetchTimeout {
		level = "info"
	}
	args := []any{"code", resp.Error.Code, "reason", resp.Error.Message}
	if u != nil {
		args = append(args, "url", redact(u))
	}
	if level == "warn" {
		e.log().Warn("http_fetch refused", args...)
	} else {
		e.log().Info("http_fetch failed", args...)
	}
	return resp
}

func fetchErr(code, msg string) *abi.FetchResponse {
	return &abi.FetchResponse{Error: &abi.FetchError{Code: code, Message: msg}}
}

// responseHeaders lower-cases names and joins repeated values, keeping at
// most abi.MaxFetchHeaders headers (in name order).
func responseHeaders(h http.Header) map[string]string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(map[string]string, min(len(names), abi.MaxFetchHeaders))
	for _, k := range names[:min(len(names), abi.MaxFetchHeaders)] {
		out[strings.ToLower(k)] = strings.Join(h[k], ", ")
	}
	return out
}

// textBody reports whether b goes to the guest as a JSON string: it is
// UTF-8 and escaping at most doubles it (JSON, HTML, plain text do), which
// keeps what the host holds under twice the response cap. Otherwise the
// body goes as base64 (4/3 of it).
func textBody(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	grow := 0
	for _, c := range b {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			grow++
		case c < 0x20:
			grow += 5
		}
	}
	return grow <= len(b)
}

// encodeFetch renders the payload the guest reads with http_read.
func encodeFetch(r *abi.FetchResponse) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r) // strings and ints only: cannot fail
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
