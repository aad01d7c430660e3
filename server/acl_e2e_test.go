package server

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/server/auth"
	"github.com/mcp-wasm/mcp-wasm/server/auth/authtest"
	"github.com/mcp-wasm/mcp-wasm/server/servertest"
)

// The team fixture: a notes provider with a folder per person and a shared
// one, and a wiki; four principals (two static tokens, two OAuth
// subjects) with a rule each.

func teamProviders(reads *atomic.Int32) []Provider {
	count := func(_ context.Context, op, _ string) error {
		if op == abi.OpRead {
			reads.Add(1)
		}
		return nil
	}
	notes := servertest.New("notes", abi.URIRoot{Scheme: "notes"}).WithPageSize(3).WithIntercept(count).
		AddTemplate(abi.ResourceTemplate{URITemplate: "notes:///items/{id}", Name: "item"}, "100", "101", "200")
	for _, who := range []string{"alice", "bob", "shared"} {
		for _, n := range []string{"a", "b", "c", "d"} {
			notes.AddText("notes:///"+who+"/"+n, "text/plain", who+" "+n)
		}
	}
	for _, id := range []string{"100", "101", "200"} {
		notes.AddText("notes:///items/"+id, "text/plain", "item "+id)
	}
	wiki := servertest.New("wiki", abi.URIRoot{Scheme: "wiki"}).WithIntercept(count).
		AddText("wiki:///home", "text/plain", "home").AddText("wiki:///plans", "text/plain", "plans").
		WithCache(abi.CacheHint{TTLMs: 60_000, Scope: abi.ScopePrivate})
	return []Provider{notes, wiki}
}

func mustRule(t testing.TB, name string, who, providers, include, exclude []string) Rule {
	t.Helper()
	r, err := NewRule(name, who, providers, include, exclude)
	require.NoError(t, err)
	return r
}

// teamRules: alice sees her notes and the shared ones, bob his own but
// not bob/d, carol (tenant acme) the wiki, dave the items 1xx.
func teamRules(t testing.TB) Rules {
	rs, err := NewRules(
		mustRule(t, "alice", []string{"token:alice"}, []string{"notes"}, []string{"notes:///alice/**", "notes:///shared/**"}, nil),
		mustRule(t, "bob", []string{"token:bob"}, []string{"notes"}, []string{"notes:///bob/**"}, []string{"notes:///bob/d*"}),
		mustRule(t, "acme", []string{"claim:tenant=acme"}, []string{"wiki"}, nil, nil),
		mustRule(t, "dave", []string{"sub:dave"}, []string{"notes"}, []string{"notes:///items/1*"}, nil),
		mustRule(t, "local", []string{"stdio"}, nil, []string{"notes:///shared/**", "wiki:///home"}, nil),
	)
	require.NoError(t, err)
	return rs
}

// teamUniverse is every URI of the fixture, and some that do not exist.
var teamUniverse = []string{
	"notes:///alice/a", "notes:///alice/b", "notes:///alice/c", "notes:///alice/d",
	"notes:///bob/a", "notes:///bob/b", "notes:///bob/c", "notes:///bob/d",
	"notes:///shared/a", "notes:///shared/b", "notes:///shared/c", "notes:///shared/d",
	"notes:///items/100", "notes:///items/101", "notes:///items/200",
	"wiki:///home", "wiki:///plans",
}

type teamMember struct {
	name   string
	client func(t *testing.T) *http.Client // nil: stdio
	sees   []string
	hidden string // a URI that exists and is hidden from it
	absent string // a URI that does not exist, of a provider it sees ("": none)
	tmpls  []string
	sub    string // a visible URI to subscribe to
}

