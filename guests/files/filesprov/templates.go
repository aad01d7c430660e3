package filesprov

import (
	"context"
	"io/fs"
	"sort"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Templates returns the single template file:///{+path}.
func (f *files) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	if cursor != "" {
		return nil, mcpw.InvalidParams("unknown cursor: templates has a single page")
	}
	return &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{{
		URITemplate: uriPrefix + "{+path}",
		Name:        "file",
		Title:       "A file by path",
		Description: "A file under the granted directory, by its path relative to it; complete the path argument to browse.",
	}}}, nil
}

// Complete completes the path argument: the entries of the directory the
// value names so far whose names start with its last segment, directories
// with a trailing "/".
func (f *files) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if req.Argument.Name != "path" {
		return nil, mcpw.InvalidParams("no argument %q: the file template takes path", req.Argument.Name)
	}
	dir, partial := "", req.Argument.Value
	if i := strings.LastIndexByte(partial, '/'); i >= 0 {
		dir, partial = partial[:i], partial[i+1:]
	}
	opts := readOptions(ctx)
	var values []string
	if dir == "" || f.isDir(opts, dir) {
		values = f.dirCompletions(ctx, opts, dir, partial)
	}
	return capCompletions(values), nil
}

// isDir reports whether dir is a visible, valid path of a real directory.
func (f *files) isDir(opts options, dir string) bool {
	if !fs.ValidPath(dir) || strings.ContainsAny(dir, "\\\x00") || !opts.visiblePath(dir) {
		return false
	}
	info, err := f.lstatChain(dir)
	return err == nil && info.IsDir()
}

func (f *files) dirCompletions(ctx context.Context, opts options, dir, partial string) []string {
	readFrom, prefix := ".", ""
	if dir != "" {
		readFrom, prefix = dir, dir+"/"
	}
	ctx, done := withSkipLog(ctx)
	defer done()
	entries, err := f.readDir(ctx, readFrom)
	if err != nil {
		return nil
	}
	var values []string
	for _, e := range entries {
		name := e.Name()
		long := len(prefix)+len(name)+1 > abi.MaxTextField
		if long || !strings.HasPrefix(name, partial) || !opts.visible(name) || !utf8Name(name) {
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

func utf8Name(s string) bool { return strings.ToValidUTF8(s, "") == s }

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
