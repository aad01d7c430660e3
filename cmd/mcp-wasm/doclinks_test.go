package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// linkedDocs are the files whose relative links TestDocLinks follows:
// every Markdown file of the tree (the front door, its topic pages,
// RATIONALE.md, abi/ABI.md, each guest's and deploy's README), but what
// build/ and node_modules hold.
func linkedDocs(t *testing.T) []string {
	t.Helper()
	root := testguest.Root()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "build" || d.Name() == "node_modules" || d.Name() == "target" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			out = append(out, rel)
			return err
		}
		return nil
	})
	require.NoError(t, err)
	for _, doc := range append(docFiles(t), "RATIONALE.md", filepath.Join("abi", "ABI.md")) {
		require.Contains(t, out, filepath.FromSlash(doc))
	}
	return out
}

// mdLinkRE is an inline link or image, [text](target) or
// [text](target "title"); its target is group 1.
var mdLinkRE = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestDocLinks: every relative link of the Markdown files (linkedDocs) names a file or directory of the tree, and a #fragment
// names a heading (or an <a name> anchor) of the Markdown file it points
// into, as GitHub renders them.
func TestDocLinks(t *testing.T) {
	root := testguest.Root()
	anchors := map[string]map[string]bool{} // file -> its anchors, read once
	checked := 0
	for _, doc := range linkedDocs(t) {
		for _, l := range docLinks(t, filepath.Join(root, doc)) {
			target := l.target
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			path, frag, _ := strings.Cut(target, "#")
			file := filepath.Join(root, doc)
			if path != "" {
				require.False(t, filepath.IsAbs(path), "%s:%d: %q: a link in the docs is relative to its file", doc, l.line, target)
				file = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				rel, err := filepath.Rel(root, file)
				require.NoError(t, err)
				require.False(t, strings.HasPrefix(rel, ".."), "%s:%d: %q leaves the repository", doc, l.line, target)
				_, err = os.Stat(file)
				require.NoError(t, err, "%s:%d: %q names no file of the tree", doc, l.line, target)
			}
			if frag == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			if anchors[file] == nil {
				anchors[file] = mdAnchors(t, file)
			}
			require.True(t, anchors[file][frag], "%s:%d: %q: %s has no heading with the anchor #%s", doc, l.line, target, filepath.Base(file), frag)
		}
	}
	require.Greater(t, checked, 50, "the docs link each other: far fewer relative links were found than there are")
}

type docLink struct {
	line   int
	target string
}

// docLinks returns the links of a Markdown file outside code blocks and
// code spans.
func docLinks(t *testing.T, file string) []docLink {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var out []docLink
	fenced := false
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLinkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, "``"), -1) {
			out = append(out, docLink{line: i + 1, target: m[1]})
		}
	}
	return out
}

var (
	codeSpanRE  = regexp.MustCompile("`[^`]*`")
	headingRE   = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlNameRE  = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	inlineRefRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// mdAnchors returns the anchors GitHub gives the headings of a Markdown
// file (and its <a name> anchors): the heading's text as rendered, lower
// case, without punctuation but - and _, spaces as -, a repeated one
// suffixed -1, -2, ...
func mdAnchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range htmlNameRE.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := githubSlug(m[1])
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

func githubSlug(heading string) string {
	text := inlineRefRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
