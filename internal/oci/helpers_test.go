package oci

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/oci/ocitest"
)

// testRegistry is the in-process registry of ocitest.
type testRegistry struct {
	*ocitest.Registry
	host string
}

func newTestRegistry(t *testing.T, referrers bool) *testRegistry {
	r := ocitest.New(t, referrers)
	return &testRegistry{Registry: r, host: r.Host}
}

func (tr *testRegistry) setHook(h func(http.ResponseWriter, *http.Request) bool) { tr.SetHook(h) }
func (tr *testRegistry) requests(s string) []string                              { return tr.Requests(s) }

func (tr *testRegistry) ref(t *testing.T, repoTag string) Ref {
	t.Helper()
	r, err := ParseRef("oci://" + tr.host + "/" + repoTag)
	require.NoError(t, err)
	return r
}

func (tr *testRegistry) client() *Client {
	return NewClient(Options{Insecure: []string{tr.host}, Keychain: anonymous{}})
}

// testWasm is a small valid module: the bytes matter only for digests.
func testWasm(n int) []byte {
	b := append([]byte("\x00asm\x01\x00\x00\x00"), make([]byte, n)...)
	for i := range n {
		b[8+i] = byte(i)
	}
	return b
}

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := OpenStore(filepath.Join(t.TempDir(), "modules"))
	require.NoError(t, err)
	return s
}

// storeFiles lists every file under the store, temporary ones included.
func storeFiles(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(s.Dir(), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(s.Dir(), p)
			out = append(out, rel)
		}
		return err
	}))
	return out
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func push(t *testing.T, tr *testRegistry, repoTag string, wasm []byte) Ref {
	t.Helper()
	r, err := tr.client().Push(ctx(t), tr.ref(t, repoTag), Artifact{Wasm: wasm, FileName: "m.wasm", Created: time.Unix(0, 0)})
	require.NoError(t, err)
	return r
}
