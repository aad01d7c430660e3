package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/served"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// allowFlag is the simple case of access rules: one rule per client, on
// the command line. A config file's "access" rules say more (exclude
// patterns, several clients per rule); the two are combined.
func allowFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "allow", Usage: "access rule `WHO=WHAT` (repeatable): the client WHO (token:NAME, sub:SUBJECT, " +
		"client:ID, scope:SCOPE, claim:NAME=VALUE, authenticated, anonymous, stdio or *) sees WHAT, a provider's name or a URI " +
		"pattern (notes:///team/**); once any rule is given, clients see only what rules allow (docs/access-control.md)"}
}

// allowRules compiles the --allow flags: one rule per WHO, named
// "--allow WHO", its providers and patterns gathered in flag order.
func allowRules(flags []string) ([]server.Rule, error) {
	type spec struct{ providers, include []string }
	var order []string
	specs := map[string]*spec{}
	for _, f := range flags {
		i := strings.LastIndex(f, "=")
		if i <= 0 || i == len(f)-1 {
			return nil, usageError("--allow %q: write WHO=WHAT, such as --allow token:ci=notes or --allow 'claim:team=red=notes:///red/**'", f)
		}
		who, what := f[:i], f[i+1:]
		sp := specs[who]
		if sp == nil {
			sp = &spec{}
			specs[who] = sp
			order = append(order, who)
		}
		if strings.Contains(what, ":") {
			sp.include = append(sp.include, what)
		} else {
			sp.providers = append(sp.providers, what)
		}
	}
	var out []server.Rule
	for _, who := range order {
		sp := specs[who]
		if len(sp.providers) > 0 && len(sp.include) > 0 {
			return nil, usageError("--allow %s: give either provider names or URI patterns for one client, not both (a config file's access rules can combine them)", who)
		}
		r, err := server.NewRule("--allow "+who, []string{who}, sp.providers, sp.include, nil)
		if err != nil {
			return nil, usageError("--allow %s: %v", who, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// accessRules are the access rules of generation g: its config file's,
// then the --allow flags', each provider they name checked against the
// providers g serves.
func accessRules(c *cli.Context, g *served.Generation) (server.Rules, error) {
	rules := g.Config().Access.All()
	if c.IsSet("allow") {
		flags, err := allowRules(c.StringSlice("allow"))
		if err != nil {
			return server.Rules{}, err
		}
		rules = append(rules, flags...)
	}
	rs, err := server.NewRules(rules...)
	if err != nil {
		return server.Rules{}, failure(err)
	}
	var names []string
	for _, p := range g.Providers() {
		names = append(names, p.Name())
	}
	if err := config.CheckRuleProviders(rs, names); err != nil {
		return server.Rules{}, failure(err)
	}
	return rs, nil
}

// publishAccessTo swaps a reloaded generation into srv with its access
// rules, atomically: no request sees new providers under old rules.
func publishAccessTo(c *cli.Context, srv *server.Server) func(*served.Generation) (<-chan struct{}, error) {
	return func(next *served.Generation) (<-chan struct{}, error) {
		rs, err := accessRules(c, next)
		if err != nil {
			return nil, err
		}
		return srv.SetProvidersAndRules(rs, serverProviders(next.Providers())...)
	}
}

// accessTable renders the rules for validate (nothing without rules): one rule a line, who it is
// for, the providers it covers and what of them it lets through.
func accessTable(rs server.Rules) string {
	if !rs.On() {
		return "" // every client sees what each provider exposes
	}
	var b strings.Builder
	b.WriteString("  access: deny by default; a client sees what any rule for it allows:\n")
	for _, r := range rs.All() {
		providers := "every provider"
		if ps := r.Providers(); ps != nil {
			providers = strings.Join(ps, ", ")
		}
		fmt.Fprintf(&b, "    %s\n      who:       %s\n      providers: %s\n      sees:      %s\n",
			termLine(r.Name(), 300), termLine(strings.Join(r.Who(), ", "), 2000), termLine(providers, 2000), termLine(r.Filter().String(), 4000))
	}
	return b.String()
}
