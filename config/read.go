package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// The config file (serve --config FILE, validate --config FILE) is the
// operator's single source of truth: providers, their grants and limits,
// and server settings. Its shape is below and, for editors, in
// docs/config.schema.json; keep the two in step (read_test.go checks that
// every key here is in the schema). Paths in it are relative to the
// file's directory. It is read strictly (strict.go).

// fileConfig is the config file as written.
type fileConfig struct {
	Schema    string          `json:"$schema"`
	Server    serverFile      `json:"server"`
	Policy    *sigpolicy.Spec `json:"policy"` // every provider's, unless it has its own (provenance.go)
	Providers []providerFile  `json:"providers"`
	Access    []ruleFile      `json:"access"` // who may see what (rules.go)
}

// serverFile holds the server settings. Command-line flags given
// explicitly override them.
type serverFile struct {
	PageSize  *int    `json:"pageSize"`
	LogLevel  *string `json:"logLevel"`
	LogFormat *string `json:"logFormat"`
	CacheDir  *string `json:"cacheDir"`
	// Watch reloads when the config file or a module changes (default true).
	Watch            *bool `json:"watch"`
	MaxConcurrency   *int  `json:"maxConcurrency"`
	MaxSubscriptions *int  `json:"maxSubscriptions"`
	// InsecureRegistries are reached over plain HTTP (--insecure-registry).
	InsecureRegistries []string `json:"insecureRegistries"`
	// ResourceTools turns on the tools view (serve --resource-tools).
	ResourceTools *bool `json:"resourceTools"`
	// ReadCache is the read cache's budget (serve --read-cache); 0 is off.
	ReadCache *byteSize `json:"readCache"`
	// ListCache is the list cache's budget (serve --list-cache); 0 is off.
	ListCache *byteSize `json:"listCache"`
	// Bus is the fleet's bus (serve --bus): redis:// or rediss:// URL.
	Bus *string `json:"bus"`
}

type providerFile struct {
	Module       string          `json:"module"` // a path, or oci://HOST/REPO:TAG[@sha256:...]
	SHA256       string          `json:"sha256"` // pins the module bytes (provenance.go)
	Policy       *sigpolicy.Spec `json:"policy"` // replaces the file's policy for this provider
	Name         string          `json:"name"`
	SchemePrefix string          `json:"schemePrefix"`
	Grants       grantsFile      `json:"grants"`
	Limits       limitsFile      `json:"limits"`
	Cache        *cacheFile      `json:"cache"`
	Expose       *exposeFile     `json:"expose"`
}

// exposeFile is the operator's filter of what clients see of a provider
// (server.URIFilter): URI patterns, as clients see the URIs (with the
// scheme prefix, if any).
type exposeFile struct {
	Include []string `json:"include"`
	Exclude []string `json:"exclude"`
}

type grantsFile struct {
	Dirs       []dirFile         `json:"dirs"`
	Config     map[string]string `json:"config"`
	ConfigEnv  map[string]string `json:"configEnv"`
	Secrets    map[string]string `json:"secrets"`
	SecretsEnv map[string]string `json:"secretsEnv"`
	HTTP       *httpFile         `json:"http"`
	Clock      bool              `json:"clock"`
	Random     bool              `json:"random"`
}

type dirFile struct {
	Host  string `json:"host"`
	Guest string `json:"guest"`
}

type httpFile struct {
	Allow               []httpRuleFile `json:"allow"`
	AllowPrivateNetwork bool           `json:"allowPrivateNetwork"`
	MaxResponse         *byteSize      `json:"maxResponse"`
	MaxRequest          *byteSize      `json:"maxRequest"`
	Timeout             *duration      `json:"timeout"`
}

type httpRuleFile struct {
	Prefix  string   `json:"prefix"`
	Methods []string `json:"methods"`
}

type limitsFile struct {
	Timeout        *duration       `json:"timeout"`
	Memory         *byteSize       `json:"memory"`
	Output         *byteSize       `json:"output"`
	ModuleSize     *byteSize       `json:"moduleSize"`
	PoolSize       *int            `json:"poolSize"`
	RecycleAfter   *int            `json:"recycleAfter"`
	IdleTimeout    *duration       `json:"idleTimeout"`
	InitTimeout    *duration       `json:"initTimeout"`
	CompileTimeout *duration       `json:"compileTimeout"`
	Quarantine     *quarantineFile `json:"quarantine"`
}

type quarantineFile struct {
	After      *int      `json:"after"`
	Backoff    *duration `json:"backoff"`
	MaxBackoff *duration `json:"maxBackoff"`
}

type cacheFile struct {
	TTL   duration `json:"ttl"`
	Scope string   `json:"scope"`
}

