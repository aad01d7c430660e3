package runtime

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/textsafe"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/dirwatch"
)

// Defaults and bounds of a ChangeFeedConfig.
const (
	// DefaultChangesInterval is how often a provider is asked what changed.
	DefaultChangesInterval = time.Second
	// DefaultChangesSettle is how long the feed waits after a watched
	// directory changed before asking, so that a burst of file events (an
	// editor's save) makes one call.
	DefaultChangesSettle = 100 * time.Millisecond
	// watchedPollEvery: a provider whose directories are watched is called
	// when they change, and otherwise every this many intervals.
	watchedPollEvery = 30
	// maxChangedPaths and maxChangedBytes bound the paths of one call; past
	// them the feed passes the mounts themselves ("rescan").
	maxChangedPaths = 256
	maxChangedBytes = 32 << 10
)

// ChangeFeedConfig configures Provider.WatchChanges. It is an immutable
// value: every With method returns a modified copy.
type ChangeFeedConfig struct {
	interval time.Duration
	settle   time.Duration
	active   func() bool
	ready    func()
	health   func(ok bool)
	watched  func()
	watch    bool
	poll     bool
}

// NewChangeFeedConfig returns the defaults stated in each setter.
func NewChangeFeedConfig() ChangeFeedConfig {
	return ChangeFeedConfig{interval: DefaultChangesInterval, settle: DefaultChangesSettle, watch: true}
}

// WithInterval sets how often the provider is asked what changed (10ms to
// 1h). Defaults to DefaultChangesInterval.
func (c ChangeFeedConfig) WithInterval(d time.Duration) ChangeFeedConfig { c.interval = d; return c }

// WithSettle sets how long the feed waits after a watched directory changed
// before it asks the provider (0 to the interval). Defaults to
// DefaultChangesSettle.
func (c ChangeFeedConfig) WithSettle(d time.Duration) ChangeFeedConfig { c.settle = d; return c }

// WithActive makes the feed call the provider only while active returns
// true (someone would hear of a change). The baseline is taken when the
// feed starts, active or not, and kept while it is inactive, so that the
// first call after it turns active reports every change to the list since
// then: a file created just after a client connected is never folded into
// a fresh baseline. Defaults to nil: always active.
func (c ChangeFeedConfig) WithActive(active func() bool) ChangeFeedConfig {
	c.active = active
	return c
}

// WithReady sets a function the feed calls once, when it has taken its
// baseline (or failed to): changes from then on are reported. A server
// that waits for it before taking clients announces every change they
// could have seen. Defaults to nil.
func (c ChangeFeedConfig) WithReady(ready func()) ChangeFeedConfig { c.ready = ready; return c }

// WithHealth sets a function the feed calls with true when its calls to
// the provider succeed (the first time: the baseline is taken) and with
// false when they start failing or the feed stops, each time the state
// flips, on the feed's goroutine: while false, changes may go unreported
// until a call succeeds. Defaults to nil.
func (c ChangeFeedConfig) WithHealth(health func(ok bool)) ChangeFeedConfig {
	c.health = health
	return c
}

// WithWatched sets a function the feed calls, on its goroutine, when the
// directory watch saw granted files change (or lost track of them), before
// it asks the provider about them, and whether or not it then asks.
// Defaults to nil.
func (c ChangeFeedConfig) WithWatched(watched func()) ChangeFeedConfig {
	c.watched = watched
	return c
}

// WithDirWatch sets whether the host watches the provider's granted
// directories and files and passes the guest paths that changed. Defaults
// to true.
func (c ChangeFeedConfig) WithDirWatch(on bool) ChangeFeedConfig { c.watch = on; return c }

// WithDirPolling makes the directory watch scan periodically instead of
// using inotify. Defaults to false (inotify where available).
func (c ChangeFeedConfig) WithDirPolling(on bool) ChangeFeedConfig { c.poll = on; return c }

func (c ChangeFeedConfig) validate() error {
	if c.interval < 10*time.Millisecond || c.interval > time.Hour {
		return fmt.Errorf("%w: changes interval %s: use 10ms to 1h", ErrConfig, c.interval)
	}
	if c.settle < 0 || c.settle > c.interval {
		return fmt.Errorf("%w: changes settle %s: use 0 to the interval (%s)", ErrConfig, c.settle, c.interval)
	}
	return nil
}

