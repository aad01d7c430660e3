package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/urfave/cli/v2"
)

// The keys that sign list cursors. A cursor is signed by the process that
// made it and checked by the one that gets it back: with a key drawn per
// process, a process-per-request gateway (supergateway's stateless mode)
// or a restart refuses every page after the first. So, by default, a
// machine's processes share a key kept in a private file under the cache
// directory, made by whichever process needs it first; replicas on other
// machines share a fleet key given with --keys-file.
const (
	keysDirName    = "keys"
	cursorKeyName  = "cursor.key"
	maxKeyFileSize = 64 << 10
	minKeyBytes    = 16
)

func keysFileFlag() cli.Flag {
	return &cli.StringFlag{Name: "keys-file", EnvVars: []string{"MCP_WASM_KEYS_FILE"},
		Usage: "private (0600) `FILE` of the secrets that sign list cursors (and, with --bus, seal session ids), one a line (16+ bytes; the first signs, later ones " +
			"are still accepted: a rotation); give replicas behind a load balancer the same file (default: DIR/keys/cursor.key " +
			"under --cache-dir, made on first use and shared by the machine's processes; without a cache dir, or with a read-only one, random per process)"}
}

// cursorKeys returns the key that signs list cursors and the previous
// keys still accepted: --cursor-key-env's secret, else --keys-file's keys,
// else the machine's key file under --cache-dir (made on first use), else
// none (nil: the server draws one per process), as with --cache-readonly or
// a cache dir that cannot be written.
func cursorKeys(c *cli.Context) ([]byte, [][]byte, error) {
	if name := c.String("cursor-key-env"); name != "" {
		key := []byte(os.Getenv(name))
		if len(key) < minKeyBytes {
			return nil, nil, usageError("--cursor-key-env %s: the variable holds %d bytes: export %s with a random secret of 16 bytes or more", name, len(key), name)
		}
		return key, nil, nil
	}
	if path := c.String("keys-file"); path != "" {
		keys, err := readKeyFile(path, true)
		if err != nil {
			return nil, nil, usageError("--keys-file: %v", err)
		}
		return keys[0], keys[1:], nil
	}
	dir := c.String("cache-dir")
	if dir == "" || c.Bool("cache-readonly") {
		// A read-only cache dir (a baked image) is never written, and a key
		// baked into an image would be every deployment's: a key per
		// process, as without a cache dir; a fleet gives --keys-file.
		return nil, nil, nil
	}
	keys, err := machineKeys(filepath.Join(dir, keysDirName))
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return nil, nil, nil // a cache dir that cannot be written is used read-only
	}
	if err != nil {
		return nil, nil, failure(fmt.Errorf("cursor key: %w", err))
	}
	return keys[0], keys[1:], nil
}

// machineKeys returns the keys of dir/cursor.key, making dir (0700) and
// the file (0600, a fresh random key) when missing. The file appears
// whole or not at all: it is written aside and linked into place, which
// fails if another process got there first; both then read the winner's.
func machineKeys(dir string) ([][]byte, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the key directory: %w: give a writable --cache-dir, or --keys-file", err)
	}
	if err := checkPrivate(dir, true, true); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, cursorKeyName)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if err := makeKeyFile(dir, path); err != nil {
			return nil, err
		}
	}
	return readKeyFile(path, false)
}

// makeKeyFile writes a random key to a temporary file of dir (O_EXCL,
// 0600) and links it to path, unless path exists by then.
func makeKeyFile(dir, path string) error {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails on supported platforms
	tmp, err := os.CreateTemp(dir, ".cursor-key-*")
	if err != nil {
		return fmt.Errorf("making the key file: %w: give a writable --cache-dir, or --keys-file", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(secret) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("making the key file: %w: give a writable --cache-dir, or --keys-file", err)
	}
	return nil
}

// readKeyFile reads the keys of a key file, one a line (blank lines and
// # comments skipped), each 16 bytes or more. The file must be private:
// a regular file that neither group nor others may read or write, and,
// unless symlinks are allowed (a fleet key: Kubernetes mounts secrets
// through links), not a symbolic link.
func readKeyFile(path string, symlinks bool) ([][]byte, error) {
	if err := checkPrivate(path, symlinks, false); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the key file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the key file %s: %w", path, err)
	}
	if len(b) > maxKeyFileSize {
		return nil, fmt.Errorf("key file %s is larger than %d bytes: keep one secret a line", path, maxKeyFileSize)
	}
	var keys [][]byte
	for i, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if len(line) < minKeyBytes {
			return nil, fmt.Errorf("key file %s, line %d: a key of %d bytes: use 16 bytes or more (e.g. openssl rand -hex 32)", path, i+1, len(line))
		}
		keys = append(keys, line)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("key file %s holds no key: write a random secret of 16 bytes or more in it (e.g. openssl rand -hex 32)", path)
	}
	return keys, nil
}

// checkPrivate refuses a key file (or, with dir, the key directory) that
// another user may read or change, or a symbolic link where none is
// allowed.
func checkPrivate(path string, symlinks, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("reading the key file: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if !symlinks {
			return fmt.Errorf("%s is a symbolic link: remove it (mcp-wasm makes its own key there), or give --keys-file", path)
		}
		if fi, err = os.Stat(path); err != nil {
			return fmt.Errorf("reading the key file: %w", err)
		}
	}
	switch {
	case dir && !fi.IsDir():
		return fmt.Errorf("%s is not a directory: remove it (mcp-wasm keeps its key there), or give --keys-file", path)
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file: give the path of a key file", path)
	}
	fix := "600"
	if dir {
		fix = "700"
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is open to other users (mode %04o): chmod %s %s", path, fi.Mode().Perm(), fix, path)
	}
	return nil
}
