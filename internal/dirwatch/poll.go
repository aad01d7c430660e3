package dirwatch

import (
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// poller is the portable backend: it scans the roots every interval and
// reports the paths whose size, modification time or mode changed, and
// those that appeared or disappeared. The first scan is the baseline.
type poller struct {
	roots    []root
	interval time.Duration
	max      int
	pend     *pending
	log      *slog.Logger
	warned   bool
	prev     map[string]stamp
	stop     chan struct{}
	done     chan struct{}
}

// stamp is what a scan records of an entry.
type stamp struct {
	size int64
	mod  int64
	mode fs.FileMode
}

func newPoller(roots []root, cfg Config, pend *pending) *poller {
	p := &poller{roots: roots, interval: cfg.pollInterval, max: cfg.maxScan, pend: pend, log: cfg.log,
		stop: make(chan struct{}), done: make(chan struct{})}
	p.prev = p.scan()
	go p.run()
	return p
}

func (p *poller) run() {
	defer close(p.done)
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			cur := p.scan()
			p.diff(cur)
			p.prev = cur
		}
	}
}

// scan records every entry under the roots, without following symbolic
// links inside a tree, up to the scan bound.
func (p *poller) scan() map[string]stamp {
	cur := map[string]stamp{}
	for _, r := range p.roots {
		if r.file {
			if fi, err := os.Stat(r.path); err == nil {
				cur[r.path] = stampOf(fi)
			}
			continue
		}
		_ = filepath.WalkDir(r.path, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // vanished or unreadable: seen as removed
			}
			if len(cur) >= p.max {
				if !p.warned {
					p.warned = true
					p.log.Warn("not watching every granted file: the scan limit is reached", "limit", p.max)
				}
				return filepath.SkipAll
			}
			if fi, err := d.Info(); err == nil {
				cur[path] = stampOf(fi)
			}
			return nil
		})
	}
	return cur
}

// stampOf records an entry. A directory's size and time change with its
// entries, which are reported themselves, so only its mode is recorded.
func stampOf(fi fs.FileInfo) stamp {
	if fi.IsDir() {
		return stamp{mode: fi.Mode()}
	}
	return stamp{size: fi.Size(), mod: fi.ModTime().UnixNano(), mode: fi.Mode()}
}

// diff reports what changed between the previous scan and cur.
func (p *poller) diff(cur map[string]stamp) {
	for path, s := range cur {
		if old, ok := p.prev[path]; !ok || old != s {
			p.pend.add(path)
		}
	}
	for path := range p.prev {
		if _, ok := cur[path]; !ok {
			p.pend.add(path)
		}
	}
}

func (p *poller) close() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}
