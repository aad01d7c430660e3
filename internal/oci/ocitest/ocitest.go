// Package ocitest runs go-containerregistry's in-process registry behind a
// real HTTP listener on loopback, for tests: a hook can rewrite or refuse
// any request (a lying or locked registry), and the requests served are
// logged. Nothing here is imported outside tests.
package ocitest

import (
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Registry is a running in-process registry.
type Registry struct {
	Host    string // "127.0.0.1:PORT", plain HTTP: clients must name it insecure
	srv     *httptest.Server
	handler http.Handler
	mu      sync.Mutex
	hook    func(w http.ResponseWriter, r *http.Request) bool
	log     []string
}

// New starts a registry, with or without the OCI referrers API, closed
// when the test ends.
func New(t testing.TB, referrers bool) *Registry {
	t.Helper()
	reg := newRegistry(referrers)
	reg.srv = httptest.NewServer(reg.handler)
	reg.start(t)
	return reg
}

// NewTLS starts a registry over HTTPS (with the referrers API) and returns
// it with its certificate (PEM), which clients trust through SSL_CERT_FILE.
func NewTLS(t testing.TB) (*Registry, []byte) {
	t.Helper()
	reg := newRegistry(true)
	reg.srv = httptest.NewTLSServer(reg.handler)
	reg.start(t)
	return reg, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: reg.srv.Certificate().Raw})
}

func (reg *Registry) start(t testing.TB) {
	t.Cleanup(reg.srv.Close)
	u, err := url.Parse(reg.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	reg.Host = u.Host
}

func newRegistry(referrers bool) *Registry {
	reg := &Registry{}
	h := registry.New(registry.WithReferrersSupport(referrers), registry.Logger(log.New(io.Discard, "", 0)))
	reg.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reg.mu.Lock()
		reg.log = append(reg.log, r.Method+" "+r.URL.Path)
		hook := reg.hook
		reg.mu.Unlock()
		if hook != nil && hook(w, r) {
			return
		}
		h.ServeHTTP(w, r)
	})
	return reg
}

// SetHook installs h: it sees every request first and returns true when
// it has answered it.
func (reg *Registry) SetHook(h func(w http.ResponseWriter, r *http.Request) bool) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	reg.hook = h
}

// Requests returns the requests served, "METHOD /path", that contain s.
func (reg *Registry) Requests(s string) []string {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	var out []string
	for _, l := range reg.log {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

// Close stops the registry (to test working offline).
func (reg *Registry) Close() { reg.srv.Close() }
