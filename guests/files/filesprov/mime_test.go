package filesprov

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMIMEType(t *testing.T) {
	tests := map[string]string{
		"a.md": "text/markdown", "dir/B.PNG": "image/png", "x.tar.gz": "application/gzip",
		"Makefile": "text/plain", "sub/LICENSE": "text/plain", "a.unknownext": "", ".bashrc": "", "noext": "",
		"a.\u212at": "", // the Kelvin sign is not "k": only ASCII letters fold
	}
	for name, want := range tests {
		require.Equal(t, want, mimeType(name), name)
	}
}

func TestIsText(t *testing.T) {
	tests := []struct {
		name, mime, data string
		want             bool
	}{
		{"empty", "", "", true},
		{"text", "", "hello\tworld\r\n\f\x1b[0m", true},
		{"utf-8", "", "héllo 日本", true},
		{"nul", "", "ab\x00cd", false},
		{"control", "", "a\x01", false},
		{"control after 512 bytes", "", strings.Repeat("a", 512) + "\x01", true},
		{"latin-1", "", "caf\xe9 au lait", false},
		{"textual type", "text/plain", "a\x01", true},
		{"textual type, not UTF-8", "text/plain", "caf\xe9", false},
		{"binary type", "image/png", "plain", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, isText(tt.mime, []byte(tt.data)))
		})
	}
}

func TestIsTextType(t *testing.T) {
	for m, want := range map[string]bool{
		"text/plain": true, "application/json": true, "image/svg+xml": true, "application/ld+json": true,
		"image/png": false, "application/octet-stream": false, "application/pdf": false,
	} {
		require.Equal(t, want, isTextType(m), m)
	}
}
