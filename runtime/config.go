package runtime

import (
	"crypto/sha256"
	"fmt"
	"log/slog"
	"path"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/grants"
)

// Config configures a Runtime, the host-wide part of the sandbox. It is an
// immutable value: every With* method returns a modified copy.
type Config struct {
	trusted        map[[32]byte]bool // SHA-256 of modules compiled without a worker
	cacheDir       string
	cacheReadOnly  bool
	readCache      int64
	maxConcurrency int
	logger         *slog.Logger
	observer       Observer
}

// NewConfig returns the default host configuration: no disk cache, a global
// concurrency bound of 2×GOMAXPROCS (at least 4), logs discarded.
func NewConfig() Config {
	return Config{maxConcurrency: max(4, 2*goruntime.GOMAXPROCS(0)), readCache: DefaultReadCache}
}

// DefaultReadCache is the read cache's default budget.
const DefaultReadCache = 64 << 20

// WithReadCache sets the read cache's budget in bytes, shared by every
// provider; 0 turns it off. A read is cached only when its cache hint allows
// (public scope, positive ttl), for at most that ttl, and only while every
// file it looked up under its grants is unchanged (internal/readcache).
// Defaults to DefaultReadCache (64 MiB).
func (c Config) WithReadCache(bytes int64) Config { c.readCache = bytes; return c }

// WithCacheDir sets the on-disk compilation cache directory. It is created
// with mode 0700 and refused if it is accessible by group or others, because
// its files become executable code. Defaults to "" (in-memory cache only).
func (c Config) WithCacheDir(dir string) Config { c.cacheDir = dir; return c }

// WithCacheReadOnly uses the cache directory without ever writing to it: a
// cache baked into an image by Runtime.Seal (`mcp-wasm compile`). Only
// entries its manifest lists, with their SHA-256 matching, are used; a
// module it does not hold compiles, under the usual worker limits, into a
// temporary directory (TMPDIR) removed on Close, with a warning. A cache
// directory that cannot be written is used this way whatever this says.
// Defaults to false.
func (c Config) WithCacheReadOnly(ro bool) Config { c.cacheReadOnly = ro; return c }

// WithTrustedModule names a module (by its bytes) that compiles in the
// host's process, without a compile worker: a module built into the host
// binary, whose compilation is as trusted as the binary itself. Every other
// module compiles in a worker process under the provider's compile limits
// the first time; see RATIONALE.md. Defaults to none.
func (c Config) WithTrustedModule(wasm []byte) Config {
	t := make(map[[32]byte]bool, len(c.trusted)+1)
	for k := range c.trusted {
		t[k] = true
	}
	t[sha256.Sum256(wasm)] = true
	c.trusted = t
	return c
}

// WithMaxConcurrency bounds guest calls and instantiations in flight across
// all providers. Deep guest recursion allocates host stack outside the memory
// cap (up to ~400 MB per call), so this bound is what limits it. The slots
// are shared fairly: one always stays free for a provider that holds none
// (see runtime/internal/slots), so one busy provider cannot starve the others.
// Defaults to 2×GOMAXPROCS, at least 4.
func (c Config) WithMaxConcurrency(n int) Config { c.maxConcurrency = n; return c }

// WithLogger sets the logger for runtime events and guest logs. Defaults to
// discarding.
func (c Config) WithLogger(l *slog.Logger) Config { c.logger = l; return c }

func (c Config) validate() error {
	if c.readCache < 0 || c.readCache > 1<<40 {
		return fmt.Errorf("%w: read cache of %d bytes: use 0 (off) to 1 TiB", ErrConfig, c.readCache)
	}
	if c.maxConcurrency < 1 || c.maxConcurrency > 4096 {
		return fmt.Errorf("%w: max concurrency %d: use 1-4096", ErrConfig, c.maxConcurrency)
	}
	return nil
}

// Default limits of a provider.
const (
	DefaultTimeout        = 5 * time.Second
	DefaultInitTimeout    = 10 * time.Second
	DefaultCompileTimeout = 60 * time.Second
	// DefaultCompileMemoryLimit is the resident memory a compile worker may use.
	DefaultCompileMemoryLimit = 512 << 20
	DefaultMemoryLimit        = 64 << 20
	DefaultOutputLimit        = 4 << 20
	DefaultModuleSizeLimit    = 32 << 20
	DefaultPoolSize           = 4
	DefaultFaultThreshold     = 5
	DefaultQuarantineBase     = time.Second
	DefaultQuarantineMax      = 5 * time.Minute

	// maxMemoryLimit is wasm32's 4 GiB.
	maxMemoryLimit = 1 << 32
	pageSize       = 64 << 10
)

// Grants are what the operator gives a provider. Nothing is granted by
// default, and nothing here ever comes from a provider or an MCP client.
// See grants.go for the rules of each field.
type Grants struct {
	// Dirs are read-only mounts of directory trees or of single files.
	Dirs []DirGrant
	// Config values readable through config_get. Keys not here read as absent.
	Config map[string]string
	// Secrets are config values too (config_get reads them like Config) that
	// are never logged, shown by inspect, or put in an error, and that are
	// masked in what the guest logs. A key may not be in both maps.
	Secrets map[string]string
	// HTTP allows outbound requests through mcpw_v1.http_fetch. Its zero
	// value grants nothing and the import is not linked.
	HTTP HTTPGrant
	// Clock gives the guest the real wall and monotonic clocks instead of
	// the fake ones (2022-01-01, +1 ms per read).
	Clock bool
	// Random gives the guest crypto/rand instead of a deterministic source.
	Random bool
}

