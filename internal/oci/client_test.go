package oci

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/stretchr/testify/require"
)

func TestPushPullRoundTrip(t *testing.T) {
	for _, referrers := range []bool{true, false} {
		t.Run(fmt.Sprintf("referrersAPI=%v", referrers), func(t *testing.T) {
			tr := newTestRegistry(t, referrers)
			wasm := testWasm(1000)
			pinned := push(t, tr, "acme/notes:1.0", wasm)
			require.Equal(t, "1.0", pinned.Tag)
			require.NotEmpty(t, pinned.Digest)

			store := newStore(t)
			bundle := []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","dsseEnvelope":{}}`)
			_, err := tr.client().AttachBundle(ctx(t), pinned, bundle)
			require.NoError(t, err)

			p, err := tr.client().Pull(ctx(t), tr.ref(t, "acme/notes:1.0"), store, 1<<20)
			require.NoError(t, err)
			require.NoError(t, p.ReferrersErr)
			require.Equal(t, pinned, p.Ref)
			got, err := store.Read(p.Manifest.Layer.Digest, 1<<20)
			require.NoError(t, err)
			require.Equal(t, wasm, got)
			require.Equal(t, []string{Digest(bundle)}, p.Bundles)

			// Offline: by digest, and by the tag's last digest.
			tr.Close()
			for _, r := range []Ref{pinned, tr.ref(t, "acme/notes:1.0")} {
				l, err := Local(store, r, 1<<20)
				require.NoError(t, err)
				require.Equal(t, pinned, l.Ref)
				require.Equal(t, p.Bundles, l.Bundles)
			}
		})
	}
}

// A layer declared over the cap is refused before any blob is requested.
func TestPullRefusesOversizedLayerBeforeDownload(t *testing.T) {
	tr := newTestRegistry(t, false)
	push(t, tr, "acme/big:1", testWasm(5000))
	store := newStore(t)
	_, err := tr.client().Pull(ctx(t), tr.ref(t, "acme/big:1"), store, 4096)
	require.ErrorIs(t, err, ErrTooLarge)
	require.ErrorContains(t, err, "the module layer is 5008 bytes, the module size limit is 4096")
	require.Empty(t, tr.requests("GET /v2/acme/big/blobs/"), "no blob download starts")
	require.Empty(t, storeFiles(t, store))
}

