package gitprov

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
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
	if r.listing.tree == e.ID && r.listing.prefix == t.path {
		return text(uri, "text/plain", r.listing.text), nil
	}
	out, err := lsTree(r.git, e.ID, t.path, p.cfg.maxFileBytes)
	if err != nil {
		return abi.Content{}, err
	}
	// A tree is immutable: its listing is kept for the next read of it.
	r.listing.tree, r.listing.prefix, r.listing.text = e.ID, t.path, out
	return text(uri, "text/plain", out), nil
}

// lsTree lists the files below tree as `git ls-tree -r` does, at most
// limit bytes. It avoids fmt and per-file allocations: in wasm each
// formatted entry would cost microseconds.
func lsTree(g *gitobj.Repo, tree gitobj.ID, prefix string, limit int64) (string, error) {
	b := make([]byte, 0, 64<<10)
	var hexID [40]byte
	more := 0
	err := g.WalkFunc(tree, prefix, func(dir string, f gitobj.TreeEntry) error {
		if int64(len(b)) > limit {
			more++
			return nil
		}
		switch f.Mode {
		case gitobj.ModeFile:
			b = append(b, "100644 blob "...)
		case gitobj.ModeExec:
			b = append(b, "100755 blob "...)
		case gitobj.ModeSymlink:
			b = append(b, "120000 blob "...)
		case gitobj.ModeGitlink:
			b = append(b, "160000 commit "...)
		default:
			m := strconv.FormatUint(uint64(f.Mode), 8)
			b = append(b, strings.Repeat("0", max(0, 6-len(m)))+m+" blob "...)
		}
		hex.Encode(hexID[:], f.ID[:])
		b = append(b, hexID[:]...)
		b = append(b, '\t')
		if dir != "" {
			b = append(b, dir...)
			b = append(b, '/')
		}
		b = append(b, f.Name...)
		b = append(b, '\n')
		return nil
	})
	if more > 0 {
		b = append(b, "[listing truncated at max_file_bytes: "...)
		b = strconv.AppendInt(b, int64(more), 10)
		b = append(b, " more entries]\n"...)
	}
	return string(b), err
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
