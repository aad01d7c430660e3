package config

import (
	"fmt"
	"slices"

	"github.com/mcp-wasm/mcp-wasm/server"
)

// ruleFile is one access rule as written: who it is for, which providers
// (by name; none: every provider) and which of their URIs (expose's
// pattern language; none: all of them) it lets them see.
type ruleFile struct {
	Name      string   `json:"name"`
	Who       []string `json:"who"`
	Providers []string `json:"providers"`
	Include   []string `json:"include"`
	Exclude   []string `json:"exclude"`
}

// resolveAccess compiles the access rules, each problem at its position.
// A rule without a name is named after its place, "access[i]".
func resolveAccess(src *source, rfs []ruleFile) (server.Rules, []string) {
	var problems []string
	var rules []server.Rule
	for i, rf := range rfs {
		path := fmt.Sprintf("access[%d]", i)
		name := rf.Name
		if name == "" {
			name = path
		}
		r, err := server.NewRule(name, rf.Who, rf.Providers, rf.Include, rf.Exclude)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s: %v", src.at(path), path, err))
			continue
		}
		rules = append(rules, r)
	}
	if len(problems) > 0 {
		return server.Rules{}, problems
	}
	rs, err := server.NewRules(rules...)
	if err != nil {
		return server.Rules{}, []string{fmt.Sprintf("%s: access: %v", src.at("access"), err)}
	}
	return rs, nil
}

// CheckRuleProviders reports a rule that names a provider not in names
// (the providers served, by their effective names): a typo there would
// hide the provider from the clients the rule is for.
func CheckRuleProviders(rs server.Rules, names []string) error {
	for _, r := range rs.All() {
		for _, p := range r.Providers() {
			if !slices.Contains(names, p) {
				return fmt.Errorf("access rule %q names provider %q, which is not served (serving %v): fix the name, or set the provider's \"name\"", r.Name(), p, names)
			}
		}
	}
	return nil
}