func teamMembers(iss *authtest.Issuer) []teamMember {
	jwtFor := func(claims map[string]any) func(t *testing.T) *http.Client {
		return func(t *testing.T) *http.Client {
			return bearerClient(iss.Sign(t, jwt.SigningMethodRS256, "rsa1", nil, iss.Claims(claims)))
		}
	}
	static := func(tok string) func(t *testing.T) *http.Client {
		return func(*testing.T) *http.Client { return bearerClient(tok) }
	}
	return []teamMember{
		{name: "alice", client: static("alice-secret"), sub: "notes:///alice/a", hidden: "notes:///bob/a", absent: "notes:///alice/zz",
			sees: []string{"notes:///alice/a", "notes:///alice/b", "notes:///alice/c", "notes:///alice/d",
				"notes:///shared/a", "notes:///shared/b", "notes:///shared/c", "notes:///shared/d"}},
		{name: "bob", client: static("bob-secret"), sub: "notes:///bob/a", hidden: "notes:///bob/d", absent: "notes:///bob/zz",
			sees: []string{"notes:///bob/a", "notes:///bob/b", "notes:///bob/c"}},
		{name: "carol", client: jwtFor(map[string]any{"sub": "carol", "tenant": "acme"}), sub: "wiki:///home",
			hidden: "notes:///alice/a", absent: "wiki:///nope", sees: []string{"wiki:///home", "wiki:///plans"}},
		{name: "dave", client: jwtFor(map[string]any{"sub": "dave", "tenant": []string{"other"}}), sub: "notes:///items/100",
			hidden: "notes:///items/200", tmpls: []string{"notes:///items/{id}"},
			sees: []string{"notes:///items/100", "notes:///items/101"}},
	}
}

// TestACL_team: two static tokens and two OAuth subjects, over Streamable
// HTTP on both eras, each see exactly their resources through every
// method; a hidden resource answers as an absent one and costs no provider
// call; another principal's cursor is refused.
func TestACL_team(t *testing.T) {
	iss := authtest.NewIssuer(t)
	var reads atomic.Int32
	s := newServer(t, NewConfig().WithProviders(teamProviders(&reads)...).WithRules(teamRules(t)).WithPageSize(2).WithResourceTools(true))
	a := auth.NewConfig().WithStaticToken("alice", "alice-secret").WithStaticToken("bob", "bob-secret").
		WithOAuth(auth.OAuthConfig{Resource: authtest.Resource, Issuer: iss.URL()})
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(a).WithRateLimit(1e6, 1e6))
	members := teamMembers(iss)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cursors := map[string]string{}
		for _, m := range members {
			t.Run(version+"/"+m.name, func(t *testing.T) {
				cs := connectHTTP(t, url, version, m.client(t), nil)
				checkMember(t, cs, version, m, &reads)
				res, err := cs.ListResources(t.Context(), nil)
				require.NoError(t, err)
				if res.NextCursor != "" {
					cursors[m.name] = res.NextCursor
				}
			})
		}
		t.Run(version+"/cursors", func(t *testing.T) {
			for _, m := range members {
				cs := connectHTTP(t, url, version, m.client(t), nil)
				for owner, c := range cursors {
					_, err := cs.ListResources(t.Context(), &mcp.ListResourcesParams{Cursor: c})
					if owner == m.name {
						require.NoError(t, err, "%s's own cursor", m.name)
						continue
					}
					require.Contains(t, rpcError(t, err).Message, "cursor belongs to another client", "%s's cursor used by %s", owner, m.name)
				}
			}
		})
	}
}

// TestACL_stdio: the local user on stdio is a principal too.
func TestACL_stdio(t *testing.T) {
	var reads atomic.Int32
	s := newServer(t, NewConfig().WithProviders(teamProviders(&reads)...).WithRules(teamRules(t)).WithPageSize(2).WithResourceTools(true))
	m := teamMember{name: "stdio", sub: "wiki:///home", hidden: "wiki:///plans", absent: "notes:///shared/zz",
		sees: []string{"notes:///shared/a", "notes:///shared/b", "notes:///shared/c", "notes:///shared/d", "wiki:///home"}}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) { checkMember(t, connectStdio(t, s, version), version, m, &reads) })
	}
}

