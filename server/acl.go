package server

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

// Access rules decide which client sees which resources. With no rules
// every client sees what the providers' URIFilters expose (the behaviour
// before rules existed). Once any rule is given, access is denied by
// default: a client sees a URI of a provider only when some rule matching
// the client names the provider (or every provider) and its patterns let
// the URI through, on top of the provider's own URIFilter. A hidden
// resource answers exactly as an absent one.

// Bounds of the rules.
const (
	// MaxRules bounds the rules of one server.
	MaxRules = 1024
	// maxRuleText bounds a rule's name, a principal matcher and a
	// provider name.
	maxRuleText = 256
	// maxRuleItems bounds the matchers and the provider names of a rule.
	maxRuleItems = 256
)

// errRule is wrapped by every refusal of NewRule and NewRules.
var errRule = errors.New("invalid access rule")

// Principal kinds of a Who.
const (
	WhoStatic    = auth.KindStatic   // a named static token
	WhoSubject   = auth.KindSubject  // an OAuth token's sub
	WhoClientID  = auth.KindClientID // an OAuth token without sub, by client_id
	WhoAnonymous = "anonymous"       // an HTTP client without a token
	WhoStdio     = "stdio"           // the local user on stdio (or in-process)
)

// Who is a client as access rules see it: what authenticated it and its
// name (a static token's name, an OAuth subject or client id; "" for
// anonymous and stdio), its OAuth scopes and its string claims.
type Who struct {
	Kind   string
	Name   string
	Scopes []string
	Claims map[string][]string
}

// whoOfPrincipal is the Who of an authenticated principal.
func whoOfPrincipal(p *auth.Principal) Who {
	return Who{Kind: p.Kind, Name: p.Subject, Scopes: p.Scopes, Claims: p.Claims}
}

// String names w for logs and audit lines: "token:ci", "sub:alice",
// "client:svc", "anonymous", "stdio". It never holds a token.
func (w Who) String() string {
	switch w.Kind {
	case WhoStatic:
		return "token:" + w.Name
	case WhoSubject:
		return "sub:" + w.Name
	case WhoClientID:
		return "client:" + w.Name
	}
	return w.Kind
}

// matcher is one compiled "who" entry of a rule.
type matcher struct {
	kind  string // "token", "sub", "client", "scope", "claim", "anonymous", "stdio", "authenticated", "*"
	name  string // the token name, subject, client id, scope or claim name
	value string // the claim value
}

// parseMatcher compiles one "who" entry:
//
//	token:NAME        the static token named NAME (token file "NAME TOKEN")
//	sub:SUBJECT       an OAuth token whose sub is SUBJECT
//	client:ID         an OAuth token without sub whose client_id is ID
//	scope:SCOPE       an OAuth token holding SCOPE
//	claim:NAME=VALUE  an OAuth token whose claim NAME is VALUE or lists it
//	authenticated     any client with a valid token
//	anonymous         an HTTP client without a token
//	stdio             the local user on stdio
//	*                 anyone
func parseMatcher(s string) (matcher, error) {
	switch {
	case len(s) > maxRuleText:
		return matcher{}, fmt.Errorf("longer than %d bytes", maxRuleText)
	case !utf8.ValidString(s) || strings.ContainsFunc(s, abi.IsControlOrFormat):
		return matcher{}, errors.New("holds a control or format character")
	}
	switch s {
	case "*", "authenticated", WhoAnonymous, WhoStdio:
		return matcher{kind: s}, nil
	}
	kind, name, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return matcher{}, errors.New(`write KIND:NAME (token:, sub:, client:, scope:, claim:NAME=VALUE), or one of *, authenticated, anonymous and stdio`)
	}
	switch kind {
	case "token", "sub", "client", "scope":
		return matcher{kind: kind, name: name}, nil
	case "claim":
		n, v, ok := strings.Cut(name, "=")
		if !ok || n == "" || v == "" {
			return matcher{}, errors.New("write claim:NAME=VALUE, such as claim:tenant=acme")
		}
		return matcher{kind: kind, name: n, value: v}, nil
	}
	return matcher{}, fmt.Errorf("unknown kind %q: use token, sub, client, scope or claim", kind)
}

// matches reports whether w is who m names.
func (m matcher) matches(w Who) bool {
	oauth := w.Kind == WhoSubject || w.Kind == WhoClientID
	switch m.kind {
	case "*":
		return true
	case "authenticated":
		return w.Kind == WhoStatic || oauth
	case WhoAnonymous, WhoStdio:
		return w.Kind == m.kind
	case "token":
		return w.Kind == WhoStatic && w.Name == m.name
	case "sub":
		return w.Kind == WhoSubject && w.Name == m.name
	case "client":
		return w.Kind == WhoClientID && w.Name == m.name
	case "scope":
		return oauth && slices.Contains(w.Scopes, m.name)
	case "claim":
		return oauth && slices.Contains(w.Claims[m.name], m.value)
	}
	return false
}

func (m matcher) String() string {
	switch m.kind {
	case "token", "sub", "client", "scope":
		return m.kind + ":" + m.name
	case "claim":
		return "claim:" + m.name + "=" + m.value
	}
	return m.kind
}

