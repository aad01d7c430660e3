package gitprov

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/git/gitobj"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Read returns the resource at uri.
func (p *Provider) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	if err := p.setup(ctx); err != nil {
		return nil, err
	}
	t, err := parseURI(uri)
	if err != nil {
		return nil, err
	}
	r := p.repo(t.repo)
	if r == nil {
		return nil, mcpw.NotFound("no repository %q", t.repo)
	}
	var c abi.Content
	switch t.kind {
	case kindRefs:
		c, err = p.readRefs(r, uri)
	case kindBlob:
		c, err = p.readBlob(r, uri, t)
	case kindTree:
		c, err = p.readTree(r, uri, t)
	case kindLog:
		c, err = p.readLog(r, uri, t)
	case kindCommit:
		c, err = p.readCommit(r, uri, t)
	}
	if err != nil {
		return nil, classify(err)
	}
	return &abi.ReadResult{Contents: []abi.Content{c}}, nil
}

// lfsPrefix starts every Git LFS pointer file (git-lfs spec v1).
const lfsPrefix = "version https://git-lfs.github.com/spec/v1\n"

// lfsMIME marks an LFS pointer: the text is the pointer, not the content.
const lfsMIME = "text/x-git-lfs-pointer"

func isLFSPointer(b []byte) bool {
	return len(b) < 1024 && strings.HasPrefix(string(b), lfsPrefix) && strings.Contains(string(b), "\noid sha256:")
}

func (p *Provider) readBlob(r *repo, uri string, t target) (abi.Content, error) {
	commit, err := r.git.Resolve(t.ref)
	if err != nil {
		return abi.Content{}, err
	}
	c, err := r.git.Commit(commit)
	if err != nil {
		return abi.Content{}, err
	}
	e, err := r.git.Lookup(c.Tree, t.path)
	if err != nil {
		return abi.Content{}, err
	}
	switch e.Mode {
	case gitobj.ModeDir:
		return abi.Content{}, mcpw.NotFound("%s is a directory: read %s", t.path, refURI(r.name, kindTree, t.ref, t.path))
	case gitobj.ModeGitlink:
		return mcpw.Text(uri, "text/plain", "submodule at commit "+e.ID.String()+"\n"), nil
	}
	obj, err := r.git.Read(e.ID)
	if err != nil {
		return abi.Content{}, err
	}
	if int64(len(obj.Data)) > p.cfg.maxFileBytes {
		return abi.Content{}, mcpw.InvalidParams("%s is %d bytes, over max_file_bytes (%d): raise max_file_bytes (and the output limit) to read it", t.path, len(obj.Data), p.cfg.maxFileBytes)
	}
	return blobContent(uri, e.Mode, obj.Data), nil
}

func blobContent(uri string, mode uint32, data []byte) abi.Content {
	switch {
	case mode == gitobj.ModeSymlink:
		return text(uri, "text/plain", "symbolic link to "+string(data))
	case isLFSPointer(data):
		c := mcpw.Text(uri, lfsMIME, string(data))
		return c
	case isText(data):
		return mcpw.Text(uri, "text/plain", string(data))
	}
	return mcpw.Blob(uri, "application/octet-stream", data)
}

func isText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b[:min(len(b), 8000)]), 0)
}

func (p *Provider) readRefs(r *repo, uri string) (abi.Content, error) {
	refs, err := r.git.Refs()
	if err != nil {
		return abi.Content{}, err
	}
	var sb strings.Builder
	if branch, id, err := r.git.Head(); err == nil {
		if branch != "" {
			fmt.Fprintf(&sb, "%s HEAD -> %s\n", id, branch)
		} else {
			fmt.Fprintf(&sb, "%s HEAD (detached)\n", id)
		}
	}
	for _, ref := range refs {
		fmt.Fprintf(&sb, "%s %s\n", ref.ID, ref.Name)
	}
	if len(r.git.Shallow()) > 0 {
		sb.WriteString("# shallow clone: history stops at the commits in .git/shallow\n")
	}
	return text(uri, "text/plain", sb.String()), nil
}

