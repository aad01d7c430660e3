package rootfs

import (
	"io/fs"
	"os"
	"path/filepath"
)

// What the read cache needs of a lookup. While a read runs, the host
// records every name the guest looked up or opened under its granted
// directories (rootFS.record), with what it found (absent, or inode, size,
// modification and change times); the cache re-checks each one, with the
// same lookup, before it serves the read again.

// maxTracked bounds the lookups recorded for one read; a read that makes
// more is not cached.
const maxTracked = 256

// Stamp is what one lookup under a granted directory found.
type Stamp struct {
	dir        grantDir
	root       string // the directory's host path, shared by its stamps
	name       string // the name in dir; root and name make the host path
	follow     bool   // looked up following a final symlink (stat, open)
	exists     bool
	ino        uint64
	size       int64
	mtim, ctim int64
}

// Track records the lookups of one instance's current call.
type Track struct {
	Stamps   []Stamp
	Overflow bool
}

// Reset starts a call; the last call's names are let go (clear), so that
// an idle instance does not hold them.
func (t *Track) Reset() {
	clear(t.Stamps)
	t.Stamps, t.Overflow = t.Stamps[:0], false
}

func (t *Track) add(s Stamp) {
	if t == nil {
		return
	}
	if n := len(t.Stamps); n > 0 && t.Stamps[n-1] == s {
		return // the same lookup, finding the same, again (stat, then open)
	}
	if len(t.Stamps) >= maxTracked {
		t.Overflow = true
		return
	}
	t.Stamps = append(t.Stamps, s)
}

// Current reports whether a lookup of s now finds the same thing.
func (s *Stamp) Current() bool {
	fi, err := s.dir.lookup(s.name, s.follow) // as the guest's lookup resolved it
	if err != nil {
		return !s.exists && os.IsNotExist(err)
	}
	var now Stamp
	now.setInfo(fi)
	return s.exists && now.ino == s.ino && now.size == s.size && now.mtim == s.mtim && now.ctim == s.ctim
}

// setInfo fills the stamp from what a lookup found.
func (s *Stamp) setInfo(fi fs.FileInfo) {
	s.exists, s.size, s.mtim = true, fi.Size(), fi.ModTime().UnixNano()
	s.ino, s.ctim = inodeAndCtime(fi)
}

// HostPath is the host path of what the lookup looked up.
func (s *Stamp) HostPath() string { return filepath.Join(s.root, filepath.FromSlash(s.name)) }

// Name is the name looked up, relative to the granted directory.
func (s *Stamp) Name() string { return s.name }
