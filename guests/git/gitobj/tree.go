package gitobj

import (
	"errors"
	"fmt"
	"strings"
)

// Entry modes as git writes them.
const (
	ModeDir     = 0o040000
	ModeFile    = 0o100644
	ModeExec    = 0o100755
	ModeSymlink = 0o120000
	ModeGitlink = 0o160000
)

// TreeEntry is one entry of a tree.
type TreeEntry struct {
	Name string
	Mode uint32
	ID   ID
}

// IsDir says whether the entry is a subtree.
func (e TreeEntry) IsDir() bool { return e.Mode == ModeDir }

// Tree reads and parses the tree id, at most Limits.MaxTreeEntries entries.
func (r *Repo) Tree(id ID) ([]TreeEntry, error) {
	if ents, ok := r.trees.get(id); ok {
		return ents, nil
	}
	obj, err := r.Read(id)
	if err != nil {
		return nil, err
	}
	if obj.Type != TypeTree {
		return nil, fmt.Errorf("object %s: %w: a %s, not a tree", id, ErrCorrupt, obj.Type)
	}
	ents, err := parseTree(id, obj.Data, r.limits.MaxTreeEntries)
	if err == nil {
		r.trees.put(id, ents)
	}
	return ents, err
}

func parseTree(id ID, raw []byte, max int) ([]TreeEntry, error) {
	var out []TreeEntry
	// One string for the whole tree: names are slices of it, not one
	// allocation each.
	data := string(raw)
	for len(data) > 0 {
		sp := strings.IndexByte(data, ' ')
		nul := strings.IndexByte(data, 0)
		if sp <= 0 || nul < sp+2 || len(data) < nul+21 {
			return nil, fmt.Errorf("tree %s: %w: bad entry", id, ErrCorrupt)
		}
		mode, err := parseMode(data[:sp])
		name := data[sp+1 : nul]
		if err != nil || name == "." || name == ".." || strings.Contains(name, "/") {
			return nil, fmt.Errorf("tree %s: %w: bad entry %q", id, ErrCorrupt, name)
		}
		if len(out) >= max {
			return nil, fmt.Errorf("tree %s: %w: more than %d entries: raise max_tree_entries", id, ErrLimit, max)
		}
		var eid ID
		copy(eid[:], data[nul+1:nul+21])
		out = append(out, TreeEntry{Name: name, Mode: uint32(mode), ID: eid})
		data = data[nul+21:]
	}
	return out, nil
}

// Lookup finds the entry at the slash path p ("" is the root tree itself,
// returned as a directory entry) under the tree root.
func (r *Repo) Lookup(root ID, p string) (TreeEntry, error) {
	cur := TreeEntry{Mode: ModeDir, ID: root}
	if p == "" {
		return cur, nil
	}
	parts := strings.Split(p, "/")
	if len(parts) > maxTreeDepth {
		return TreeEntry{}, fmt.Errorf("path %q: %w", p, ErrNotFound)
	}
	for _, part := range parts {
		if !cur.IsDir() {
			return TreeEntry{}, fmt.Errorf("path %q: %w", p, ErrNotFound)
		}
		ents, err := r.Tree(cur.ID)
		if err != nil {
			return TreeEntry{}, err
		}
		found := false
		for _, e := range ents {
			if e.Name == part {
				cur, found = e, true
				break
			}
		}
		if !found {
			return TreeEntry{}, fmt.Errorf("path %q: %w", p, ErrNotFound)
		}
	}
	return cur, nil
}

// FileEntry is an entry of a recursive walk, with its full path.
type FileEntry struct {
	Path string
	TreeEntry
}

// Walk lists every non-tree entry below the tree root, in git's order
// (ls-tree -r): blobs, symlinks and submodules, at most
// Limits.MaxTreeEntries in all. A tree that contains itself, directly or
// not, or nesting deeper than 256, is an error.
func (r *Repo) Walk(root ID, prefix string) ([]FileEntry, error) {
	var out []FileEntry
	err := r.WalkFunc(root, prefix, func(dir string, e TreeEntry) error {
		p := e.Name
		if dir != "" {
			p = dir + "/" + e.Name
		}
		out = append(out, FileEntry{Path: p, TreeEntry: e})
		return nil
	})
	return out, err
}

// WalkFunc calls fn with the directory (slash path, "" at the top) and
// entry of every non-tree entry below root, as Walk lists them, without
// building their paths: a caller that writes them out saves an
// allocation per file.
func (r *Repo) WalkFunc(root ID, prefix string, fn func(dir string, e TreeEntry) error) error {
	onPath := map[ID]bool{}
	visits, files := 0, 0
	var walk func(id ID, dir string, depth int) error
	walk = func(id ID, dir string, depth int) error {
		if depth > maxTreeDepth {
			return fmt.Errorf("tree %s: %w: nested deeper than %d", id, ErrLimit, maxTreeDepth)
		}
		if onPath[id] {
			return fmt.Errorf("tree %s: %w: it contains itself", id, ErrCorrupt)
		}
		// Every tree visited counts, so that a DAG of empty trees (each
		// naming the next one twice) costs at most the same bound.
		if visits++; visits+files > r.limits.MaxTreeEntries {
			return fmt.Errorf("tree %s: %w: more than %d entries: raise max_tree_entries", root, ErrLimit, r.limits.MaxTreeEntries)
		}
		onPath[id] = true
		defer delete(onPath, id)
		ents, err := r.Tree(id) // cached: a tree met twice is parsed once
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.IsDir() {
				sub := e.Name
				if dir != "" {
					sub = dir + "/" + e.Name
				}
				if err := walk(e.ID, sub, depth+1); err != nil {
					return err
				}
				continue
			}
			if files++; visits+files > r.limits.MaxTreeEntries {
				return fmt.Errorf("tree %s: %w: more than %d entries: raise max_tree_entries", root, ErrLimit, r.limits.MaxTreeEntries)
			}
			if err := fn(dir, e); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root, prefix, 0)
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// parseMode parses an entry's octal mode (at most 7 digits).
func parseMode(s string) (uint32, error) {
	if s == "" || len(s) > 7 {
		return 0, ErrCorrupt
	}
	var m uint32
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '7' {
			return 0, ErrCorrupt
		}
		m = m<<3 | uint32(c-'0')
	}
	return m, nil
}
