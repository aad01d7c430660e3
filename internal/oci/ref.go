package oci

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// Scheme prefixes a module reference that names a registry artifact rather
// than a file: "oci://ghcr.io/acme/notes:1.0".
const Scheme = "oci://"

// Ref is a parsed artifact reference: registry host, repository, and a tag,
// a digest, or both. With both, the digest is what is fetched and the tag
// only says where it came from.
type Ref struct {
	Host       string // "ghcr.io", "127.0.0.1:5000"
	Repository string // "acme/notes"
	Tag        string // "1.0"; "" when only pinned
	Digest     string // manifest digest "sha256:..."; "" when not pinned
}

// IsRef reports whether s is written as an OCI reference (oci://...).
func IsRef(s string) bool { return strings.HasPrefix(s, Scheme) }

// ParseRef parses "[oci://]HOST/REPO:TAG", "[oci://]HOST/REPO@sha256:..." or
// "[oci://]HOST/REPO:TAG@sha256:...". The registry host must be written:
// nothing defaults to Docker Hub, and nothing defaults to "latest".
func ParseRef(s string) (Ref, error) {
	raw := strings.TrimPrefix(s, Scheme)
	if raw == "" {
		return Ref{}, fmt.Errorf("reference %q is empty: write oci://HOST/REPOSITORY:TAG", s)
	}
	var r Ref
	if base, dig, ok := strings.Cut(raw, "@"); ok {
		d, err := ParseDigest(dig)
		if err != nil {
			return Ref{}, fmt.Errorf("reference %q: %w", s, err)
		}
		r.Digest, raw = d, base
	}
	if first, _, _ := strings.Cut(raw, "/"); !strings.Contains(raw, "/") || !looksLikeHost(first) {
		return Ref{}, fmt.Errorf("reference %q does not start with a registry host: write it whole, such as oci://ghcr.io/acme/notes:1.0 (docker.io/... for Docker Hub)", s)
	}
	repoPart := raw
	if i := strings.LastIndexByte(raw, ':'); i > strings.LastIndexByte(raw, '/') {
		repoPart, r.Tag = raw[:i], raw[i+1:]
		if _, err := name.NewTag(raw, name.StrictValidation); err != nil {
			return Ref{}, fmt.Errorf("reference %q: %v: write oci://HOST/REPOSITORY:TAG", s, err)
		}
	}
	if r.Tag == "" && r.Digest == "" {
		return Ref{}, fmt.Errorf("reference %q names no tag and no digest: add :TAG or @sha256:DIGEST (nothing defaults to latest)", s)
	}
	repo, err := name.NewRepository(repoPart, name.StrictValidation)
	if err != nil {
		return Ref{}, fmt.Errorf("reference %q: %v: write oci://HOST/REPOSITORY:TAG", s, err)
	}
	// Canonical names: docker.io is index.docker.io, its one-part
	// repositories are under library/.
	r.Host, r.Repository = repo.RegistryStr(), repo.RepositoryStr()
	return r, nil
}

// looksLikeHost is the Docker rule: a first path component is a registry
// host when it has a dot or a port, or is localhost.
func looksLikeHost(s string) bool {
	return strings.ContainsAny(s, ".:") || s == "localhost"
}

// String writes the reference back, with the oci:// scheme.
func (r Ref) String() string { return Scheme + r.Bare() }

// Bare writes the reference without the scheme, as registries and docker
// tools write it.
func (r Ref) Bare() string {
	s := r.Host + "/" + r.Repository
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// Pinned returns r with its digest set to d (the tag is kept, to say where
// the digest came from).
func (r Ref) Pinned(d string) Ref { r.Digest = d; return r }

// identifier is what the registry API is asked for: the digest if pinned,
// else the tag.
func (r Ref) identifier() string {
	if r.Digest != "" {
		return r.Digest
	}
	return r.Tag
}

// repository returns the go-containerregistry repository, plain HTTP only
// when insecure.
func (r Ref) repository(insecure bool) (name.Repository, error) {
	opts := []name.Option{name.StrictValidation}
	if insecure {
		opts = append(opts, name.Insecure)
	}
	return name.NewRepository(r.Host+"/"+r.Repository, opts...)
}
