// Package dirwatch reports which paths changed under a few directory trees
// or single files: the host watches what the operator granted a provider,
// so that a provider that only runs when called can learn what changed.
// It uses inotify on Linux and, elsewhere or when inotify is unavailable, a
// bounded polling scan of sizes, modification times and modes.
//
//	w, err := dirwatch.New([]string{"/srv/docs"}, dirwatch.NewConfig())
//	...
//	for range w.Changed() {
//		paths, overflow := w.Take() // overflow: assume everything changed
//	}
//
// It refuses to hold unbounded state: pending paths, watched directories
// and scanned entries are capped, and past the pending cap it reports an
// overflow ("rescan everything") instead of more paths. It never follows a
// symbolic link found inside a tree, never reads file contents, and reports
// paths only, as host paths under the roots it was given.
package dirwatch

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Defaults of a Config.
const (
	DefaultPollInterval = time.Second
	DefaultMaxPending   = 1000
	DefaultMaxWatches   = 8192
	DefaultMaxScan      = 50_000
)

// Config configures a Watcher. It is an immutable value: every With method
// returns a modified copy, and New validates it.
type Config struct {
	pollInterval time.Duration
	maxPending   int
	maxWatches   int
	maxScan      int
	forcePoll    bool
	log          *slog.Logger
}

// NewConfig returns the defaults stated in each setter.
func NewConfig() Config {
	return Config{pollInterval: DefaultPollInterval, maxPending: DefaultMaxPending,
		maxWatches: DefaultMaxWatches, maxScan: DefaultMaxScan}
}

// WithPollInterval sets how often the polling backend scans. Defaults to
// DefaultPollInterval.
func (c Config) WithPollInterval(d time.Duration) Config { c.pollInterval = d; return c }

// WithMaxPending bounds the changed paths held between two Take calls;
// past it Take reports an overflow. Defaults to DefaultMaxPending.
func (c Config) WithMaxPending(n int) Config { c.maxPending = n; return c }

// WithMaxWatches bounds the directories inotify watches; deeper or later
// directories are not watched (and a warning is logged). Defaults to
// DefaultMaxWatches.
func (c Config) WithMaxWatches(n int) Config { c.maxWatches = n; return c }

// WithMaxScan bounds the entries one polling scan records; the rest are not
// watched (and a warning is logged). Defaults to DefaultMaxScan.
func (c Config) WithMaxScan(n int) Config { c.maxScan = n; return c }

// WithPolling forces the polling backend even where inotify works.
// Defaults to false.
func (c Config) WithPolling(on bool) Config { c.forcePoll = on; return c }

// WithLogger sets the logger for warnings (truncated watches, fallback to
// polling). Defaults to discarding.
func (c Config) WithLogger(l *slog.Logger) Config { c.log = l; return c }

func (c Config) validate() error {
	switch {
	case c.pollInterval < 10*time.Millisecond || c.pollInterval > time.Hour:
		return fmt.Errorf("poll interval %s: use 10ms to 1h", c.pollInterval)
	case c.maxPending < 1, c.maxWatches < 1, c.maxScan < 1:
		return errors.New("max pending, max watches and max scan must be at least 1")
	}
	return nil
}

// Watcher reports changed paths under its roots. Its methods are safe for
// concurrent use.
type Watcher struct {
	pending *pending
	backend backend
	kind    string
}

// backend is inotify or polling.
type backend interface{ close() }

// Backend names of Watcher.Backend.
const (
	BackendInotify = "inotify"
	BackendPoll    = "poll"
)

// New watches roots, absolute paths of directories (watched as trees) or
// of regular files. It uses inotify where it can and falls back to polling.
func New(roots []string, cfg Config) (*Watcher, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("configure watcher: %w", err)
	}
	if cfg.log == nil {
		cfg.log = slog.New(slog.DiscardHandler)
	}
	rs, err := statRoots(roots)
	if err != nil {
		return nil, err
	}
	w := &Watcher{pending: newPending(cfg.maxPending)}
	if !cfg.forcePoll {
		b, err := newInotify(rs, cfg, w.pending)
		if err == nil {
			w.backend, w.kind = b, BackendInotify
			return w, nil
		}
		cfg.log.Warn("watching granted directories by polling: inotify is unavailable", "error", err)
	}
	w.backend, w.kind = newPoller(rs, cfg, w.pending), BackendPoll
	return w, nil
}

// root is one watched root.
type root struct {
	path string
	file bool // a single file, not a tree
}

func statRoots(paths []string) ([]root, error) {
	rs := make([]root, 0, len(paths))
	for _, p := range paths {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return nil, fmt.Errorf("watch %q: the path must be absolute and clean", p)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("watch %q: %w", p, err)
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("watch %q: not a directory or a regular file", p)
		}
		rs = append(rs, root{path: p, file: !fi.IsDir()})
	}
	return rs, nil
}

// Changed returns a channel that receives a value when paths are pending
// (one value for any number of changes).
func (w *Watcher) Changed() <-chan struct{} { return w.pending.signal }

// Take returns the pending paths, sorted, and whether some were lost to
// the bound (then every root should be treated as changed), and clears
// them.
func (w *Watcher) Take() (paths []string, overflow bool) { return w.pending.take() }

// Backend returns BackendInotify or BackendPoll.
func (w *Watcher) Backend() string { return w.kind }

// Close stops watching and waits for the watcher's goroutine to return.
func (w *Watcher) Close() error {
	w.backend.close()
	return nil
}