// checkMember drives every method as m and checks that it reaches exactly
// m.sees.
func checkMember(t *testing.T, cs *mcp.ClientSession, version string, m teamMember, reads *atomic.Int32) {
	ctx := t.Context()
	got, _ := listAll(t, cs)
	require.ElementsMatch(t, m.sees, got, "resources/list, paged")
	res, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	if version == "2026-07-28" {
		require.Equal(t, abi.ScopePrivate, res.CacheScope, "a page that depends on the principal is private")
	}
	for _, uri := range teamUniverse {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if slices.Contains(m.sees, uri) {
			require.NoError(t, err, uri)
			if version == "2026-07-28" {
				require.Equal(t, abi.ScopePrivate, r.CacheScope, "a read that depends on the principal is private")
			}
			continue
		}
		require.Error(t, err, "%s must not read %s", m.name, uri)
	}
	// Hidden answers as absent: same code, same message, same data shape;
	// and the provider is not called for the hidden one.
	before := reads.Load()
	_, errHidden := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: m.hidden})
	require.Equal(t, before, reads.Load(), "a denied read never reaches the provider")
	ghost := m.hidden + "-ghost" // hidden too, and absent
	_, errGhost := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ghost})
	require.Equal(t, before, reads.Load(), "a denied read never reaches the provider")
	sameError(t, errGhost, ghost, errHidden, m.hidden)
	if m.absent != "" {
		_, errAbsent := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: m.absent})
		sameError(t, errAbsent, m.absent, errHidden, m.hidden)
	}

	tl, err := cs.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	var tmpls []string
	for _, tm := range tl.ResourceTemplates {
		tmpls = append(tmpls, tm.URITemplate)
	}
	require.ElementsMatch(t, m.tmpls, tmpls, "resources/templates/list")

	c, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "notes:///items/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: ""}})
	require.NoError(t, err)
	for _, v := range c.Completion.Values {
		require.Contains(t, m.sees, "notes:///items/"+v, "completion reveals only visible URIs")
	}
	if len(m.tmpls) > 0 {
		require.ElementsMatch(t, []string{"100", "101"}, c.Completion.Values)
	}

	checkToolsView(t, cs, version, m, ghost)

	if version != "2026-07-28" {
		require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: m.sub}))
		err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: m.hidden})
		sameError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: ghost}), ghost, err, m.hidden)
	}
}

// checkToolsView: the resource tools list and read exactly what m sees;
// a hidden resource's tool error is an absent one's.
func checkToolsView(t *testing.T, cs *mcp.ClientSession, version string, m teamMember, ghost string) {
	var got []string
	for cursor, pages := "", 0; pages < 100; pages++ {
		args := map[string]any{}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var page struct {
			Resources  []struct{ URI string }
			NextCursor string
		}
		dataOf(t, call(t, cs, "list_resources", args), version, &page)
		for _, r := range page.Resources {
			got = append(got, r.URI)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	require.ElementsMatch(t, m.sees, got, "list_resources tool")
	for _, uri := range teamUniverse {
		res := call(t, cs, "read_resource", map[string]any{"uri": uri})
		require.Equal(t, !slices.Contains(m.sees, uri), res.IsError, "read_resource %s", uri)
	}
	hidden := call(t, cs, "read_resource", map[string]any{"uri": m.hidden})
	absent := call(t, cs, "read_resource", map[string]any{"uri": ghost})
	require.Equal(t, strings.ReplaceAll(textOf(t, absent), ghost, "U"), strings.ReplaceAll(textOf(t, hidden), m.hidden, "U"))
}

// sameError requires that two refusals differ only in the URI they name.
func sameError(t *testing.T, errA error, uriA string, errB error, uriB string) {
	t.Helper()
	a, b := rpcError(t, errA), rpcError(t, errB)
	require.Equal(t, a.Code, b.Code)
	require.Equal(t, a.Message, b.Message)
	require.Equal(t, strings.ReplaceAll(string(a.Data), uriA, "U"), strings.ReplaceAll(string(b.Data), uriB, "U"))
}

// TestACL_notifications: over each era, a subscription or listen of one
// principal hears about its own resources only, and a rule change on
// reload stops the signals for what it hides, on the open session.
func TestACL_notifications(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			var reads atomic.Int32
			ps := teamProviders(&reads)
			s := newServer(t, NewConfig().WithProviders(ps...).WithRules(teamRules(t)).withNotifyDelay(maxNotifyDelay))
			url := serveHTTP(t, s, NewHTTPConfig().WithAuth(staticTeamAuth()))
			alice, ha := connectHTTPHearing(t, url, version, bearerClient("alice-secret"))
			bob, hb := connectHTTPHearing(t, url, version, bearerClient("bob-secret"))
			subscribe(t, s, alice, version, "notes:///alice/a", "notes:///bob/a")
			subscribe(t, s, bob, version, "notes:///bob/a", "notes:///alice/a")

			s.ResourcesUpdated("notes", "notes:///alice/a", "notes:///bob/a")
			s.notify.flush()
			require.Eventually(t, func() bool { return ha.count("notes:///alice/a") == 1 && hb.count("notes:///bob/a") == 1 },
				testkit.Wait, time.Millisecond)

			// Reload: bob's rule no longer covers bob/a.
			rs, err := NewRules(mustRule(t, "bob", []string{"token:bob"}, []string{"notes"}, []string{"notes:///bob/b"}, nil),
				mustRule(t, "alice", []string{"token:alice"}, []string{"notes"}, []string{"notes:///alice/**"}, nil))
			require.NoError(t, err)
			_, err = s.SetProvidersAndRules(rs, ps...)
			require.NoError(t, err)
			_, err = bob.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///bob/a"})
			require.Error(t, err, "the open session reads under the new rules")
			s.ResourcesUpdated("notes", "notes:///alice/a", "notes:///bob/a")
			s.notify.flush()
			require.Eventually(t, func() bool { return ha.count("notes:///alice/a") == 2 }, testkit.Wait, time.Millisecond)
			// alice's second update was sent after bob's would have been, on
			// another session: give bob's the same time by a third flush
			// whose effect on alice we wait for.
			s.ResourcesUpdated("notes", "notes:///alice/a")
			s.notify.flush()
			require.Eventually(t, func() bool { return ha.count("notes:///alice/a") == 3 }, testkit.Wait, time.Millisecond)
			require.Equal(t, 1, hb.count("notes:///bob/a"), "no signal about what the reload hid")
			require.Zero(t, ha.count("notes:///bob/a"))
			require.Zero(t, hb.count("notes:///alice/a"))
		})
	}
}

