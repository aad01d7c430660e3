package filesprov

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"
)

// extensionTypes maps lower-case extensions to MIME types. It is a fixed
// table, not mime.TypeByExtension, so results do not depend on the
// machine's /etc/mime.types (which the sandbox does not have anyway).
var extensionTypes = map[string]string{
	".txt": "text/plain", ".text": "text/plain", ".log": "text/plain", ".ini": "text/plain",
	".cfg": "text/plain", ".conf": "text/plain", ".md": "text/markdown", ".markdown": "text/markdown",
	".rst": "text/x-rst", ".adoc": "text/asciidoc", ".html": "text/html", ".htm": "text/html",
	".css": "text/css", ".csv": "text/csv", ".tsv": "text/tab-separated-values",
	".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript",
	".ts": "text/x-typescript", ".tsx": "text/x-typescript", ".jsx": "text/javascript",
	".json": "application/json", ".jsonl": "application/jsonl", ".xml": "application/xml",
	".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".go": "text/x-go", ".mod": "text/plain", ".sum": "text/plain", ".c": "text/x-c", ".h": "text/x-c",
	".cc": "text/x-c++", ".cpp": "text/x-c++", ".hpp": "text/x-c++", ".py": "text/x-python",
	".rs": "text/x-rust", ".java": "text/x-java", ".kt": "text/x-kotlin", ".rb": "text/x-ruby",
	".php": "text/x-php", ".swift": "text/x-swift", ".sh": "application/x-sh", ".bash": "application/x-sh",
	".sql": "application/sql", ".wat": "text/plain", ".proto": "text/plain", ".tex": "text/x-tex",
	".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".ico": "image/vnd.microsoft.icon", ".bmp": "image/bmp",
	".avif": "image/avif", ".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip",
	".tar": "application/x-tar", ".wasm": "application/wasm", ".mp3": "audio/mpeg", ".wav": "audio/wav",
	".ogg": "audio/ogg", ".mp4": "video/mp4", ".webm": "video/webm", ".woff": "font/woff",
	".woff2": "font/woff2", ".ttf": "font/ttf", ".bin": "application/octet-stream",
}

// mimeByExtension returns the MIME type of a file name from its
// extension, or "" when unknown.
func mimeByExtension(name string) string {
	return extensionTypes[strings.ToLower(path.Ext(name))]
}

// magic numbers of common binary formats, checked by sniff.
var magic = []struct {
	prefix string
	mime   string
}{
	{"\x89PNG\r\n\x1a\n", "image/png"},
	{"\xff\xd8\xff", "image/jpeg"},
	{"GIF87a", "image/gif"},
	{"GIF89a", "image/gif"},
	{"%PDF-", "application/pdf"},
	{"PK\x03\x04", "application/zip"},
	{"\x1f\x8b", "application/gzip"},
	{"\x00asm", "application/wasm"},
}

// sniff guesses the MIME type of data from its first bytes: a known magic
// number, else text/plain for UTF-8 text, else application/octet-stream.
// (net/http.DetectContentType would pull net/http into the guest.)
func sniff(data []byte) string {
	for _, m := range magic {
		if bytes.HasPrefix(data, []byte(m.prefix)) {
			return m.mime
		}
	}
	if len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP" {
		return "image/webp"
	}
	if looksText(data[:min(len(data), 512)]) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// looksText reports whether head is UTF-8 without NUL or binary control
// characters. A rune cut off at the end of head is tolerated.
func looksText(head []byte) bool {
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 {
			return len(head)-i < utf8.UTFMax && !utf8.FullRune(head[i:])
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != 0x1b {
			return false
		}
		i += n
	}
	return true
}

// isTextType reports whether a MIME type is served as text when the bytes
// are valid UTF-8.
func isTextType(mime string) bool {
	switch {
	case strings.HasPrefix(mime, "text/"), strings.HasSuffix(mime, "+xml"), strings.HasSuffix(mime, "+json"):
		return true
	}
	switch mime {
	case "application/json", "application/jsonl", "application/xml", "application/yaml", "application/toml",
		"application/x-sh", "application/sql", "application/javascript":
		return true
	}
	return false
}