// duration is a Go duration string: "500ms", "5s", "1m30s".
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`must be a duration string such as "5s" or "1m30s"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf(`duration %q: use a number with a unit, such as "500ms", "5s" or "1m"`, s)
	}
	*d = duration(v)
	return nil
}

// byteSize is a size in bytes: a number, or a string with a unit
// ("64MiB", "512KiB", "10MB").
type byteSize uint64

func (z *byteSize) UnmarshalJSON(b []byte) error {
	var n uint64
	if err := json.Unmarshal(b, &n); err == nil {
		*z = byteSize(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`must be a size such as "64MiB" or a number of bytes`)
	}
	v, err := ParseSize(s)
	if err != nil {
		return err
	}
	*z = byteSize(v)
	return nil
}

// LookupEnv reads an environment variable: os.LookupEnv, or a test's.
type LookupEnv func(string) (string, bool)

// Read reads, decodes and checks the config file at path: everything that
// does not need to load a module. Module and directory paths come out
// absolute, and the environment variables the file names are read through
// env. The error is an *Error listing every problem at its line.
func Read(path string, env LookupEnv) (*Config, error) {
	data, err := readBounded(path, maxConfigSize)
	if err != nil {
		return nil, fmt.Errorf("read config: %w: check the --config path", err)
	}
	src := &source{name: path, data: data}
	var fc fileConfig
	if err := decodeStrict(src, &fc); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("find the directory of %s: %w", path, err)
	}
	if len(fc.Providers) == 0 {
		return nil, &Error{path, []string{src.at("providers") + `: no providers: add at least one, such as "providers": [{"module": "notes.wasm"}]`}}
	}
	server, err := checkServer(src, dir, fc.Server)
	if err != nil {
		return nil, err
	}
	cfg := &Config{File: path, Server: server, src: src, dir: dir}
	global, problems := globalPolicy(src, dir, fc.Policy) // provenance.go
	for i, pf := range fc.Providers {
		p, errs := resolveProvider(src, dir, fmt.Sprintf("providers[%d]", i), pf, env, global)
		problems = append(problems, errs...)
		cfg.Providers = append(cfg.Providers, p)
	}
	var errs []string
	cfg.Access, errs = resolveAccess(src, fc.Access) // rules.go
	problems = append(problems, errs...)
	if len(problems) > 0 {
		return nil, &Error{path, problems}
	}
	return cfg, nil
}

// readBounded reads a whole file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := hostfile.Open(path) // a regular file, or refused without blocking
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, err
}

// checkServer checks the server settings and makes the cache directory
// absolute.
func checkServer(src *source, dir string, s serverFile) (Server, error) {
	var problems []string
	bad := func(key, msg string) { problems = append(problems, src.at("server."+key)+": server."+key+" "+msg) }
	if s.PageSize != nil && (*s.PageSize < 1 || *s.PageSize > server.MaxPageSize) {
		bad("pageSize", fmt.Sprintf("is %d: use 1 to %d", *s.PageSize, server.MaxPageSize))
	}
	if s.LogLevel != nil && !oneOf(*s.LogLevel, "debug", "info", "warn", "error") {
		bad("logLevel", fmt.Sprintf("is %q: use debug, info, warn or error", *s.LogLevel))
	}
	if s.LogFormat != nil && !oneOf(*s.LogFormat, "text", "json") {
		bad("logFormat", fmt.Sprintf("is %q: use text or json", *s.LogFormat))
	}
	for key, n := range map[string]*int{"maxConcurrency": s.MaxConcurrency, "maxSubscriptions": s.MaxSubscriptions} {
		if n != nil && *n < 1 {
			bad(key, fmt.Sprintf("is %d: give a positive number, or remove the key for the default", *n))
		}
	}
	if s.Bus != nil {
		if u, err := url.Parse(*s.Bus); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			bad("bus", "is not a redis://HOST:PORT/N or rediss://HOST:PORT/N URL (a password is better kept out of the file: set MCP_WASM_BUS instead)")
		}
	}
	if len(problems) > 0 {
		return Server{}, &Error{src.name, problems}
	}
	out := Server{Bus: s.Bus, PageSize: s.PageSize, LogLevel: s.LogLevel, LogFormat: s.LogFormat, Watch: s.Watch,
		MaxConcurrency: s.MaxConcurrency, MaxSubscriptions: s.MaxSubscriptions,
		InsecureRegistries: s.InsecureRegistries, ResourceTools: s.ResourceTools}
	if s.ReadCache != nil {
		n := uint64(*s.ReadCache)
		out.ReadCache = &n
	}
	if s.ListCache != nil {
		n := uint64(*s.ListCache)
		out.ListCache = &n
	}
	if s.CacheDir != nil {
		d := *s.CacheDir
		if d != "" {
			d = resolvePath(dir, d)
		}
		out.CacheDir = &d
	}
	return out, nil
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

// resolveProvider turns one provider entry into a Provider, collecting
// every problem with its position.
func resolveProvider(src *source, base, path string, pf providerFile, env LookupEnv, global *sigpolicy.Policy) (Provider, []string) {
	p := Provider{Name: pf.Name, SchemePrefix: pf.SchemePrefix, at: position{src: src, path: path, label: pf.Name}}
	if p.at.label == "" {
		p.at.label = pf.Module
	}
	var problems []string
	bad := func(key, format string, args ...any) {
		where := fmt.Sprintf("%s: %s", src.at(joinPath(path, key)), joinPath(path, key))
		if p.at.label != "" {
			where += fmt.Sprintf(" (provider %q)", p.at.label)
		}
		problems = append(problems, where+": "+fmt.Sprintf(format, args...))
	}
	p.Module = resolveModule(base, pf.Module, bad)
	if pf.SchemePrefix != "" && !ValidSchemePrefix(pf.SchemePrefix) {
		bad("schemePrefix", "%q is not a scheme prefix: use 1-32 of [a-z0-9-], starting with a letter (it becomes PREFIX+scheme: in every URI)", pf.SchemePrefix)
	}
	p.Cache = resolveCache(pf.Cache, bad)
	if pf.Expose != nil {
		f, err := server.NewURIFilter(pf.Expose.Include, pf.Expose.Exclude)
		if err != nil {
			bad("expose", "%v", err)
		}
		p.Expose = f
	}
	p.Grants = resolveGrants(base, pf.Grants, env, bad)
	p.Limits = resolveLimits(pf.Limits, bad)
	p.SHA256, p.Policy = resolveProvenance(base, pf, global, bad) // provenance.go
	return p, problems
}

// resolveModule makes a module path absolute and checks the file exists;
// an oci:// reference is checked as a reference; one with another scheme
// (NAME://..., such as builtin://files) is left to the Resolver.
func resolveModule(base, module string, bad func(string, string, ...any)) ModuleRef {
	if module == "" {
		bad("module", `is missing: add "module": "path/to/provider.wasm" (relative to the config file)`)
		return ""
	}
	ref := ModuleRef(module)
	if _, isFile := ref.Path(); !isFile {
		checkRef(ref, bad) // provenance.go
		return ref
	}
	path := resolvePath(base, module)
	switch fi, err := os.Stat(path); {
	case err != nil:
		bad("module", "%s: no such file: check the path (it is relative to the config file's directory)", module)
	case !fi.Mode().IsRegular():
		bad("module", "%s is not a regular file: give the .wasm file", module)
	}
	return ModuleRef(path)
}

func resolvePath(base, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}

func resolveCache(c *cacheFile, bad func(string, string, ...any)) *abi.CacheHint {
	if c == nil {
		return nil
	}
	if !oneOf(c.Scope, abi.ScopePublic, abi.ScopePrivate) {
		bad("cache.scope", "is %q: use %q or %q", c.Scope, abi.ScopePublic, abi.ScopePrivate)
	}
	h := &abi.CacheHint{TTLMs: time.Duration(c.TTL).Milliseconds(), Scope: c.Scope}
	if err := h.Validate(); err != nil && oneOf(c.Scope, abi.ScopePublic, abi.ScopePrivate) {
		bad("cache.ttl", "is %s: give a ttl between 0s and one year (8760h)", time.Duration(c.TTL))
	}
	return h
}

// resolveLimits returns the limits given; the rest keep runtime defaults.
// Ranges are the runtime's to check at load; a zero, which a Limits value
// reads as "the default", is refused here.
func resolveLimits(l limitsFile, bad func(string, string, ...any)) Limits {
	var out Limits
	zero := func(key string) { bad("limits."+key, "is 0: give a positive value, or remove the key for the default") }
	if l.Memory != nil {
		if out.Memory = uint64(*l.Memory); out.Memory == 0 {
			zero("memory")
		}
	}
	if l.Output != nil {
		if out.Output = ClampInt(uint64(*l.Output)); out.Output == 0 {
			zero("output")
		}
	}
	if l.ModuleSize != nil {
		if out.ModuleSize = ClampInt(uint64(*l.ModuleSize)); out.ModuleSize == 0 {
			zero("moduleSize")
		}
	}
	if l.PoolSize != nil {
		if out.PoolSize = *l.PoolSize; out.PoolSize == 0 {
			zero("poolSize")
		}
	}
	if l.RecycleAfter != nil {
		out.RecycleAfter = *l.RecycleAfter
	}
	dur := func(key string, v *duration, out *time.Duration) {
		if v == nil {
			return
		}
		if *out = time.Duration(*v); *out == 0 {
			zero(key)
		}
	}
	dur("timeout", l.Timeout, &out.Timeout)
	dur("initTimeout", l.InitTimeout, &out.InitTimeout)
	dur("compileTimeout", l.CompileTimeout, &out.CompileTimeout)
	dur("idleTimeout", l.IdleTimeout, &out.IdleTimeout)
	if q := l.Quarantine; q != nil {
		if q.After != nil {
			if out.Quarantine.After = *q.After; out.Quarantine.After == 0 {
				zero("quarantine.after")
			}
		}
		dur("quarantine.backoff", q.Backoff, &out.Quarantine.Backoff)
		dur("quarantine.maxBackoff", q.MaxBackoff, &out.Quarantine.MaxBackoff)
	}
	return out
}

// resolveGrants builds the runtime grants: paths made absolute and checked,
// environment values read. Value ranges and key syntax are the runtime's
// to check at load; what only the file knows is checked here.
func resolveGrants(base string, g grantsFile, env LookupEnv, bad func(string, string, ...any)) runtime.Grants {
	var out runtime.Grants
	for i, d := range g.Dirs {
		key := fmt.Sprintf("grants.dirs[%d].host", i)
		host := resolvePath(base, d.Host)
		if d.Host == "" {
			bad(key, `is missing: add "host": "path/to/dir" (relative to the config file)`)
		} else if _, err := os.Stat(host); err != nil {
			bad(key, "%s: no such file or directory: create it or fix the path (relative to the config file's directory)", d.Host)
		}
		if d.Guest != "" {
			checkGuestPath(fmt.Sprintf("grants.dirs[%d].guest", i), d.Guest, g.Dirs[:i], bad)
		}
		out.Dirs = append(out.Dirs, runtime.DirGrant{HostPath: host, GuestPath: d.Guest})
	}
	out.Config = mergeValues(g.Config, g.ConfigEnv, "grants.configEnv", env, bad)
	out.Secrets = mergeValues(g.Secrets, g.SecretsEnv, "grants.secretsEnv", env, bad)
	for k := range out.Secrets {
		if _, dup := out.Config[k]; dup {
			bad("grants", "key %q is granted both as config and as a secret: grant it once", k)
		}
	}
	if g.HTTP != nil {
		out.HTTP = resolveHTTP(*g.HTTP)
	}
	out.Clock, out.Random = g.Clock, g.Random
	return out
}

// mergeValues returns the literal values plus those read from the named
// environment variables. A key given both ways, or a variable that is not
// set, is a problem: no value is ever guessed.
func mergeValues(literal, fromEnv map[string]string, envKey string, env LookupEnv, bad func(string, string, ...any)) map[string]string {
	if len(literal) == 0 && len(fromEnv) == 0 {
		return nil
	}
	out := make(map[string]string, len(literal)+len(fromEnv))
	for k, v := range literal {
		out[k] = v
	}
	for k, name := range fromEnv {
		key := envKey + "." + k
		if _, dup := literal[k]; dup {
			bad(key, "key %q is also given a literal value: keep one", k)
			continue
		}
		v, ok := env(name)
		if name == "" || !ok {
			bad(key, "environment variable %q is not set: export it before starting mcp-wasm, or remove the grant", name)
			continue
		}
		out[k] = v
	}
	return out
}

func resolveHTTP(h httpFile) runtime.HTTPGrant {
	out := runtime.HTTPGrant{AllowPrivateNetwork: h.AllowPrivateNetwork}
	for _, r := range h.Allow {
		out.Allow = append(out.Allow, runtime.HTTPRule{Prefix: r.Prefix, Methods: r.Methods})
	}
	if h.MaxResponse != nil {
		out.MaxResponseBytes = ClampInt(uint64(*h.MaxResponse))
	}
	if h.MaxRequest != nil {
		out.MaxRequestBytes = ClampInt(uint64(*h.MaxRequest))
	}
	if h.Timeout != nil {
		out.Timeout = time.Duration(*h.Timeout)
	}
	return out
}

// checkGuestPath checks a grant's guest path where the file gives it: an
// absolute, clean slash path other than "/", not inside or around the
// guest path of an earlier grant. (The runtime checks the same at load,
// and also the real paths of grants without one.)
func checkGuestPath(key, guest string, earlier []dirFile, bad func(string, string, ...any)) {
	if !strings.HasPrefix(guest, "/") || path.Clean(guest) != guest || guest == "/" {
		bad(key, `%q: give an absolute, clean path other than "/", such as "/data" (where the provider sees the directory)`, guest)
		return
	}
	for _, o := range earlier {
		if o.Guest == "" {
			continue
		}
		if o.Guest == guest || strings.HasPrefix(guest, o.Guest+"/") || strings.HasPrefix(o.Guest, guest+"/") {
			bad(key, "%q overlaps %q of an earlier grant: give each grant a guest path of its own, side by side", guest, o.Guest)
			return
		}
	}
}