func staticTeamAuth() auth.Config {
	return auth.NewConfig().WithStaticToken("alice", "alice-secret").WithStaticToken("bob", "bob-secret")
}

// connectHTTPHearing connects a go-sdk client over Streamable HTTP that
// records change notifications.
func connectHTTPHearing(t *testing.T, url, version string, hc *http.Client) (*mcp.ClientSession, *heard) {
	t.Helper()
	h := &heard{}
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "acl", Version: "1"}, h.options()).
		Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, h
}

// subscribe subscribes cs to uris: resources/subscribe on the handshake
// revisions (a hidden URI is refused, the rest kept), one listen each on
// 2026-07-28 (go-sdk's Subscribe listens until the test ends), waiting
// until the visible one is acknowledged.
func subscribe(t *testing.T, s *Server, cs *mcp.ClientSession, version, visible, hidden string) {
	t.Helper()
	if version != "2026-07-28" {
		require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: visible}))
		require.Error(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: hidden}))
		return
	}
	for _, uri := range []string{visible, hidden} {
		go func() { _ = cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}) }()
	}
	require.Eventually(t, func() bool { return listenedTo(s, visible) }, testkit.Wait, time.Millisecond)
}

// denialObserver counts denials (Denials) besides recording requests.
type denialObserver struct {
	recordingObserver
	mu     sync.Mutex
	denied map[string]int // "provider method"
}

func (o *denialObserver) Denied(provider, method string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.denied[provider+" "+method]++
}

func (o *denialObserver) count(key string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.denied[key]
}

// TestACL_auditAndMetrics: every decision line names the principal (the
// token's name, never the token) and the rule; denials are counted by
// provider and method.
func TestACL_auditAndMetrics(t *testing.T) {
	var reads atomic.Int32
	log, buf := newLogger()
	obs := &denialObserver{denied: map[string]int{}}
	s := newServer(t, NewConfig().WithProviders(teamProviders(&reads)...).WithRules(teamRules(t)).
		WithAuditLogger(log).WithObserver(obs).WithResourceTools(true))
	url := serveHTTP(t, s, NewHTTPConfig().WithAuth(staticTeamAuth()))
	cs := connectHTTP(t, url, "2025-11-25", bearerClient("alice-secret"), nil)
	_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///alice/a"})
	require.NoError(t, err)
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///bob/a"})
	require.Error(t, err)
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "wiki:///home"})
	require.Error(t, err)
	require.True(t, call(t, cs, "read_resource", map[string]any{"uri": "notes:///bob/b"}).IsError)
	_, err = cs.ListResources(t.Context(), nil)
	require.NoError(t, err)

	lines := buf.String()
	require.Contains(t, lines, "who=static:alice method=resources/read")
	require.Contains(t, lines, "uri=notes:///alice/a provider=notes decision=allow rule=alice")
	require.Contains(t, lines, `uri=notes:///bob/a provider=notes decision=deny reason=not_found rule="(default deny)"`)
	require.Contains(t, lines, `method=resources/list session=`)
	require.Contains(t, lines, `decision=allow rule=alice bytes=0`)
	require.NotContains(t, lines, "alice-secret")
	require.Equal(t, 1, obs.count("notes resources/read"))
	require.Equal(t, 1, obs.count("wiki resources/read"))
	require.Equal(t, 1, obs.count("notes tools/call"))
}

