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

// Changes maps changed guest paths (under the mount) to the file:/// URIs
// of the files at or below them, now or before, and reports whether the
// set of files differs from the one the cursor was computed from.
func (f *files) Changes(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error) {
	ctx, done := withSkipLog(ctx)
	defer done()
	opts := readOptions(ctx)
	rels := f.changedRels(opts, req.Paths)
	f.mu.Lock()
	defer f.mu.Unlock()
	updated := map[string]bool{}
	current := f.snap != nil && req.Cursor != "" && f.snap.cursor() == req.Cursor
	if current && !slices.Contains(rels, ".") {
		for _, rel := range rels {
			f.refresh(ctx, opts, rel, updated)
		}
	} else if err := f.rescan(ctx, opts, rels, current, updated); err != nil {
		return nil, err
	}
	res := &abi.ChangesResult{Cursor: f.snap.cursor(), Updated: sortedURIs(updated)}
	if req.Cursor == "" {
		res.ListChanged = len(rels) > 0 // no baseline: a change may be a creation
	} else {
		res.ListChanged = res.Cursor != req.Cursor
	}
	return res, nil
}

// changedRels turns guest paths into visible relative paths ("." for the
// mount itself), dropping paths outside the mount.
func (f *files) changedRels(opts options, paths []string) []string {
	seen := map[string]bool{}
	var rels []string
	for _, p := range paths {
		p = path.Clean(p)
		rel, ok := strings.CutPrefix(p, f.mount+"/")
		if p == f.mount {
			rel, ok = ".", true
		}
		if !ok || !fs.ValidPath(rel) || (rel != "." && !opts.visiblePath(rel)) || seen[rel] {
			continue
		}
		seen[rel] = true
		rels = append(rels, rel)
	}
	return rels
}

// rescan replaces the snapshot with a full walk and collects into updated
// the files at or below rels (other than the mount itself) now, and, when
// the old snapshot is the cursor's (current), before, plus every file that
// appeared or disappeared.
func (f *files) rescan(ctx context.Context, opts options, rels []string, current bool, updated map[string]bool) error {
	next := newSnapshot()
	err := f.walkAfter(ctx, opts, "", func(rel string, _ fs.DirEntry) bool {
		next.add(rel)
		return true
	})
	if err != nil {
		return err
	}
	for p := range next.paths {
		if underAny(p, rels) || (current && !f.snap.paths[p]) {
			updated[p] = true
		}
	}
	if current {
		for p := range f.snap.paths {
			if underAny(p, rels) || !next.paths[p] {
				updated[p] = true
			}
		}
	}
	f.snap = next
	return nil
}

// refresh updates the snapshot for one changed path: it drops what was
// known at or below rel and adds what is there now.
func (f *files) refresh(ctx context.Context, opts options, rel string, updated map[string]bool) {
	if f.snap.paths[rel] {
		f.snap.remove(rel)
		updated[rel] = true
	} else {
		for p := range f.snap.paths {
			if strings.HasPrefix(p, rel+"/") {
				f.snap.remove(p)
				updated[p] = true
			}
		}
	}
	info, err := f.lstatChain(rel)
	switch {
	case err != nil:
	case info.Mode().IsRegular() && listable(rel):
		f.snap.add(rel)
		updated[rel] = true
	case info.IsDir():
		err := f.walkTree(ctx, opts, rel, func(p string, _ fs.DirEntry) bool {
			f.snap.add(p)
			updated[p] = true
			return true
		})
		if err != nil {
			mcpw.Logf(ctx, mcpw.LevelWarn, "refresh %s: %v", rel, err)
		}
	}
}

func underAny(p string, rels []string) bool {
	for _, r := range rels {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// sortedURIs returns the URIs of the paths, sorted, at most abi.MaxListItems.
func sortedURIs(paths map[string]bool) []string {
	rels := make([]string, 0, len(paths))
	for p := range paths {
		rels = append(rels, p)
	}
	sort.Strings(rels)
	if len(rels) > abi.MaxListItems {
		rels = rels[:abi.MaxListItems]
	}
	uris := make([]string, len(rels))
	for i, r := range rels {
		uris[i] = uriFor(r)
	}
	return uris
}
