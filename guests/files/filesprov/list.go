package filesprov

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

const (
	// pageSize is the number of resources per list page by default.
	pageSize = 500
	// cursorPrefix marks a list cursor: "p:" + the escaped path of the last
	// file returned. Naming the last file, not an offset, keeps paging
	// correct while files come and go.
	cursorPrefix = "p:"
)

// List returns one page of regular files in walk order.
func (f *files) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	after, err := decodeCursor(cursor)
	if err != nil {
		return nil, err
	}
	ctx, done := withSkipLog(ctx)
	defer done()
	res := &abi.ListResult{Resources: make([]abi.Resource, 0, 64)}
	last, more := "", false
	err = f.walkAfter(ctx, readOptions(ctx), after, func(rel string, d fs.DirEntry) bool {
		if len(res.Resources) == f.pageSize {
			more = true
			return false
		}
		if r, ok := f.resource(ctx, rel, d); ok {
			res.Resources = append(res.Resources, r)
			last = rel
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if more {
		res.NextCursor = cursorPrefix + escapePath(last)
	}
	return res, nil
}

func decodeCursor(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	escaped, ok := strings.CutPrefix(cursor, cursorPrefix)
	if !ok {
		return "", mcpw.InvalidParams("unknown cursor: pass back a nextCursor from list unchanged")
	}
	rel, err := unescapePath(escaped)
	if err != nil {
		return "", mcpw.InvalidParams("unknown cursor: pass back a nextCursor from list unchanged")
	}
	return rel, nil
}

// resource describes one file; ok is false if it vanished or is no longer
// a regular file.
func (f *files) resource(ctx context.Context, rel string, d fs.DirEntry) (abi.Resource, bool) {
	info, err := d.Info()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		logSkip(ctx, mcpw.LevelDebug, "skip %s: gone since its directory was read", rel)
		return abi.Resource{}, false
	case err != nil:
		logSkip(ctx, mcpw.LevelWarn, "skip %s: %v", rel, unwrapPath(err))
		return abi.Resource{}, false
	case !info.Mode().IsRegular():
		logSkip(ctx, mcpw.LevelInfo, "skip %s: now a %s, not a regular file", rel, kindOf(info.Mode()))
		return abi.Resource{}, false
	}
	r := abi.Resource{
		URI:      uriFor(rel),
		Name:     rel,
		MIMEType: mimeByExtension(rel),
		Size:     new(info.Size()),
	}
	if lm := timestamp(info.ModTime()); lm != "" {
		r.Annotations = &abi.Annotations{LastModified: lm}
	}
	return r, true
}

// timestamp renders t as RFC 3339 in UTC, or "" when it cannot be (years
// outside 1..9999, or the zero time).
func timestamp(t time.Time) string {
	if t.IsZero() || t.Year() < 1 || t.Year() > 9999 {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
