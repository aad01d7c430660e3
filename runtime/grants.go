package runtime

import (
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/egress"
	"log/slog"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/grants"
)

// Defaults and bounds of an HTTP grant.
const (
	DefaultHTTPMaxResponse = egress.DefaultMaxResponse
	DefaultHTTPMaxRequest  = egress.DefaultMaxRequest
	maxHTTPMaxResponse     = 64 << 20
	maxHTTPMaxRequest      = 16 << 20
	maxHTTPRules           = 256
)

// HTTPGrant allows a provider outbound HTTP through the mcpw_v1.http_fetch
// import. The zero value grants nothing: the import is not linked, and a
// module importing it is refused at load.
//
// A request is sent only if its method, scheme, host, port and path match
// one rule; every redirect is checked the same way before it is followed;
// and every connection is checked at dial time, after DNS resolution, so a
// name that resolves (or re-resolves) to a loopback, private, link-local,
// unique-local or shared (CGNAT) address is refused unless
// AllowPrivateNetwork is set. Cloud metadata endpoints (169.254.169.254,
// fd00:ec2::254, 100.100.100.200) and unspecified, multicast and reserved
// addresses are refused always. Proxies from the environment are ignored.
type HTTPGrant struct {
	// Allow lists the URL prefixes requests may go to. Empty grants nothing.
	Allow []HTTPRule
	// AllowPrivateNetwork permits loopback, private (RFC 1918, fc00::/7),
	// link-local and CGNAT addresses. Defaults to false.
	AllowPrivateNetwork bool
	// MaxResponseBytes caps each response body (after decompression); a
	// larger one fails with "too_large". 0 means 1 MiB; at most 64 MiB.
	MaxResponseBytes int
	// MaxRequestBytes caps each request body. 0 means 64 KiB; at most 16 MiB.
	MaxRequestBytes int
	// Timeout bounds one request inside the call's own deadline (which
	// always applies). 0 means only the call's deadline.
	Timeout time.Duration
}

// HTTPRule allows requests under Prefix, an absolute http or https URL:
// "https://api.example.com/v1/" allows that scheme, host and port (443 by
// default) and paths under /v1/. A prefix not ending in "/" matches at a
// segment boundary ("/v1" allows "/v1" and "/v1/x", not "/v10"). The host
// is matched exactly (no wildcards); an IP literal is allowed only if
// written as one.
type HTTPRule struct {
	Prefix string
	// Methods allowed, from GET, HEAD and POST. Empty means GET and HEAD.
	Methods []string
}

// Granted reports whether g allows any request at all.
func (g HTTPGrant) Granted() bool { return len(g.Allow) > 0 }

func (g HTTPGrant) validate() error {
	if !g.Granted() {
		if g.AllowPrivateNetwork || g.MaxResponseBytes != 0 || g.MaxRequestBytes != 0 || g.Timeout != 0 {
			return fmt.Errorf("%w: http settings without any allowed prefix grant nothing: add an allowed prefix (--allow-http) or remove them", ErrConfig)
		}
		return nil
	}
	checks := []struct {
		ok  bool
		msg string
	}{
		{len(g.Allow) <= maxHTTPRules, fmt.Sprintf("at most %d http prefixes", maxHTTPRules)},
		{g.MaxResponseBytes >= 0 && g.MaxResponseBytes <= maxHTTPMaxResponse, "http max response must be between 0 (1 MiB) and 64 MiB"},
		{g.MaxRequestBytes >= 0 && g.MaxRequestBytes <= maxHTTPMaxRequest, "http max request must be between 0 (64 KiB) and 16 MiB"},
		{g.Timeout >= 0 && g.Timeout <= time.Hour, "http timeout must be between 0 (the call's deadline) and 1h"},
	}
	for _, ch := range checks {
		if !ch.ok {
			return fmt.Errorf("%w: %s", ErrConfig, ch.msg)
		}
	}
	for _, r := range g.Allow {
		if err := egress.CheckRule(egress.Rule(r)); err != nil {
			return err
		}
	}
	return nil
}

