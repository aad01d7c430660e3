package filesprov

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Root is a directory the provider serves: the guest path it is mounted
// at (absolute and clean; its real path unless the operator mapped it) and
// its files.
type Root struct {
	Path string
	FS   fs.FS
}

// root is a Root in use, with its escaped path.
type root struct {
	path string
	esc  string // escapeAbs(path); "" for "/"
	fsys fs.FS
}

// maxEscapedPath bounds the escaped guest path of a listed file, so that
// its cursor ("p:" + escaped path) fits abi.MaxCursorLength. Longer paths
// are not listed.
const maxEscapedPath = abi.MaxCursorLength - len(cursorPrefix)

// makeRoots keeps the roots whose paths can name files (absolute, clean,
// UTF-8, no backslash or NUL, short enough to list something), sorted by
// path, each once; it returns the paths of the others.
func makeRoots(in []Root) (roots []*root, skipped []string) {
	for _, r := range in {
		p := r.Path
		esc := escapeAbs(p)
		if !strings.HasPrefix(p, "/") || path.Clean(p) != p || !utf8.ValidString(p) || strings.ContainsAny(p, "\\\x00") || len(esc) >= maxEscapedPath {
			skipped = append(skipped, p)
			continue
		}
		if p == "/" {
			esc = ""
		}
		roots = append(roots, &root{path: p, esc: esc, fsys: r.FS})
	}
	sort.SliceStable(roots, func(i, j int) bool { return roots[i].path < roots[j].path })
	out := roots[:0]
	for i, r := range roots {
		if i == 0 || r.path != roots[i-1].path {
			out = append(out, r)
		}
	}
	return out, skipped
}

// full is the guest path of rel ("." is the root itself).
func (r *root) full(rel string) string {
	switch {
	case rel == ".":
		return r.path
	case r.path == "/":
		return "/" + rel
	}
	return r.path + "/" + rel
}

// escFull is the escaped guest path of rel.
func (r *root) escFull(rel string) string { return r.esc + "/" + escapePath(rel) }

// uri is the file:// URI of rel.
func (r *root) uri(rel string) string { return uriPrefix + r.escFull(rel) }

// template is the root's URI template.
func (r *root) template() string { return uriPrefix + r.esc + "/{+path}" }

// rootOf finds the root a clean absolute guest path lies in (the longest
// such root: the host may mount a directory beside files of its parent)
// and the path below it, "." for the root itself.
func (f *files) rootOf(full string) (*root, string) {
	var best *root
	rel := ""
	for _, r := range f.roots {
		var rest string
		switch {
		case full == r.path:
			rest = "."
		case r.path == "/":
			rest = full[1:]
		case strings.HasPrefix(full, r.path+"/"):
			rest = full[len(r.path)+1:]
		default:
			continue
		}
		if best == nil || len(r.path) > len(best.path) {
			best, rel = r, rest
		}
	}
	return best, rel
}

// escapePath escapes each segment of a relative slash path for a URI.
func escapePath(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// escapeAbs escapes an absolute slash path.
func escapeAbs(p string) string { return "/" + escapePath(strings.TrimPrefix(p, "/")) }

// unescapePath is the inverse of escapePath. It rejects what could smuggle
// a path out of a root or confuse one: empty, "." and ".." segments,
// encoded separators (%2F, %5C), backslashes and NUL, escaped or not.
func unescapePath(escaped string) (string, error) {
	if escaped == "" {
		return "", mcpw.InvalidParams("empty path")
	}
	if strings.ContainsAny(escaped, "\\\x00") {
		return "", mcpw.InvalidParams("path contains a backslash or NUL")
	}
	upper := strings.ToUpper(escaped)
	for _, bad := range []string{"%2F", "%5C", "%00"} {
		if strings.Contains(upper, bad) {
			return "", mcpw.InvalidParams("path contains an encoded separator or NUL (%s)", bad)
		}
	}
	segs := strings.Split(escaped, "/")
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			return "", mcpw.InvalidParams("path segment %d has a bad escape", i+1)
		}
		if u == "" || u == "." || u == ".." {
			return "", mcpw.InvalidParams("path has an empty, '.' or '..' segment")
		}
		segs[i] = u
	}
	rel := strings.Join(segs, "/")
	if !fs.ValidPath(rel) {
		return "", mcpw.InvalidParams("path is not valid UTF-8")
	}
	return rel, nil
}

// locate returns the root, relative path and guest path a file:// URI
// names.
func (f *files) locate(uri string) (*root, string, string, error) {
	rest, ok := strings.CutPrefix(uri, uriPrefix+"/")
	if !ok {
		return nil, "", "", mcpw.InvalidParams("not a file URI of this provider: want file:///{path}")
	}
	if strings.ContainsAny(rest, "?#") {
		return nil, "", "", mcpw.InvalidParams("file URIs take no query or fragment")
	}
	p, err := unescapePath(rest)
	if err != nil {
		return nil, "", "", err
	}
	full := "/" + p
	r, rel := f.rootOf(full)
	if r == nil {
		return nil, "", "", mcpw.NotFound(`no file "%s": it is in no granted directory`, full)
	}
	return r, rel, full, nil
}

// DirRoot is a host directory as a native host of the provider serves it
// (benchmarks, a native anchor): at its real absolute path in slash form,
// as mcp-wasm mounts a grant, so its URIs are the directory's real file://
// URIs (C:\Users\me is /C:/Users/me). It resolves symlinks in dir.
func DirRoot(dir string) (Root, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return Root{}, fmt.Errorf("resolve served directory: %w: serve an existing directory", err)
	}
	p := filepath.ToSlash(real)
	if vol := filepath.VolumeName(real); vol != "" {
		p = "/" + p
	}
	return Root{Path: path.Clean(p), FS: os.DirFS(real)}, nil
}
