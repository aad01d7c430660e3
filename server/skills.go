package server

import (
	"context"
	"crypto/hmac"
	"encoding/base64"
	"encoding/binary"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Skills extension (SEP-2640, io.modelcontextprotocol/skills): Agent
// Skills served as skill:// resources, read with resources/read, plus
// three methods, registered on go-sdk as custom methods:
//   - skills/list: every skill the providers serve, each with its
//     frontmatter and the digest and size of every file;
//   - skills/get: one skill's entry, by the URI of its SKILL.md;
//   - resources/directory/read: the direct children of a skill://
//     directory (directoryRead: true).
// The server declares the extension when, at New, some provider's URI
// space holds skill:// URIs (capabilities are fixed for the server's
// life; a reload that adds or drops such a provider does not change them).
// The methods answer either way: with no provider of skill:// URIs the
// listing is empty, as the extension allows.

const (
	extSkills             = "io.modelcontextprotocol/skills"
	methodSkillsList      = "skills/list"
	methodSkillsGet       = "skills/get"
	methodDirectoryRead   = "resources/directory/read"
	skillsPageSize        = 50       // skills per skills/list page (each read in full)
	skillsPageBytes       = 64 << 20 // a skills/list page ends once its skills' files add up to this
	directoryPageSize     = 500      // children per resources/directory/read page
	msgSkillNotServed     = "no skill is served at %s"
	msgNotDirectoryServed = "%s is not a directory resource: give the uri of a skill's directory, without a trailing slash"
)

// skillsCapability is the extension's entry in the server's capabilities,
// nil when no backend serves skill:// URIs.
func skillsCapability(backends []*backend) map[string]any {
	for _, m := range backends {
		if servesSkills(m) {
			return map[string]any{extSkills: map[string]any{"directoryRead": true}}
		}
	}
	return nil
}

type skillsListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillsListResult struct {
	mcp.ResultBase
	stateless
	Skills     []skillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

type skillsGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type skillsGetResult struct {
	mcp.ResultBase
	stateless
	Skill skillEntry `json:"skill"`
}

type directoryReadParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

type directoryReadResult struct {
	mcp.ResultBase
	stateless
	Resources  []abi.Resource `json:"resources"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

// addSkillMethods registers the extension's methods on go-sdk; they run
// through the server's middleware (audit, handshake gate, dispatch) as
// the standard methods do.
func (s *Server) addSkillMethods() error {
	if err := mcp.AddReceivingCustomMethod(s.mcp, methodSkillsList, s.skillsList); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s.mcp, methodSkillsGet, s.skillsGet); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s.mcp, methodDirectoryRead, s.directoryRead)
}

// isSkillMethod reports whether method is one of the extension's.
func isSkillMethod(method string) bool {
	return method == methodSkillsList || method == methodSkillsGet || method == methodDirectoryRead
}

// revisionOfSession is the revision of a custom method's request: its
// _meta protocol version, else the session's.
func revisionOfSession(ss *mcp.ServerSession, meta mcp.Meta) revision {
	return revisionOf(&mcp.ServerRequest[*skillsListParams]{Session: ss}, meta)
}

// skillsList serves skills/list: one page of skills, each read in full.
func (s *Server) skillsList(ctx context.Context, ss *mcp.ServerSession, p *skillsListParams) (*skillsListResult, error) {
	if p == nil {
		p = &skillsListParams{}
	}
	rev := revisionOfSession(ss, p.Meta)
	start := 0
	if p.Cursor != "" {
		n, ok := s.skillCursorDecode(methodSkillsList, "", p.Cursor)
		if !ok {
			return nil, invalidParams("invalid cursor: pass back a nextCursor of skills/list unchanged, or none for the first page")
		}
		start = n
	}
	set := s.acquireFor(ctx) // the client's view: access rules apply to skills as to resources (aclview.go)
	defer set.release()
	tree, hint, jerr := s.skillTree(ctx, set)
	if jerr != nil {
		return nil, jerr
	}
	refs := s.skills(tree)
	out := &skillsListResult{stateless: newStateless(rev, hint), Skills: []skillEntry{}}
	i, read := min(start, len(refs)), 0
	for ; i < len(refs) && len(out.Skills) < skillsPageSize && read < skillsPageBytes; i++ {
		e, err := s.entry(ctx, rev, refs[i])
		if err != nil {
			s.log.Warn("skill left out of skills/list", "skill", clip(refs[i].uri), "reason", clip(err.Error()))
			continue
		}
		out.Skills = append(out.Skills, e)
		for _, r := range e.Resources {
			read += r.Size
		}
	}
	if i < len(refs) {
		out.NextCursor = s.skillCursor(methodSkillsList, "", i)
	}
	return out, nil
}

// skillsGet serves skills/get: the entry of the skill at params.uri, or
// -32602 when no skill is served there (or it cannot be served, saying
// why).
func (s *Server) skillsGet(ctx context.Context, ss *mcp.ServerSession, p *skillsGetParams) (*skillsGetResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("missing params.uri: give the uri of a skill's SKILL.md")
	}
	rev := revisionOfSession(ss, p.Meta)
	set := s.acquireFor(ctx) // the client's view: access rules apply to skills as to resources (aclview.go)
	defer set.release()
	tree, hint, jerr := s.skillTree(ctx, set)
	if jerr != nil {
		return nil, jerr
	}
	ref, ok := s.findSkill(tree, p.URI)
	if !ok {
		return nil, invalidParams(msgSkillNotServed, clip(p.URI))
	}
	e, err := s.entry(ctx, rev, ref)
	if err != nil {
		return nil, invalidParams("the skill at %s is not served: %s", clip(ref.uri), clip(err.Error()))
	}
	return &skillsGetResult{stateless: newStateless(rev, hint), Skill: e}, nil
}

// directoryRead serves resources/directory/read on skill:// directories.
func (s *Server) directoryRead(ctx context.Context, ss *mcp.ServerSession, p *directoryReadParams) (*directoryReadResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("missing params.uri: give the uri of a directory resource")
	}
	rev := revisionOfSession(ss, p.Meta)
	norm, _, err := checkURI(p.URI)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	start := 0
	if p.Cursor != "" {
		n, ok := s.skillCursorDecode(methodDirectoryRead, norm, p.Cursor)
		if !ok {
			return nil, invalidParams("invalid cursor: pass back a nextCursor of resources/directory/read for the same uri unchanged")
		}
		start = n
	}
	set := s.acquireFor(ctx) // the client's view: access rules apply to skills as to resources (aclview.go)
	defer set.release()
	tree, hint, jerr := s.skillTree(ctx, set)
	if jerr != nil {
		return nil, jerr
	}
	kids, ok := tree.children(norm)
	if !ok {
		return nil, invalidParams(msgNotDirectoryServed, clip(p.URI))
	}
	start = min(start, len(kids))
	end := min(start+directoryPageSize, len(kids))
	out := &directoryReadResult{stateless: newStateless(rev, hint), Resources: make([]abi.Resource, 0, end-start)}
	for _, r := range kids[start:end] {
		out.Resources = append(out.Resources, resourceFor(r, rev))
	}
	if end < len(kids) {
		out.NextCursor = s.skillCursor(methodDirectoryRead, norm, end)
	}
	return out, nil
}

// skillCursor is an opaque cursor for the page at offset of method's
// listing (of dir, for a directory read), signed with the cursor key so
// that a client cannot forge one.
func (s *Server) skillCursor(method, dir string, offset int) string {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(offset))
	sum := macWith(s.cursors.key, skillCursorMsg(method, dir, n[:]))
	return base64.RawURLEncoding.EncodeToString(append(n[:], sum[:16]...))
}

// skillCursorDecode returns the offset of a cursor made by skillCursor
// with the same method and dir.
func (s *Server) skillCursorDecode(method, dir, c string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) != 24 {
		return 0, false
	}
	sum := macWith(s.cursors.key, skillCursorMsg(method, dir, b[:8]))
	off := binary.BigEndian.Uint64(b[:8])
	if !hmac.Equal(sum[:16], b[8:]) || off > maxSkillURIs {
		return 0, false
	}
	return int(off), true
}

func skillCursorMsg(method, dir string, n []byte) []byte {
	return fmt.Appendf(nil, "skills-cursor\x00%s\x00%s\x00%x", method, dir, n)
}
