package oci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// More errors a caller may tell apart; see also artifact.go.
var (
	// ErrUnreachable: the registry could not be reached at all.
	ErrUnreachable = errors.New("registry unreachable")
	// ErrUnauthorized: the registry refused the credentials (or their absence).
	ErrUnauthorized = errors.New("registry refused access")
	// ErrNotFound: the repository, tag or digest does not exist.
	ErrNotFound = errors.New("not found in the registry")
	// ErrInsecure: plain HTTP to a host not named insecure.
	ErrInsecure = errors.New("plain HTTP refused")
)

// Options configure a Client.
type Options struct {
	// Insecure lists registry hosts ("127.0.0.1:5000") reached over plain
	// HTTP. Every other host is HTTPS only, loopback and private addresses
	// included: go-containerregistry would fall back to HTTP for those,
	// and the client's transport refuses it.
	Insecure []string
	// Keychain finds credentials; default authn.DefaultKeychain (docker's
	// config.json and its credential helpers, anonymous when none match).
	Keychain authn.Keychain
	// Transport is the base HTTP transport; default a clone of
	// http.DefaultTransport with connect and header timeouts.
	Transport http.RoundTripper
	// UserAgent is sent with every request.
	UserAgent string
}

// Client talks to OCI registries.
type Client struct {
	keychain authn.Keychain
	base     http.RoundTripper
	insecure map[string]bool
	ua       string
}

// NewClient returns a client with o's settings.
func NewClient(o Options) *Client {
	c := &Client{keychain: o.Keychain, insecure: map[string]bool{}, ua: o.UserAgent}
	if c.keychain == nil {
		c.keychain = authn.DefaultKeychain
	}
	for _, h := range o.Insecure {
		c.insecure[h] = true
	}
	base := o.Transport
	if base == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		t.ResponseHeaderTimeout = 30 * time.Second
		t.Proxy = http.ProxyFromEnvironment
		base = t
	}
	c.base = &guard{inner: base, insecure: c.insecure, ua: o.UserAgent}
	return c
}

// guard refuses plain HTTP to any host not named insecure, on every
// request, redirects included, so no heuristic (loopback, private
// addresses, a redirect) can turn TLS off.
type guard struct {
	inner    http.RoundTripper
	insecure map[string]bool
	ua       string
}

func (g *guard) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "https" && !g.insecure[r.URL.Host] {
		return nil, fmt.Errorf("%w to %s: registries are reached over TLS; for a local plain-HTTP registry you trust, give --insecure-registry %s", ErrInsecure, r.URL.Host, r.URL.Host)
	}
	if g.ua != "" && r.Header.Get("User-Agent") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("User-Agent", g.ua)
	}
	return g.inner.RoundTrip(r)
}

// session is an authenticated connection to one repository.
type session struct {
	c    *Client
	ref  Ref
	repo name.Repository
	http *http.Client
}

// open authenticates to ref's repository for pulling (or pushing).
func (c *Client) open(ctx context.Context, ref Ref, push bool) (*session, error) {
	repo, err := ref.repository(c.insecure[ref.Host])
	if err != nil {
		return nil, fmt.Errorf("reference %s: %w", ref, err)
	}
	auth, err := authn.Resolve(ctx, c.keychain, repo)
	if err != nil {
		return nil, fmt.Errorf("find credentials for %s: %w: check ~/.docker/config.json and its credential helpers", ref.Host, err)
	}
	scope := repo.Scope(transport.PullScope)
	if push {
		scope = repo.Scope(transport.PushScope)
	}
	rt, err := transport.NewWithContext(ctx, repo.Registry, auth, c.base, []string{scope})
	if err != nil {
		return nil, c.explain(ref, err)
	}
	return &session{c: c, ref: ref, repo: repo, http: &http.Client{Transport: rt}}, nil
}

// explain turns a transport error into one that says what to do.
func (c *Client) explain(ref Ref, err error) error {
	var te *transport.Error
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, ErrInsecure):
		return fmt.Errorf("registry %s: %w", ref.Host, errors.Unwrap(firstInsecure(err)))
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return fmt.Errorf("%w: registry %s answers plain HTTP, and registries are reached over TLS: for a local registry you trust, give --insecure-registry %s", ErrInsecure, ref.Host, ref.Host)
	case errors.As(err, &te) && (te.StatusCode == http.StatusUnauthorized || te.StatusCode == http.StatusForbidden):
		return fmt.Errorf("%w: %s answered %d for %s: log in (docker login %s stores credentials in ~/.docker/config.json, which mcp-wasm reads), or check the repository name", ErrUnauthorized, ref.Host, te.StatusCode, ref.Repository, ref.Host)
	case errors.As(err, &te) && te.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: %s: check the repository, tag and digest", ErrNotFound, ref)
	case errors.As(err, &oe), errors.As(err, &ne):
		return fmt.Errorf("%w: %s: %v: check the host and port and that the registry is up (a module pinned by digest and pulled before loads offline)", ErrUnreachable, ref.Host, err)
	}
	return fmt.Errorf("registry %s: %w", ref.Host, err)
}

