package oci

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// A digest here is always SHA-256, written "sha256:" and 64 lower-case hex
// digits: the only algorithm OCI registries are required to support, and
// the one cosign and Sigstore bundles use.

const digestPrefix = "sha256:"

// Digest returns the digest of b, "sha256:<hex>".
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return digestPrefix + hex.EncodeToString(sum[:])
}

// ParseDigest accepts "sha256:<64 hex>" or the 64 hex digits alone and
// returns the canonical "sha256:<hex>".
func ParseDigest(s string) (string, error) {
	hexPart := strings.TrimPrefix(s, digestPrefix)
	if len(hexPart) != sha256.Size*2 || strings.ToLower(hexPart) != hexPart {
		return "", fmt.Errorf("digest %q: want sha256: and 64 lower-case hex digits", s)
	}
	if _, err := hex.DecodeString(hexPart); err != nil {
		return "", fmt.Errorf("digest %q: want sha256: and 64 lower-case hex digits", s)
	}
	return digestPrefix + hexPart, nil
}

// DigestHex returns the hex digits of a canonical digest.
func DigestHex(d string) string { return strings.TrimPrefix(d, digestPrefix) }

// ShortDigest returns "sha256:" and the first 12 hex digits, for messages
// that also carry the full digest elsewhere.
func ShortDigest(d string) string {
	if len(d) > len(digestPrefix)+12 {
		return d[:len(digestPrefix)+12]
	}
	return d
}