// validateMore checks the grants added after directories and config.
func (g Grants) validateMore() error {
	for k := range g.Secrets {
		if !abi.IsConfigKey(k) {
			return fmt.Errorf("%w: secret key %q: use 1-128 of [A-Za-z0-9_.-]", ErrConfig, k)
		}
		if _, dup := g.Config[k]; dup {
			return fmt.Errorf("%w: key %q is granted both as config and as a secret: grant it once", ErrConfig, k)
		}
	}
	return g.HTTP.validate()
}

// clone returns a deep copy of g.
func (g Grants) clone() Grants {
	c := g
	c.Dirs = append([]DirGrant(nil), g.Dirs...)
	c.Config = maps.Clone(g.Config)
	c.Secrets = maps.Clone(g.Secrets)
	c.HTTP.Allow = make([]HTTPRule, len(g.HTTP.Allow))
	for i, r := range g.HTTP.Allow {
		c.HTTP.Allow[i] = HTTPRule{Prefix: r.Prefix, Methods: append([]string(nil), r.Methods...)}
	}
	if len(g.HTTP.Allow) == 0 {
		c.HTTP.Allow = nil
	}
	return c
}

// configValues merges Config and Secrets into the map config_get reads.
func (g Grants) configValues() map[string]string {
	if len(g.Secrets) == 0 {
		return g.Config
	}
	m := make(map[string]string, len(g.Config)+len(g.Secrets))
	maps.Copy(m, g.Config)
	maps.Copy(m, g.Secrets)
	return m
}

// minRedacted is the shortest secret value masked in guest text: masking
// every "1" or "on" in logs would hide more than it protects.
const minRedacted = 4

// secretValues lists the secret values worth masking, longest first (so a
// secret containing another is masked whole).
func (g Grants) secretValues() []string {
	var out []string
	for _, v := range g.Secrets {
		if len(v) >= minRedacted {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// redact masks granted secret values in guest-written text (log lines,
// stdio, error messages) before the host logs or returns it. It is a
// safety net for a provider that logs its own config by mistake, not a
// barrier: a guest that holds a secret can always encode it.
func (c ProviderConfig) redact(s string) string {
	for _, v := range c.secretValues {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, masked)
		}
	}
	return s
}

// String describes the grants with every config and secret value masked,
// so a Grants printed by mistake leaks nothing.
func (g Grants) String() string {
	var parts []string
	for _, d := range g.Dirs {
		parts = append(parts, "dir "+d.HostPath+"->"+orDefault(d.GuestPath, "(its real path)"))
	}
	for _, k := range sortedKeys(g.Config) {
		parts = append(parts, "config "+k)
	}
	for _, k := range sortedKeys(g.Secrets) {
		parts = append(parts, "secret "+k+"="+masked)
	}
	for _, r := range g.HTTP.Allow {
		parts = append(parts, "http "+r.Prefix)
	}
	if g.HTTP.AllowPrivateNetwork {
		parts = append(parts, "private network")
	}
	if g.Clock {
		parts = append(parts, "clock")
	}
	if g.Random {
		parts = append(parts, "random")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// LogValue makes slog print the masked form.
func (g Grants) LogValue() slog.Value { return slog.StringValue(g.String()) }

// masked stands for a secret value wherever grants are shown.
const masked = grants.Masked

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// egressGrant is g as the egress package takes it.
func (g HTTPGrant) egressGrant() egress.Grant {
	out := egress.Grant{AllowPrivateNetwork: g.AllowPrivateNetwork, MaxResponseBytes: g.MaxResponseBytes,
		MaxRequestBytes: g.MaxRequestBytes, Timeout: g.Timeout}
	for _, r := range g.Allow {
		out.Allow = append(out.Allow, egress.Rule(r))
	}
	return out
}
