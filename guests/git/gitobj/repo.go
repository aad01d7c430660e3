// Package gitobj reads a git repository's object store and refs, read-only,
// with the standard library only: loose objects, packfiles (OFS and REF
// deltas) through version 2 pack indexes, loose and packed refs, symbolic
// refs, shallow clones and linked worktrees whose git directory is inside
// the same directory tree.
//
// It executes nothing, never writes, and treats every byte of the
// repository as hostile: every object is inflated against the size its
// header declares and a maximum (Limits.MaxObjectBytes), delta chains are
// capped (Limits.MaxDeltaDepth) and may not loop, trees are capped in
// entries (Limits.MaxTreeEntries) and walks in depth, and cycles of trees
// or commits end in an error, never a hang. A limit that trips returns an
// error wrapping ErrLimit that says which limit and how to raise it.
package gitobj

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// Errors callers can test with errors.Is.
var (
	// ErrNotFound: no such object, ref or path.
	ErrNotFound = errors.New("not found")
	// ErrLimit: a bound on the work one request may cost was reached.
	ErrLimit = errors.New("limit reached")
	// ErrCorrupt: the repository's bytes are not what git writes.
	ErrCorrupt = errors.New("corrupt repository")
	// ErrNotRepo: the directory holds no repository this package reads.
	ErrNotRepo = errors.New("not a git repository")
)

// Limits bound what one request may cost. The zero value of a field means
// its default.
type Limits struct {
	// MaxObjectBytes caps an object's inflated size (default 16 MiB).
	MaxObjectBytes int64
	// MaxDeltaDepth caps a delta chain (default 50, git's own default
	// --depth for repack).
	MaxDeltaDepth int
	// MaxTreeEntries caps the entries of one tree and of one recursive
	// walk (default 250,000: a listing of that many paths fits a 64 MiB
	// guest; the Linux kernel has about 90,000 files).
	MaxTreeEntries int
	// MaxIndexBytes caps the pack indexes held in memory, all packs
	// together (default 32 MiB: about 1.1 million objects).
	MaxIndexBytes int64
}

// Defaults of Limits.
const (
	DefaultMaxObjectBytes = 16 << 20
	DefaultMaxDeltaDepth  = 50
	DefaultMaxTreeEntries = 250_000
	DefaultMaxIndexBytes  = 32 << 20
	// maxTreeDepth caps the nesting of trees a walk follows.
	maxTreeDepth = 256
)

func (l Limits) withDefaults() Limits {
	if l.MaxObjectBytes <= 0 {
		l.MaxObjectBytes = DefaultMaxObjectBytes
	}
	if l.MaxDeltaDepth <= 0 {
		l.MaxDeltaDepth = DefaultMaxDeltaDepth
	}
	if l.MaxTreeEntries <= 0 {
		l.MaxTreeEntries = DefaultMaxTreeEntries
	}
	if l.MaxIndexBytes <= 0 {
		l.MaxIndexBytes = DefaultMaxIndexBytes
	}
	return l
}

// Repo is an open repository. It is not safe for concurrent use (a guest
// instance runs one call at a time).
type Repo struct {
	fsys    fs.FS
	gitDir  string // slash path in fsys of the git directory (HEAD, per-worktree refs)
	common  string // slash path in fsys of the common directory (objects, refs, packed-refs)
	limits  Limits
	packs   []*pack
	scanned bool
	cache   *objCache
	trees   treeCache
	packed  packedState
	gen     int // counts lookups of refs: packed-refs is checked once in each
	commits map[ID]*Commit
	br      *bufio.Reader         // reused by every read (a Repo runs one at a time)
	zr      io.ReadCloser         // a zlib reader, reused through zlib.Resetter
	refBuf  [maxRefFileBytes]byte // readRefFile's buffer: callers copy what they keep
}

