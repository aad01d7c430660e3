package server

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMatcher: what each "who" entry matches.
func TestMatcher(t *testing.T) {
	alice := Who{Kind: WhoStatic, Name: "alice"}
	carol := Who{Kind: WhoSubject, Name: "carol", Scopes: []string{"notes:read"}, Claims: map[string][]string{"tenant": {"acme"}, "groups": {"a", "b"}}}
	svc := Who{Kind: WhoClientID, Name: "svc"}
	anon, local := Who{Kind: WhoAnonymous}, Who{Kind: WhoStdio}
	tests := []struct {
		entry string
		yes   []Who
	}{
		{"token:alice", []Who{alice}},
		{"sub:carol", []Who{carol}},
		{"sub:alice", nil}, // a static token's name is not an OAuth subject
		{"client:svc", []Who{svc}},
		{"scope:notes:read", []Who{carol}},
		{"claim:tenant=acme", []Who{carol}},
		{"claim:groups=b", []Who{carol}},
		{"claim:groups=a b", nil},
		{"authenticated", []Who{alice, carol, svc}},
		{"anonymous", []Who{anon}},
		{"stdio", []Who{local}},
		{"*", []Who{alice, carol, svc, anon, local}},
	}
	for _, tt := range tests {
		m, err := parseMatcher(tt.entry)
		require.NoError(t, err, tt.entry)
		require.Equal(t, tt.entry, m.String())
		for _, w := range []Who{alice, carol, svc, anon, local} {
			want := false
			for _, y := range tt.yes {
				want = want || y.Kind == w.Kind && y.Name == w.Name
			}
			require.Equal(t, want, m.matches(w), "%s matches %s", tt.entry, w)
		}
	}
	for _, bad := range []string{"", "alice", "token:", "claim:tenant", "claim:=x", "group:x", "token:a\x00b", strings.Repeat("x", 300)} {
		_, err := parseMatcher(bad)
		require.Error(t, err, "%q", bad)
	}
}

// TestNewRules_refusals: rules the server cannot apply as written.
func TestNewRules_refusals(t *testing.T) {
	_, err := NewRule("", []string{"*"}, nil, nil, nil)
	require.ErrorContains(t, err, "give each rule a short printable name")
	_, err = NewRule("r", nil, nil, nil, nil)
	require.ErrorContains(t, err, "who is empty")
	_, err = NewRule("r", []string{"*"}, []string{""}, nil, nil)
	require.ErrorContains(t, err, "give a provider's name")
	_, err = NewRule("r", []string{"*"}, nil, []string{"docs/**"}, nil)
	require.ErrorContains(t, err, "does not start with a scheme")
	a, err := NewRule("r", []string{"*"}, nil, nil, nil)
	require.NoError(t, err)
	_, err = NewRules(a, a)
	require.ErrorContains(t, err, `two rules are named "r"`)
	_, err = NewRules(Rule{})
	require.ErrorContains(t, err, "not built with NewRule")
	rs, err := NewRules()
	require.NoError(t, err)
	require.False(t, rs.On(), "no rules: access control off")
}

// FuzzNewRule: no rule text panics the parser or the decision, and a rule
// that compiles never lets through a URI its own patterns do not.
func FuzzNewRule(f *testing.F) {
	f.Add("r", "token:alice", "notes", "notes:///alice/**", "notes:///alice/*.key", "notes:///alice/x")
	f.Add("r", "claim:tenant=acme", "", "", "", "wiki:///home")
	f.Add("r", "*", "", "file:///%2e%2e/**", "", "file:///../etc")
	f.Add("", "bogus", "x", "/", "y", "")
	f.Fuzz(func(t *testing.T, name, who, provider, include, exclude, uri string) {
		var providers, inc, exc []string
		if provider != "" {
			providers = []string{provider}
		}
		if include != "" {
			inc = []string{include}
		}
		if exclude != "" {
			exc = []string{exclude}
		}
		r, err := NewRule(name, []string{who}, providers, inc, exc)
		if err != nil {
			return
		}
		rs, err := NewRules(r)
		require.NoError(t, err)
		for _, w := range diffPrincipals {
			got, ok := rs.Decide(w, provider, uri)
			if ok {
				require.Equal(t, name, got.Name())
				require.True(t, r.filter.Allows(uri))
				require.True(t, r.matches(w))
			}
		}
	})
}
