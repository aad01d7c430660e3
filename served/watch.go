package served

import (
	"context"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/mcp-wasm/mcp-wasm/config"
)

// Hot reload by polling. Every interval the watcher stamps the config file
// and every module file the config names (size, mtime and mode) and
// compares them with the stamps taken when the last reload was attempted.
// A change is acted on once a poll finds the files as the previous poll
// did (a file being written is not loaded half-way), or, if they keep
// changing (a deploy tool rewriting the config in a loop, a module being
// rebuilt), once maxPendingPolls polls have seen them changing: a reload
// comes at most two intervals after the last change and at most
// maxPendingPolls+1 intervals after the first. SIGHUP reloads at once.

// PollInterval is how often serve checks the watched files.
const PollInterval = time.Second

// maxPendingPolls is how many polls may see the watched files still
// changing before they are reloaded anyway.
const maxPendingPolls = 5

// Watch reloads on every value from hup and, when poll is set, when a
// watched file changed, until ctx ends. every is the poll interval.
func (s *Set) Watch(ctx context.Context, hup <-chan os.Signal, poll bool, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var polls <-chan time.Time
	if poll {
		polls = tick.C
	}
	var w pendingChange
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			w = pendingChange{}
			_ = s.Reload(ctx, "SIGHUP") // logged
		case <-polls:
			s.poll(ctx, &w)
		}
	}
}

// poll stamps the watched files once and reloads if w says it is due.
func (s *Set) poll(ctx context.Context, w *pendingChange) {
	now, changed := s.changed()
	if w.due(now, changed) {
		*w = pendingChange{}
		_ = s.Reload(ctx, "file changed") // logged
	}
}

// pendingChange follows a change of the watched files across polls.
type pendingChange struct {
	last  map[string]fileStamp // what the previous poll saw; nil: no change pending
	polls int                  // polls that have seen the change pending
}

// due records one poll, which found the files stamped now (changed since
// the last reload attempt, or not), and reports whether to reload: the
// files stopped changing since the previous poll, or kept changing for
// maxPendingPolls polls.
func (w *pendingChange) due(now map[string]fileStamp, changed bool) bool {
	if !changed {
		*w = pendingChange{}
		return false
	}
	if w.last != nil && maps.Equal(now, w.last) {
		return true
	}
	w.last = now
	w.polls++
	return w.polls > maxPendingPolls
}

// changed stamps the watched files and reports whether they differ from
// the last attempt.
func (s *Set) changed() (map[string]fileStamp, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := stampFiles(slices.Collect(maps.Keys(s.stamps)))
	return now, !maps.Equal(now, s.stamps)
}

// watchedFiles are the config file and the module files it names.
func watchedFiles(cfg *config.Config) []string {
	var out []string
	if cfg.File != "" {
		out = append(out, cfg.File)
	}
	for _, p := range cfg.Providers {
		if path, ok := p.Module.Path(); ok {
			out = append(out, path)
		}
	}
	return out
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