// Rule grants the clients it matches the URIs of some providers: those
// its Filter lets through (the zero filter: all of them). It is an
// immutable value; build it with NewRule.
type Rule struct {
	name      string
	who       []matcher
	providers []string // nil: every provider
	filter    URIFilter
}

// NewRule compiles a rule: name (for audit lines; "" is refused), who
// (parseMatcher's entries; a client matching any of them), providers (the
// provider names it covers; none: every provider) and the include and
// exclude URI patterns of NewURIFilter (none: everything of them).
func NewRule(name string, who, providers, include, exclude []string) (Rule, error) {
	switch {
	case name == "" || len(name) > maxRuleText || !utf8.ValidString(name) || strings.ContainsFunc(name, abi.IsControlOrFormat):
		return Rule{}, fmt.Errorf("%w: name %q: give each rule a short printable name", errRule, clip(name))
	case len(who) == 0:
		return Rule{}, fmt.Errorf("%w %q: who is empty: name the clients it is for, such as \"token:ci\" or \"claim:tenant=acme\"", errRule, name)
	case len(who) > maxRuleItems || len(providers) > maxRuleItems:
		return Rule{}, fmt.Errorf("%w %q: more than %d who entries or providers", errRule, name, maxRuleItems)
	}
	r := Rule{name: name}
	for _, s := range who {
		m, err := parseMatcher(s)
		if err != nil {
			return Rule{}, fmt.Errorf("%w %q: who %q: %w", errRule, name, clip(s), err)
		}
		r.who = append(r.who, m)
	}
	for _, p := range providers {
		if p == "" || len(p) > maxRuleText || !utf8.ValidString(p) {
			return Rule{}, fmt.Errorf("%w %q: provider %q: give a provider's name", errRule, name, clip(p))
		}
	}
	if len(providers) > 0 {
		r.providers = slices.Clone(providers)
	}
	f, err := NewURIFilter(include, exclude)
	if err != nil {
		return Rule{}, fmt.Errorf("%w %q: %w", errRule, name, err)
	}
	r.filter = f
	return r, nil
}

// Name is the rule's name.
func (r Rule) Name() string { return r.name }

// Who renders the clients the rule is for, as written.
func (r Rule) Who() []string {
	out := make([]string, len(r.who))
	for i, m := range r.who {
		out[i] = m.String()
	}
	return out
}

// Providers are the provider names the rule covers; nil for every one.
func (r Rule) Providers() []string { return slices.Clone(r.providers) }

// Filter is what the rule lets through of its providers.
func (r Rule) Filter() URIFilter { return r.filter }

// matches reports whether the rule is for w.
func (r Rule) matches(w Who) bool {
	return slices.ContainsFunc(r.who, func(m matcher) bool { return m.matches(w) })
}

// covers reports whether the rule names the provider called name.
func (r Rule) covers(name string) bool {
	return r.providers == nil || slices.Contains(r.providers, name)
}

// Rules are a server's access rules. The zero Rules is off: every client
// sees what the providers expose. It is an immutable value.
type Rules struct {
	rules []Rule
}

// NewRules collects rules, each with a distinct name; at least one turns
// access control on (deny by default).
func NewRules(rs ...Rule) (Rules, error) {
	if len(rs) > MaxRules {
		return Rules{}, fmt.Errorf("%w: %d rules: give at most %d", errRule, len(rs), MaxRules)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if r.name == "" {
			return Rules{}, fmt.Errorf("%w: a rule was not built with NewRule", errRule)
		}
		if seen[r.name] {
			return Rules{}, fmt.Errorf("%w: two rules are named %q: name each rule once", errRule, r.name)
		}
		seen[r.name] = true
	}
	return Rules{rules: slices.Clone(rs)}, nil
}

// On reports whether access control is on (some rule is given).
func (rs Rules) On() bool { return len(rs.rules) > 0 }

// All returns the rules in order.
func (rs Rules) All() []Rule { return slices.Clone(rs.rules) }

// Decide returns the rule that lets w see uri of the provider called
// provider: the first in order, and true; or false when none does (or
// access control is off: then nothing is decided here). The provider's
// own URIFilter applies besides.
func (rs Rules) Decide(w Who, provider, uri string) (Rule, bool) {
	for _, r := range rs.rules {
		if r.covers(provider) && r.matches(w) && r.filter.Allows(uri) {
			return r, true
		}
	}
	return Rule{}, false
}

// grants returns the filters of the rules that let w see something of
// the provider called provider; none: it is hidden from w whole.
func (rs Rules) grants(w Who, provider string) []URIFilter {
	var out []URIFilter
	for _, r := range rs.rules {
		if r.covers(provider) && r.matches(w) {
			out = append(out, r.filter)
		}
	}
	return out
}

// matching returns the indexes of the rules for w, the rules that shape
// what w sees.
func (rs Rules) matching(w Who) []int {
	var out []int
	for i, r := range rs.rules {
		if r.matches(w) {
			out = append(out, i)
		}
	}
	return out
}
