package gitobj

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
)

// ID is a SHA-1 object name.
type ID [20]byte

// String is the 40-digit hex name.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// ParseID parses 40 hex digits (lower or upper case).
func ParseID(s string) (ID, bool) {
	var id ID
	if len(s) != 40 {
		return id, false
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, false
	}
	return id, true
}

// Type is an object's type, numbered as in packfiles.
type Type int

// Object types.
const (
	TypeCommit Type = 1
	TypeTree   Type = 2
	TypeBlob   Type = 3
	TypeTag    Type = 4
	typeOfs    Type = 6
	typeRef    Type = 7
)

func (t Type) String() string {
	switch t {
	case TypeCommit:
		return "commit"
	case TypeTree:
		return "tree"
	case TypeBlob:
		return "blob"
	case TypeTag:
		return "tag"
	}
	return "type" + strconv.Itoa(int(t))
}

func parseType(s string) (Type, bool) {
	switch s {
	case "commit":
		return TypeCommit, true
	case "tree":
		return TypeTree, true
	case "blob":
		return TypeBlob, true
	case "tag":
		return TypeTag, true
	}
	return 0, false
}

// Object is a read object: its type and content.
type Object struct {
	Type Type
	Data []byte
}

// Read returns the object named id, from a pack or loose. The Object may
// be shared with later calls: do not modify it.
func (r *Repo) Read(id ID) (*Object, error) {
	if obj := r.cache.get(cacheKey{id: id}); obj != nil {
		return obj, nil
	}
	obj, err := r.read(id, 0)
	if err == nil {
		r.cache.put(cacheKey{id: id}, obj)
	}
	return obj, err
}

// read finds id; depth counts the delta chain it is part of.
func (r *Repo) read(id ID, depth int) (*Object, error) {
	if depth > r.limits.MaxDeltaDepth {
		return nil, fmt.Errorf("read %s: %w: delta chain deeper than %d (a loop, or a pack made with a larger --depth: raise max_delta_depth)", id, ErrLimit, r.limits.MaxDeltaDepth)
	}
	for attempt := 0; attempt < 2; attempt++ {
		if err := r.scanPacks(attempt > 0); err != nil {
			return nil, err
		}
		for _, p := range r.packs {
			if off, ok := p.find(id); ok {
				return r.readPacked(p, off, depth)
			}
		}
		obj, err := r.readLoose(id)
		if !errors.Is(err, ErrNotFound) {
			return obj, err
		}
		// A repack may have moved the object into a pack made since.
	}
	return nil, fmt.Errorf("object %s: %w%s", id, ErrNotFound, r.shallowNote())
}

// shallowNote explains a missing object in a shallow clone, or in a
// repository that borrows objects from another.
func (r *Repo) shallowNote() string {
	if len(r.Shallow()) > 0 {
		return " (this is a shallow clone: history beyond its shallow commits was never fetched)"
	}
	if _, err := fs.Stat(r.fsys, path.Join(r.common, "objects", "info", "alternates")); err == nil {
		return " (the repository borrows objects from another through objects/info/alternates, which is not read: run `git repack -a -d` in it to copy them in)"
	}
	return ""
}

// readLoose reads objects/xx/yyyy...
func (r *Repo) readLoose(id ID) (*Object, error) {
	hexID := id.String()
	f, err := r.fsys.Open(path.Join(r.common, "objects", hexID[:2], hexID[2:]))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("open loose object %s: %w", hexID, err)
	}
	defer f.Close()
	br := r.bufReader(f)
	if err := r.startInflate(br); err != nil {
		return nil, fmt.Errorf("loose object %s: %w", hexID, err)
	}
	// The header is "type size\0": at most 6+1+20+1 bytes that matter.
	var buf [32]byte
	n, _ := io.ReadFull(r.zr, buf[:])
	hdr := buf[:n]
	nul := bytes.IndexByte(hdr, 0)
	if nul < 0 {
		return nil, fmt.Errorf("loose object %s: %w: no header", hexID, ErrCorrupt)
	}
	sp := bytes.IndexByte(hdr[:nul], ' ')
	if sp < 0 {
		return nil, fmt.Errorf("loose object %s: %w: bad header", hexID, ErrCorrupt)
	}
	typ, ok := parseType(string(hdr[:sp]))
	size, err := strconv.ParseInt(string(hdr[sp+1:nul]), 10, 64)
	if !ok || err != nil || size < 0 {
		return nil, fmt.Errorf("loose object %s: %w: bad header", hexID, ErrCorrupt)
	}
	if size > r.limits.MaxObjectBytes {
		return nil, r.tooBig(id, size)
	}
	data := make([]byte, 0, size)
	data = append(data, hdr[nul+1:]...)
	data, err = readAllBounded(r.zr, data, size)
	if err != nil {
		return nil, fmt.Errorf("loose object %s: %w", hexID, err)
	}
	return &Object{Type: typ, Data: data}, nil
}

func (r *Repo) tooBig(id ID, size int64) error {
	return fmt.Errorf("object %s: %w: %d bytes, over max_object_bytes (%d): raise max_object_bytes (and the memory limit) to read it", id, ErrLimit, size, r.limits.MaxObjectBytes)
}

// readAllBounded reads the rest of rd into data, which must end up exactly
// size bytes long: more is a zip bomb or a lie, less is truncation.
func readAllBounded(rd io.Reader, data []byte, size int64) ([]byte, error) {
	if int64(len(data)) > size {
		return nil, fmt.Errorf("%w: more bytes than the header's %d", ErrCorrupt, size)
	}
	for int64(len(data)) < size {
		n, err := rd.Read(data[len(data):size])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: inflate: %v", ErrCorrupt, err)
		}
	}
	if int64(len(data)) != size {
		return nil, fmt.Errorf("%w: %d bytes, the header says %d", ErrCorrupt, len(data), size)
	}
	var one [1]byte
	if n, _ := rd.Read(one[:]); n > 0 {
		return nil, fmt.Errorf("%w: more bytes than the header's %d", ErrCorrupt, size)
	}
	return data, nil
}
