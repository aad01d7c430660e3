package filesprov

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// snapshot is the set of listable paths and an order-independent hash of
// it. The hash is the changes cursor, so any instance can tell whether the
// list changed since a cursor, and the instance that computed the cursor
// can update its set from the changed paths alone, without a full walk.
type snapshot struct {
	paths map[string]bool
	sum0  uint64
	sum1  uint64
}

func newSnapshot() *snapshot { return &snapshot{paths: map[string]bool{}} }

func pathHash(rel string) (uint64, uint64) {
	h := fnv.New128a()
	h.Write([]byte(rel))
	b := h.Sum(nil)
	return binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
}

func (s *snapshot) add(rel string) {
	if s.paths[rel] {
		return
	}
	s.paths[rel] = true
	a, b := pathHash(rel)
	s.sum0 += a
	s.sum1 += b
}

func (s *snapshot) remove(rel string) {
	if !s.paths[rel] {
		return
	}
	delete(s.paths, rel)
	a, b := pathHash(rel)
	s.sum0 -= a
	s.sum1 -= b
}

// cursor renders the set hash; the count guards against the unlikely
// collision of two sets of different sizes.
func (s *snapshot) cursor() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], s.sum0)
	binary.BigEndian.PutUint64(b[8:], s.sum1)
	return "s:" + hex.EncodeToString(b[:]) + ":" + strconv.Itoa(len(s.paths))
}

// target is a changed path inside a root: rel "." is the root itself.
type target struct {
	r    *root
	rel  string
	full string
}

// Changes maps changed guest paths to the file:// URIs of the files at or
// below them, now or before, and reports whether the set of files differs
// from the one the cursor was computed from.
func (f *files) Changes(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error) {
	if len(f.roots) == 0 {
		return nil, errNoRoots()
	}
	ctx, done := withSkipLog(ctx)
	defer done()
	opts := readOptions(ctx)
	targets := f.changedTargets(opts, req.Paths)
	f.mu.Lock()
	defer f.mu.Unlock()
	updated := map[string]bool{}
	current := f.snap != nil && req.Cursor != "" && f.snap.cursor() == req.Cursor
	if current && !slices.ContainsFunc(targets, func(t target) bool { return t.rel == "." }) {
		for _, t := range targets {
			f.refresh(ctx, opts, t, updated)
		}
	} else if err := f.rescan(ctx, opts, targets, current, updated); err != nil {
		return nil, err
	}
	res := &abi.ChangesResult{Cursor: f.snap.cursor(), Updated: sortedURIs(updated)}
	if req.Cursor == "" {
		res.ListChanged = len(targets) > 0 // no baseline: a change may be a creation
	} else {
		res.ListChanged = res.Cursor != req.Cursor
	}
	return res, nil
}

// changedTargets turns guest paths into visible paths in roots, dropping
// paths outside every root.
func (f *files) changedTargets(opts options, paths []string) []target {
	seen := map[string]bool{}
	var out []target
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") || strings.IndexByte(p, 0) >= 0 {
			continue // no file's path
		}
		p = path.Clean(p)
		r, rel := f.rootOf(p)
		if r == nil || !fs.ValidPath(rel) || (rel != "." && !opts.visiblePath(rel)) || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, target{r: r, rel: rel, full: p})
	}
	return out
}

// rescan replaces the snapshot with a full walk of every root and collects
// into updated the files at or below the targets now, and, when the old
// snapshot is the cursor's (current), before, plus every file that
// appeared or disappeared. A root itself as a target stands for all of it.
func (f *files) rescan(ctx context.Context, opts options, targets []target, current bool, updated map[string]bool) error {
	next := newSnapshot()
	for _, r := range f.roots {
		err := f.walkAfter(ctx, opts, r, "", func(rel string, _ fs.DirEntry) bool {
			next.add(r.full(rel))
			return true
		})
		if err != nil {
			return err
		}
	}
	for p := range next.paths {
		if underAny(p, targets) || (current && !f.snap.paths[p]) {
			updated[p] = true
		}
	}
	if current {
		for p := range f.snap.paths {
			if underAny(p, targets) || !next.paths[p] {
				updated[p] = true
			}
		}
	}
	f.snap = next
	return nil
}

// refresh updates the snapshot for one changed path: it drops what was
// known at or below it and adds what is there now.
func (f *files) refresh(ctx context.Context, opts options, t target, updated map[string]bool) {
	if f.snap.paths[t.full] {
		f.snap.remove(t.full)
		updated[t.full] = true
	} else {
		for p := range f.snap.paths {
			if strings.HasPrefix(p, t.full+"/") {
				f.snap.remove(p)
				updated[p] = true
			}
		}
	}
	info, err := t.r.lstatChain(t.rel)
	switch {
	case err != nil:
	case info.Mode().IsRegular() && t.r.listable(t.rel):
		f.snap.add(t.full)
		updated[t.full] = true
	case info.IsDir():
		err := f.walkTree(ctx, opts, t.r, t.rel, func(rel string, _ fs.DirEntry) bool {
			p := t.r.full(rel)
			f.snap.add(p)
			updated[p] = true
			return true
		})
		if err != nil {
			mcpw.Logf(ctx, mcpw.LevelWarn, "refresh %s: %v", t.full, err)
		}
	}
}

// underAny reports whether the guest path p is a target or below one. A
// root as a target (the host lost events) asks for a look at everything,
// which reports what appeared or disappeared, not every file as updated.
func underAny(p string, targets []target) bool {
	for _, t := range targets {
		if t.rel != "." && (p == t.full || strings.HasPrefix(p, t.full+"/")) {
			return true
		}
	}
	return false
}

// sortedURIs returns the URIs of the guest paths, sorted by path, at most
// abi.MaxListItems.
func sortedURIs(paths map[string]bool) []string {
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	if len(sorted) > abi.MaxListItems {
		sorted = sorted[:abi.MaxListItems]
	}
	uris := make([]string, len(sorted))
	for i, p := range sorted {
		uris[i] = uriPrefix + escapeAbs(p)
	}
	return uris
}
