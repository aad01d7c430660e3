package filesprov

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

var png = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

func TestReadContents(t *testing.T) {
	root := tree(t, map[string]string{
		"doc.md": "# hi\n", "empty.txt": "", "img.png": png, "noext": "plain words\n",
		"blob": "\x00\x01\x02", "latin1.txt": "caf\xe9", "dir/deep.json": `{"a":1}`, "sniffed": png,
	})
	tests := []struct {
		name, uri, mime string
		text, blob      *string
	}{
		{"markdown", "file:///data/doc.md", "text/markdown", new("# hi\n"), nil},
		{"empty text", "file:///data/empty.txt", "text/plain", new(""), nil},
		{"png", "file:///data/img.png", "image/png", nil, new("iVBORw0KGgoAAAANSUhEUg==")},
		{"unknown type, text", "file:///data/noext", "", new("plain words\n"), nil},
		{"unknown type, binary", "file:///data/blob", "", nil, new("AAEC")},
		{"unknown type, a PNG", "file:///data/sniffed", "", nil, new("iVBORw0KGgoAAAANSUhEUg==")},
		{"text type but not UTF-8", "file:///data/latin1.txt", "text/plain", nil, new("Y2Fm6Q==")},
		{"nested", "file:///data/dir/deep.json", "application/json", new(`{"a":1}`), nil},
		{"escaped", "file:///data/dir/deep%2Ejson", "application/json", new(`{"a":1}`), nil},
	}
	h := newHarness(t, root, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := h.read(tt.uri).Contents[0]
			require.Equal(t, tt.mime, c.MIMEType)
			require.Equal(t, tt.text, c.Text)
			require.Equal(t, tt.blob, c.Blob)
			require.Equal(t, "2026-11-21T12:00:00Z", c.Annotations.LastModified)
			require.True(t, strings.HasPrefix(c.URI, "file:///data/"))
		})
	}
}

func TestReadSizeCap(t *testing.T) {
	root := tree(t, map[string]string{"big.txt": strings.Repeat("x", 100), "small.txt": "x"})
	tests := []struct {
		name   string
		config map[string]string
		uri    string
		code   string
		msg    string
	}{
		{"over configured cap", map[string]string{keyMaxFileBytes: "99"}, "file:///data/big.txt", abi.CodeInvalidParams,
			`file "/data/big.txt" is 100 bytes, over the 99-byte read limit: raise the files provider's max_file_bytes to 100 or more (serve --config-value max_file_bytes=SIZE, or grants.config in a config file)`},
		{"spaces around the cap", map[string]string{keyMaxFileBytes: " 99\t"}, "file:///data/big.txt", abi.CodeInvalidParams, "over the 99-byte read limit"},
		{"bad config", map[string]string{keyMaxFileBytes: "lots"}, "file:///data/small.txt", abi.CodeInternal, "set it to a positive integer"},
		{"zero config", map[string]string{keyMaxFileBytes: "0"}, "file:///data/small.txt", abi.CodeInternal, "set it to a positive integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newHarness(t, root, tt.config).fail(abi.OpRead, abi.ReadRequest{URI: tt.uri})
			require.Equal(t, tt.code, e.Code)
			require.Contains(t, e.Message, tt.msg)
		})
	}
	h := newHarness(t, root, map[string]string{keyMaxFileBytes: "100"})
	require.Len(t, *h.read("file:///data/big.txt").Contents[0].Text, 100, "a file exactly at the cap is read")
}

func TestReadDefaultCap(t *testing.T) {
	root := tree(t, map[string]string{"big.bin": strings.Repeat("x", defaultMaxFileBytes+1)})
	e := newHarness(t, root, nil).fail(abi.OpRead, abi.ReadRequest{URI: "file:///data/big.bin"})
	require.Equal(t, abi.CodeInvalidParams, e.Code)
}

