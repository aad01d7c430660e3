// Package config is the operator's configuration of what mcp-wasm serves:
// the providers (each a module, its pin and signature policy, its name,
// scheme prefix, cache hint, what clients see of it, limits and grants)
// and the server settings. A config file (Read) and the
// command line (cmd/mcp-wasm builds a Config from --module and the limit
// and grant flags) give the same value, so every way of naming providers
// is one list of Provider specs that package served loads.
//
//	cfg, err := config.Read("mcp.json", os.LookupEnv)
//	if err != nil { ... } // every problem, each at its file:line:col, with the fix
//	for _, p := range cfg.Providers { ... p.Module, p.RuntimeConfig() ... }
//
// The file is JSON (docs/config.schema.json), read strictly: an unknown
// key, a key given twice, a value of the wrong type, null, a bad duration
// or size, a missing module or directory are errors, all reported at once.
// Paths in it are relative to its directory.
//
// It refuses to do anything else: it loads no module (package served
// does, through a Resolver, which also checks pins and signatures), reads
// no file but the config, the public keys and trusted root its policies
// name and the stat of the paths it names, writes none but the config
// (Config.Pin, for mcp-wasm lock), and reads only the environment
// variables the file names, through the lookup its caller passes.
package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// Config is what to serve: providers, in the operator's order, and server
// settings.
type Config struct {
	Providers []Provider
	Server    Server
	// Access are the access rules: which clients see which providers and
	// URIs (server.Rules); none: every client sees what expose shows.
	Access server.Rules
	// File is the config file's path as the operator gave it; "" for a
	// Config built from flags.
	File string
	src  *source // the file's text, for positions; nil without a file
	dir  string  // the file's directory, absolute
}

// Server holds the server settings of a config file; nil fields are not
// set. Command-line flags given explicitly override them.
type Server struct {
	PageSize  *int
	LogLevel  *string
	LogFormat *string
	// CacheDir is absolute ("" disables the disk cache).
	CacheDir *string
	// Watch reloads when the config file or a module changes.
	Watch *bool
	// MaxConcurrency bounds guest calls in flight across all providers
	// (runtime.Config.WithMaxConcurrency).
	MaxConcurrency *int
	// MaxSubscriptions bounds what one session may subscribe to
	// (server.Config.WithMaxSubscriptions).
	MaxSubscriptions *int
	// InsecureRegistries are the registry hosts (HOST[:PORT]) reached over
	// plain HTTP, besides those of --insecure-registry.
	InsecureRegistries []string
	// ResourceTools offers the resources as tools too
	// (server.Config.WithResourceTools).
	ResourceTools *bool
	// ReadCache is the read cache's budget in bytes, 0 for off
	// (runtime.Config.WithReadCache).
	ReadCache *uint64
	// ListCache is the list cache's budget in bytes, 0 for off
	// (server.Config.WithListCache).
	ListCache *uint64
	// Bus is the URL of the fleet's Redis bus (serve --bus).
	Bus *string
}

// Watching reports whether file changes trigger a reload (default true).
func (s Server) Watching() bool { return s.Watch == nil || *s.Watch }

// Provider is one provider to serve, as the operator configured it.
type Provider struct {
	// Module is where the module's bytes come from.
	Module ModuleRef
	// SHA256 pins the module's bytes: "sha256:" and 64 hex digits; a
	// module with other bytes is refused. "" pins nothing.
	SHA256 string
	// Policy is the signature policy the module must satisfy: the
	// provider's own, else the file's (or the flags'); nil requires
	// nothing.
	Policy *sigpolicy.Policy
	// Expose is what clients see of the provider (server.WithURIFilter);
	// the zero filter shows everything.
	Expose server.URIFilter
	// Name replaces the name the module gives itself; "" keeps it.
	Name string
	// SchemePrefix serves the provider's URIs under PREFIX+scheme: (see
	// ValidSchemePrefix); "" serves them as the provider names them.
	SchemePrefix string
	// Cache replaces the module's cache hint for reads whose result has
	// none; nil keeps the module's.
	Cache  *abi.CacheHint
	Limits Limits
	Grants runtime.Grants

	at position
}

