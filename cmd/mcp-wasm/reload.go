package main

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// Hot reload. On SIGHUP, or when the config file or a module file changes
// (polled: size, mtime and mode, every pollInterval, and acted on once two
// polls agree so that a file being written is not loaded half-way), the
// reloader reads the config again, loads every module, and only if all of
// that succeeds asks the server to swap sets (server.SetProviders, which
// checks names and uri spaces again and tells clients list_changed). A
// broken config or module is logged and the old set keeps serving. A
// retired set is closed once the requests that started on it have
// returned.

// pollInterval is how often watched files are checked.
const pollInterval = time.Second

// swapper is what the reloader needs of the server.
type swapper interface {
	SetProviders(ps ...server.Provider) (<-chan struct{}, error)
}

// reloader keeps the served provider set in step with the config file.
type reloader struct {
	path string
	env  lookupEnv
	rt   *runtime.Runtime
	ml   *moduleLoader // modules.go: where module bytes come from
	log  *slog.Logger
	stop chan struct{} // closed by close: retired sets close at once

	mu       sync.Mutex // serializes start, reload and close; guards below
	srv      swapper
	cc       *checkedConfig
	current  providerSet
	stamps   map[string]fileStamp // watched files at the last attempt
	backstop time.Duration        // the largest timeout at start: the server's deadline is this+1s
	retiring sync.WaitGroup       // goroutines closing retired sets
}

func newReloader(path string, env lookupEnv, rt *runtime.Runtime, ml *moduleLoader, log *slog.Logger) *reloader {
	return &reloader{path: path, env: env, rt: rt, ml: ml, log: log, stop: make(chan struct{})}
}

// start loads the first set from the config file cc was read from.
func (r *reloader) start(ctx context.Context, cc *checkedConfig) (providerSet, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stamps := stampFiles(append([]string{r.path}, cc.modules()...))
	set, err := loadSet(ctx, r.rt, r.ml, cc, r.log)
	if err != nil {
		return nil, err
	}
	r.cc, r.current, r.stamps, r.backstop = cc, set, stamps, cc.maxTimeout()
	return set, nil
}

// attach gives the reloader the server to swap sets in.
func (r *reloader) attach(srv swapper) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.srv = srv
}

// reload reads the config and the modules again and swaps them in. On any
// error the old set keeps serving, the error is logged and returned.
func (r *reloader) reload(ctx context.Context, reason string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	configStamp := stampFiles([]string{r.path})
	cc, err := readConfig(r.path, r.env)
	modules := r.cc.modules()
	if err == nil {
		modules = cc.modules()
	}
	r.stamps = stampFiles(modules)
	maps.Copy(r.stamps, configStamp)
	if err == nil {
		err = r.swap(ctx, cc)
	}
	if err != nil {
		if ctx.Err() != nil {
			r.log.Info("reload abandoned: shutting down", "reason", reason)
			return err
		}
		r.log.Error("reload refused: still serving the previous providers", "reason", reason, "error", err.Error())
		return err
	}
	if !reflect.DeepEqual(cc.server, r.cc.server) {
		r.log.Warn("server settings changed in the config file: they take effect on restart", "config", r.path)
	}
	if cc.maxTimeout() > r.backstop {
		r.log.Warn("a provider timeout grew past the one serve started with: calls are still cut at the old one plus 1s until restart",
			"started_with", r.backstop, "now", cc.maxTimeout())
	}
	r.cc = cc
	r.log.Info("providers reloaded", "reason", reason, "providers", len(r.current), "config", r.path)
	return nil
}

// swap loads cc's set and makes the server serve it; r.mu is held.
func (r *reloader) swap(ctx context.Context, cc *checkedConfig) error {
	if r.srv == nil {
		return errors.New("reload before the server started")
	}
	set, err := loadSet(ctx, r.rt, r.ml, cc, r.log)
	if err != nil {
		return err
	}
	drained, err := r.srv.SetProviders(set.serverProviders()...)
	if err != nil {
		set.close(ctx)
		return err
	}
	old := r.current
	r.current = set
	r.retiring.Add(1)
	go func() {
		defer r.retiring.Done()
		select {
		case <-drained:
		case <-r.stop:
		}
		old.close(ctx)
	}()
	return nil
}

// watch reloads on hup and, if poll is set, when watched files change,
// until ctx ends.
func (r *reloader) watch(ctx context.Context, hup <-chan os.Signal, poll bool, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var pending map[string]fileStamp
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			pending = nil
			_ = r.reload(ctx, "SIGHUP") // logged
		case <-tick.C:
			if !poll {
				continue
			}
			now, changed := r.changed()
			switch {
			case !changed:
				pending = nil
			case pending != nil && maps.Equal(now, pending):
				pending = nil
				_ = r.reload(ctx, "file changed") // logged
			default:
				pending = now // wait for one more poll to agree
			}
		}
	}
}

// changed stamps the watched files and reports whether they differ from
// the last attempt.
func (r *reloader) changed() (map[string]fileStamp, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := stampFiles(slices.Collect(maps.Keys(r.stamps)))
	return now, !maps.Equal(now, r.stamps)
}

// close closes retired sets at once, then the current one. Call it after
// the server has stopped serving.
func (r *reloader) close(ctx context.Context) {
	close(r.stop)
	r.retiring.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.current.close(ctx)
	r.current = nil
}

// fileStamp is what polling compares: a file that is rewritten, replaced
// or removed changes it.
type fileStamp struct {
	size    int64
	modTime int64 // ns since the epoch
	mode    os.FileMode
	missing bool
}

func stampFiles(paths []string) map[string]fileStamp {
	out := make(map[string]fileStamp, len(paths))
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			out[p] = fileStamp{missing: true}
			continue
		}
		out[p] = fileStamp{size: fi.Size(), modTime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	}
	return out
}
