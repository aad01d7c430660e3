package gitprov

import (
	"context"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

const maxCompletions = 100

// Complete completes {ref} with HEAD, branches and tags (short names), and
// {path} with the entries of the directory typed so far at the ref given
// (the default branch when none is).
func (p *Provider) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if err := p.setup(ctx); err != nil {
		return nil, err
	}
	rest, ok := strings.CutPrefix(req.Template, "git://")
	name, _, _ := strings.Cut(rest, "/")
	r := p.repo(name)
	if !ok || r == nil {
		return nil, mcpw.InvalidParams("not one of this provider's templates")
	}
	var values []string
	var err error
	switch req.Argument.Name {
	case "ref":
		values, err = p.completeRef(r, req.Argument.Value)
	case "path":
		dirsOnly := strings.Contains(req.Template, "/tree/")
		values, err = p.completePath(r, req.Arguments["ref"], req.Argument.Value, dirsOnly)
	default:
		return nil, mcpw.InvalidParams("no argument %q", req.Argument.Name)
	}
	if err != nil {
		return nil, classify(err)
	}
	res := &abi.CompleteResult{Values: values}
	if len(values) > maxCompletions {
		res.Values, res.HasMore = values[:maxCompletions], true
	}
	return res, nil
}

func (p *Provider) completeRef(r *repo, prefix string) ([]string, error) {
	refs, err := r.git.Refs()
	if err != nil {
		return nil, err
	}
	values := []string{}
	if _, err := r.git.Resolve("HEAD"); err == nil && strings.HasPrefix("HEAD", prefix) {
		values = append(values, "HEAD") // not on an unborn branch: it names nothing yet
	}
	for _, ref := range refs {
		short := ref.Name
		for _, pre := range []string{"refs/heads/", "refs/tags/", "refs/remotes/"} {
			if s, ok := strings.CutPrefix(ref.Name, pre); ok {
				short = s
				break
			}
		}
		if strings.HasPrefix(short, prefix) && utf8.ValidString(short) {
			values = append(values, short)
		}
	}
	sort.Strings(values[min(1, len(values)):])
	return values, nil
}

func (p *Provider) completePath(r *repo, ref, prefix string, dirsOnly bool) ([]string, error) {
	if ref == "" {
		ref = "HEAD"
	}
	id, err := r.git.Resolve(ref)
	if isNotFound(err) {
		return []string{}, nil // nothing to complete under a ref that names nothing
	}
	if err != nil {
		return nil, err
	}
	c, err := r.git.Commit(id)
	if isNotFound(err) {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	dir, base := "", prefix
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dir, base = prefix[:i], prefix[i+1:]
	}
	e, err := r.git.Lookup(c.Tree, dir)
	if err != nil || !e.IsDir() {
		return []string{}, nil
	}
	ents, err := r.git.Tree(e.ID)
	if err != nil {
		return nil, err
	}
	values := []string{}
	for _, ent := range ents {
		if !strings.HasPrefix(ent.Name, base) || !utf8.ValidString(ent.Name) || dirsOnly && !ent.IsDir() {
			continue
		}
		v := ent.Name
		if dir != "" {
			v = dir + "/" + v
		}
		if ent.IsDir() {
			v += "/"
		}
		values = append(values, v)
	}
	return values, nil
}
