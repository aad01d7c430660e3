package hostfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// openSoon runs Open(path) and returns its error, failing the test if it
// has not returned within a generous bound (os.Open of a FIFO never does).
func openSoon(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		f, err := Open(path)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(testkit.Wait):
		t.Fatalf("Open(%s) blocked", path)
		return nil
	}
}

func TestOpen_refusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "module.wasm")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	link := filepath.Join(dir, "link.wasm")
	require.NoError(t, os.Symlink(fifo, link))
	for path, what := range map[string]string{
		fifo:        "a FIFO",
		link:        "a FIFO", // followed, then refused for what it names
		dir:         "a directory",
		"/dev/null": "a character device",
	} {
		err := openSoon(t, path)
		require.ErrorIs(t, err, ErrNotRegular, path)
		require.ErrorContains(t, err, path, "the error names the path")
		require.ErrorContains(t, err, what)
		require.ErrorContains(t, err, "give the path of a regular file", "the error says the fix")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(file, []byte("0123456789"), 0o600))
	b, err := ReadFile(file, 10)
	require.NoError(t, err)
	require.Equal(t, "0123456789", string(b))
	link := filepath.Join(dir, "link.pem")
	require.NoError(t, os.Symlink(file, link))
	b, err = ReadFile(link, 10)
	require.NoError(t, err, "a symlink to a regular file is the operator's")
	require.Equal(t, "0123456789", string(b))
	_, err = ReadFile(file, 9)
	require.ErrorContains(t, err, "larger than 9")
	fifo := filepath.Join(dir, "fifo.pem")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err = ReadFile(fifo, 10)
	require.ErrorIs(t, err, ErrNotRegular)
}

func TestPrivateDir(t *testing.T) {
	base := t.TempDir()
	made, err := PrivateDir(filepath.Join(base, "new"))
	require.NoError(t, err)
	fi, err := os.Stat(made)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "created private")

	open := filepath.Join(base, "open")
	require.NoError(t, os.Mkdir(open, 0o700))
	require.NoError(t, os.Chmod(open, 0o777))
	_, err = PrivateDir(open)
	require.ErrorContains(t, err, "has mode 777")
	require.ErrorContains(t, err, "chmod 700")

	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(made, link))
	_, err = PrivateDir(link)
	require.ErrorContains(t, err, "is not a directory (a symlink?)")
}