// firstInsecure digs the guard's error out of go-containerregistry's
// multi-error, so the message is ours alone.
func firstInsecure(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.HasPrefix(e.Error(), ErrInsecure.Error()) {
			return fmt.Errorf("wrap: %w", e)
		}
	}
	return fmt.Errorf("wrap: %w", err)
}

func (s *session) url(kind, id string) string {
	return fmt.Sprintf("%s://%s/v2/%s/%s/%s", s.repo.Scheme(), s.ref.Host, s.ref.Repository, kind, id)
}

// get sends a GET, checks the status and the declared length against
// limit, and returns the response; the caller closes the body. A 404 is
// ErrNotFound.
func (s *session) get(ctx context.Context, u, accept string, limit int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, s.c.explain(s.ref, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, s.c.explain(s.ref, transport.CheckError(resp, http.StatusOK))
	}
	if resp.ContentLength > limit {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s declares %d bytes for %s, over the %d read: refused before the download", ErrTooLarge, s.ref.Host, resp.ContentLength, u, limit)
	}
	return resp, nil
}

// readManifest GETs the manifest named id, at most limit bytes, and
// checks it against id when id is a digest. It returns the bytes, their
// digest and the Content-Type.
func (s *session) readManifest(ctx context.Context, id, accept string, limit int64) ([]byte, string, string, error) {
	resp, err := s.get(ctx, s.url("manifests", id), accept, limit)
	if err != nil {
		return nil, "", "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, "", "", s.c.explain(s.ref, err)
	}
	if int64(len(b)) > limit {
		return nil, "", "", fmt.Errorf("%w: the manifest %s sent for %s is over %d bytes", ErrTooLarge, s.ref.Host, id, limit)
	}
	d := Digest(b)
	if strings.HasPrefix(id, digestPrefix) && d != id {
		return nil, "", "", fmt.Errorf("%w: %s sent a manifest that hashes to %s when asked for %s: the registry or the path to it is not to be trusted", ErrDigest, s.ref.Host, d, id)
	}
	return b, d, resp.Header.Get("Content-Type"), nil
}

// blob GETs the blob desc names into the store, refusing it before the
// download if its declared length differs from the descriptor's.
func (s *session) blob(ctx context.Context, desc Descriptor, store *Store) error {
	if store.Has(desc.Digest) {
		return nil
	}
	resp, err := s.get(ctx, s.url("blobs", desc.Digest), "", desc.Size)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.ContentLength >= 0 && resp.ContentLength != desc.Size {
		return fmt.Errorf("%w: %s declares %d bytes for blob %s, the manifest %d", ErrTooLarge, s.ref.Host, resp.ContentLength, desc.Digest, desc.Size)
	}
	if err := store.Write(desc.Digest, desc.Size, resp.Body); err != nil {
		return fmt.Errorf("download %s from %s: %w", desc.Digest, s.ref.Host, err)
	}
	return nil
}

func (s *session) remoteOptions(ctx context.Context) []remote.Option {
	return []remote.Option{remote.WithContext(ctx), remote.WithTransport(s.http.Transport)}
}

// putManifest PUTs a manifest under id (a tag or its digest) and returns
// the response headers.
func (s *session) putManifest(ctx context.Context, id string, b []byte, mt string) (http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, s.url("manifests", id), bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mt)
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, s.c.explain(s.ref, err)
	}
	defer resp.Body.Close()
	if err := transport.CheckError(resp, http.StatusCreated, http.StatusOK, http.StatusAccepted); err != nil {
		return nil, s.c.explain(s.ref, err)
	}
	return resp.Header, nil
}

// putBlob uploads b unless the registry has it.
func (s *session) putBlob(ctx context.Context, b []byte, mt string) error {
	if err := remote.WriteLayer(s.repo, static.NewLayer(b, types.MediaType(mt)), s.remoteOptions(ctx)...); err != nil {
		return s.c.explain(s.ref, err)
	}
	return nil
}
