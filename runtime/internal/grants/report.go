package grants

import (
	"maps"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/egress"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/textsafe"
)

// Set is what the operator granted a provider, as the root passes it down
// (runtime.Grants).
type Set struct {
	Dirs            []Dir
	Config, Secrets map[string]string
	HTTP            egress.Grant
	Clock, Random   bool
}

// Masked stands for a secret value wherever grants are shown.
const Masked = "********"

// Line is one row of the report: see runtime.GrantLine.
type Line struct {
	Kind, Requested, Granted, Note string
}

// Report lines up d's requests (d may be nil when the module did not
// load) with g. It shows no secret and reads no file's contents: granted
// paths are resolved (symlinks, single files) to where they are mounted.
func Report(d *abi.Describe, g Set) []Line {
	var q abi.Requests
	if d != nil && d.Requests != nil {
		q = *d.Requests
	}
	var out []Line
	out = append(out, fsReport(q.Filesystem, g.Dirs)...)
	out = append(out, configReport(q.Config, g)...)
	out = append(out, httpReport(q.HTTP, g.HTTP)...)
	out = append(out, boolReport("clock", q.Clock, g.Clock, "real", "fake"))
	out = append(out, boolReport("random", q.Random, g.Random, "crypto/rand", "deterministic"))
	return out
}

// fsReport shows each granted path where the guest sees it. Filesystem
// requests are informational (a grant is mounted at its real path, or at
// the guest path the operator gives, never at a requested path): a grant
// that happens to be mounted at the requested path, or a request for "/"
// (any path: the provider serves whatever it is given), pairs with it; a request left
// alone says where to map a grant if the provider reads only that path.
func fsReport(reqs []abi.FSRequest, dirs []Dir) []Line {
	var out, lines []Line
	guests := make([]string, len(dirs))
	for i, d := range dirs {
		m, err := PlanOne(d)
		guests[i] = m.Guest
		line := Line{Kind: "filesystem"}
		switch {
		case err != nil:
			line.Granted, line.Note = d.Host+" (read-only)", "not mounted: "+textsafe.Sanitize(err.Error(), 300)
		case m.Only != nil:
			for name := range m.Only {
				line.Granted = d.Host + " mounted at " + path.Join(m.Guest, name) + " (read-only, this file only)"
			}
		default:
			line.Granted = d.Host + " mounted at " + m.Guest + " (read-only)"
		}
		lines = append(lines, line)
	}
	anyPath := slices.ContainsFunc(reqs, func(r abi.FSRequest) bool { return r.Path == "/" })
	used := make([]bool, len(lines))
	for _, r := range reqs {
		if r.Path == "/" {
			continue
		}
		line := Line{Kind: "filesystem", Requested: r.Path + " (read-only)"}
		for j, l := range lines {
			if !used[j] && guests[j] == r.Path {
				used[j], line.Granted = true, l.Granted
				break
			}
		}
		if line.Granted == "" && len(dirs) > 0 {
			line.Note = "nothing is mounted there (grants are mounted at their real paths): if the provider reads only " + r.Path + `, map a grant there with "guest" in a config file`
		}
		out = append(out, line)
	}
	for j, l := range lines {
		switch {
		case used[j]:
			continue
		case anyPath:
			l.Requested = "any directory (read-only)"
		case l.Note == "" && len(reqs) > 0:
			l.Note = "not requested"
		}
		out = append(out, l)
	}
	if anyPath && len(dirs) == 0 {
		out = append(out, Line{Kind: "filesystem", Requested: "any directory (read-only)"})
	}
	return out
}

func configReport(reqs []abi.ConfigRequest, g Set) []Line {
	var out []Line
	asked := map[string]bool{}
	show := func(key string, secret bool) (string, bool) {
		if _, ok := g.Secrets[key]; ok {
			return key + " = " + Masked, true
		}
		v, ok := g.Config[key]
		switch {
		case !ok:
			return "", false
		case secret:
			return key + " = " + Masked, true
		}
		return key + " = " + strconv.Quote(textsafe.Sanitize(v, 200)), true
	}
	for _, r := range reqs {
		asked[r.Key] = true
		_, isSecret := g.Secrets[r.Key]
		kind := map[bool]string{true: "secret", false: "config"}[r.Secret || isSecret]
		line := Line{Kind: kind, Requested: r.Key}
		line.Granted, _ = show(r.Key, r.Secret)
		switch _, plain := g.Config[r.Key]; {
		case line.Granted == "" && r.Required:
			line.Note = "required but not granted: the provider may fail"
		case r.Secret && plain:
			line.Note = "a secret granted as plain config: pass it with --config-env (or the config file's secrets) to keep it out of argv and logs"
		}
		out = append(out, line)
	}
	for _, k := range slices.Sorted(maps.Keys(g.Config)) {
		if !asked[k] {
			v, _ := show(k, false)
			out = append(out, Line{Kind: "config", Granted: v, Note: "not requested"})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g.Secrets)) {
		if !asked[k] {
			v, _ := show(k, true)
			out = append(out, Line{Kind: "secret", Granted: v, Note: "not requested"})
		}
	}
	return out
}

func httpReport(reqs []abi.HTTPRequest, g egress.Grant) []Line {
	var out []Line
	covered := make([]bool, len(g.Allow))
	for _, r := range reqs {
		line := Line{Kind: "http", Requested: textsafe.Sanitize(r.Prefix, 200)}
		if u, err := url.Parse(r.Prefix); err == nil {
			for i, rule := range g.Allow {
				if egress.RuleAllows(rule, "GET", u) {
					covered[i], line.Granted = true, describeRule(g.Allow[i])
					break
				}
			}
		}
		out = append(out, line)
	}
	for i, r := range g.Allow {
		if !covered[i] {
			out = append(out, Line{Kind: "http", Granted: describeRule(r), Note: noteIf(len(reqs) > 0, "not requested")})
		}
	}
	if len(g.Allow) > 0 {
		net := "public addresses only"
		if g.AllowPrivateNetwork {
			net = "private network allowed (metadata endpoints still refused)"
		}
		out = append(out, Line{Kind: "http", Granted: net})
	}
	return out
}

func describeRule(r egress.Rule) string {
	return strings.Join(r.SortedMethods(), ",") + " " + r.Prefix
}

func boolReport(kind string, asked, granted bool, yes, no string) Line {
	line := Line{Kind: kind, Granted: no}
	if granted {
		line.Granted = yes
	}
	if asked {
		line.Requested = yes
	}
	return line
}

func noteIf(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}
