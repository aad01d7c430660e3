package server

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// revision is an MCP protocol revision, e.g. "2025-06-18". Revisions compare
// as strings.
type revision string

const (
	rev20241105 revision = "2024-11-05"
	rev20250326 revision = "2025-03-26"
	rev20250618 revision = "2025-06-18"
	rev20251125 revision = "2025-11-25"
	rev20260728 revision = "2026-07-28"
)

// supportedRevisions lists the revisions served, newest first.
var supportedRevisions = []string{
	string(rev20260728), string(rev20251125), string(rev20250618), string(rev20250326), string(rev20241105),
}

// stateless reports whether r is the stateless era (2026-07-28 and later):
// _meta on every request, resultType, ttlMs/cacheScope, not found as -32602.
func (r revision) stateless() bool { return r >= rev20260728 }

// hasTitle reports whether r defines title and annotations.lastModified.
func (r revision) hasTitle() bool { return r >= rev20250618 }

// hasIcons reports whether r defines icons.
func (r revision) hasIcons() bool { return r >= rev20251125 }

// revisionOf returns the revision a request is served under: the _meta
// protocolVersion of a stateless request (go-sdk has already checked that
// it is supported), else the version the session's initialize negotiated.
func revisionOf(req mcp.Request, meta map[string]any) revision {
	if v, ok := meta[mcp.MetaKeyProtocolVersion].(string); ok && revision(v).stateless() {
		return revision(v)
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if p := ss.InitializeParams(); p != nil {
			return negotiate(p.ProtocolVersion)
		}
	}
	return rev20251125
}

// negotiate mirrors go-sdk's initialize negotiation, whose result the
// session does not expose: the requested version if it is a supported
// handshake revision, else the newest handshake revision.
func negotiate(requested string) revision {
	if slices.Contains(supportedRevisions, requested) && !revision(requested).stateless() {
		return revision(requested)
	}
	return rev20251125
}
