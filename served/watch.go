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
// compares them with the stamps taken when the last reload was attempted;
// it reloads once two polls agree on a change, so that a file being written
// is not loaded half-way. SIGHUP reloads at once.

// PollInterval is how often serve checks the watched files.
const PollInterval = time.Second

// Watch reloads on every value from hup and, when poll is set, when a
// watched file changed, until ctx ends. every is the poll interval.
func (s *Set) Watch(ctx context.Context, hup <-chan os.Signal, poll bool, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var pending map[string]fileStamp
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			pending = nil
			_ = s.Reload(ctx, "SIGHUP") // logged
		case <-tick.C:
			if !poll {
				continue
			}
			now, changed := s.changed()
			switch {
			case !changed:
				pending = nil
			case pending != nil && maps.Equal(now, pending):
				pending = nil
				_ = s.Reload(ctx, "file changed") // logged
			default:
				pending = now // wait for one more poll to agree
			}
		}
	}
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
