package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/modsource"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// The config file (serve --config FILE, validate --config FILE) is the
// operator's single source of truth: providers, their grants and limits,
// and server settings. Its shape is below and, for editors, in
// docs/config.schema.json; keep the two in step (config_test.go checks
// that every key here is in the schema). Paths in it are relative to the
// file's directory. It is read strictly (configjson.go).

// fileConfig is the config file as written.
type fileConfig struct {
	Schema    string          `json:"$schema"`
	Server    serverFile      `json:"server"`
	Policy    *sigpolicy.Spec `json:"policy"` // every provider's, unless it has its own (configpolicy.go)
	Providers []providerFile  `json:"providers"`
}

// serverFile holds the server settings. Command-line flags given
// explicitly override them.
type serverFile struct {
	PageSize  *int    `json:"pageSize"`
	LogLevel  *string `json:"logLevel"`
	LogFormat *string `json:"logFormat"`
	CacheDir  *string `json:"cacheDir"`
	// Watch reloads when the config file or a module changes (default true).
	Watch *bool `json:"watch"`
	// InsecureRegistries are reached over plain HTTP (--insecure-registry).
	InsecureRegistries []string `json:"insecureRegistries"`
	// ResourceTools turns on the tools view (serve --resource-tools).
	ResourceTools *bool `json:"resourceTools"`
}

type providerFile struct {
	Module string          `json:"module"` // a path, or oci://HOST/REPO:TAG[@sha256:...]
	SHA256 string          `json:"sha256"` // pins the module bytes (configpolicy.go)
	Policy *sigpolicy.Spec `json:"policy"` // replaces the file's policy for this provider
	Name   string          `json:"name"`
	Mount  string          `json:"mount"`
	Grants grantsFile      `json:"grants"`
	Limits limitsFile      `json:"limits"`
	Cache  *cacheFile      `json:"cache"`
	Expose *exposeFile     `json:"expose"`
}

// exposeFile is the operator's filter of what clients see of a provider
// (server.URIFilter): URI patterns, as clients see the URIs (mounted).
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
	Timeout      *duration `json:"timeout"`
	Memory       *byteSize `json:"memory"`
	Output       *byteSize `json:"output"`
	ModuleSize   *byteSize `json:"moduleSize"`
	PoolSize     *int      `json:"poolSize"`
	RecycleAfter *int      `json:"recycleAfter"`
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
	v, err := parseSize(s)
	if err != nil {
		return err
	}
	*z = byteSize(v)
	return nil
}

// checkedConfig is a config file that decoded and passed every check that
// does not need to load a module.
type checkedConfig struct {
	src       *configSource
	dir       string // the file's directory, absolute: paths are relative to it
	server    serverFile
	providers []providerSpec
}

// providerSpec is one provider, resolved: absolute paths, env values read.
type providerSpec struct {
	path   string // "providers[0]", to find its line
	label  string // the name if given, else the module as written
	module string // absolute
	name   string // replaces the module's own name; "" keeps it
	mount  string // scheme prefix (mount.go); "" serves the module's own URIs
	cache  *abi.CacheHint
	filter server.URIFilter // what clients see of it (expose)
	cfg    runtime.ProviderConfig
	limits string // for the summary
	// Provenance (configpolicy.go): the pin, the signature policy, the
	// module size limit the module is fetched under.
	sha256    string
	policy    *sigpolicy.Policy
	maxModule int64
}

// where returns "file:line:col: providers[i] (label)" for a key below p.
func (c *checkedConfig) where(p providerSpec, key string) string {
	return fmt.Sprintf("%s: %s (provider %q)", c.src.at(joinPath(p.path, key)), joinPath(p.path, key), p.label)
}

// lookupEnv reads the environment; tests replace it.
type lookupEnv func(string) (string, bool)

