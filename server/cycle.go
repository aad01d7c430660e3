package server

import (
	"bytes"
	"crypto/sha256"
)

// A provider whose cursors cycle (a, b, a, ...) would be followed for ever,
// one provider page after another, each client page carrying the position
// on. The position (cursor.go) remembers, for the provider being listed,
// the digests of its last seenWindow cursors and, as in Brent's cycle
// detection, the digest of the cursor of its last page whose number is a
// power of two. A cursor equal to any of them is a repeat: the provider is
// skipped for the rest of the listing. The window catches a short repeat
// at once; the mark catches a cycle of any length λ after a tail of μ
// pages within about 2·max(μ, λ)+λ pages, whatever the provider does
// between. It costs 72 bytes in the signed cursor, whatever the length of
// the listing, and a provider that never repeats a cursor is still ended
// by maxProviderPages. RATIONALE.md: "Why does a list cursor carry cursor
// digests?".

const (
	// digestSize is the length of a cursor digest (SHA-256, truncated): a
	// false repeat among 100,000 pages has odds below 2^-30.
	digestSize = 8
	// seenWindow is how many of the last cursors the position remembers.
	seenWindow = 8
)

func cursorDigest(c string) []byte {
	sum := sha256.Sum256([]byte(c))
	return sum[:digestSize]
}

// repeats reports whether the provider returned next before in this
// listing, as far as the position remembers.
func (p position) repeats(next string) bool {
	d := cursorDigest(next)
	if bytes.Equal(d, p.Mark) {
		return true
	}
	for i := 0; i+digestSize <= len(p.Seen); i += digestSize {
		if bytes.Equal(d, p.Seen[i:i+digestSize]) {
			return true
		}
	}
	return false
}

// advance moves p to the provider page of next, remembering next.
func (p position) advance(next string) position {
	d := cursorDigest(next)
	keep := p.Seen
	if len(keep) >= seenWindow*digestSize {
		keep = keep[len(keep)-(seenWindow-1)*digestSize:]
	}
	seen := make([]byte, 0, len(keep)+digestSize)
	p.Seen = append(append(seen, keep...), d...)
	p.Pages++
	if p.Pages&(p.Pages-1) == 0 {
		p.Mark = d
	}
	p.Cursor, p.Offset = opaque(next), 0
	return p
}
