package filesprov

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMIMEByExtension(t *testing.T) {
	tests := map[string]string{
		"a.md": "text/markdown", "dir/B.PNG": "image/png", "x.tar.gz": "application/gzip",
		"Makefile": "", "a.unknownext": "", ".bashrc": "",
	}
	for name, want := range tests {
		require.Equal(t, want, mimeByExtension(name), name)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "text/plain"},
		{"text", "hello\tworld\r\n", "text/plain"},
		{"utf-8", "héllo 日本", "text/plain"},
		{"png", png, "image/png"},
		{"pdf", "%PDF-1.7", "application/pdf"},
		{"wasm", "\x00asm\x01\x00\x00\x00", "application/wasm"},
		{"webp", "RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"},
		{"nul", "ab\x00cd", "application/octet-stream"},
		{"latin-1", "caf\xe9 au lait", "application/octet-stream"},
		{"rune cut at 512", string(make([]byte, 0)) + repeat("a", 511) + "é", "text/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, sniff([]byte(tt.data)))
		})
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

func TestIsTextType(t *testing.T) {
	for m, want := range map[string]bool{
		"text/plain": true, "application/json": true, "image/svg+xml": true, "application/ld+json": true,
		"image/png": false, "application/octet-stream": false, "application/pdf": false,
	} {
		require.Equal(t, want, isTextType(m), m)
	}
}