// A registry that lies: a blob longer than declared, one that does not hash
// to its digest, a manifest that is not what was asked for, a huge
// Content-Length. Each is a clear error and leaves nothing in the store.
func TestPullFromALyingRegistry(t *testing.T) {
	wasm := testWasm(2000)
	for _, tc := range []struct {
		name string
		hook func(w http.ResponseWriter, r *http.Request) bool
		err  error
		msg  string
	}{
		{"blob longer than declared", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.Contains(r.URL.Path, "/blobs/") {
				return false
			}
			w.Header().Set("Transfer-Encoding", "chunked")
			_, _ = w.Write(append(wasm, make([]byte, 1<<20)...))
			return true
		}, ErrTooLarge, "got more than the 2008 bytes declared"},
		{"blob with other bytes", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.Contains(r.URL.Path, "/blobs/") {
				return false
			}
			evil := append([]byte(nil), wasm...)
			evil[100] ^= 0xff
			_, _ = w.Write(evil)
			return true
		}, ErrDigest, "the bytes hash to sha256:"},
		{"short blob", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.Contains(r.URL.Path, "/blobs/") {
				return false
			}
			w.Header().Set("Transfer-Encoding", "chunked")
			_, _ = w.Write(wasm[:100])
			return true
		}, nil, "got 100 of the 2008 bytes"},
		{"huge Content-Length", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.Contains(r.URL.Path, "/manifests/") || r.Method != http.MethodGet {
				return false
			}
			w.Header().Set("Content-Length", "1000000000")
			w.WriteHeader(http.StatusOK)
			return true
		}, ErrTooLarge, "refused before the download"},
		{"manifest of another type", func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.Contains(r.URL.Path, "/manifests/") || r.Method != http.MethodGet {
				return false
			}
			w.Header().Set("Content-Type", MediaTypeIndex)
			_, _ = w.Write([]byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`))
			return true
		}, ErrNotModule, "image index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTestRegistry(t, false)
			push(t, tr, "acme/notes:1", wasm)
			tr.setHook(tc.hook)
			store := newStore(t)
			_, err := tr.client().Pull(ctx(t), tr.ref(t, "acme/notes:1"), store, 1<<20)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
			}
			require.ErrorContains(t, err, tc.msg)
			require.Empty(t, storeFiles(t, store), "nothing half-written")
		})
	}
}

// A pinned reference whose manifest the registry swaps is refused.
func TestPullPinnedRefusesAnotherManifest(t *testing.T) {
	tr := newTestRegistry(t, false)
	old := push(t, tr, "acme/notes:1", testWasm(10))
	push(t, tr, "acme/notes:2", testWasm(20))
	other := push(t, tr, "acme/notes:2", testWasm(20))
	tr.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/v2/acme/notes/manifests/"+old.Digest {
			r.URL.Path = "/v2/acme/notes/manifests/" + other.Digest
		}
		return false
	})
	_, err := tr.client().Pull(ctx(t), old, newStore(t), 1<<20)
	require.ErrorIs(t, err, ErrDigest)
	require.ErrorContains(t, err, "hashes to "+other.Digest+" when asked for "+old.Digest)
}

func TestPullErrorsSayWhatToDo(t *testing.T) {
	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		host := l.Addr().String()
		require.NoError(t, l.Close())
		c := NewClient(Options{Insecure: []string{host}, Keychain: anonymous{}})
		r, err := ParseRef("oci://" + host + "/acme/notes:1")
		require.NoError(t, err)
		_, err = c.Pull(ctx(t), r, newStore(t), 1<<20)
		require.ErrorIs(t, err, ErrUnreachable)
		require.ErrorContains(t, err, "check the host and port")
	})
	t.Run("plain HTTP without --insecure-registry", func(t *testing.T) {
		tr := newTestRegistry(t, false)
		c := NewClient(Options{Keychain: anonymous{}})
		_, err := c.Pull(ctx(t), tr.ref(t, "acme/notes:1"), newStore(t), 1<<20)
		require.ErrorIs(t, err, ErrInsecure)
		require.ErrorContains(t, err, "give --insecure-registry "+tr.host)
		require.Empty(t, tr.requests("/v2/acme"), "nothing is asked over plain HTTP")
	})
	t.Run("not found", func(t *testing.T) {
		tr := newTestRegistry(t, false)
		_, err := tr.client().Pull(ctx(t), tr.ref(t, "acme/none:1"), newStore(t), 1<<20)
		require.ErrorIs(t, err, ErrNotFound)
	})
}

// A registry that wants basic auth: anonymous gets a 401 that says how to
// log in; the credentials docker login stores in config.json are used.
func TestPullWithRegistryAuth(t *testing.T) {
	tr := newTestRegistry(t, false)
	ref := push(t, tr, "acme/private:1", testWasm(10))
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cret"))
	tr.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("Authorization") == want {
			return false
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
		w.WriteHeader(http.StatusUnauthorized)
		return true
	})
	_, err := tr.client().Pull(ctx(t), ref, newStore(t), 1<<20)
	require.ErrorIs(t, err, ErrUnauthorized)
	require.ErrorContains(t, err, "docker login "+tr.host)

	dir := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte("alice:s3cret"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths":{"`+tr.host+`":{"auth":"`+auth+`"}}}`), 0o600))
	t.Setenv("DOCKER_CONFIG", dir)
	c := NewClient(Options{Insecure: []string{tr.host}, Keychain: authn.DefaultKeychain})
	p, err := c.Pull(ctx(t), ref, newStore(t), 1<<20)
	require.NoError(t, err)
	require.Equal(t, ref, p.Ref)
}
