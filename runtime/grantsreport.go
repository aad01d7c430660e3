package runtime

import (
	"context"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/egress"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// GrantLine is one row of what a provider requests next to what the
// operator granted, for inspect. Secret values are always masked.
type GrantLine struct {
	// Kind is "filesystem", "config", "secret", "http", "clock" or "random".
	Kind string `json:"kind"`
	// Requested is what the provider asked for; "" if it did not ask.
	Requested string `json:"requested,omitempty"`
	// Granted is what the operator gave; "" if nothing.
	Granted string `json:"granted,omitempty"`
	// Note flags a mismatch worth the operator's attention.
	Note string `json:"note,omitempty"`
}

// GrantReport lines up d's requests (d may be nil when the module did not
// load) with g. It shows no secret and reads no file's contents: granted
// paths are resolved (symlinks, single files) to where they are mounted.
func GrantReport(d *abi.Describe, g Grants) []GrantLine {
	var q abi.Requests
	if d != nil && d.Requests != nil {
		q = *d.Requests
	}
	var out []GrantLine
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
func fsReport(reqs []abi.FSRequest, dirs []DirGrant) []GrantLine {
	var out, lines []GrantLine
	guests := make([]string, len(dirs))
	for i, d := range dirs {
		m, err := planOne(d)
		guests[i] = m.guest
		line := GrantLine{Kind: "filesystem"}
		switch {
		case err != nil:
			line.Granted, line.Note = d.HostPath+" (read-only)", "not mounted: "+Sanitize(err.Error(), 300)
		case m.only != nil:
			for name := range m.only {
				line.Granted = d.HostPath + " mounted at " + path.Join(m.guest, name) + " (read-only, this file only)"
			}
		default:
			line.Granted = d.HostPath + " mounted at " + m.guest + " (read-only)"
		}
		lines = append(lines, line)
	}
	anyPath := slices.ContainsFunc(reqs, func(r abi.FSRequest) bool { return r.Path == "/" })
	used := make([]bool, len(lines))
	for _, r := range reqs {
		if r.Path == "/" {
			continue
		}
		line := GrantLine{Kind: "filesystem", Requested: r.Path + " (read-only)"}
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
		out = append(out, GrantLine{Kind: "filesystem", Requested: "any directory (read-only)"})
	}
	return out
}

func configReport(reqs []abi.ConfigRequest, g Grants) []GrantLine {
	var out []GrantLine
	asked := map[string]bool{}
	show := func(key string, secret bool) (string, bool) {
		if _, ok := g.Secrets[key]; ok {
			return key + " = " + masked, true
		}
		v, ok := g.Config[key]
		switch {
		case !ok:
			return "", false
		case secret:
			return key + " = " + masked, true
		}
		return key + " = " + strconv.Quote(Sanitize(v, 200)), true
	}
	for _, r := range reqs {
		asked[r.Key] = true
		_, isSecret := g.Secrets[r.Key]
		kind := map[bool]string{true: "secret", false: "config"}[r.Secret || isSecret]
		line := GrantLine{Kind: kind, Requested: r.Key}
		line.Granted, _ = show(r.Key, r.Secret)
		switch _, plain := g.Config[r.Key]; {
		case line.Granted == "" && r.Required:
			line.Note = "required but not granted: the provider may fail"
		case r.Secret && plain:
			line.Note = "a secret granted as plain config: pass it with --config-env (or the config file's secrets) to keep it out of argv and logs"
		}
		out = append(out, line)
	}
	for _, k := range sortedKeys(g.Config) {
		if !asked[k] {
			v, _ := show(k, false)
			out = append(out, GrantLine{Kind: "config", Granted: v, Note: "not requested"})
		}
	}
	for _, k := range sortedKeys(g.Secrets) {
		if !asked[k] {
			v, _ := show(k, true)
			out = append(out, GrantLine{Kind: "secret", Granted: v, Note: "not requested"})
		}
	}
	return out
}

func httpReport(reqs []abi.HTTPRequest, g HTTPGrant) []GrantLine {
	var out []GrantLine
	covered := make([]bool, len(g.Allow))
	for _, r := range reqs {
		line := GrantLine{Kind: "http", Requested: Sanitize(r.Prefix, 200)}
		if u, err := url.Parse(r.Prefix); err == nil {
			for i, rule := range g.Allow {
				if egress.RuleAllows(egress.Rule(rule), "GET", u) {
					covered[i], line.Granted = true, describeRule(g.Allow[i])
					break
				}
			}
		}
		out = append(out, line)
	}
	for i, r := range g.Allow {
		if !covered[i] {
			out = append(out, GrantLine{Kind: "http", Granted: describeRule(r), Note: noteIf(len(reqs) > 0, "not requested")})
		}
	}
	if g.Granted() {
		net := "public addresses only"
		if g.AllowPrivateNetwork {
			net = "private network allowed (metadata endpoints still refused)"
		}
		out = append(out, GrantLine{Kind: "http", Granted: net})
	}
	return out
}

func describeRule(r HTTPRule) string {
	return strings.Join(r.sortedMethods(), ",") + " " + r.Prefix
}

func boolReport(kind string, asked, granted bool, yes, no string) GrantLine {
	line := GrantLine{Kind: kind, Granted: no}
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

// describeWithStandIns loads wasm once more, only to read its description,
// when it was refused for want of a grant: it links the missing imports to
// stand-ins that reach nothing (an empty directory, an HTTP prefix under
// the reserved .invalid domain, which never resolves).
func (r *Runtime) describeWithStandIns(ctx context.Context, hint string, wasm []byte, cfg ProviderConfig) (*abi.Describe, error) {
	g := cfg.Grants()
	if len(g.Dirs) == 0 {
		dir, err := os.MkdirTemp("", "mcp-wasm-inspect-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		g.Dirs = []DirGrant{{HostPath: dir, GuestPath: "/.mcp-wasm-inspect"}}
	}
	if !g.HTTP.Granted() {
		g.HTTP = HTTPGrant{Allow: []HTTPRule{{Prefix: "https://inspect.invalid/"}}}
	}
	p, err := r.Load(ctx, hint, wasm, cfg.WithGrants(g))
	if err != nil {
		return nil, err
	}
	defer p.Close(ctx)
	d := p.Describe()
	return &d, nil
}