// WatchChanges asks the provider what changed until ctx is done or the
// provider is closed, and passes every non-empty answer to report (on the
// calling goroutine). The host keeps the provider's cursor; the first call,
// made at once, is a baseline whose answer is dropped. When cfg watches directories, the
// guest paths under the provider's grants that changed are passed in
// ChangesRequest.Paths, and the provider maps them to its URIs: the host
// never guesses a provider's URI layout. Answers are validated like every
// guest output (URIs inside the provider's uri space).
func (p *Provider) WatchChanges(ctx context.Context, cfg ChangeFeedConfig, report func(*abi.ChangesResult)) error {
	if !p.ops[abi.OpChanges] {
		return fmt.Errorf("%w: provider %q does not implement %s", abi.ErrUnsupported, p.name, abi.OpChanges)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	f := &feed{p: p, cfg: cfg, report: report, mounts: p.mountedPaths()}
	defer f.setHealth(false)
	if cfg.watch && len(f.mounts) > 0 {
		f.startWatch()
		defer f.w.Close()
	}
	f.baseline(ctx)
	if cfg.ready != nil {
		cfg.ready()
	}
	f.run(ctx)
	return nil
}

// baseline takes the cursor the next changes are counted from, whether or
// not anyone listens yet.
func (f *feed) baseline(ctx context.Context) bool {
	res, stop := f.call(ctx, abi.ChangesRequest{})
	if res != nil {
		f.cursor, f.baselined = res.Cursor, true
	}
	return stop
}

// feed is one WatchChanges loop; only its goroutine touches it.
type feed struct {
	p         *Provider
	cfg       ChangeFeedConfig
	report    func(*abi.ChangesResult)
	mounts    []mountedPath
	w         *dirwatch.Watcher
	cursor    string
	baselined bool
	rescan    bool // paths were lost: pass the mounts next time
	failing   bool
	healthy   bool // as last told to cfg.health
}

func (f *feed) startWatch() {
	roots := make([]string, len(f.mounts))
	for i, m := range f.mounts {
		roots[i] = m.watch
	}
	w, err := dirwatch.New(roots, dirwatch.NewConfig().WithPolling(f.cfg.poll).WithLogger(f.p.log))
	if err != nil {
		f.p.log.Warn("granted directories are not watched: changes to them are seen only by the provider itself", "error", err)
		return
	}
	f.w = w
}

func (f *feed) run(ctx context.Context) {
	tick := time.NewTicker(f.cfg.interval)
	defer tick.Stop()
	var changed <-chan struct{}
	if f.w != nil {
		changed = f.w.Changed()
	}
	var settle <-chan time.Time
	for ticks := 1; ; {
		var stop bool
		select {
		case <-ctx.Done():
			return
		case <-changed:
			if settle == nil {
				settle = time.After(f.cfg.settle)
			}
		case <-settle:
			settle = nil
			stop = f.poll(ctx)
		case <-tick.C:
			if ticks++; f.w == nil || !f.baselined || ticks%watchedPollEvery == 0 {
				stop = f.poll(ctx)
			}
		}
		if stop {
			return
		}
	}
}

// poll makes one round: the changes since the cursor (after a baseline,
// if the first one failed). It reports whether the feed must stop. While
// no one listens it calls nothing and drops the changed paths, but keeps
// the cursor: the first round once someone listens reports whatever the
// list did meanwhile.
func (f *feed) poll(ctx context.Context) bool {
	if f.cfg.active != nil && !f.cfg.active() {
		f.rescan = false
		f.takePaths()
		return false
	}
	if !f.baselined {
		if stop := f.baseline(ctx); stop || !f.baselined {
			return stop
		}
	}
	paths := f.takePaths()
	res, stop := f.call(ctx, abi.ChangesRequest{Cursor: f.cursor, Paths: paths})
	if res == nil {
		f.rescan = f.rescan || len(paths) > 0
		return stop
	}
	f.cursor = res.Cursor
	f.p.rt.reads.DropURIs(f.p, res.Updated)
	if len(res.Updated) > 0 || res.ListChanged {
		f.report(res)
	}
	return false
}

// call asks the provider once. A failure is logged when it starts; a
// closed provider stops the feed.
func (f *feed) call(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, bool) {
	res, err := f.p.Changes(ctx, req)
	switch {
	case err == nil:
		f.failing = false
		f.setHealth(true)
		return res, false
	case errors.Is(err, abi.ErrClosed), ctx.Err() != nil:
		return nil, true
	case !f.failing:
		f.failing = true
		f.p.log.Warn("changes failed; the host keeps asking", "error", textsafe.FirstLine(err.Error(), 512))
	}
	f.setHealth(false)
	return nil, false
}

func (f *feed) setHealth(ok bool) {
	if f.cfg.health != nil && ok != f.healthy {
		f.healthy = ok
		f.cfg.health(ok)
	}
}

// takePaths returns the guest paths that changed since the last call.
func (f *feed) takePaths() []string {
	if f.w == nil {
		return nil
	}
	hosts, overflow := f.w.Take()
	if f.cfg.watched != nil && (overflow || len(hosts) > 0) {
		f.cfg.watched()
	}
	// Whoever listens or not, cached reads of what changed are dropped.
	if overflow {
		f.p.rt.reads.DropProvider(f.p)
	} else {
		f.p.rt.reads.DropHostPaths(f.p, hosts)
	}
	out := f.guestPaths(hosts, overflow || f.rescan)
	f.rescan = false
	return out
}

// guestPaths maps changed host paths to guest paths, sorted and unique; when
// paths were lost, or are too many for one call, it returns the mounts
// themselves, which tells the provider to look at everything.
func (f *feed) guestPaths(hosts []string, lost bool) []string {
	var out []string
	size := 0
	for _, h := range hosts {
		if g, ok := f.guestPath(h); ok {
			out = append(out, g)
			size += len(g)
		}
	}
	if lost || len(out) > maxChangedPaths || size > maxChangedBytes {
		out = out[:0]
		for _, m := range f.mounts {
			out = append(out, m.guest)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// guestPath maps a host path under a mount to the path the guest sees.
func (f *feed) guestPath(host string) (string, bool) {
	for _, m := range f.mounts {
		if m.file {
			if host == m.watch {
				return m.guest, true
			}
			continue
		}
		rel, err := filepath.Rel(m.watch, host)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		return path.Join(m.guest, filepath.ToSlash(rel)), true
	}
	return "", false
}
