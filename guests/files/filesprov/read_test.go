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
		{"markdown", "file:///doc.md", "text/markdown", new("# hi\n"), nil},
		{"empty text", "file:///empty.txt", "text/plain", new(""), nil},
		{"png", "file:///img.png", "image/png", nil, new("iVBORw0KGgoAAAANSUhEUg==")},
		{"sniffed text", "file:///noext", "text/plain", new("plain words\n"), nil},
		{"sniffed binary", "file:///blob", "application/octet-stream", nil, new("AAEC")},
		{"sniffed png", "file:///sniffed", "image/png", nil, new("iVBORw0KGgoAAAANSUhEUg==")},
		{"text type but not UTF-8", "file:///latin1.txt", "text/plain", nil, new("Y2Fm6Q==")},
		{"nested", "file:///dir/deep.json", "application/json", new(`{"a":1}`), nil},
		{"escaped", "file:///dir/deep%2Ejson", "application/json", new(`{"a":1}`), nil},
	}
	h := newHarness(t, root, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := h.read(tt.uri).Contents[0]
			require.Equal(t, tt.mime, c.MIMEType)
			require.Equal(t, tt.text, c.Text)
			require.Equal(t, tt.blob, c.Blob)
			require.Equal(t, "2026-11-21T12:00:00Z", c.Annotations.LastModified)
			require.True(t, strings.HasPrefix(c.URI, "file:///"))
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
		{"over configured cap", map[string]string{keyMaxFileBytes: "99"}, "file:///big.txt", abi.CodeInvalidParams, "raise max_file_bytes"},
		{"bad config", map[string]string{keyMaxFileBytes: "lots"}, "file:///small.txt", abi.CodeInternal, "set it to a positive integer"},
		{"zero config", map[string]string{keyMaxFileBytes: "0"}, "file:///small.txt", abi.CodeInternal, "set it to a positive integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newHarness(t, root, tt.config).fail(abi.OpRead, abi.ReadRequest{URI: tt.uri})
			require.Equal(t, tt.code, e.Code)
			require.Contains(t, e.Message, tt.msg)
		})
	}
	h := newHarness(t, root, map[string]string{keyMaxFileBytes: "100"})
	require.Len(t, *h.read("file:///big.txt").Contents[0].Text, 100, "a file exactly at the cap is read")
}

func TestReadDefaultCap(t *testing.T) {
	root := tree(t, map[string]string{"big.bin": strings.Repeat("x", defaultMaxFileBytes+1)})
	e := newHarness(t, root, nil).fail(abi.OpRead, abi.ReadRequest{URI: "file:///big.bin"})
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
		{"file:///missing.txt", abi.CodeNotFound},
		{"file:///a", abi.CodeNotFound},
		{"file:///a/b.txt/c", abi.CodeNotFound},
		{"file:///link.txt", abi.CodeNotFound},
		{"file:///linkdir/b.txt", abi.CodeNotFound},
		{"file:///etc/passwd", abi.CodeNotFound},
		{"file:///.secret", abi.CodeNotFound},
		{"file:///.git/HEAD", abi.CodeNotFound},
		{"file:///../etc/passwd", abi.CodeInvalidParams},
		{"file:///a/../ok.txt", abi.CodeInvalidParams},
		{"file:///a/%2e%2E/ok.txt", abi.CodeInvalidParams},
		{"file:///a%2Fb.txt", abi.CodeInvalidParams},
		{"file:///a%2fb.txt", abi.CodeInvalidParams},
		{"file:///a%5Cb.txt", abi.CodeInvalidParams},
		{"file:///a\\b.txt", abi.CodeInvalidParams},
		{"file:///ok.txt%00", abi.CodeInvalidParams},
		{"file:///a//b.txt", abi.CodeInvalidParams},
		{"file:///./ok.txt", abi.CodeInvalidParams},
		{"file:///", abi.CodeInvalidParams},
		{"file:///ok.txt?x=1", abi.CodeInvalidParams},
		{"file:///ok.txt#top", abi.CodeInvalidParams},
		{"file:///%zz", abi.CodeInvalidParams},
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
	require.Equal(t, "s", *shown.read("file:///.secret").Contents[0].Text)
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
	h.p.fsys = ioErrFS{os.DirFS(root)}
	require.Equal(t, abi.CodeNotFound, h.fail(abi.OpRead, abi.ReadRequest{URI: "file:///a.txt"}).Code)
	require.Len(t, h.host.Logs(), 1, "the unexpected error is logged for the operator")
	require.Contains(t, h.host.Logs()[0].Message, "I/O error")
}
