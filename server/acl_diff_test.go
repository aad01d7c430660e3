package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
)

// The differential test of access rules: for random rule sets over random
// trees, what each principal reaches through every method (list, paged;
// read; listen acknowledgement; completion; the tools view's list and
// read) equals what a reference evaluation of the rules says, never more.
// The reference is written apart from URIFilter: a plain recursive glob.

var diffPrincipals = []Who{
	{Kind: WhoStatic, Name: "t0"},
	{Kind: WhoStatic, Name: "t1"},
	{Kind: WhoSubject, Name: "u0", Scopes: []string{"read"}, Claims: map[string][]string{"team": {"red"}}},
	{Kind: WhoSubject, Name: "u1", Claims: map[string][]string{"team": {"blue", "red"}}},
	{Kind: WhoAnonymous},
	{Kind: WhoStdio},
}

var diffWho = []string{"token:t0", "token:t1", "sub:u0", "sub:u1", "scope:read", "claim:team=red", "claim:team=blue",
	"authenticated", "anonymous", "stdio", "*"}

// refGlob matches a pattern of "*" (no "/") and "**" (anything) against s.
func refGlob(p, s string) bool {
	switch {
	case p == "":
		return s == ""
	case strings.HasPrefix(p, "**"):
		for i := 0; i <= len(s); i++ {
			if refGlob(p[2:], s[i:]) {
				return true
			}
		}
		return false
	case p[0] == '*':
		for i := 0; i <= len(s); i++ {
			if refGlob(p[1:], s[i:]) {
				return true
			}
			if i < len(s) && s[i] == '/' {
				return false
			}
		}
		return false
	}
	return s != "" && p[0] == s[0] && refGlob(p[1:], s[1:])
}

type refRule struct {
	who, providers, include, exclude []string
}

func (r refRule) matches(w Who) bool {
	for _, s := range r.who {
		m, err := parseMatcher(s)
		if err == nil && m.matches(w) {
			return true
		}
	}
	return false
}

// refSees is the reference: some rule for w covers the provider and lets
// uri through.
func refSees(rules []refRule, w Who, provider, uri string) bool {
	for _, r := range rules {
		if !r.matches(w) || len(r.providers) > 0 && !slices.Contains(r.providers, provider) {
			continue
		}
		in := len(r.include) == 0
		for _, p := range r.include {
			in = in || refGlob(p, uri)
		}
		ex := false
		for _, p := range r.exclude {
			ex = ex || refGlob(p, uri)
		}
		if in && !ex {
			return true
		}
	}
	return false
}

// randomTree is up to three providers s0..s2, each with random paths of
// one to three segments.
func randomTree(r *rand.Rand) map[string][]string {
	segs := []string{"a", "b", "c", "x.md", "y.key"}
	tree := map[string][]string{}
	for p := range 1 + r.IntN(3) {
		name := fmt.Sprintf("s%d", p)
		seen := map[string]bool{}
		for range 1 + r.IntN(12) {
			var parts []string
			for range 1 + r.IntN(3) {
				parts = append(parts, segs[r.IntN(len(segs))])
			}
			uri := name + ":///" + strings.Join(parts, "/")
			if !seen[uri] {
				seen[uri] = true
				tree[name] = append(tree[name], uri)
			}
		}
	}
	return tree
}

// randomPattern is a pattern over provider name's space, often a prefix
// of one of its URIs with a glob.
func randomPattern(r *rand.Rand, name string, uris []string) string {
	base := name + ":///"
	if len(uris) > 0 && r.IntN(4) > 0 {
		u := uris[r.IntN(len(uris))]
		cut := len(base) + r.IntN(len(u)-len(base)+1)
		base = u[:cut]
	}
	return base + []string{"", "*", "**", "/*", "/**", "*.md", "**/*.key"}[r.IntN(7)]
}

