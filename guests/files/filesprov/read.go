package filesprov

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Read returns one file: text when its type is textual and its bytes are
// UTF-8, else a base64 blob.
func (f *files) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	rel, err := relFromURI(uri)
	if err != nil {
		return nil, err
	}
	if !readOptions(ctx).visiblePath(rel) {
		return nil, mcpw.NotFound("no file %q (hidden files are not served unless %s is true)", rel, keyShowHidden)
	}
	limit, err := maxFileBytes(ctx)
	if err != nil {
		return nil, err
	}
	data, info, err := f.readFile(ctx, rel, limit)
	if err != nil {
		return nil, err
	}
	mime := mimeByExtension(rel)
	if mime == "" {
		mime = sniff(data)
	}
	var c abi.Content
	if isTextType(mime) && utf8.Valid(data) {
		c = mcpw.Text(uriFor(rel), mime, string(data))
	} else {
		c = mcpw.Blob(uriFor(rel), mime, data)
	}
	if lm := timestamp(info.ModTime()); lm != "" {
		c.Annotations = &abi.Annotations{LastModified: lm}
	}
	return &abi.ReadResult{Contents: []abi.Content{c}}, nil
}

// readFile reads a regular file of at most limit bytes. Missing files,
// directories, links and special files are not_found.
func (f *files) readFile(ctx context.Context, rel string, limit int64) ([]byte, fs.FileInfo, error) {
	info, err := f.lstatChain(rel)
	if err != nil {
		return nil, nil, statError(ctx, rel, err)
	}
	if err := checkRegular(rel, info, limit); err != nil {
		return nil, nil, err
	}
	file, err := f.fsys.Open(rel)
	if err != nil {
		return nil, nil, statError(ctx, rel, err)
	}
	defer file.Close()
	info, err = file.Stat() // the file actually opened
	if err != nil {
		return nil, nil, statError(ctx, rel, err)
	}
	if err := checkRegular(rel, info, limit); err != nil {
		return nil, nil, err
	}
	// Size the buffer from the stat so a read is one or two fd_read calls,
	// not io.ReadAll's doubling from 512 bytes.
	buf := bytes.NewBuffer(make([]byte, 0, min(info.Size(), limit)+1))
	_, err = buf.ReadFrom(io.LimitReader(file, limit+1))
	data := buf.Bytes()
	if err != nil {
		return nil, nil, mcpw.Internal("read %q: %v", rel, err)
	}
	if int64(len(data)) > limit {
		return nil, nil, tooLarge(rel, int64(len(data)), limit)
	}
	return data, info, nil
}

func checkRegular(rel string, info fs.FileInfo, limit int64) error {
	switch {
	case info.IsDir():
		return mcpw.NotFound("%q is a directory, not a file", rel)
	case !info.Mode().IsRegular():
		return mcpw.NotFound("%q is a %s, not a regular file (links and special files are not served)", rel, kindOf(info.Mode()))
	case info.Size() > limit:
		return tooLarge(rel, info.Size(), limit)
	}
	return nil
}

func tooLarge(rel string, size, limit int64) error {
	return mcpw.InvalidParams("file %q is %d bytes or more, over the %d-byte limit: ask the operator to raise %s", rel, size, limit, keyMaxFileBytes)
}

// statError maps a failure to reach a file to not_found. Errors other than
// "does not exist" are logged: the host's mount answers a link that leaves
// the granted directory with an I/O error and a special file (named pipe,
// socket, device) with "operation not permitted", and a client should see
// such a file as absent, not as a provider failure.
func statError(ctx context.Context, rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errLink):
		return mcpw.NotFound("no file %q: %v", rel, unwrapPath(err))
	case errors.Is(err, fs.ErrPermission):
		mcpw.Logf(ctx, mcpw.LevelInfo, "cannot read %q: %v: it is a special file (named pipe, socket or device), which the host refuses, or a file the host cannot read", rel, unwrapPath(err))
		return mcpw.NotFound("no regular file %q that can be read (special files are not served)", rel)
	default:
		mcpw.Logf(ctx, mcpw.LevelWarn, "cannot reach %q: %v", rel, unwrapPath(err))
	}
	return mcpw.NotFound("no file %q", rel)
}