// DirGrant mounts HostPath read-only in the guest. With no GuestPath it is
// mounted at its real absolute path (symlinks in HostPath resolved, cleaned;
// on Windows C:\Users\me appears as /C:/Users/me), so that a provider
// naming files by their guest paths names them by their real paths; a
// GuestPath mounts it there instead, for deployments that must not show
// host paths. The provider's describe requests.filesystem changes nothing:
// it is informational. Symlinks that leave HostPath are not followed.
//
// When HostPath is a regular file (or a symlink to one), the guest sees its
// real parent directory (or GuestPath) holding that one file and nothing
// else; several files of one directory share that mount. Grants whose files
// or guest paths would overlap are refused at load.
type DirGrant struct {
	HostPath  string
	GuestPath string
}

// ProviderConfig configures one provider: limits, pool and grants. It is an
// immutable value: every With* method returns a modified copy. Every limit is
// on by default.
type ProviderConfig struct {
	timeout         time.Duration
	initTimeout     time.Duration
	compileTimeout  time.Duration
	compileMemory   uint64
	memoryLimit     uint64
	outputLimit     int
	moduleSizeLimit int
	poolSize        int
	recycleAfter    int
	idleTimeout     time.Duration // poolidle.go
	faultThreshold  int
	quarantineBase  time.Duration
	quarantineMax   time.Duration
	grants          Grants
	name            string            // the operator's name for the provider; "" keeps the module's
	cacheHint       *abi.CacheHint    // the operator's default for results without one
	preempt         preemptMode       // always preemptInstrument outside benchmarks
	configValues    map[string]string // grants.Config and grants.Secrets, for config_get
	secretValues    []string          // grants.Secrets values, masked in guest text
}

// NewProviderConfig returns the defaults listed in each setter.
func NewProviderConfig() ProviderConfig {
	return ProviderConfig{
		timeout:         DefaultTimeout,
		initTimeout:     DefaultInitTimeout,
		compileTimeout:  DefaultCompileTimeout,
		compileMemory:   DefaultCompileMemoryLimit,
		memoryLimit:     DefaultMemoryLimit,
		outputLimit:     DefaultOutputLimit,
		moduleSizeLimit: DefaultModuleSizeLimit,
		poolSize:        DefaultPoolSize,
		idleTimeout:     DefaultIdleTimeout,
		faultThreshold:  DefaultFaultThreshold,
		quarantineBase:  DefaultQuarantineBase,
		quarantineMax:   DefaultQuarantineMax,
	}
}

// WithTimeout sets the deadline of each call. Defaults to 5s.
func (c ProviderConfig) WithTimeout(d time.Duration) ProviderConfig { c.timeout = d; return c }

// WithInitTimeout sets the deadline of _initialize plus describe for each new
// instance. Defaults to 10s.
func (c ProviderConfig) WithInitTimeout(d time.Duration) ProviderConfig { c.initTimeout = d; return c }

// WithCompileTimeout bounds compilation of the module. Defaults to 60s.
func (c ProviderConfig) WithCompileTimeout(d time.Duration) ProviderConfig {
	c.compileTimeout = d
	return c
}

// WithCompileMemoryLimit bounds the resident memory of the process that
// compiles the module (the compile worker, see CompileWorkerMain); the
// worker's CPU time is bounded by the compile timeout. Defaults to 512 MiB.
func (c ProviderConfig) WithCompileMemoryLimit(bytes uint64) ProviderConfig {
	c.compileMemory = bytes
	return c
}

// WithMemoryLimit caps the guest's linear memory in bytes, rounded down to
// 64 KiB pages. Defaults to 64 MiB. Go guests need at least 4 MiB.
func (c ProviderConfig) WithMemoryLimit(bytes uint64) ProviderConfig { c.memoryLimit = bytes; return c }

// WithOutputLimit caps the output of one call in bytes. Defaults to 4 MiB.
func (c ProviderConfig) WithOutputLimit(bytes int) ProviderConfig { c.outputLimit = bytes; return c }

// WithModuleSizeLimit caps the size of the .wasm file. Defaults to 32 MiB.
func (c ProviderConfig) WithModuleSizeLimit(bytes int) ProviderConfig {
	c.moduleSizeLimit = bytes
	return c
}

// WithPoolSize sets how many instances may exist at once, which is also how
// many calls to this provider run concurrently. Defaults to 4.
func (c ProviderConfig) WithPoolSize(n int) ProviderConfig { c.poolSize = n; return c }

// WithRecycleAfter replaces an instance after n calls, bounding state a guest
// can accumulate. Defaults to 0 (never).
func (c ProviderConfig) WithRecycleAfter(n int) ProviderConfig { c.recycleAfter = n; return c }

