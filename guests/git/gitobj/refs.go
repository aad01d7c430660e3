package gitobj

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Ref is a ref and the object it names (for an annotated tag, the tag
// object; Peeled is then the commit it points to, when known).
type Ref struct {
	Name   string
	ID     ID
	Peeled ID
}

// Limits on refs.
const (
	maxRefs          = 100_000
	maxRefFileBytes  = 4096
	maxSymrefDepth   = 5
	maxPackedRefSize = 16 << 20
)

// Head returns what HEAD points at: the branch it names ("" when
// detached) and the commit. On an unborn branch (no commit yet) the
// branch is still returned, with an error wrapping ErrNotFound.
func (r *Repo) Head() (branch string, id ID, err error) {
	r.gen++
	if b, err := r.readRefFile("HEAD"); err == nil {
		s := strings.TrimSpace(string(b))
		if target, ok := strings.CutPrefix(s, "ref: "); ok && validRefName(target) {
			// HEAD is read once: the branch and what it names come from
			// the same read.
			_, id, err = r.resolveSym(target, 1)
			return target, id, err
		}
		if id, ok := ParseID(s); ok {
			return "", id, nil // detached
		}
	}
	// Missing or malformed: resolveSym says which.
	_, id, err = r.resolveSym("HEAD", 0)
	return branch, id, err
}

// resolveSym follows symbolic refs from name to an object id and returns
// the last name followed.
func (r *Repo) resolveSym(name string, depth int) (string, ID, error) {
	if depth > maxSymrefDepth {
		return "", ID{}, fmt.Errorf("ref %s: %w: symbolic refs nest deeper than %d (a loop?)", name, ErrLimit, maxSymrefDepth)
	}
	b, err := r.readRefFile(name)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if target, ok := strings.CutPrefix(s, "ref: "); ok {
			if !validRefName(target) {
				return "", ID{}, fmt.Errorf("ref %s: %w: points to %q, not a ref name", name, ErrCorrupt, target)
			}
			return r.resolveSym(target, depth+1)
		}
		id, ok := ParseID(s)
		if !ok {
			return "", ID{}, fmt.Errorf("ref %s: %w: neither an object name nor \"ref: \"", name, ErrCorrupt)
		}
		return name, id, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", ID{}, err
	}
	packed, err := r.packedRefs()
	if err != nil {
		return "", ID{}, err
	}
	if ref, ok := packed[name]; ok {
		return name, ref.ID, nil
	}
	return "", ID{}, fmt.Errorf("ref %s: %w", name, ErrNotFound)
}