// TestACL_anonymousIsNotStdio: over HTTP without tokens, a client is
// anonymous, never the local user: a rule for stdio grants it nothing, on
// either era, and a rule for anonymous grants it its share.
func TestACL_anonymousIsNotStdio(t *testing.T) {
	var reads atomic.Int32
	rs, err := NewRules(mustRule(t, "local", []string{"stdio"}, nil, nil, nil),
		mustRule(t, "anon", []string{"anonymous"}, []string{"wiki"}, []string{"wiki:///home"}, nil))
	require.NoError(t, err)
	s := newServer(t, NewConfig().WithProviders(teamProviders(&reads)...).WithRules(rs))
	url := serveHTTP(t, s, NewHTTPConfig())
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectHTTP(t, url, version, nil, nil)
		got, _ := listAll(t, cs)
		require.Equal(t, []string{"wiki:///home"}, got, version)
		_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes:///alice/a"})
		require.Error(t, err, version)
	}
	got, _ := listAll(t, connectStdio(t, s, ""))
	require.Len(t, got, len(teamUniverse), "the local user's rule grants everything")
}

// TestACL_listChanged: a provider's list change reaches, on each era, only
// the clients that may see that provider.
func TestACL_listChanged(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			var reads atomic.Int32
			rs, err := NewRules(mustRule(t, "alice", []string{"token:alice"}, []string{"notes"}, nil, nil),
				mustRule(t, "bob", []string{"token:bob"}, []string{"wiki"}, nil, nil))
			require.NoError(t, err)
			s := newServer(t, NewConfig().WithProviders(teamProviders(&reads)...).WithRules(rs).withNotifyDelay(maxNotifyDelay))
			url := serveHTTP(t, s, NewHTTPConfig().WithAuth(staticTeamAuth()))
			_, ha := connectHTTPHearing(t, url, version, bearerClient("alice-secret"))
			_, hb := connectHTTPHearing(t, url, version, bearerClient("bob-secret"))
			if version == "2026-07-28" { // go-sdk listens for list changes on connecting
				require.Eventually(t, func() bool { return listensFor(s) == 2 }, testkit.Wait, time.Millisecond)
			}
			s.ProviderListChanged("wiki")
			s.notify.flush()
			require.Eventually(t, func() bool { return hb.listChanges() == 1 }, testkit.Wait, time.Millisecond)
			s.ProviderListChanged("notes")
			s.notify.flush()
			require.Eventually(t, func() bool { return ha.listChanges() == 1 }, testkit.Wait, time.Millisecond)
			s.ProviderListChanged("notes")
			s.notify.flush()
			require.Eventually(t, func() bool { return ha.listChanges() == 2 }, testkit.Wait, time.Millisecond)
			require.Equal(t, 1, hb.listChanges(), "bob hears nothing of notes")
		})
	}
}

// listensFor counts the acknowledged listens that asked for list changes.
func listensFor(s *Server) int {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	n := 0
	for _, st := range s.subs.sessions {
		for _, l := range st.listens {
			if l.listChanged {
				n++
			}
		}
	}
	return n
}

// TestACL_cursorAfterReload: a cursor minted under one set of rules is
// refused once a reload changed the rules for its principal, and kept when
// the reload left them alone.
func TestACL_cursorAfterReload(t *testing.T) {
	var reads atomic.Int32
	ps := teamProviders(&reads)
	s := newServer(t, NewConfig().WithProviders(ps...).WithRules(teamRules(t)).WithPageSize(2))
	cs := connectStdio(t, s, "2026-07-28")
	res, err := cs.ListResources(t.Context(), nil)
	require.NoError(t, err)
	require.NotEmpty(t, res.NextCursor)

	_, err = s.SetProvidersAndRules(teamRules(t), ps...)
	require.NoError(t, err)
	_, err = cs.ListResources(t.Context(), &mcp.ListResourcesParams{Cursor: res.NextCursor})
	require.NoError(t, err, "same rules: the cursor still holds")

	rs, err := NewRules(mustRule(t, "local", []string{"stdio"}, nil, []string{"notes:///shared/**"}, nil))
	require.NoError(t, err)
	_, err = s.SetProvidersAndRules(rs, ps...)
	require.NoError(t, err)
	_, err = cs.ListResources(t.Context(), &mcp.ListResourcesParams{Cursor: res.NextCursor})
	require.Contains(t, rpcError(t, err).Message, "cursor belongs to another client")
}