// Open opens the repository in fsys at dir ("." for the root): a working
// tree with a .git directory, a working tree whose .git file points to a
// git directory inside fsys (a linked worktree or a submodule), or a bare
// repository. fsRoot is the absolute path fsys is mounted at, used to
// resolve an absolute gitdir: line; a git directory outside fsys is refused.
func Open(fsys fs.FS, fsRoot, dir string, limits Limits) (*Repo, error) {
	r := &Repo{fsys: fsys, limits: limits.withDefaults()}
	r.cache = newObjCache(objectCacheBytes)
	gitDir, err := findGitDir(fsys, fsRoot, dir)
	if err != nil {
		return nil, err
	}
	r.gitDir, r.common = gitDir, gitDir
	if b, err := fs.ReadFile(fsys, path.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		common, ok := inside(fsRoot, gitDir, c)
		if !ok {
			return nil, fmt.Errorf("%w: the worktree's common git directory %q is outside the granted directory: grant the main repository's directory instead", ErrNotRepo, c)
		}
		r.common = common
	}
	if b, err := fs.ReadFile(fsys, path.Join(r.common, "config")); err == nil && len(b) < 1<<20 &&
		strings.Contains(strings.ReplaceAll(strings.ToLower(string(b)), " ", ""), "objectformat=sha256") {
		return nil, fmt.Errorf("%w: this repository uses SHA-256 object names (extensions.objectFormat), which this reader does not read yet: serve a SHA-1 clone of it", ErrNotRepo)
	}
	if _, err := fs.Stat(fsys, path.Join(r.common, "objects")); err != nil {
		return nil, fmt.Errorf("%w: %s has no objects directory: grant a repository's working tree or git directory", ErrNotRepo, displayDir(fsRoot, r.common))
	}
	return r, nil
}

// findGitDir locates the git directory for dir.
func findGitDir(fsys fs.FS, fsRoot, dir string) (string, error) {
	dotgit := path.Join(dir, ".git")
	st, err := fs.Stat(fsys, dotgit)
	switch {
	case err == nil && st.IsDir():
		return dotgit, nil
	case err == nil && st.Mode().IsRegular():
		b, err := fs.ReadFile(fsys, dotgit)
		if err != nil {
			return "", fmt.Errorf("read .git file: %w", err)
		}
		line := strings.TrimSpace(string(b))
		target, ok := strings.CutPrefix(line, "gitdir: ")
		if !ok || len(b) > 4096 {
			return "", fmt.Errorf("%w: the .git file does not start with \"gitdir: \": it is not a worktree's link", ErrNotRepo)
		}
		gd, ok := inside(fsRoot, dir, target)
		if !ok {
			return "", fmt.Errorf("%w: this is a linked worktree (or submodule) whose git directory %q is outside the granted directory: grant the directory that holds it (the main repository) and serve that", ErrNotRepo, target)
		}
		if _, err := fs.Stat(fsys, path.Join(gd, "HEAD")); err != nil {
			return "", fmt.Errorf("%w: the .git file points to %q, which has no HEAD", ErrNotRepo, target)
		}
		return gd, nil
	}
	if _, err := fs.Stat(fsys, path.Join(dir, "HEAD")); err == nil {
		if _, err := fs.Stat(fsys, path.Join(dir, "objects")); err == nil {
			return dir, nil // bare
		}
	}
	return "", fmt.Errorf("%w: %s has neither a .git directory nor HEAD and objects: grant a repository's working tree or git directory", ErrNotRepo, displayDir(fsRoot, dir))
}

// inside resolves target (absolute, or relative to dir) to a clean slash
// path in fsys mounted at fsRoot, and says whether it stays inside.
func inside(fsRoot, dir, target string) (string, bool) {
	target = strings.ReplaceAll(target, "\\", "/")
	var p string
	if strings.HasPrefix(target, "/") {
		root := strings.TrimSuffix(fsRoot, "/")
		rel, ok := strings.CutPrefix(path.Clean(target), root+"/")
		if !ok {
			return "", false
		}
		p = rel
	} else {
		p = path.Join(dir, target)
	}
	p = path.Clean(p)
	if p == ".." || strings.HasPrefix(p, "../") || !fs.ValidPath(p) {
		return "", false
	}
	return p, true
}

func displayDir(root, dir string) string {
	if dir == "." {
		return root
	}
	return strings.TrimSuffix(root, "/") + "/" + dir
}