// WithQuarantine sets after how many consecutive faults the provider is
// quarantined, and the first and largest backoff. Defaults to 5, 1s, 5m.
func (c ProviderConfig) WithQuarantine(faults int, base, maxBackoff time.Duration) ProviderConfig {
	c.faultThreshold, c.quarantineBase, c.quarantineMax = faults, base, maxBackoff
	return c
}

// WithName sets the name the provider is known by, replacing the one its
// describe gives: Provider.Name and Provider.Describe return it, and the
// runtime's logs (provider=) and Observer calls carry it, so that two
// copies of one module are told apart everywhere. It must be a valid abi
// name (1-64 of [a-z0-9._-], starting with a letter or digit), checked at
// load. Defaults to "": the module's own.
func (c ProviderConfig) WithName(name string) ProviderConfig { c.name = name; return c }

// WithCacheHint sets the cache hint of reads whose result carries none,
// replacing the provider's own default (its describe's): Provider.Describe
// returns it, and it decides what the read cache keeps. Defaults to nil:
// the provider's.
func (c ProviderConfig) WithCacheHint(h *abi.CacheHint) ProviderConfig {
	if h != nil {
		cp := *h
		h = &cp
	}
	c.cacheHint = h
	return c
}

// WithGrants sets the operator's grants. Defaults to none.
func (c ProviderConfig) WithGrants(g Grants) ProviderConfig {
	c.grants = g.clone()
	c.configValues = c.grants.configValues()
	c.secretValues = c.grants.secretValues()
	return c
}

// Grants returns a copy of the operator's grants.
func (c ProviderConfig) Grants() Grants { return c.grants.clone() }

// Timeout returns the per-call deadline.
func (c ProviderConfig) Timeout() time.Duration { return c.timeout }

func (c ProviderConfig) validate() error {
	checks := []struct {
		ok  bool
		msg string
	}{
		{c.timeout > 0 && c.timeout <= time.Hour, "timeout must be in (0, 1h]"},
		{c.initTimeout > 0 && c.initTimeout <= time.Hour, "init timeout must be in (0, 1h]"},
		{c.compileTimeout > 0 && c.compileTimeout <= time.Hour, "compile timeout must be in (0, 1h]"},
		{c.compileMemory >= 16<<20 && c.compileMemory <= 64<<30, "compile memory limit must be between 16 MiB and 64 GiB"},
		{c.memoryLimit >= pageSize && c.memoryLimit <= maxMemoryLimit, "memory limit must be between 64 KiB and 4 GiB"},
		{c.outputLimit >= 1024 && c.outputLimit <= 256<<20, "output limit must be between 1 KiB and 256 MiB"},
		{c.moduleSizeLimit >= 8 && c.moduleSizeLimit <= 1<<30, "module size limit must be between 8 B and 1 GiB"},
		{c.poolSize >= 1 && c.poolSize <= 256, "pool size must be 1-256"},
		{c.recycleAfter >= 0, "recycle-after must be >= 0"},
		{c.idleTimeout >= 0 && c.idleTimeout <= MaxIdleTimeout, "idle timeout must be in [0, 24h] (0 keeps idle instances)"},
		{c.faultThreshold >= 1 && c.quarantineBase > 0 && c.quarantineMax >= c.quarantineBase, "quarantine needs faults >= 1 and 0 < base <= max"},
	}
	for _, ch := range checks {
		if !ch.ok {
			return fmt.Errorf("%w: %s", ErrConfig, ch.msg)
		}
	}
	if c.name != "" && !abi.ValidName(c.name) {
		return fmt.Errorf("%w: %q is not a provider name: use 1-%d of [a-z0-9._-], starting with a letter or digit", ErrConfig, c.name, abi.MaxNameLength)
	}
	if err := c.cacheHint.Validate(); err != nil {
		return fmt.Errorf("%w: cache hint: %w", ErrConfig, err)
	}
	return c.grants.validate()
}

func (g Grants) validate() error {
	var guests []string
	for _, d := range g.Dirs {
		if !filepath.IsAbs(d.HostPath) {
			return fmt.Errorf("%w: granted directory %q must be an absolute path", ErrConfig, d.HostPath)
		}
		gp := d.GuestPath
		if gp == "" {
			continue // mounted at its real path (checked at load, see grants.Plan)
		}
		if !strings.HasPrefix(gp, "/") || path.Clean(gp) != gp || gp == "/" {
			return fmt.Errorf("%w: guest mount path %q must be absolute, clean and not \"/\"", ErrConfig, gp)
		}
		for _, o := range guests {
			if grants.PathNests(gp, o, "/") {
				return fmt.Errorf("%w: guest mount paths %q and %q overlap (granted twice, or one inside the other): give each grant a guest path of its own, side by side", ErrConfig, o, gp)
			}
		}
		guests = append(guests, gp)
	}
	for k := range g.Config {
		if !abi.IsConfigKey(k) {
			return fmt.Errorf("%w: config key %q: use 1-128 of [A-Za-z0-9_.-]", ErrConfig, k)
		}
	}
	return g.validateMore()
}
