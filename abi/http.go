package abi

import (
	"net/url"
	"strings"
)

// Outbound HTTP: the additive mcpw_v1 imports linked only for providers the
// operator granted http (ABI.md §4.4). The guest writes a FetchRequest into
// its memory and calls http_fetch; the host checks it against the grant,
// performs it, and holds the FetchResponse until the guest copies it out with
// http_read (or calls http_fetch again, or the call ends).
const (
	ImportHTTPFetch = "http_fetch"
	ImportHTTPRead  = "http_read"
)

// Fixed bounds of a FetchRequest; the operator's grant may be tighter.
const (
	// MaxFetchHeaders bounds the headers of a request and of a response.
	MaxFetchHeaders = 64
	// MaxFetchHeaderName and MaxFetchHeaderValue bound one header.
	MaxFetchHeaderName  = 128
	MaxFetchHeaderValue = 8 << 10
	// MaxFetchesPerCall bounds http_fetch calls in one operation call.
	MaxFetchesPerCall = 32
)

// Fetch error codes (FetchError.Code).
const (
	// FetchDenied: the operator's grant does not allow this request (scheme,
	// host, port, path, method, header, an ambiguous path, a forbidden
	// address after DNS, or a redirect to any of those or to a URL with
	// userinfo).
	FetchDenied = "denied"
	// FetchInvalid: the request is malformed (bad JSON, bad URL, bad header).
	FetchInvalid = "invalid"
	// FetchTooLarge: the request body or the response body is over its cap.
	FetchTooLarge = "too_large"
	// FetchTimeout: the per-request timeout of the grant passed (the call's
	// own deadline traps the call instead).
	FetchTimeout = "timeout"
	// FetchNetwork: DNS, connection, TLS or protocol failure.
	FetchNetwork = "network"
	// FetchLimit: more than MaxFetchesPerCall requests in one call.
	FetchLimit = "limit"
)

// FetchRequest is what a guest passes to http_fetch. Method is GET, HEAD or
// POST (only if the grant allows it; default GET). Body is sent as is (text
// only) and only with POST. Headers the host controls (Host,
// Content-Length, Connection, Transfer-Encoding, ...) are refused.
type FetchRequest struct {
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// FetchResponse is what http_read copies to the guest: either an HTTP
// response (Status, Headers with lower-case names, and the body as Body when
// it is UTF-8 text that JSON escaping at most doubles, else as BodyBase64,
// standard padded base64; neither when empty), or an Error saying why there
// is none. Any HTTP status, including 4xx and 5xx, is a response.
type FetchResponse struct {
	Status     int               `json:"status,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	Body       string            `json:"body,omitempty"`
	BodyBase64 string            `json:"bodyBase64,omitempty"`
	Error      *FetchError       `json:"error,omitempty"`
}

// FetchError says why http_fetch produced no response. Message is written
// by the host for the provider author and the operator; it never contains
// header values, the request body or the URL's query.
type FetchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// controlledHeaders are set by the host's HTTP client; a guest may not set them.
var controlledHeaders = map[string]bool{
	"host": true, "content-length": true, "connection": true, "transfer-encoding": true,
	"te": true, "trailer": true, "upgrade": true, "keep-alive": true, "proxy-connection": true,
	"proxy-authorization": true, "expect": true,
}

// Validate checks a request's shape: method, an absolute http(s) URL without
// userinfo or fragment, header names and values, and a body only with POST.
// Whether the operator allows it is the host's policy, not this.
func (r *FetchRequest) Validate() error {
	switch r.Method {
	case "", "GET", "HEAD":
		if r.Body != "" {
			return invalid("a body is allowed only with POST")
		}
	case "POST":
	default:
		return invalid("method must be GET, HEAD or POST")
	}
	if len(r.URL) > MaxURILength {
		return invalid("url longer than %d bytes", MaxURILength)
	}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return invalid("url must be an absolute http or https URL")
	}
	if u.User != nil || u.Fragment != "" || strings.Contains(r.URL, "#") {
		return invalid("url must not contain userinfo or a fragment")
	}
	return validateFetchHeaders(r.Headers)
}

func validateFetchHeaders(h map[string]string) error {
	if len(h) > MaxFetchHeaders {
		return invalid("more than %d headers", MaxFetchHeaders)
	}
	for name, value := range h {
		if name == "" || len(name) > MaxFetchHeaderName || !isToken(name) {
			return invalid("header name must be 1-%d token characters", MaxFetchHeaderName)
		}
		lower := strings.ToLower(name)
		if controlledHeaders[lower] || strings.HasPrefix(lower, "proxy-") {
			return invalid("header %s is set by the host", lower)
		}
		if len(value) > MaxFetchHeaderValue || strings.ContainsAny(value, "\r\n\x00") {
			return invalid("header %s: value longer than %d bytes or with CR, LF or NUL", lower, MaxFetchHeaderValue)
		}
	}
	return nil
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}
