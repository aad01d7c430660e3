package main

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

const (
	scheme       = "notes"
	uriPrefix    = scheme + ":///"
	tagPrefix    = "tag/"
	pageSize     = 8
	cursorPrefix = "after:"
	markdown     = "text/markdown"
	// ttlMs is how long clients may cache results: the notes are built in.
	ttlMs = 3600 * 1000
)

var cacheHint = &abi.CacheHint{TTLMs: ttlMs, Scope: abi.ScopePublic}

// note is one entry of the handbook.
type note struct {
	ID       string
	Title    string
	Tags     []string
	Updated  string // RFC 3339
	Priority float64
	Body     string
}

// notes serves a fixed catalog. It is immutable after newNotes, so one
// value may serve concurrent native calls.
type notes struct {
	sorted []note           // by ID
	byID   map[string]int   // ID -> index in sorted
	byTag  map[string][]int // tag -> indexes in sorted, ascending
	tags   []string         // sorted
}

func newNotes(catalog []note) *notes {
	n := &notes{sorted: slices.Clone(catalog), byID: map[string]int{}, byTag: map[string][]int{}}
	slices.SortFunc(n.sorted, func(a, b note) int { return strings.Compare(a.ID, b.ID) })
	for i, nt := range n.sorted {
		n.byID[nt.ID] = i
		for _, t := range nt.Tags {
			n.byTag[t] = append(n.byTag[t], i)
		}
	}
	for t := range n.byTag {
		n.tags = append(n.tags, t)
	}
	sort.Strings(n.tags)
	return n
}

func (n *notes) Describe() abi.Describe {
	return abi.Describe{
		Name:        "notes",
		Version:     "1.0.0",
		Title:       "mcp-wasm handbook",
		Description: "Short markdown notes about mcp-wasm: the ABI, the sandbox, the SDKs and MCP features.",
		URISpace:    []abi.URIRoot{{Scheme: scheme}},
		Cache:       cacheHint,
	}
}

func (nt *note) uri() string { return uriPrefix + nt.ID }

// text is the markdown served for the note.
func (nt *note) text() string {
	return "# " + nt.Title + "\n\n" + nt.Body + "\n\nTags: " + strings.Join(nt.Tags, ", ") + "\n"
}

func (nt *note) annotations() *abi.Annotations {
	return &abi.Annotations{
		Audience:     []string{"user", "assistant"},
		Priority:     new(nt.Priority),
		LastModified: nt.Updated,
	}
}

// List returns the notes in ID order, pageSize at a time. The cursor names
// the last ID returned, so it stays valid if the catalog changes.
func (n *notes) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	start := 0
	if cursor != "" {
		after, ok := strings.CutPrefix(cursor, cursorPrefix)
		if !ok {
			return nil, mcpw.InvalidParams("unknown cursor: pass back a nextCursor from list unchanged")
		}
		start = sort.Search(len(n.sorted), func(i int) bool { return n.sorted[i].ID > after })
	}
	end := min(start+pageSize, len(n.sorted))
	res := &abi.ListResult{Resources: make([]abi.Resource, 0, end-start), Cache: cacheHint}
	for i := start; i < end; i++ {
		nt := &n.sorted[i]
		res.Resources = append(res.Resources, abi.Resource{
			URI:         nt.uri(),
			Name:        nt.ID,
			Title:       nt.Title,
			Description: "Tags: " + strings.Join(nt.Tags, ", "),
			MIMEType:    markdown,
			Size:        new(int64(len(nt.text()))),
			Annotations: nt.annotations(),
		})
	}
	if end < len(n.sorted) {
		res.NextCursor = cursorPrefix + n.sorted[end-1].ID
	}
	return res, nil
}

// Templates returns the two templates in one page.
func (n *notes) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	if cursor != "" {
		return nil, mcpw.InvalidParams("unknown cursor: templates has a single page")
	}
	return &abi.TemplatesResult{
		ResourceTemplates: []abi.ResourceTemplate{
			{URITemplate: uriPrefix + "{id}", Name: "note", Title: "A note by id", MIMEType: markdown,
				Description: "One note of the handbook; complete the id argument to browse."},
			{URITemplate: uriPrefix + tagPrefix + "{tag}", Name: "notes-by-tag", Title: "Every note with a tag", MIMEType: markdown,
				Description: "All notes carrying the tag, one content each."},
		},
		Cache: cacheHint,
	}, nil
}