// readConfig reads, decodes and checks the config file at path.
func readConfig(path string, env lookupEnv) (*checkedConfig, error) {
	data, err := readBounded(path, maxConfigSize)
	if err != nil {
		return nil, fmt.Errorf("read config: %w: check the --config path", err)
	}
	src := &configSource{name: path, data: data}
	var fc fileConfig
	if err := decodeStrict(src, &fc); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("find the directory of %s: %w", path, err)
	}
	cc := &checkedConfig{src: src, dir: dir, server: fc.Server}
	if len(fc.Providers) == 0 {
		return nil, &configError{path, []string{src.at("providers") + `: no providers: add at least one, such as "providers": [{"module": "notes.wasm"}]`}}
	}
	if err := checkServer(src, fc.Server); err != nil {
		return nil, err
	}
	problems := globalPolicyProblems(src, dir, fc.Policy) // configpolicy.go
	for i, pf := range fc.Providers {
		spec, errs := resolveProvider(src, dir, fmt.Sprintf("providers[%d]", i), pf, env, fc.Policy)
		problems = append(problems, errs...)
		cc.providers = append(cc.providers, spec)
	}
	if len(problems) > 0 {
		return nil, &configError{path, problems}
	}
	return cc, nil
}

// readBounded reads a whole file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
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