func (p *Provider) readTree(r *repo, uri string, t target) (abi.Content, error) {
	commit, err := r.git.Resolve(t.ref)
	if err != nil {
		return abi.Content{}, err
	}
	c, err := r.git.Commit(commit)
	if err != nil {
		return abi.Content{}, err
	}
	e, err := r.git.Lookup(c.Tree, t.path)
	if err != nil {
		return abi.Content{}, err
	}
	if !e.IsDir() {
		return abi.Content{}, mcpw.NotFound("%s is a file: read %s", t.path, refURI(r.name, kindBlob, t.ref, t.path))
	}
	files, err := r.git.Walk(e.ID, t.path)
	if err != nil {
		return abi.Content{}, err
	}
	return text(uri, "text/plain", lsTree(files, p.cfg.maxFileBytes)), nil
}

// lsTree formats files as `git ls-tree -r` does, at most max bytes.
func lsTree(files []gitobj.FileEntry, max int64) string {
	var sb strings.Builder
	sb.Grow(len(files) * 80)
	for i, f := range files {
		if int64(sb.Len()) > max {
			fmt.Fprintf(&sb, "[listing truncated at max_file_bytes: %d more entries]\n", len(files)-i)
			break
		}
		kind := "blob"
		if f.Mode == gitobj.ModeGitlink {
			kind = "commit"
		}
		sb.WriteString(fmt.Sprintf("%06o", f.Mode))
		sb.WriteString(" " + kind + " " + f.ID.String() + "\t" + f.Path + "\n")
	}
	return sb.String()
}

func (p *Provider) readLog(r *repo, uri string, t target) (abi.Content, error) {
	commit, err := r.git.Resolve(t.ref)
	if err != nil {
		return abi.Content{}, err
	}
	entries, err := r.git.Log(commit, p.cfg.maxLog)
	if err != nil {
		return abi.Content{}, err
	}
	var sb strings.Builder
	for _, e := range entries {
		if e.Commit == nil {
			fmt.Fprintf(&sb, "# parent %s is not in this repository (a shallow clone's boundary): history stops here\n", e.Missing)
			continue
		}
		c := e.Commit
		fmt.Fprintf(&sb, "%s %s %s %s\n", c.ID, c.When.Format(time.RFC3339), c.Author, c.Subject())
	}
	return text(uri, "text/plain", sb.String()), nil
}

func (p *Provider) readCommit(r *repo, uri string, t target) (abi.Content, error) {
	id, err := r.git.Resolve(t.ref)
	if err != nil {
		return abi.Content{}, err
	}
	c, err := r.git.Commit(id)
	if err != nil {
		return abi.Content{}, err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "commit %s\n", c.ID)
	for _, par := range c.Parents {
		fmt.Fprintf(&sb, "parent %s\n", par)
	}
	fmt.Fprintf(&sb, "tree %s\nauthor %s\ncommitter %s\ndate %s\n\n", c.Tree, c.Author, c.Committer, c.When.Format(time.RFC3339))
	for _, line := range strings.SplitAfter(strings.TrimRight(c.Message, "\n"), "\n") {
		sb.WriteString("    " + line)
	}
	sb.WriteString("\n\n")
	var parentTree gitobj.ID
	if len(c.Parents) > 0 {
		pc, err := r.git.Commit(c.Parents[0])
		switch {
		case err == nil:
			parentTree = pc.Tree
		case isNotFound(err):
			fmt.Fprintf(&sb, "# parent %s is not in this repository (a shallow clone's boundary): the diff below is against an empty tree\n", c.Parents[0])
		default:
			return abi.Content{}, err
		}
	}
	changes, err := r.git.DiffTrees(parentTree, c.Tree)
	if err != nil {
		return abi.Content{}, err
	}
	sb.WriteString(r.git.UnifiedDiff(changes, p.cfg.maxDiffBytes))
	return text(uri, "text/x-diff", sb.String()), nil
}

// text is a text content, with bytes that are not UTF-8 (a Latin-1 author
// name, a file name) shown as U+FFFD.
func text(uri, mime, s string) abi.Content {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return mcpw.Text(uri, mime, s)
}
