package gitprov

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/git/gitobj"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// headRef is the name the list uses for the default branch: the branch
// HEAD names, short ("main"), or HEAD when it is detached.
func headRef(g *gitobj.Repo) (string, gitobj.ID, error) {
	branch, id, err := g.Head()
	if err != nil {
		return "", id, err
	}
	if short, ok := strings.CutPrefix(branch, "refs/heads/"); ok {
		return short, id, nil
	}
	return "HEAD", id, nil
}

// headFiles returns the files at the tip of the default branch, cached by
// the tree they come from.
func (r *repo) headFiles() (string, []gitobj.FileEntry, error) {
	ref, id, err := headRef(r.git)
	if err != nil {
		return "", nil, err
	}
	c, err := r.git.Commit(id)
	if err != nil {
		return "", nil, err
	}
	if r.filesOf != c.Tree || r.files == nil {
		files, err := r.git.Walk(c.Tree, "")
		if err != nil {
			return "", nil, err
		}
		r.filesOf, r.files = c.Tree, files
	}
	return ref, r.files, nil
}

// List pages through, per repository: its refs, and at the default
// branch its tree, log and last commit, then every file. The cursor is
// "REPO-INDEX.OFFSET".
func (p *Provider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	if err := p.setup(ctx); err != nil {
		return nil, err
	}
	ri, off, err := parseCursor(cursor, len(p.repos))
	if err != nil {
		return nil, err
	}
	res := &abi.ListResult{Resources: []abi.Resource{}}
	for ; ri < len(p.repos); ri, off = ri+1, 0 {
		r := p.repos[ri]
		ref, files, err := r.headFiles()
		total := len(summaries) + len(files)
		switch {
		case errors.Is(err, gitobj.ErrNotFound):
			// An unborn branch (a repository without commits yet) or a
			// HEAD naming a ref that is gone: only the refs are listed.
			total = 1
		case err != nil:
			return nil, classify(err)
		}
		if off > total {
			return nil, mcpw.InvalidParams("cursor past the end")
		}
		// Only the page's resources are built: a listing of a large tree
		// would not fit in a guest's memory as Resource values.
		end := min(off+pageSize-len(res.Resources), total)
		for i := off; i < end; i++ {
			res.Resources = append(res.Resources, r.resource(ref, files, i))
		}
		if end < total {
			res.NextCursor = strconv.Itoa(ri) + "." + strconv.Itoa(end)
			return res, nil
		}
	}
	return res, nil
}

// summaries are the resources listed before a repository's files.
var summaries = []string{kindRefs, kindTree, kindLog, kindCommit}

// resource is the i-th resource a repository lists: a summary, then its
// files at ref.
func (r *repo) resource(ref string, files []gitobj.FileEntry, i int) abi.Resource {
	if i < len(summaries) {
		switch summaries[i] {
		case kindRefs:
			return abi.Resource{URI: "git://" + r.name + "/refs", Name: r.name + " refs", MIMEType: "text/plain", Description: "every branch and tag and the commit it names"}
		case kindTree:
			return abi.Resource{URI: refURI(r.name, kindTree, ref, ""), Name: r.name + " tree at " + ref, MIMEType: "text/plain", Description: "every file at " + ref + ", as git ls-tree -r"}
		case kindLog:
			return abi.Resource{URI: refURI(r.name, kindLog, ref, ""), Name: r.name + " log of " + ref, MIMEType: "text/plain"}
		default:
			return abi.Resource{URI: refURI(r.name, kindCommit, ref, ""), Name: r.name + " last commit on " + ref, MIMEType: "text/x-diff", Description: "metadata, message and diff against its first parent"}
		}
	}
	f := files[i-len(summaries)]
	res := abi.Resource{URI: refURI(r.name, kindBlob, ref, f.Path), Name: strings.ToValidUTF8(f.Path, "\uFFFD")}
	switch f.Mode {
	case gitobj.ModeSymlink:
		res.Description = "symbolic link"
	case gitobj.ModeGitlink:
		res.Description = "submodule at " + f.ID.String()
	}
	return res
}

func parseCursor(c string, repos int) (int, int, error) {
	if c == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(c, ".")
	ri, err1 := strconv.Atoi(a)
	off, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || ri < 0 || ri >= repos || off <= 0 || strconv.Itoa(ri)+"."+strconv.Itoa(off) != c {
		return 0, 0, mcpw.InvalidParams("bad cursor")
	}
	return ri, off, nil
}

// Templates gives, per repository, a template for each kind.
func (p *Provider) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	if err := p.setup(ctx); err != nil {
		return nil, err
	}
	if cursor != "" {
		return nil, mcpw.InvalidParams("bad cursor")
	}
	res := &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{}}
	for _, r := range p.repos {
		base := "git://" + r.name + "/"
		res.ResourceTemplates = append(res.ResourceTemplates,
			abi.ResourceTemplate{URITemplate: base + "blob/{ref}/{+path}", Name: r.name + " file at a ref", Description: "a file at a branch, tag or commit"},
			abi.ResourceTemplate{URITemplate: base + "tree/{ref}", Name: r.name + " tree at a ref", MIMEType: "text/plain"},
			abi.ResourceTemplate{URITemplate: base + "tree/{ref}/{+path}", Name: r.name + " directory at a ref", MIMEType: "text/plain"},
			abi.ResourceTemplate{URITemplate: base + "log/{ref}", Name: r.name + " log", MIMEType: "text/plain"},
			abi.ResourceTemplate{URITemplate: base + "commit/{ref}", Name: r.name + " commit", MIMEType: "text/x-diff"},
		)
	}
	return res, nil
}
