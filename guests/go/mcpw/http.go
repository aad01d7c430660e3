package mcpw

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Fetcher is a Host that can make outbound HTTP requests. In a wasm guest
// the SDK uses the mcpw_v1.http_fetch import; natively, put a Host that
// also implements Fetcher in the context with WithHost to serve Fetch in
// tests.
type Fetcher interface {
	Fetch(req abi.FetchRequest) (*abi.FetchResponse, error)
}

// ErrNoHTTP is returned by Fetch natively when the context's Host is not a
// Fetcher.
var ErrNoHTTP = errors.New("mcpw: outbound HTTP is not available here (use WithHost with a Fetcher)")

// FetchError is the host's reason for not answering a request: Code is
// one of abi.FetchDenied, FetchInvalid, FetchTooLarge, FetchTimeout,
// FetchNetwork or FetchLimit. Message says what was refused and why; it is
// written by the host, never by the server at the other end.
type FetchError struct {
	Code    string
	Message string
}

func (e *FetchError) Error() string { return "http " + e.Code + ": " + e.Message }

// Response is an HTTP response from Fetch. Any status is a Response, not
// an error. Header names are lower case; repeated headers are joined with
// ", ".
type Response struct {
	Status int
	Header map[string]string
	Body   []byte
}

// Fetch sends req through the host, which sends it only if the operator's
// http grant allows its method, scheme, host, port and path (and every
// redirect, and the address it connects to). A module that calls Fetch
// imports mcpw_v1.http_fetch, so it loads only where the operator granted
// http; declare the prefixes you need in Describe().Requests.HTTP.
func Fetch(ctx context.Context, req abi.FetchRequest) (*Response, error) {
	var raw *abi.FetchResponse
	var err error
	if f, ok := hostFrom(ctx).(Fetcher); ok {
		raw, err = f.Fetch(req)
	} else {
		raw, err = platformFetch(req)
	}
	if err != nil {
		return nil, err
	}
	return toResponse(raw)
}

// Get fetches url with GET and the given headers (may be nil).
func Get(ctx context.Context, url string, headers map[string]string) (*Response, error) {
	return Fetch(ctx, abi.FetchRequest{Method: "GET", URL: url, Headers: headers})
}

func toResponse(raw *abi.FetchResponse) (*Response, error) {
	if raw.Error != nil {
		return nil, &FetchError{Code: raw.Error.Code, Message: raw.Error.Message}
	}
	if raw.Status == 0 {
		return nil, errors.New("mcpw: host returned neither a response nor an error")
	}
	r := &Response{Status: raw.Status, Header: raw.Headers, Body: []byte(raw.Body)}
	if raw.BodyBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(raw.BodyBase64)
		if err != nil {
			return nil, fmt.Errorf("mcpw: host response body: %w", err)
		}
		r.Body = b
	}
	return r, nil
}
