package main_test

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// loose writes a loose object with its true header and returns its id.
func loose(t *testing.T, dir, typ string, body []byte) [20]byte {
	t.Helper()
	return gittest.Loose(t, dir, gittest.ObjectID(typ, body), gittest.Header(typ, body), body)
}

func sprintfHex(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestHostileRepoInWasm: a repository whose files are zip bombs (one
// whose header admits 200 MiB, one whose header says 10 bytes and
// inflates to 200 MiB) and whose tree contains itself, served by git.wasm
// under the default 64 MiB memory limit: each read is an error from the
// provider, the instance is never lost (no fault), and the good file
// still reads.
func TestHostileRepoInWasm(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hostile")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "refs", "heads"), 0o755))
	gittest.Write(t, dir, ".git/HEAD", "ref: refs/heads/main\n")
	bomb := make([]byte, 200<<20)
	admitted := loose(t, dir, "blob", bomb) // says 200 MiB: over max_object_bytes
	// Named as a 10-byte blob, says 10 bytes, inflates to 200 MiB.
	lying := gittest.Loose(t, dir, gittest.ObjectID("blob", bomb[:10]), "blob 10\x00", bomb)
	good := loose(t, dir, "blob", []byte("fine\n"))
	self := sha1.Sum([]byte("self"))
	entry := func(mode, name string, id [20]byte) []byte { return append([]byte(mode+" "+name+"\x00"), id[:]...) }
	var body []byte
	body = append(body, entry("100644", "admitted", admitted)...)
	body = append(body, entry("100644", "good", good)...)
	body = append(body, entry("100644", "lying", lying)...)
	body = append(body, entry("40000", "loop", self)...)
	// The loop tree is stored under the id it names itself by.
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, _ = zw.Write([]byte("tree " + strconv.Itoa(len(body)) + "\x00"))
	_, _ = zw.Write(body)
	require.NoError(t, zw.Close())
	h := sprintfHex(self[:])
	gittest.Write(t, dir, ".git/objects/"+h[:2]+"/"+h[2:], buf.String())
	commit := loose(t, dir, "commit", []byte("tree "+h+"\nauthor X <x> 1 +0000\ncommitter X <x> 1 +0000\n\nhostile\n"))
	gittest.Write(t, dir, ".git/refs/heads/main", sprintfHex(commit[:])+"\n")

	ctx := t.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(testguest.CompileCache()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	p, err := rt.LoadFile(ctx, testguest.Go(t, "guests/git"), runtime.NewProviderConfig().WithPoolSize(1).
		WithCompileTimeout(10*time.Minute).WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}}))
	require.NoError(t, err)

	for _, uri := range []string{"git://hostile/blob/main/admitted", "git://hostile/blob/main/lying",
		"git://hostile/tree/main", "git://hostile/commit/main"} {
		_, err := p.Read(ctx, uri)
		require.ErrorIs(t, err, abi.ErrProviderInternal, uri)
	}
	res, err := p.Read(ctx, "git://hostile/blob/main/good")
	require.NoError(t, err)
	require.Equal(t, "fine\n", *res.Contents[0].Text)
	require.Zero(t, p.Stats().Faults, "a hostile repository costs errors, not instances")
}
