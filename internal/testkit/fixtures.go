package testkit

import (
	"os"
	"path/filepath"
	"testing"

	goruntime "runtime"

	"github.com/stretchr/testify/require"
)

// Root returns the repository root (the directory holding go.mod), as
// testguest.Root does; testkit does not import testguest, which uses it.
func Root() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Fixture returns the path of a shared fixture under the repository's
// testdata/: Fixture("hostile", "good.wasm").
func Fixture(parts ...string) string {
	return filepath.Join(append([]string{Root(), "testdata"}, parts...)...)
}

// ReadFixture returns the bytes of a shared fixture under testdata/.
func ReadFixture(tb testing.TB, parts ...string) []byte {
	tb.Helper()
	b, err := os.ReadFile(Fixture(parts...))
	require.NoError(tb, err, "the fixtures under testdata/ are committed; rebuild a .wasm with make hostile")
	return b
}

// WriteConfig writes text as mcp.json in a fresh directory holding copies
// of minimal.wasm and good.wasm, and a docs/ directory, and returns the
// path of mcp.json.
func WriteConfig(tb testing.TB, text string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, src := range map[string]string{"minimal.wasm": Fixture("wat", "minimal.wasm"), "good.wasm": Fixture("hostile", "good.wasm")} {
		b, err := os.ReadFile(src)
		require.NoError(tb, err)
		require.NoError(tb, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	require.NoError(tb, os.Mkdir(filepath.Join(dir, "docs"), 0o755))
	path := filepath.Join(dir, "mcp.json")
	require.NoError(tb, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// WriteAtomic replaces path with text as editors and config managers do:
// a temporary file renamed over it.
func WriteAtomic(tb testing.TB, path, text string) {
	tb.Helper()
	tmp := path + ".tmp"
	require.NoError(tb, os.WriteFile(tmp, []byte(text), 0o644))
	require.NoError(tb, os.Rename(tmp, path))
}

// NoEnv is an empty environment, for config.Read.
func NoEnv(string) (string, bool) { return "", false }