func randomRules(r *rand.Rand, tree map[string][]string) []refRule {
	var names []string
	for n := range tree {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []refRule
	for range 1 + r.IntN(5) {
		var rule refRule
		for range 1 + r.IntN(2) {
			rule.who = append(rule.who, diffWho[r.IntN(len(diffWho))])
		}
		if r.IntN(2) == 0 {
			rule.providers = []string{names[r.IntN(len(names))]}
		}
		p := names[r.IntN(len(names))]
		for range r.IntN(3) {
			rule.include = append(rule.include, randomPattern(r, p, tree[p]))
		}
		for range r.IntN(2) {
			rule.exclude = append(rule.exclude, randomPattern(r, p, tree[p]))
		}
		out = append(out, rule)
	}
	return out
}

func TestACL_differential(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2026))
	for round := range 150 {
		tree := randomTree(r)
		ref := randomRules(r, tree)
		var rules []Rule
		for i, rr := range ref {
			rule, err := NewRule(fmt.Sprintf("r%d", i), rr.who, rr.providers, rr.include, rr.exclude)
			require.NoError(t, err)
			rules = append(rules, rule)
		}
		rs, err := NewRules(rules...)
		require.NoError(t, err)
		var providers []Provider
		for name, uris := range tree {
			p := servertest.New(name, abi.URIRoot{Scheme: name}).WithPageSize(1+r.IntN(3)).
				AddTemplate(abi.ResourceTemplate{URITemplate: name + ":///{+path}", Name: "any"}, pathsOf(uris)...)
			for _, u := range uris {
				p.AddText(u, "text/plain", u)
			}
			providers = append(providers, p)
		}
		s := newServer(t, NewConfig().WithProviders(providers...).WithRules(rs).WithPageSize(1+r.IntN(4)).WithResourceTools(true))
		for pi, w := range diffPrincipals {
			ctx := context.WithValue(t.Context(), principalCtxKey{}, &principal{key: fmt.Sprintf("p%d", pi), who: w})
			var want []string
			for name, uris := range tree {
				for _, u := range uris {
					if refSees(ref, w, name, u) {
						want = append(want, u)
					}
				}
			}
			msg := fmt.Sprintf("round %d, principal %s, rules %+v", round, w, ref)
			require.ElementsMatch(t, want, diffReach(t, s, ctx, tree), msg)
		}
	}
}

func pathsOf(uris []string) []string {
	out := make([]string, len(uris))
	for i, u := range uris {
		_, out[i], _ = strings.Cut(u, ":///")
	}
	return out
}

// diffReach is every URI of tree the principal of ctx reaches by each
// method, each method required to reach the same set.
func diffReach(t *testing.T, s *Server, ctx context.Context, tree map[string][]string) []string {
	t.Helper()
	rev := revision("2026-07-28")
	var listed []string
	for cursor, pages := "", 0; ; pages++ {
		require.Less(t, pages, 1000)
		items, _, next, err := listPage(ctx, s, rev, cursor, listQuery{kind: kindResources}, s.cfg.pageSize, abi.OpList, s.fetchResources, resourceFor)
		require.NoError(t, err)
		for _, it := range items {
			listed = append(listed, it.URI)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	var read, heard, completed, all []string
	for name, uris := range tree {
		all = append(all, uris...)
		for _, u := range uris {
			if _, err := s.read(ctx, rev, u); err == nil {
				read = append(read, u)
			}
		}
		n := s.honoured(ctx, &mcp.NotificationSubscriptions{ResourceSubscriptions: uris})
		heard = append(heard, n.ResourceSubscriptions...)
		res, jerr := s.completeParams(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: refResource, URI: name + ":///{+path}"},
			Argument: mcp.CompleteParamsArgument{Name: "path"}})
		require.Nil(t, jerr)
		for _, v := range res.Completion.Values {
			completed = append(completed, name+":///"+v)
		}
	}
	require.ElementsMatch(t, listed, read, "list and read agree")
	require.ElementsMatch(t, listed, heard, "list and listen agree")
	// Completion offers values of the template over the whole tree: only
	// the ones a read would serve.
	require.ElementsMatch(t, listed, completed, "list and completion agree")
	for _, u := range listed {
		require.Contains(t, all, u)
	}
	return listed
}
