package compile

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
)

// A baked cache is a cache directory filled at image build time (`mcp-wasm
// compile`: loading every provider once) and then used read-only, often
// from a read-only file system. Seal writes its manifest: the SHA-256 of
// every entry of wazero's code, the compiled-module marks and the rewrite
// cache. A runtime given it read-only never writes to it: it makes a
// private temporary directory, links there each entry whose digest matches
// the manifest, and points wazero, the marks and the rewrite cache at that
// directory, so that a module the image does not hold still compiles, in a
// worker under the usual limits, into the temporary directory. An entry
// that is missing, changed, or not a regular file is left out (and that
// module compiled again); nothing outside the entries the manifest names
// is read. wazero also checks each code entry's own checksum on use.

// bakedManifest is the manifest's name in the cache directory: lines of
// "<sha256 hex>  <dir>/<file>".
const bakedManifest = "mcp-wasm-baked-v1"

// bakedEntry says whether rel (slash-separated, relative to the cache
// directory) is an entry a manifest may name: a file one level down, in a
// directory of wazero's or of this runtime's, never a temporary file.
func bakedEntry(rel string) bool {
	d, f, ok := strings.Cut(rel, "/")
	return ok && f != "" && !strings.ContainsAny(f, `/\`) && f != "." && f != ".." &&
		(strings.HasPrefix(d, "wazero-") || strings.HasPrefix(d, "mcp-wasm-")) &&
		!strings.Contains(f, ".tmp")
}

// Seal writes the manifest of the cache directory dir, so that a runtime
// can use the directory read-only (runtime.Runtime.Seal checks that dir is
// the configured, writable one).
func Seal(dir string) error {
	var lines []string
	dirs, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("seal cache dir: %w", err)
	}
	for _, d := range dirs {
		files, _ := os.ReadDir(filepath.Join(dir, d.Name()))
		for _, f := range files {
			rel := d.Name() + "/" + f.Name()
			if !d.IsDir() || !f.Type().IsRegular() || !bakedEntry(rel) {
				continue
			}
			sum, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				return fmt.Errorf("seal cache dir: %w", err)
			}
			lines = append(lines, sum+"  "+rel+"\n")
		}
	}
	slices.Sort(lines)
	tmp, err := os.CreateTemp(dir, bakedManifest+".*")
	if err != nil {
		return fmt.Errorf("seal cache dir: %w", err)
	}
	_, err = io.WriteString(tmp, strings.Join(lines, ""))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, bakedManifest))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("seal cache dir: %w", err)
	}
	return nil
}

// Writable says whether a file can be made in dir; the probe is removed.
func Writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".mcp-wasm-probe-*")
	if err != nil {
		return false
	}
	_ = f.Close()
	_ = os.Remove(f.Name())
	return true
}

// Overlay makes the temporary directory that stands for the baked cache
// directory baked, with links to its verified entries, and returns it; the
// caller removes it when done.
func Overlay(baked string, log *slog.Logger) (string, error) {
	tmp, err := os.MkdirTemp("", "mcp-wasm-compile-*") // mode 0700
	if err != nil {
		return "", fmt.Errorf("%w: read-only cache dir %s: create a temporary directory for modules it does not hold: %w: set TMPDIR to a writable directory (a tmpfs will do)", errs.ErrConfig, baked, err)
	}
	used, skipped, err := linkVerified(baked, tmp)
	if err != nil {
		_ = os.RemoveAll(tmp)
		return "", err
	}
	attrs := []any{"dir", baked, "entries", used}
	if skipped > 0 {
		log.Warn("read-only cache dir: entries missing or changed since mcp-wasm compile are not used; their modules compile at start", append(attrs, "skipped", skipped)...)
	} else {
		log.Info("read-only cache dir", attrs...)
	}
	return tmp, nil
}

// linkVerified links into tmp each entry of baked's manifest whose
// content matches its digest. A directory without a manifest gives none.
func linkVerified(baked, tmp string) (used, skipped int, err error) {
	f, err := os.Open(filepath.Join(baked, bakedManifest))
	if os.IsNotExist(err) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%w: read-only cache dir: %w", errs.ErrConfig, err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		sum, rel, ok := strings.Cut(s.Text(), "  ")
		if !ok || !bakedEntry(rel) || len(sum) != 2*sha256.Size {
			skipped++
			continue
		}
		src := filepath.Join(baked, filepath.FromSlash(rel))
		if fi, err := os.Lstat(src); err != nil || !fi.Mode().IsRegular() {
			skipped++
			continue
		}
		if got, err := fileSHA256(src); err != nil || got != sum {
			skipped++
			continue
		}
		dst := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return used, skipped, fmt.Errorf("%w: read-only cache dir: %w", errs.ErrConfig, err)
		}
		if err := os.Symlink(src, dst); err != nil {
			return used, skipped, fmt.Errorf("%w: read-only cache dir: %w", errs.ErrConfig, err)
		}
		used++
	}
	if err := s.Err(); err != nil {
		return used, skipped, fmt.Errorf("%w: read-only cache dir: manifest %s: %w", errs.ErrConfig, bakedManifest, err)
	}
	return used, skipped, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