func TestReadRefuses(t *testing.T) {
	root := tree(t, map[string]string{"a/b.txt": "b", ".secret": "s", ".git/HEAD": "ref", "ok.txt": "ok"})
	require.NoError(t, os.Symlink(filepath.Join(root, "ok.txt"), filepath.Join(root, "link.txt")))
	require.NoError(t, os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "linkdir")))
	require.NoError(t, os.Symlink("/etc", filepath.Join(root, "etc")))
	tests := []struct {
		uri  string
		code string
	}{
		{"file:///data/missing.txt", abi.CodeNotFound},
		{"file:///data/a", abi.CodeNotFound},
		{"file:///data/a/b.txt/c", abi.CodeNotFound},
		{"file:///data/link.txt", abi.CodeNotFound},
		{"file:///data/linkdir/b.txt", abi.CodeNotFound},
		{"file:///data/etc/passwd", abi.CodeNotFound},
		{"file:///data/.secret", abi.CodeNotFound},
		{"file:///data/.git/HEAD", abi.CodeNotFound},
		{"file:///data/../etc/passwd", abi.CodeInvalidParams},
		{"file:///data/a/../ok.txt", abi.CodeInvalidParams},
		{"file:///data/a/%2e%2E/ok.txt", abi.CodeInvalidParams},
		{"file:///data/a%2Fb.txt", abi.CodeInvalidParams},
		{"file:///data/a%2fb.txt", abi.CodeInvalidParams},
		{"file:///data/a%5Cb.txt", abi.CodeInvalidParams},
		{"file:///data/a\\b.txt", abi.CodeInvalidParams},
		{"file:///data/ok.txt%00", abi.CodeInvalidParams},
		{"file:///data/a//b.txt", abi.CodeInvalidParams},
		{"file:///data/./ok.txt", abi.CodeInvalidParams},
		{"file:///data/", abi.CodeInvalidParams},
		{"file:///", abi.CodeInvalidParams},
		{"file:///data", abi.CodeNotFound},
		{"file:///elsewhere/ok.txt", abi.CodeNotFound},
		{"file:///datax/ok.txt", abi.CodeNotFound},
		{"file:///data/ok.txt?x=1", abi.CodeInvalidParams},
		{"file:///data/ok.txt#top", abi.CodeInvalidParams},
		{"file:///data/%zz", abi.CodeInvalidParams},
		{"file://host/ok.txt", abi.CodeInvalidParams},
		{"other:///ok.txt", abi.CodeInvalidParams},
	}
	h := newHarness(t, root, nil)
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			require.Equal(t, tt.code, h.fail(abi.OpRead, abi.ReadRequest{URI: tt.uri}).Code)
		})
	}
	shown := newHarness(t, root, map[string]string{keyShowHidden: "true"})
	require.Equal(t, "s", *shown.read("file:///data/.secret").Contents[0].Text)
}

// ioErrFS fails every Lstat and every open but the root's with an I/O
// error, as the host's mount does for a file it cannot reach.
type ioErrFS struct{ fs.FS }

func (ioErrFS) Lstat(name string) (fs.FileInfo, error) {
	return nil, &fs.PathError{Op: "lstat", Path: name, Err: errors.New("I/O error")}
}

func (f ioErrFS) Open(name string) (fs.File, error) {
	if name == "." {
		return f.FS.Open(name)
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("I/O error")}
}

func (f ioErrFS) ReadLink(name string) (string, error) { return fs.ReadLink(f.FS, name) }

func TestReadUnreachableIsNotFound(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "a"})
	h := newHarness(t, root, nil)
	h.p.roots[0].fsys = ioErrFS{os.DirFS(root)}
	require.Equal(t, abi.CodeNotFound, h.fail(abi.OpRead, abi.ReadRequest{URI: "file:///data/a.txt"}).Code)
	require.Len(t, h.host.Logs(), 1, "the unexpected error is logged for the operator")
	require.Contains(t, h.host.Logs()[0].Message, "I/O error")
}
