package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// JWKS cache policy.
const (
	jwksTTL        = 10 * time.Minute // keys are refetched this often
	jwksMinRefresh = 30 * time.Second // an unknown kid refetches at most this often
	jwksMaxBytes   = 1 << 20          // largest metadata or key set document read
	minRSABits     = 2048
)

// errKeysUnavailable means the issuer's keys could not be fetched.
var errKeysUnavailable = errors.New("issuer signing keys unavailable")

// jwk is one JSON Web Key (RFC 7517), the members we use.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// verifyKey is a public key and the JWS algorithm it verifies.
type verifyKey struct {
	alg string // RS256 or ES256
	key crypto.PublicKey
}

// jwks fetches and caches an issuer's signing keys: refetched every
// jwksTTL, and early (at most every jwksMinRefresh) when a token names an
// unknown key, which is how a key rotation shows. When a refetch fails,
// the keys already fetched stay in use.
type jwks struct {
	issuer string
	url    string // "" until discovered from the issuer's metadata
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	keys    map[string]verifyKey // by kid ("" for a key without one)
	fetched time.Time
	tried   time.Time
	lastErr error
}

func newJWKS(issuer, url string, client *http.Client) *jwks {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &jwks{issuer: issuer, url: url, client: client, now: time.Now}
}

// key returns the key named kid that verifies alg.
func (j *jwks) key(ctx context.Context, kid, alg string) (crypto.PublicKey, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := j.now()
	k, ok := j.keys[kid]
	if (!ok || now.Sub(j.fetched) >= jwksTTL) && now.Sub(j.tried) >= jwksMinRefresh {
		j.tried = now
		j.lastErr = j.refresh(ctx)
		if j.lastErr == nil {
			j.fetched = now
		}
		k, ok = j.keys[kid]
	}
	if j.keys == nil {
		return nil, fmt.Errorf("%w: %w", errKeysUnavailable, j.lastErr)
	}
	if !ok || k.alg != alg {
		return nil, fmt.Errorf("no %s key %q in the issuer's key set", alg, kid)
	}
	return k.key, nil
}

func (j *jwks) refresh(ctx context.Context) error {
	if j.url == "" {
		u, err := discoverJWKS(ctx, j.client, j.issuer)
		if err != nil {
			return err
		}
		j.url = u
	}
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := getJSON(ctx, j.client, j.url, &set); err != nil {
		return err
	}
	keys := map[string]verifyKey{}
	for _, k := range set.Keys {
		if vk, err := k.parse(); err == nil {
			keys[k.Kid] = vk
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("key set %s has no usable RS256 or ES256 key", j.url)
	}
	j.keys = keys
	return nil
}

// parse turns a signing JWK into a verify key, refusing weak RSA keys, EC
// points off the curve and keys meant for encryption.
func (k jwk) parse() (verifyKey, error) {
	if (k.Use != "" && k.Use != "sig") || (k.Alg != "" && k.Alg != "RS256" && k.Alg != "ES256") {
		return verifyKey{}, fmt.Errorf("key %q is not an RS256 or ES256 signing key", k.Kid)
	}
	switch {
	case k.Kty == "RSA":
		n, err1 := b64Int(k.N)
		e, err2 := b64Int(k.E)
		if err := errors.Join(err1, err2); err != nil || n.BitLen() < minRSABits || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31 {
			return verifyKey{}, fmt.Errorf("key %q: bad or weak RSA key", k.Kid)
		}
		return verifyKey{alg: "RS256", key: &rsa.PublicKey{N: n, E: int(e.Int64())}}, nil
	case k.Kty == "EC" && k.Crv == "P-256":
		x, err1 := base64.RawURLEncoding.DecodeString(k.X)
		y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
		if errors.Join(err1, err2) != nil || len(x) != 32 || len(y) != 32 {
			return verifyKey{}, fmt.Errorf("key %q: bad P-256 coordinates", k.Kid)
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return verifyKey{}, fmt.Errorf("key %q: %w", k.Kid, err)
		}
		return verifyKey{alg: "ES256", key: pub}, nil
	}
	return verifyKey{}, fmt.Errorf("key %q: unsupported key type %s %s", k.Kid, k.Kty, k.Crv)
}

func b64Int(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("bad base64url integer")
	}
	return new(big.Int).SetBytes(b), nil
}

// discoverJWKS reads jwks_uri from the issuer's metadata: RFC 8414
// (/.well-known/oauth-authorization-server inserted before the issuer's
// path), else OpenID Connect discovery. The metadata must name the issuer.
func discoverJWKS(ctx context.Context, client *http.Client, issuer string) (string, error) {
	iu, err := url.Parse(issuer)
	if err != nil {
		return "", fmt.Errorf("issuer %q: %w", issuer, err)
	}
	rfc8414 := iu.Scheme + "://" + iu.Host + "/.well-known/oauth-authorization-server" + strings.TrimSuffix(iu.Path, "/")
	var errs []error
	for _, u := range []string{rfc8414, strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"} {
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := getJSON(ctx, client, u, &meta); err != nil {
			errs = append(errs, err)
			continue
		}
		if meta.Issuer != issuer {
			return "", fmt.Errorf("metadata at %s names issuer %q, not %q", u, meta.Issuer, issuer)
		}
		if err := checkSecureURL(meta.JWKSURI); err != nil {
			return "", fmt.Errorf("metadata at %s: jwks_uri %q: %w", u, meta.JWKSURI, err)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("discover the issuer's keys: %w (give the JWKS URL)", errors.Join(errs...))
}

// getJSON fetches a JSON document of at most jwksMaxBytes into v.
func getJSON(ctx context.Context, client *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", url, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetch %s: HTTP %d", url, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return fmt.Errorf("fetch %s: %w", url, err)
	}
	if len(body) > jwksMaxBytes {
		return fmt.Errorf("fetch %s: document larger than %d bytes", url, jwksMaxBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("decode %s: %w", url, err)
	}
	return nil
}