// readRefFile reads a loose ref: HEAD and per-worktree refs from the git
// directory, the rest from the common one.
func (r *Repo) readRefFile(name string) ([]byte, error) {
	dir := r.common
	if name == "HEAD" || strings.HasPrefix(name, "refs/bisect/") || strings.HasPrefix(name, "refs/worktree/") {
		dir = r.gitDir
	}
	// No Stat: in wasm each file operation is a host call that costs tens
	// of microseconds. A directory (refs/heads when asked for "refs/heads")
	// fails the read and is no ref.
	buf := r.refBuf[:]
	if sf, ok := r.fsys.(SmallFileFS); ok {
		n, err := sf.ReadSmallFile(path.Join(dir, name), buf)
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Op == "read" {
			return nil, fs.ErrNotExist // as below: a directory is no ref
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
	f, err := r.fsys.Open(path.Join(dir, name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := f.Read(buf)
	if err != nil && n == 0 {
		return nil, fs.ErrNotExist
	}
	return buf[:n], nil
}

// SmallFileFS is an fs.FS that can read the start of a small file into a
// buffer in one go. Refs are read on every lookup (they are what moves),
// and in wasm an *os.File costs six host calls to open, read and close
// one (path_open; fd_fdstat_get and fd_fdstat_set_flags for its
// non-blocking mode; fd_read; fd_close); ReadSmallFile needs three.
// ReadSmallFile fills at most len(buf) bytes and returns how many. It
// fails as fs.FS's Open does when the file cannot be opened (a missing
// one wrapping fs.ErrNotExist), and with a *fs.PathError whose Op is
// "read" when it opens but cannot be read (a directory).
type SmallFileFS interface {
	fs.FS
	ReadSmallFile(name string, buf []byte) (int, error)
}

// packedState is what packed-refs was parsed from: git rewrites the file
// (a new inode, size and time) whenever it changes it.
type packedState struct {
	size  int64
	mtime int64
	refs  map[string]Ref
	gen   int // the lookup (Resolve, Refs, Head) it was last checked in
}

// packedRefs parses packed-refs, with peeled lines; the parse is kept
// while the file's size and modification time stay the same.
func (r *Repo) packedRefs() (map[string]Ref, error) {
	if r.packed.refs != nil && r.packed.gen == r.gen {
		return r.packed.refs, nil // checked already in this lookup
	}
	p := path.Join(r.common, "packed-refs")
	st, err := fs.Stat(r.fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		r.packed = packedState{}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stat packed-refs: %w", err)
	}
	if r.packed.refs != nil && r.packed.size == st.Size() && r.packed.mtime == st.ModTime().UnixNano() {
		r.packed.gen = r.gen
		return r.packed.refs, nil
	}
	if st.Size() > maxPackedRefSize {
		return nil, fmt.Errorf("packed-refs: %w: %d bytes, over %d", ErrLimit, st.Size(), maxPackedRefSize)
	}
	refs, err := r.parsePackedRefs(p)
	if err != nil {
		return nil, err
	}
	r.packed = packedState{size: st.Size(), mtime: st.ModTime().UnixNano(), refs: refs, gen: r.gen}
	return refs, nil
}

func (r *Repo) parsePackedRefs(p string) (map[string]Ref, error) {
	f, err := r.fsys.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open packed-refs: %w", err)
	}
	defer f.Close()
	refs := map[string]Ref{}
	var last string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 4096)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if line[0] == '^' {
			id, ok := ParseID(string(line[1:]))
			if ref, had := refs[last]; ok && had {
				ref.Peeled = id
				refs[last] = ref
			}
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp != 40 {
			return nil, fmt.Errorf("packed-refs: %w: bad line", ErrCorrupt)
		}
		id, ok := ParseID(string(line[:40]))
		name := string(line[41:])
		if !ok || !validRefName(name) {
			return nil, fmt.Errorf("packed-refs: %w: bad line", ErrCorrupt)
		}
		if len(refs) >= maxRefs {
			return nil, fmt.Errorf("packed-refs: %w: more than %d refs", ErrLimit, maxRefs)
		}
		refs[name] = Ref{Name: name, ID: id}
		last = name
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("packed-refs: %w: %v", ErrCorrupt, err)
	}
	return refs, nil
}

// Refs returns every ref under refs/, sorted by name: loose refs override
// packed ones; symbolic refs (refs/remotes/origin/HEAD) are resolved.
// Refs that do not resolve are left out.
func (r *Repo) Refs() ([]Ref, error) {
	r.gen++
	packed, err := r.packedRefs()
	if err != nil {
		return nil, err
	}
	all := map[string]Ref{}
	for k, v := range packed {
		all[k] = v
	}
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		ents, err := fs.ReadDir(r.fsys, path.Join(r.common, dir))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("list %s: %w", dir, err)
		}
		for _, e := range ents {
			name := dir + "/" + e.Name()
			if e.IsDir() {
				if depth < 16 {
					if err := walk(name, depth+1); err != nil {
						return err
					}
				}
				continue
			}
			if !e.Type().IsRegular() || !validRefName(name) {
				continue
			}
			if len(all) >= maxRefs {
				return fmt.Errorf("refs: %w: more than %d refs", ErrLimit, maxRefs)
			}
			_, id, err := r.resolveSym(name, 0)
			if err != nil {
				delete(all, name)
				continue
			}
			all[name] = Ref{Name: name, ID: id}
		}
		return nil
	}
	if err := walk("refs", 0); err != nil {
		return nil, err
	}
	out := make([]Ref, 0, len(all))
	for _, v := range all {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Resolve turns what a user names (HEAD, a branch, a tag, a full ref, 40
// hex digits) into a commit, peeling annotated tags, in git's order:
// NAME, refs/NAME, refs/tags/NAME, refs/heads/NAME, refs/remotes/NAME,
// refs/remotes/NAME/HEAD.
func (r *Repo) Resolve(name string) (ID, error) {
	r.gen++ // one look at packed-refs per lookup, however many names it tries
	if id, ok := ParseID(name); ok {
		return r.peel(id)
	}
	if !validRefName(name) && name != "HEAD" {
		return ID{}, fmt.Errorf("ref %q: %w", name, ErrNotFound)
	}
	for _, full := range []string{name, "refs/" + name, "refs/tags/" + name, "refs/heads/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"} {
		if full != "HEAD" && !strings.HasPrefix(full, "refs/") {
			continue
		}
		_, id, err := r.resolveSym(full, 0)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return ID{}, err
		}
		return r.peel(id)
	}
	return ID{}, fmt.Errorf("ref %q: %w", name, ErrNotFound)
}

// peel follows tag objects to the commit (or other object) they tag.
func (r *Repo) peel(id ID) (ID, error) {
	for range maxSymrefDepth + 1 {
		obj, err := r.Read(id)
		if err != nil {
			return ID{}, err
		}
		if obj.Type != TypeTag {
			return id, nil
		}
		target, ok := ParseID(string(headerValue(obj.Data, "object")))
		if !ok {
			return ID{}, fmt.Errorf("tag %s: %w: no object line", id, ErrCorrupt)
		}
		id = target
	}
	return ID{}, fmt.Errorf("tag %s: %w: tags of tags nest deeper than %d", id, ErrLimit, maxSymrefDepth)
}

// validRefName is a conservative form of git check-ref-format.
func validRefName(s string) bool {
	if s == "" || len(s) > 1024 || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") ||
		strings.HasSuffix(s, ".lock") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") ||
		strings.Contains(s, "//") || strings.Contains(s, "@{") || strings.Contains(s, "/.") || strings.HasPrefix(s, ".") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c == ' ' || c == '~' || c == '^' || c == ':' || c == '?' || c == '*' || c == '[' || c == '\\' {
			return false
		}
	}
	return true
}

// Shallow returns the commits .git/shallow names: history stops there.
func (r *Repo) Shallow() map[ID]bool {
	b, err := fs.ReadFile(r.fsys, path.Join(r.common, "shallow"))
	if err != nil || len(b) > 8<<20 {
		return nil
	}
	m := map[ID]bool{}
	for _, line := range strings.Fields(string(b)) {
		if id, ok := ParseID(line); ok {
			m[id] = true
		}
	}
	return m
}
