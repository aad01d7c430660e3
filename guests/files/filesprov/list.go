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
	// cursorPrefix marks a list cursor: "p:" + the escaped guest path of
	// the last file returned. Naming the last file, not an offset, keeps
	// paging correct while files come and go.
	cursorPrefix = "p:"
)

// List returns one page of regular files: the roots in order, each in
// walk order.
func (f *files) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	if len(f.roots) == 0 {
		return nil, errNoRoots()
	}
	start, after, err := f.decodeCursor(cursor)
	if err != nil {
		return nil, err
	}
	ctx, done := withSkipLog(ctx)
	defer done()
	if cursor == "" {
		for _, p := range f.skipped {
			logSkip(ctx, mcpw.LevelWarn, "skip granted directory %s: its path is not absolute and clean UTF-8 without a backslash, or too long to list anything", p)
		}
	}
	opts := readOptions(ctx)
	res := &abi.ListResult{Resources: make([]abi.Resource, 0, 64)}
	var last *root
	lastRel, more := "", false
	for i := start; i < len(f.roots) && !more; i++ {
		r := f.roots[i]
		from := ""
		if i == start {
			from = after
		}
		err := f.walkAfter(ctx, opts, r, from, func(rel string, d fs.DirEntry) bool {
			if len(res.Resources) == f.pageSize {
				more = true
				return false
			}
			if res1, ok := f.resource(ctx, r, rel, d); ok {
				res.Resources = append(res.Resources, res1)
				last, lastRel = r, rel
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	if more && last != nil {
		res.NextCursor = cursorPrefix + last.escFull(lastRel)
	}
	return res, nil
}

// decodeCursor returns the index of the root a cursor resumes in and the
// file in it to resume after.
func (f *files) decodeCursor(cursor string) (int, string, error) {
	if cursor == "" {
		return 0, "", nil
	}
	bad := mcpw.InvalidParams("unknown cursor: pass back a nextCursor from list unchanged")
	escaped, ok := strings.CutPrefix(cursor, cursorPrefix+"/")
	if !ok {
		return 0, "", bad
	}
	p, err := unescapePath(escaped)
	if err != nil {
		return 0, "", bad
	}
	r, rel := f.rootOf("/" + p)
	if r == nil || rel == "." {
		return 0, "", bad
	}
	for i, x := range f.roots {
		if x == r {
			return i, rel, nil
		}
	}
	return 0, "", bad
}

// resource describes one file; ok is false if it vanished or is no longer
// a regular file.
func (f *files) resource(ctx context.Context, r *root, rel string, d fs.DirEntry) (abi.Resource, bool) {
	info, err := d.Info()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		logSkip(ctx, mcpw.LevelDebug, "skip %s: gone since its directory was read", r.full(rel))
		return abi.Resource{}, false
	case err != nil:
		logSkip(ctx, mcpw.LevelWarn, "skip %s: %v", r.full(rel), unwrapPath(err))
		return abi.Resource{}, false
	case !info.Mode().IsRegular():
		logSkip(ctx, mcpw.LevelInfo, "skip %s: now a %s, not a regular file", r.full(rel), kindOf(info.Mode()))
		return abi.Resource{}, false
	}
	res := abi.Resource{
		URI:      r.uri(rel),
		Name:     rel,
		MIMEType: mimeType(rel),
		Size:     new(info.Size()),
	}
	if lm := timestamp(info.ModTime()); lm != "" {
		res.Annotations = &abi.Annotations{LastModified: lm}
	}
	return res, true
}

// timestamp renders t as RFC 3339 in UTC, or "" when it cannot be (years
// outside 1..9999, or the zero time).
func timestamp(t time.Time) string {
	if t.IsZero() || t.Year() < 1 || t.Year() > 9999 {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
