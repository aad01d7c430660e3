package filesprov

import (
	"context"
	"io/fs"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Templates returns one template per root, file:///ROOT/{+path}.
func (f *files) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	if len(f.roots) == 0 {
		return nil, errNoRoots()
	}
	if cursor != "" {
		return nil, mcpw.InvalidParams("unknown cursor: templates has a single page")
	}
	res := &abi.TemplatesResult{ResourceTemplates: make([]abi.ResourceTemplate, 0, len(f.roots))}
	for _, r := range f.roots[:min(len(f.roots), abi.MaxListItems)] {
		res.ResourceTemplates = append(res.ResourceTemplates, abi.ResourceTemplate{
			URITemplate: r.template(),
			Name:        "file",
			Title:       "A file under " + r.path,
			Description: "A file under " + r.path + ", by its path relative to it; complete the path argument to browse.",
		})
	}
	return res, nil
}

// Complete completes the path argument of a root's template: the entries
// of the directory the value names so far whose names start with its last
// segment, directories with a trailing "/".
func (f *files) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if len(f.roots) == 0 {
		return nil, errNoRoots()
	}
	if req.Argument.Name != "path" {
		return nil, mcpw.InvalidParams("no such argument: the file template takes path")
	}
	var r *root
	for _, x := range f.roots {
		if x.template() == req.Template {
			r = x
			break
		}
	}
	if r == nil {
		return nil, mcpw.InvalidParams("no such template: complete the path of a template this provider lists")
	}
	dir, partial := "", req.Argument.Value
	if i := strings.LastIndexByte(partial, '/'); i >= 0 {
		dir, partial = partial[:i], partial[i+1:]
	}
	opts := readOptions(ctx)
	var values []string
	if dir == "" || r.isDir(opts, dir) {
		values = f.dirCompletions(ctx, opts, r, dir, partial)
	}
	return capCompletions(values), nil
}

// isDir reports whether dir is a visible, valid path of a real directory.
func (r *root) isDir(opts options, dir string) bool {
	if !fs.ValidPath(dir) || strings.ContainsAny(dir, "\\\x00") || !opts.visiblePath(dir) {
		return false
	}
	info, err := r.lstatChain(dir)
	return err == nil && info.IsDir()
}

func (f *files) dirCompletions(ctx context.Context, opts options, r *root, dir, partial string) []string {
	readFrom, prefix := ".", ""
	if dir != "" {
		readFrom, prefix = dir, dir+"/"
	}
	ctx, done := withSkipLog(ctx)
	defer done()
	entries, err := f.readDir(ctx, r, readFrom)
	if err != nil {
		return nil
	}
	var values []string
	for _, e := range entries {
		name := e.Name()
		long := len(prefix)+len(name)+1 > abi.MaxTextField
		if long || !strings.HasPrefix(name, partial) || !opts.visible(name) || !utf8.ValidString(name) || strings.Contains(name, "\\") {
			continue
		}
		switch {
		case e.IsDir():
			values = append(values, prefix+name+"/")
		case e.Type().IsRegular():
			values = append(values, prefix+name)
		}
	}
	sort.Strings(values)
	return values
}

func capCompletions(values []string) *abi.CompleteResult {
	total := len(values)
	if values == nil {
		values = []string{}
	}
	if len(values) > abi.MaxCompletionValues {
		values = values[:abi.MaxCompletionValues]
	}
	return &abi.CompleteResult{Values: values, Total: new(total), HasMore: total > len(values)}
}
