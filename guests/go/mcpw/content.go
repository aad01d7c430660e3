package mcpw

import (
	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Text returns a text content. s must be UTF-8 (invalid bytes are replaced
// by U+FFFD when encoded); an empty s still sends "text":"".
func Text(uri, mimeType, s string) abi.Content {
	return abi.Content{URI: uri, MIMEType: mimeType, Text: &s}
}

// Blob returns a binary content. Its bytes are handed to the host as they
// are (content_write), not base64-encoded in the guest.
func Blob(uri, mimeType string, b []byte) abi.Content {
	if b == nil {
		b = []byte{}
	}
	return abi.Content{URI: uri, MIMEType: mimeType, Data: b}
}
