package filesprov

import (
	"path"
	"strconv"
	"strings"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

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

// fileNames maps file names without a telling extension to MIME types:
// names that are text by convention.
var fileNames = map[string]string{
	"Makefile": "text/plain", "makefile": "text/plain", "GNUmakefile": "text/plain", "Dockerfile": "text/plain",
	"README": "text/plain", "LICENSE": "text/plain", "COPYING": "text/plain", "NOTICE": "text/plain",
	"AUTHORS": "text/plain", "CHANGELOG": "text/plain", "CONTRIBUTING": "text/plain", "TODO": "text/plain",
}

// mimeType returns the MIME type of a file from its name: its extension
// (ASCII case ignored), or a conventional name; "" when unknown. List and
// read both give this, so they agree.
func mimeType(rel string) string {
	name := path.Base(rel)
	if t, ok := fileNames[name]; ok {
		return t
	}
	return extensionTypes[lowerASCII(path.Ext(name))]
}

// lowerASCII lowers ASCII letters only (strings.ToLower would also turn
// the Kelvin sign into "k").
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// looksText reports whether head holds no NUL or binary control
// characters (tab, line ends, form feed and escape are text).
func looksText(head []byte) bool {
	for _, c := range head {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b {
			return false
		}
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
