package mcpw

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Error is a domain error with an ABI code. Build one with NotFound,
// InvalidParams or Internal; it may be wrapped (fmt.Errorf with %w) and the
// SDK still finds its code. Any other error a provider returns is sent as
// code "internal".
type Error struct {
	Code    string // abi.CodeNotFound, abi.CodeInvalidParams or abi.CodeInternal
	Message string
}

func (e *Error) Error() string { return e.Message }

// NotFound reports that the requested resource does not exist.
func NotFound(format string, args ...any) error {
	return &Error{Code: abi.CodeNotFound, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams reports a request the provider cannot accept (a malformed
// URI, an unknown cursor, an unsupported argument).
func InvalidParams(format string, args ...any) error {
	return &Error{Code: abi.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// Internal reports a failure inside the provider.
func Internal(format string, args ...any) error {
	return &Error{Code: abi.CodeInternal, Message: fmt.Sprintf(format, args...)}
}

// toABIError maps any error to the payload sent with abi.StatusError. The
// message is the whole error chain, made valid UTF-8 and cut to
// abi.MaxTextField bytes at a rune boundary.
func toABIError(err error) abi.Error {
	code := abi.CodeInternal
	var e *Error
	if errors.As(err, &e) {
		switch e.Code {
		case abi.CodeNotFound, abi.CodeInvalidParams, abi.CodeInternal:
			code = e.Code
		}
	}
	return abi.Error{Code: code, Message: clip(err.Error(), abi.MaxTextField)}
}

// clip makes s valid UTF-8 and at most max bytes, cutting at a rune boundary.
func clip(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