// ModuleRef names a provider module: a file path (absolute when read
// from a file), or a reference a Resolver understands (a URL with a
// scheme, "NAME://...", such as oci://ghcr.io/acme/notes:1.0 or
// builtin://files).
type ModuleRef string

// Path returns the file path of a reference that is a file.
func (m ModuleRef) Path() (string, bool) {
	if strings.Contains(string(m), "://") {
		return "", false
	}
	return string(m), true
}

// position is where a provider was configured: a place in a config file,
// or nothing for one built from flags.
type position struct {
	src   *source
	path  string // "providers[0]"
	label string // the name if given, else the module as written
}

// Label names the provider in messages before its module is loaded: the
// operator's name for it, or the module as written.
func (p Provider) Label() string {
	if p.at.label != "" {
		return p.at.label
	}
	if p.Name != "" {
		return p.Name
	}
	return string(p.Module)
}

// Where returns "file:line:col: providers[i].key (provider "label")" for a
// key of a provider from a config file ("" for the provider itself), or
// "" for one built from flags.
func (p Provider) Where(key string) string {
	if p.at.src == nil {
		return ""
	}
	path := joinPath(p.at.path, key)
	return fmt.Sprintf("%s: %s (provider %q)", p.at.src.at(path), path, p.Label())
}

// Line returns the line of a provider from a config file, or 0.
func (p Provider) Line() int {
	if p.at.src == nil {
		return 0
	}
	return p.at.src.line(p.at.path)
}

// Key is "providers[i]" for a provider from a config file, else its label.
func (p Provider) Key() string {
	if p.at.src == nil {
		return p.Label()
	}
	return p.at.path
}

// Limits are a provider's limits. A zero field keeps the runtime's default
// (RecycleAfter 0 is the default: never); ranges are checked by the runtime
// at load.
type Limits struct {
	Timeout        time.Duration
	InitTimeout    time.Duration
	CompileTimeout time.Duration
	Memory         uint64
	Output         int
	ModuleSize     int
	PoolSize       int
	RecycleAfter   int
	// IdleTimeout is how long an idle instance beyond the first is kept
	// (runtime.ProviderConfig.WithIdleTimeout); 0 keeps the default.
	IdleTimeout time.Duration
	Quarantine  Quarantine
}

// Quarantine says when repeated faults quarantine a provider, and for how
// long (runtime.ProviderConfig.WithQuarantine); zero fields keep the
// runtime's defaults.
type Quarantine struct {
	// After is how many faults in a row quarantine the provider.
	After int
	// Backoff is the first quarantine; it doubles after each failed trial
	// call, up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
}

// RuntimeConfig is the provider's runtime configuration: the operator's
// name and cache hint, its limits and grants. The runtime applies the name
// and the cache hint to the module's describe once, at load, so that every
// layer (logs, metrics, the read cache, the server) reads the one
// effective describe.
func (p Provider) RuntimeConfig() runtime.ProviderConfig {
	l := p.Limits
	cfg := runtime.NewProviderConfig().WithName(p.Name).WithCacheHint(p.Cache)
	if l.Timeout != 0 {
		cfg = cfg.WithTimeout(l.Timeout)
	}
	if l.Memory != 0 {
		cfg = cfg.WithMemoryLimit(l.Memory)
	}
	if l.Output != 0 {
		cfg = cfg.WithOutputLimit(l.Output)
	}
	if l.ModuleSize != 0 {
		cfg = cfg.WithModuleSizeLimit(l.ModuleSize)
	}
	if l.PoolSize != 0 {
		cfg = cfg.WithPoolSize(l.PoolSize)
	}
	if l.RecycleAfter != 0 {
		cfg = cfg.WithRecycleAfter(l.RecycleAfter)
	}
	if l.IdleTimeout != 0 {
		cfg = cfg.WithIdleTimeout(l.IdleTimeout)
	}
	if l.InitTimeout != 0 {
		cfg = cfg.WithInitTimeout(l.InitTimeout)
	}
	if l.CompileTimeout != 0 {
		cfg = cfg.WithCompileTimeout(l.CompileTimeout)
	}
	if q := l.Quarantine; q != (Quarantine{}) {
		cfg = cfg.WithQuarantine(q.after(), q.backoff(), q.maxBackoff())
	}
	return cfg.WithGrants(p.Grants)
}

