package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// SkillsDir serves a directory of skills as skill:// resources: p is a
// provider of the directory's files (the built-in files provider granted
// the directory), root the URI p gives the directory, ending in "/"
// (file:///srv/skills/). p's URI root/NAME/SKILL.md is served as
// skill://NAME/SKILL.md, and so on for every file under root; nothing
// else of p is served. It adds skill://index.json, the Agent Skills
// discovery index (schema discovery/0.2.0) of the skills under root.
//
// The result owns the whole skill:// scheme: serve one skills directory
// per server. It offers list and read only.
func SkillsDir(p Provider, root string) (Provider, error) {
	if !strings.HasSuffix(root, "/") || !strings.Contains(root, "://") {
		return nil, fmt.Errorf("skills directory root %q: give the provider's URI of the directory, ending in /", root)
	}
	d := p.Describe()
	d.URISpace = []abi.URIRoot{{Scheme: skillScheme, Authority: abi.AnyAuthority}}
	var ops []string
	for _, op := range []string{abi.OpList, abi.OpRead} {
		if slices.Contains(d.Operations, op) {
			ops = append(ops, op)
		}
	}
	if len(ops) < 2 {
		return nil, fmt.Errorf("skills directory: provider %q must list and read its files", d.Name)
	}
	d.Operations = ops
	return &skillsDir{inner: p, root: root, desc: d}, nil
}

type skillsDir struct {
	inner Provider
	root  string
	desc  abi.Describe
}

// skillIndexURI is the URI of the discovery index.
const skillIndexURI = "skill://index.json"

// skillIndexSchema is the schema of the Agent Skills discovery index that
// skill://index.json follows.
const skillIndexSchema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

func (d *skillsDir) Describe() abi.Describe { return d.desc }

// outer maps p's URI to its skill:// URI; false for a URI outside root.
func (d *skillsDir) outer(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, d.root)
	if !ok || rest == "" {
		return "", false
	}
	return skillScheme + "://" + rest, true
}

// innerURI maps a skill:// URI to p's: the server has checked it (no dot
// segments, no encoded separators) before it gets here.
func (d *skillsDir) innerURI(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, skillScheme+"://")
	if !ok || rest == "" || rest == "index.json" {
		return "", false
	}
	return d.root + rest, true
}

// List lists p's files under root as skill:// resources, a SKILL.md named
// and described by its frontmatter; the first page also has the discovery
// index.
func (d *skillsDir) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	res, err := d.inner.List(ctx, cursor)
	if err != nil {
		return nil, err
	}
	out := &abi.ListResult{NextCursor: res.NextCursor, Cache: res.Cache}
	if cursor == "" {
		out.Resources = append(out.Resources, abi.Resource{URI: skillIndexURI, Name: "index.json",
			Description: "Agent Skills discovery index of the skills served here", MIMEType: "application/json"})
	}
	for _, r := range res.Resources {
		u, ok := d.outer(r.URI)
		if !ok {
			continue
		}
		r.URI = u
		if strings.HasSuffix(u, "/"+skillFile) {
			r.MIMEType = "text/markdown"
			if e, ok := d.indexEntry(ctx, u); ok { // SEP-2640: name and description from the frontmatter
				r.Name, r.Description = e.Name, e.Description
			}
		}
		out.Resources = append(out.Resources, r)
	}
	return out, nil
}

// Read reads a skill:// file from p, or makes the discovery index.
func (d *skillsDir) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	if uri == skillIndexURI {
		return d.index(ctx)
	}
	in, ok := d.innerURI(uri)
	if !ok {
		return nil, fmt.Errorf("%w: not a file of the skills directory", abi.ErrNotFound)
	}
	res, err := d.inner.Read(ctx, in)
	if err != nil {
		return nil, err
	}
	for i := range res.Contents {
		c := &res.Contents[i]
		if u, ok := d.outer(c.URI); ok {
			c.URI = u
		}
		if strings.HasSuffix(c.URI, "/"+skillFile) {
			c.MIMEType = "text/markdown"
		}
	}
	return res, nil
}

// indexEntry is one skill in the discovery index.
type indexEntry struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	URL         string `json:"url"`
}

// index makes skill://index.json: every SKILL.md under root whose
// frontmatter is valid and whose name is its directory's, sorted by URI.
// p's listing is read to its end, bounded as the catalog's is.
func (d *skillsDir) index(ctx context.Context) (*abi.ReadResult, error) {
	entries := []indexEntry{}
	cursor, seen := "", map[string]bool{}
	for pages := 0; pages < maxSkillListPages; pages++ {
		res, err := d.List(ctx, cursor)
		if err != nil {
			return nil, err
		}
		for _, r := range res.Resources {
			if e, ok := d.indexEntry(ctx, r.URI); ok {
				entries = append(entries, e)
			}
		}
		if res.NextCursor == "" || seen[res.NextCursor] {
			break
		}
		seen[res.NextCursor], cursor = true, res.NextCursor
	}
	slices.SortFunc(entries, func(a, b indexEntry) int { return strings.Compare(a.URL, b.URL) })
	b, err := json.Marshal(struct {
		Schema string       `json:"$schema"`
		Skills []indexEntry `json:"skills"`
	}{skillIndexSchema, entries})
	if err != nil {
		return nil, err
	}
	text := string(b)
	return &abi.ReadResult{Contents: []abi.Content{{URI: skillIndexURI, MIMEType: "application/json", Text: &text}}}, nil
}

// indexEntry reads the SKILL.md at uri for the index; false for any other
// file and for a skill that cannot be served.
func (d *skillsDir) indexEntry(ctx context.Context, uri string) (indexEntry, bool) {
	ref, err := skillAt(uri)
	if err != nil {
		return indexEntry{}, false
	}
	res, err := d.Read(ctx, uri)
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text == nil {
		return indexEntry{}, false
	}
	fm, err := parseFrontmatter([]byte(*res.Contents[0].Text))
	if err != nil || fm.name != ref.name {
		return indexEntry{}, false
	}
	return indexEntry{Name: fm.name, Type: "skill-md", Description: fm.description, URL: uri}, true
}

func (d *skillsDir) Templates(context.Context, string) (*abi.TemplatesResult, error) {
	return &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{}}, nil
}

func (d *skillsDir) Complete(context.Context, abi.CompleteRequest) (*abi.CompleteResult, error) {
	return &abi.CompleteResult{Values: []string{}}, nil
}
