package oci

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/internal/hostfile"
)

// Store is a content-addressed directory of blobs (modules, manifests,
// Sigstore bundles), named by their SHA-256, plus two small indexes: the
// manifest a tag pointed to at its last pull (for working offline) and the
// bundles found attached to each manifest.
//
//	DIR/blobs/sha256/HEX       a blob, 0600
//	DIR/tags/HEX               "DIGEST\nREF\n" for the ref whose SHA-256 is HEX
//	DIR/referrers/HEX          bundle digests attached to manifest HEX, one a line
//
// Every write goes to a temporary file in the same directory, is verified,
// then renamed into place, so a reader never sees a partial blob and two
// processes writing the same blob both succeed. Every read verifies the
// digest again. Two providers naming the same digest read the same file.
type Store struct {
	dir string
}

// OpenStore opens (creating, mode 0700) the store at dir. It refuses a
// directory that group or others can access: what is in it is about to run.
func OpenStore(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("module store %q: %w", dir, err)
	}
	for _, sub := range []string{"", "blobs/sha256", "tags", "referrers"} {
		if err := os.MkdirAll(filepath.Join(abs, sub), 0o700); err != nil {
			return nil, fmt.Errorf("create module store %s: %w: choose another --cache-dir", abs, err)
		}
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, fmt.Errorf("module store %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("module store %s is not a directory (a symlink?): choose a real directory with --cache-dir", abs)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("module store %s has mode %o; modules in it are about to run: run chmod 700 %s or choose another --cache-dir", abs, fi.Mode().Perm(), abs)
	}
	return &Store{dir: abs}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) blobPath(d string) string {
	return filepath.Join(s.dir, "blobs", "sha256", DigestHex(d))
}

// Has reports whether a blob named d is stored (not whether it is intact:
// Read checks that).
func (s *Store) Has(d string) bool {
	fi, err := os.Stat(s.blobPath(d))
	return err == nil && fi.Mode().IsRegular()
}

// Read returns the blob named d, at most limit bytes, after checking that
// it hashes to d. A blob that does not is removed (so that the next pull
// fetches it again) and reported with ErrDigest. A missing blob is
// fs.ErrNotExist.
func (s *Store) Read(d string, limit int64) ([]byte, error) {
	if _, err := ParseDigest(d); err != nil {
		return nil, err
	}
	f, err := hostfile.Open(s.blobPath(d))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read stored %s: %w", d, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: stored %s is over %d bytes: raise the limit if you trust it", ErrTooLarge, d, limit)
	}
	if got := Digest(b); got != d {
		_ = os.Remove(s.blobPath(d))
		return nil, fmt.Errorf("%w: stored blob %s hashes to %s (changed on disk?): removed it; pull the module again", ErrDigest, d, got)
	}
	return b, nil
}

// Module returns the module m's layer holds, at most maxWasm bytes: the
// stored layer, checked against its digest, unpacked when it is a tar.
func (s *Store) Module(m *Module, maxWasm int64) ([]byte, error) {
	b, err := s.Read(m.Layer.Digest, layerLimit(m.Packing, maxWasm))
	if err != nil {
		return nil, err
	}
	return ExtractModule(b, m.Packing, maxWasm)
}

// Write stores what r yields as the blob named d: exactly size bytes. It
// fails without leaving anything behind if r yields more or fewer, or
// bytes that hash to something else.
func (s *Store) Write(d string, size int64, r io.Reader) error {
	if _, err := ParseDigest(d); err != nil {
		return err
	}
	if s.Has(d) {
		// Already here (another provider, another process): the copy is
		// checked on read, and a corrupt one is removed there.
		_, err := io.Copy(io.Discard, io.LimitReader(r, size+1))
		return err
	}
	h := sha256.New()
	return s.writeAtomic(s.blobPath(d), func(w io.Writer) error {
		n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(r, size+1))
		switch {
		case err != nil:
			return err
		case n > size:
			return fmt.Errorf("%w: got more than the %d bytes declared for %s", ErrTooLarge, size, d)
		case n < size:
			return fmt.Errorf("got %d of the %d bytes declared for %s: the transfer was cut short", n, size, d)
		}
		return checkHash(h, d)
	})
}

func checkHash(h hash.Hash, want string) error {
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%w: the bytes hash to %s, not %s", ErrDigest, got, want)
	}
	return nil
}

// WriteBytes stores b under its own digest and returns the digest.
func (s *Store) WriteBytes(b []byte) (string, error) {
	d := Digest(b)
	return d, s.Write(d, int64(len(b)), bytes.NewReader(b))
}

// writeAtomic writes path through fill into a temporary file beside it,
// syncs it and renames it into place; on any error the temporary file is
// removed.
func (s *Store) writeAtomic(path string, fill func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("write to the module store: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write to the module store: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write to the module store: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write to the module store: %w", err)
	}
	return nil
}

func (s *Store) tagPath(r Ref) string {
	sum := sha256.Sum256([]byte(r.Host + "/" + r.Repository + ":" + r.Tag))
	return filepath.Join(s.dir, "tags", hex.EncodeToString(sum[:]))
}

// SetTag records that the tag of r named manifest d at its last pull.
func (s *Store) SetTag(r Ref, d string) error {
	if r.Tag == "" {
		return nil
	}
	line := d + "\n" + r.Pinned("").String() + "\n"
	return s.writeAtomic(s.tagPath(r), func(w io.Writer) error { _, err := io.WriteString(w, line); return err })
}

// Tag returns the manifest digest the tag of r named at its last pull, or
// fs.ErrNotExist.
func (s *Store) Tag(r Ref) (string, error) {
	b, err := hostfile.ReadFile(s.tagPath(r), 64<<10) // a digest and a reference
	if err != nil {
		return "", err
	}
	d, ref, _ := strings.Cut(strings.TrimSuffix(string(b), "\n"), "\n")
	if ref != r.Pinned("").String() {
		return "", fs.ErrNotExist
	}
	return ParseDigest(d)
}

func (s *Store) referrersPath(manifest string) string {
	return filepath.Join(s.dir, "referrers", DigestHex(manifest))
}

// AddReferrers records bundle blobs as attached to manifest.
func (s *Store) AddReferrers(manifest string, bundles []string) error {
	if len(bundles) == 0 {
		return nil
	}
	all := append(s.Referrers(manifest), bundles...)
	slices.Sort(all)
	all = slices.Compact(all)
	return s.writeAtomic(s.referrersPath(manifest), func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Join(all, "\n")+"\n")
		return err
	})
}

// Referrers returns the bundle digests recorded for manifest.
func (s *Store) Referrers(manifest string) []string {
	f, err := hostfile.Open(s.referrersPath(manifest))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		if d, err := ParseDigest(sc.Text()); err == nil {
			out = append(out, d)
		}
	}
	return out
}

// IsNotExist reports whether err says a blob or tag is not stored.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