func checkServer(src *configSource, s serverFile) error {
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
	if len(problems) > 0 {
		return &configError{src.name, problems}
	}
	return nil
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

// resolveProvider turns one provider entry into a spec, collecting every
// problem with its position.
func resolveProvider(src *configSource, base, path string, pf providerFile, env lookupEnv, global *sigpolicy.Spec) (providerSpec, []string) {
	spec := providerSpec{path: path, label: pf.Name, name: pf.Name}
	if spec.label == "" {
		spec.label = pf.Module
	}
	var problems []string
	bad := func(key, format string, args ...any) {
		where := fmt.Sprintf("%s: %s", src.at(joinPath(path, key)), joinPath(path, key))
		if spec.label != "" {
			where += fmt.Sprintf(" (provider %q)", spec.label)
		}
		problems = append(problems, where+": "+fmt.Sprintf(format, args...))
	}
	spec.module = resolvePath(base, pf.Module)
	switch fi, err := os.Stat(spec.module); {
	case pf.Module == "":
		bad("module", `is missing: add "module": "path/to/provider.wasm" (relative to the config file)`)
	case modsource.IsRef(pf.Module):
		spec.module = pf.Module // configpolicy.go checks the reference
	case err != nil:
		bad("module", "%s: no such file: check the path (it is relative to the config file's directory)", pf.Module)
	case !fi.Mode().IsRegular():
		bad("module", "%s is not a regular file: give the .wasm file", pf.Module)
	}
	spec.mount = pf.Mount
	if pf.Mount != "" && !validMount(pf.Mount) {
		bad("mount", "%q is not a mount prefix: use 1-32 of [a-z0-9-], starting with a letter (it becomes MOUNT+scheme: in every URI)", pf.Mount)
	}
	spec.cache = resolveCache(pf.Cache, bad)
	if pf.Expose != nil {
		f, err := server.NewURIFilter(pf.Expose.Include, pf.Expose.Exclude)
		if err != nil {
			bad("expose", "%v", err)
		}
		spec.filter = f
	}
	grants := resolveGrants(base, pf.Grants, env, bad)
	spec.cfg = resolveLimits(pf.Limits).WithGrants(grants)
	spec.limits = describeLimits(pf.Limits)
	resolveProvenance(&spec, base, pf, global, bad) // configpolicy.go
	return spec, problems
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
	return &abi.CacheHint{TTLMs: time.Duration(c.TTL).Milliseconds(), Scope: c.Scope}
}

// resolveLimits applies the limits given; the rest keep runtime defaults.
// Ranges are checked by the runtime at load.
func resolveLimits(l limitsFile) runtime.ProviderConfig {
	cfg := runtime.NewProviderConfig()
	if l.Timeout != nil {
		cfg = cfg.WithTimeout(time.Duration(*l.Timeout))
	}
	if l.Memory != nil {
		cfg = cfg.WithMemoryLimit(uint64(*l.Memory))
	}
	if l.Output != nil {
		cfg = cfg.WithOutputLimit(clampInt(*l.Output))
	}
	if l.ModuleSize != nil {
		cfg = cfg.WithModuleSizeLimit(clampInt(*l.ModuleSize))
	}
	if l.PoolSize != nil {
		cfg = cfg.WithPoolSize(*l.PoolSize)
	}
	if l.RecycleAfter != nil {
		cfg = cfg.WithRecycleAfter(*l.RecycleAfter)
	}
	return cfg
}

// describeLimits renders the effective limits, defaults filled in.
func describeLimits(l limitsFile) string {
	d := func(v *duration, def time.Duration) string {
		if v == nil {
			return def.String()
		}
		return time.Duration(*v).String()
	}
	z := func(v *byteSize, def uint64) string {
		if v == nil {
			return formatSize(def)
		}
		return formatSize(uint64(*v))
	}
	n := func(v *int, def int) int {
		if v == nil {
			return def
		}
		return *v
	}
	recycle := "never"
	if r := n(l.RecycleAfter, 0); r > 0 {
		recycle = fmt.Sprintf("after %d calls", r)
	}
	return fmt.Sprintf("timeout %s, memory %s, output %s, module %s, pool %d, recycle %s",
		d(l.Timeout, runtime.DefaultTimeout), z(l.Memory, runtime.DefaultMemoryLimit), z(l.Output, runtime.DefaultOutputLimit),
		z(l.ModuleSize, runtime.DefaultModuleSizeLimit), n(l.PoolSize, runtime.DefaultPoolSize), recycle)
}

// formatSize renders bytes with the largest binary unit that divides them.
func formatSize(n uint64) string {
	for _, u := range []struct {
		suffix string
		size   uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.suffix)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// clampInt keeps a size in int range without wrapping; the runtime then
// refuses what is out of its bounds.
func clampInt(z byteSize) int { return int(min(uint64(z), 1<<40)) }

// resolveGrants builds the runtime grants: paths made absolute and checked,
// environment values read. Value ranges and key syntax are the runtime's
// to check at load; what only the file knows is checked here.
func resolveGrants(base string, g grantsFile, env lookupEnv, bad func(string, string, ...any)) runtime.Grants {
	var out runtime.Grants
	for i, d := range g.Dirs {
		key := fmt.Sprintf("grants.dirs[%d].host", i)
		host := resolvePath(base, d.Host)
		if d.Host == "" {
			bad(key, `is missing: add "host": "path/to/dir" (relative to the config file)`)
		} else if _, err := os.Stat(host); err != nil {
			bad(key, "%s: no such file or directory: create it or fix the path (relative to the config file's directory)", d.Host)
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
func mergeValues(literal, fromEnv map[string]string, envKey string, env lookupEnv, bad func(string, string, ...any)) map[string]string {
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
		out.MaxResponseBytes = clampInt(*h.MaxResponse)
	}
	if h.MaxRequest != nil {
		out.MaxRequestBytes = clampInt(*h.MaxRequest)
	}
	if h.Timeout != nil {
		out.Timeout = time.Duration(*h.Timeout)
	}
	return out
}

// maxTimeout is the largest per-call deadline of the providers.
func (c *checkedConfig) maxTimeout() time.Duration {
	var d time.Duration
	for _, p := range c.providers {
		d = max(d, p.cfg.Timeout())
	}
	return d
}

// modules returns the module paths, for the watcher.
func (c *checkedConfig) modules() []string {
	var out []string
	for _, p := range c.providers {
		if !modsource.IsRef(p.module) { // an oci:// module is not a file to watch
			out = append(out, p.module)
		}
	}
	return out
}
