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

// Read returns one file: text when its type is textual (or unknown and its
// bytes look like text) and its bytes are UTF-8, else a blob; its MIME type
// is the one list gives.
func (f *files) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	if len(f.roots) == 0 {
		return nil, errNoRoots()
	}
	r, rel, full, err := f.locate(uri)
	switch {
	case err != nil:
		return nil, err
	case rel == ".":
		return nil, mcpw.NotFound(`"%s" is a directory, not a file`, full)
	case !readOptions(ctx).visiblePath(rel):
		return nil, mcpw.NotFound(`no file "%s" (hidden files are not served unless %s is true)`, full, keyShowHidden)
	}
	limit, err := maxFileBytes(ctx)
	if err != nil {
		return nil, err
	}
	data, info, err := readFile(ctx, r, rel, limit)
	if err != nil {
		return nil, err
	}
	mime := mimeType(rel)
	var c abi.Content
	if isText(mime, data) {
		c = mcpw.Text(r.uri(rel), mime, string(data))
	} else {
		c = mcpw.Blob(r.uri(rel), mime, data)
	}
	if lm := timestamp(info.ModTime()); lm != "" {
		c.Annotations = &abi.Annotations{LastModified: lm}
	}
	return &abi.ReadResult{Contents: []abi.Content{c}}, nil
}

// readFile reads a regular file of at most limit bytes. Missing files,
// directories, links and special files are not_found.
func readFile(ctx context.Context, r *root, rel string, limit int64) ([]byte, fs.FileInfo, error) {
	full := r.full(rel)
	info, err := r.lstatChain(rel)
	if err != nil {
		return nil, nil, statError(ctx, full, err)
	}
	if err := checkRegular(full, info, limit); err != nil {
		return nil, nil, err
	}
	file, err := r.fsys.Open(rel)
	if err != nil {
		return nil, nil, statError(ctx, full, err)
	}
	defer file.Close()
	info, err = file.Stat() // the file actually opened
	if err != nil {
		return nil, nil, statError(ctx, full, err)
	}
	if err := checkRegular(full, info, limit); err != nil {
		return nil, nil, err
	}
	// Size the buffer from the stat so a read is one or two fd_read calls,
	// not io.ReadAll's doubling from 512 bytes.
	buf := bytes.NewBuffer(make([]byte, 0, min(info.Size(), limit)+1))
	_, err = buf.ReadFrom(io.LimitReader(file, limit+1))
	data := buf.Bytes()
	if err != nil {
		mcpw.Logf(ctx, mcpw.LevelWarn, "read %s: %v", full, err)
		return nil, nil, mcpw.Internal(`reading "%s" failed: try again`, full)
	}
	if int64(len(data)) > limit {
		return nil, nil, mcpw.InvalidParams(`file "%s" grew past the %d-byte read limit while it was read: %s`, full, limit, raiseCap("a larger size"))
	}
	return data, info, nil
}

func checkRegular(full string, info fs.FileInfo, limit int64) error {
	switch {
	case info.IsDir():
		return mcpw.NotFound(`"%s" is a directory, not a file`, full)
	case !info.Mode().IsRegular():
		return mcpw.NotFound(`"%s" is a %s, not a regular file (links and special files are not served)`, full, kindOf(info.Mode()))
	case info.Size() > limit:
		return mcpw.InvalidParams(`file "%s" is %d bytes, over the %d-byte read limit: %s`, full, info.Size(), limit, raiseCap(itoa(info.Size())))
	}
	return nil
}

// raiseCap names the setting that raises the read cap, to at least size.
func raiseCap(size string) string {
	return "raise the files provider's " + keyMaxFileBytes + " to " + size + " or more (serve --config-value " + keyMaxFileBytes + "=SIZE, or grants.config in a config file)"
}

// statError maps a failure to reach a file to not_found. Errors other than
// "does not exist" are logged: the host's mount answers a link that leaves
// the granted directory with an I/O error and a special file (named pipe,
// socket, device) with "operation not permitted", and a client should see
// such a file as absent, not as a provider failure.
func statError(ctx context.Context, full string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errLink):
		return mcpw.NotFound(`no file "%s": %v`, full, errLink)
	case errors.Is(err, fs.ErrPermission):
		mcpw.Logf(ctx, mcpw.LevelInfo, "cannot read %s: %v: it is a special file (named pipe, socket or device), which the host refuses, or a file the host cannot read", full, unwrapPath(err))
		return mcpw.NotFound(`no regular file "%s" that can be read (special files are not served)`, full)
	default:
		mcpw.Logf(ctx, mcpw.LevelWarn, "cannot reach %s: %v", full, unwrapPath(err))
	}
	return mcpw.NotFound(`no file "%s"`, full)
}

// isText reports whether data is served as text: its type is textual, or
// unknown and its first 512 bytes hold no binary control characters; and
// it is valid UTF-8.
func isText(mime string, data []byte) bool {
	if mime == "" {
		return looksText(data[:min(len(data), 512)]) && utf8.Valid(data)
	}
	return isTextType(mime) && utf8.Valid(data)
}