// ModuleSizeLimit is the largest module accepted, in bytes.
func (l Limits) ModuleSizeLimit() int { return cmpOr(l.ModuleSize, runtime.DefaultModuleSizeLimit) }

// CallTimeout is the deadline of one call.
func (l Limits) CallTimeout() time.Duration { return cmpOr(l.Timeout, runtime.DefaultTimeout) }

// String renders the effective limits, defaults filled in.
func (l Limits) String() string {
	recycle := "never"
	if l.RecycleAfter > 0 {
		recycle = fmt.Sprintf("after %d calls", l.RecycleAfter)
	}
	q := l.Quarantine
	return fmt.Sprintf("timeout %s, memory %s, output %s, module %s, pool %d, idle %s, recycle %s, init %s, compile %s, quarantine after %d faults for %s to %s",
		l.CallTimeout(), FormatSize(cmpOr(l.Memory, runtime.DefaultMemoryLimit)), FormatSize(uint64(cmpOr(l.Output, runtime.DefaultOutputLimit))),
		FormatSize(uint64(l.ModuleSizeLimit())), cmpOr(l.PoolSize, runtime.DefaultPoolSize), cmpOr(l.IdleTimeout, runtime.DefaultIdleTimeout), recycle,
		cmpOr(l.InitTimeout, runtime.DefaultInitTimeout), cmpOr(l.CompileTimeout, runtime.DefaultCompileTimeout),
		q.after(), q.backoff(), q.maxBackoff())
}

func (q Quarantine) after() int             { return cmpOr(q.After, runtime.DefaultFaultThreshold) }
func (q Quarantine) backoff() time.Duration { return cmpOr(q.Backoff, runtime.DefaultQuarantineBase) }
func (q Quarantine) maxBackoff() time.Duration {
	return cmpOr(q.MaxBackoff, runtime.DefaultQuarantineMax)
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// MaxTimeout is the largest per-call deadline of the providers.
func (c *Config) MaxTimeout() time.Duration {
	var d time.Duration
	for _, p := range c.Providers {
		d = max(d, p.Limits.CallTimeout())
	}
	return d
}

// Line returns the line of a key path in the config file ("server",
// "providers[1].limits"), or 0.
func (c *Config) Line(path string) int {
	if c.src == nil {
		return 0
	}
	return c.src.line(path)
}

// At returns "file:line:col" of a key path in the config file, or the
// file's name, or "" without a file.
func (c *Config) At(path string) string {
	if c.src == nil {
		return ""
	}
	return c.src.at(path)
}

// Error lists the problems of a config, one "file:line:col: message" per
// line, so that editors can jump to each.
type Error struct {
	File     string
	Problems []string
}

func (e *Error) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return fmt.Sprintf("%s: %d problems:\n%s", e.File, len(e.Problems), strings.Join(e.Problems, "\n"))
}

// ValidSchemePrefix reports whether s is a usable scheme prefix: 1-32 of
// [a-z0-9-], starting with a letter. With prefix "docs" a provider's
// file:///a.txt is docs+file:///a.txt to clients (RFC 3986 allows "+" in a
// scheme); the provider never sees the prefix.
func ValidSchemePrefix(s string) bool {
	if s == "" || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
