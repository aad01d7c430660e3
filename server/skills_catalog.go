package server

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The skill catalog: what the Skills extension's methods answer from. It
// is made per request from the resources the providers list under the
// skill:// scheme (their own listing, through the operator's filter), so
// that it follows reloads and provider changes with no state of its own.
// A skill is a directory holding SKILL.md: skill://PATH/SKILL.md makes
// skill://PATH a skill, and every listed resource under skill://PATH/ one
// of its files (nested skills' files too, as SEP-2640 says).

const (
	skillScheme = "skill"
	skillFile   = "SKILL.md"

	// SEP-2640's per-skill limits: a server should not serve a skill
	// over them, since no host is bound to load it.
	maxSkillFiles = 512
	maxSkillBytes = 16 << 20

	// maxSkillURIs bounds the skill:// resources one request collects
	// from the providers' listings.
	maxSkillURIs = 100_000
	// maxSkillListPages bounds the provider pages one request reads.
	maxSkillListPages = 2_000
)

// errSkillListing marks a provider's skill:// listing that is too large
// to make a catalog from.
var errSkillListing = errors.New("skill listing too large")

// skillTree is the skill:// resources the providers list: each resource by
// URI, and the URIs sorted.
type skillTree struct {
	res  map[string]abi.Resource
	uris []string
}

// servesSkills reports whether m's uri space holds skill:// URIs.
func servesSkills(m *backend) bool {
	for _, r := range m.space {
		if strings.EqualFold(r.Scheme, skillScheme) {
			return true
		}
	}
	return false
}

// skillTree lists every provider that serves skill:// URIs, keeping the
// skill:// resources the operator's filter lets clients see. It also
// returns the cache hint of the answer: the providers' shortest ttl and
// the set's list scope.
func (s *Server) skillTree(ctx context.Context, set *providerSet) (skillTree, abi.CacheHint, *jsonrpc.Error) {
	t := skillTree{res: map[string]abi.Resource{}}
	hint := abi.CacheHint{Scope: set.listCache.Scope, TTLMs: -1}
	for _, m := range set.backends {
		if !servesSkills(m) || !m.has(abi.OpList) {
			continue
		}
		if m.cache != nil && (hint.TTLMs < 0 || m.cache.TTLMs < hint.TTLMs) {
			hint.TTLMs = m.cache.TTLMs
		}
		if err := s.listSkillURIs(ctx, m, &t); err != nil {
			if errors.Is(err, errSkillListing) {
				m.log.Warn("skills refused", "error", err)
				return skillTree{}, hint, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
			m.log.Warn("provider left out of the skills", "error", clip(err.Error()))
		}
	}
	hint.TTLMs = max(hint.TTLMs, 0)
	t.uris = make([]string, 0, len(t.res))
	for u := range t.res {
		t.uris = append(t.uris, u)
	}
	slices.Sort(t.uris)
	return t, hint, nil
}

// listSkillURIs adds m's skill:// resources to t, every page of them.
func (s *Server) listSkillURIs(ctx context.Context, m *backend, t *skillTree) error {
	cursor, seen := "", map[string]bool{}
	for pages := 0; ; pages++ {
		if pages == maxSkillListPages {
			return fmt.Errorf("%w: provider %q lists more than %d pages: serve fewer skill:// resources", errSkillListing, m.name, maxSkillListPages)
		}
		res, err := callProvider(ctx, s.cfg.callTimeout, m, abi.OpList, func(ctx context.Context) (*abi.ListResult, error) {
			return m.p.List(ctx, cursor)
		})
		if err != nil {
			return err
		}
		for _, r := range res.Resources {
			norm, u, err := checkURI(r.URI)
			if err != nil || !strings.EqualFold(u.Scheme, skillScheme) || !m.allows(norm) || !m.space.Owns(u) { // expose and the client's access rules
				continue
			}
			if len(t.res) == maxSkillURIs {
				return fmt.Errorf("%w: more than %d skill:// resources: serve fewer", errSkillListing, maxSkillURIs)
			}
			r.URI = norm
			t.res[norm] = r
		}
		if res.NextCursor == "" || seen[res.NextCursor] {
			return nil
		}
		seen[res.NextCursor], cursor = true, res.NextCursor
	}
}

// skillRef is a skill found in a tree: its SKILL.md URI, its root (the
// URI without "/SKILL.md"), its name (the root's last segment) and its
// files' URIs, SKILL.md among them.
type skillRef struct {
	uri, root, name string
	files           []string
}

// skills returns the skills of t, sorted by URI; a SKILL.md whose path
// cannot be a skill's (no path below the scheme, a last segment that is
// not a skill name) is left out, logged.
func (s *Server) skills(t skillTree) []skillRef {
	var out []skillRef
	for _, u := range t.uris {
		ref, err := skillAt(u)
		if err != nil {
			if strings.HasSuffix(u, "/"+skillFile) {
				s.log.Debug("SKILL.md left out of the skills", "uri", clip(u), "reason", err)
			}
			continue
		}
		ref.files = t.under(ref.root)
		out = append(out, ref)
	}
	return out
}

// skillAt returns the skill whose SKILL.md is at uri.
func skillAt(uri string) (skillRef, error) {
	root, ok := strings.CutSuffix(uri, "/"+skillFile)
	if !ok {
		return skillRef{}, fmt.Errorf("%s is not the uri of a %s", clip(uri), skillFile)
	}
	u, err := url.Parse(root)
	if err != nil || !strings.EqualFold(u.Scheme, skillScheme) || u.Host == "" {
		return skillRef{}, fmt.Errorf("%s is not a skill's SKILL.md: use skill://SKILL-PATH/SKILL.md", clip(uri))
	}
	segs := append([]string{u.Host}, strings.Split(strings.TrimPrefix(u.Path, "/"), "/")...)
	if u.Path == "" {
		segs = segs[:1]
	}
	name := segs[len(segs)-1]
	if err := checkSkillName(name); err != nil {
		return skillRef{}, fmt.Errorf("the last segment of a skill's path is its name: %w", err)
	}
	return skillRef{uri: uri, root: root, name: name}, nil
}

// under returns the URIs of t below dir (dir + "/..."), sorted.
func (t skillTree) under(dir string) []string {
	prefix := dir + "/"
	i, _ := slices.BinarySearch(t.uris, prefix)
	j := i
	for j < len(t.uris) && strings.HasPrefix(t.uris[j], prefix) {
		j++
	}
	return t.uris[i:j]
}

// skillEntry is a Skill of SEP-2640: its SKILL.md URI, its frontmatter as
// written, and every file with its digest and size.
type skillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   []skillResource `json:"resources"`
}

type skillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

// entry reads every file of ref and makes its entry: it checks the
// frontmatter (a name equal to the path's last segment) and the limits.
// The error says what the skill's author must fix.
func (s *Server) entry(ctx context.Context, rev revision, ref skillRef) (skillEntry, error) {
	if n := len(ref.files); n > maxSkillFiles {
		return skillEntry{}, fmt.Errorf("it has %d files, over the %d a skill may have: split it into smaller skills", n, maxSkillFiles)
	}
	e := skillEntry{URI: ref.uri, Resources: make([]skillResource, 0, len(ref.files))}
	total := 0
	for _, f := range ref.files {
		b, err := s.readBytes(ctx, rev, f)
		if err != nil {
			return skillEntry{}, fmt.Errorf("reading %s: %w", clip(f), err)
		}
		if total += len(b); total > maxSkillBytes {
			return skillEntry{}, fmt.Errorf("its files are over %d MiB, the most a skill may hold: split it into smaller skills", maxSkillBytes>>20)
		}
		sum := sha256.Sum256(b)
		e.Resources = append(e.Resources, skillResource{URI: f, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: len(b)})
		if f != ref.uri {
			continue
		}
		fm, err := parseFrontmatter(b)
		if err != nil {
			return skillEntry{}, err
		}
		if fm.name != ref.name {
			return skillEntry{}, fmt.Errorf("%w: name %q differs from the skill's directory %q: make them equal", errFrontmatter, fm.name, ref.name)
		}
		e.Frontmatter = fm.fields
	}
	if e.Frontmatter == nil {
		return skillEntry{}, fmt.Errorf("its %s is not listed", skillFile)
	}
	return e, nil
}

// readBytes reads uri through the server's read path (routing, filter,
// contents checks) and returns the raw bytes of its one content.
func (s *Server) readBytes(ctx context.Context, rev revision, uri string) ([]byte, error) {
	r, jerr := s.read(ctx, rev, uri)
	if jerr != nil {
		return nil, jerr
	}
	if len(r.contents) != 1 || r.contents[0].URI != uri {
		return nil, fmt.Errorf("the read returned %d contents, not the one of %s", len(r.contents), clip(uri))
	}
	c := r.contents[0]
	if c.Text != nil {
		return []byte(*c.Text), nil
	}
	if c.Blob == nil {
		return nil, errors.New("the read returned neither text nor blob")
	}
	return base64.StdEncoding.DecodeString(*c.Blob)
}

// findSkill returns the skill of t whose SKILL.md is uri.
func (s *Server) findSkill(t skillTree, uri string) (skillRef, bool) {
	norm, _, err := checkURI(uri)
	if err != nil {
		return skillRef{}, false
	}
	if _, ok := t.res[norm]; !ok {
		return skillRef{}, false
	}
	ref, err := skillAt(norm)
	if err != nil {
		return skillRef{}, false
	}
	ref.files = t.under(ref.root)
	return ref, true
}

// children returns the direct children of the directory dir in t: its
// files as listed, its subdirectories as inode/directory resources; ok is
// false when nothing is listed below dir.
func (t skillTree) children(dir string) (out []abi.Resource, ok bool) {
	seen := map[string]bool{}
	for _, u := range t.under(dir) {
		rest := strings.TrimPrefix(u, dir+"/")
		first, _, nested := strings.Cut(rest, "/")
		switch {
		case !nested:
			out = append(out, t.res[u])
		case !seen[first]:
			seen[first] = true
			name, err := url.PathUnescape(first)
			if err != nil {
				name = first
			}
			out = append(out, abi.Resource{URI: dir + "/" + first, Name: name, MIMEType: mimeDirectory})
		}
	}
	slices.SortFunc(out, func(a, b abi.Resource) int { return cmp.Compare(a.URI, b.URI) })
	return out, len(out) > 0
}

// mimeDirectory is the MIME type of a directory resource (SEP-2640).
const mimeDirectory = "inode/directory"
