package oci

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/require"
)

// testRegistry is go-containerregistry's in-process registry behind a
// real HTTP listener on loopback, with a hook that can rewrite or refuse
// any request, and a log of the requests it served.
type testRegistry struct {
	srv  *httptest.Server
	host string
	mu   sync.Mutex
	hook func(w http.ResponseWriter, r *http.Request) bool // true: handled
	log  []string
}

func newTestRegistry(t *testing.T, referrers bool) *testRegistry {
	t.Helper()
	tr := &testRegistry{}
	h := registry.New(registry.WithReferrersSupport(referrers), registry.Logger(log.New(io.Discard, "", 0)))
	tr.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.mu.Lock()
		tr.log = append(tr.log, r.Method+" "+r.URL.Path)
		hook := tr.hook
		tr.mu.Unlock()
		if hook != nil && hook(w, r) {
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(tr.srv.Close)
	u, err := url.Parse(tr.srv.URL)
	require.NoError(t, err)
	tr.host = u.Host
	return tr
}

func (tr *testRegistry) setHook(h func(http.ResponseWriter, *http.Request) bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.hook = h
}

// requests returns the requests served whose "METHOD /path" contains s.
func (tr *testRegistry) requests(s string) []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []string
	for _, l := range tr.log {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

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
