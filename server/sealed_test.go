package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func testSealer(t *testing.T, keys ...[]byte) *sealer {
	t.Helper()
	s, err := newSealer(keys, time.Hour)
	require.NoError(t, err)
	return s
}

var (
	sealKeyA = bytes.Repeat([]byte{1}, 32)
	sealKeyB = bytes.Repeat([]byte{2}, 32)
	initJSON = json.RawMessage(`{"protocolVersion":"2025-06-18","clientInfo":{"name":"c","version":"1"},"capabilities":{}}`)
)

// TestSealed_roundTrip: an id opens under the key that sealed it, for the
// principal that opened the session, and holds its initialize.
func TestSealed_roundTrip(t *testing.T) {
	s := testSealer(t, sealKeyA)
	id := s.seal(initJSON, "token:alice")
	require.True(t, sealed(id))
	for _, c := range id {
		require.True(t, c > 0x20 && c < 0x7f, "a session id is visible ASCII")
	}
	got, err := s.open(id, "token:alice")
	require.NoError(t, err)
	require.JSONEq(t, string(initJSON), string(got.Init))
	require.NotEqual(t, id, s.seal(initJSON, "token:alice"), "every id is new")
}

// TestSealed_refusals: forged, altered, expired, another principal's, of
// another fleet, oversized or malformed ids are refused, each saying why.
func TestSealed_refusals(t *testing.T) {
	s := testSealer(t, sealKeyA)
	id := s.seal(initJSON, "token:alice")
	raw, err := base64.RawURLEncoding.DecodeString(id[len(sealedPrefix):])
	require.NoError(t, err)
	flipped := bytes.Clone(raw)
	flipped[len(flipped)/2] ^= 1
	expired := testSealer(t, sealKeyA)
	expired.now = func() time.Time { return time.Now().Add(-2 * time.Hour) }
	for _, c := range []struct{ name, id, principal, why string }{
		{"forged", sealedPrefix + base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{7}, 80)), "token:alice", "not sealed by this fleet"},
		{"altered", sealedPrefix + base64.RawURLEncoding.EncodeToString(flipped), "token:alice", "not sealed by this fleet"},
		{"other fleet", testSealer(t, sealKeyB).seal(initJSON, "token:alice"), "token:alice", "not sealed by this fleet"},
		{"expired", expired.seal(initJSON, "token:alice"), "token:alice", "expired"},
		{"other principal", id, "token:mallory", "another principal"},
		{"anonymous replay", id, "", "another principal"},
		{"not base64", sealedPrefix + "!!", "", "not base64url"},
		{"short", sealedPrefix + "AAAA", "", "too short"},
		{"huge", sealedPrefix + strings.Repeat("A", maxSealedText), "", "unknown format"},
		{"unsealed", "ABCDEF", "", "unknown format"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.open(c.id, c.principal)
			require.ErrorIs(t, err, errBadSession)
			require.ErrorContains(t, err, c.why)
		})
	}
}

// TestSealed_rotation: after a rotation the new key seals, ids of the
// previous key still open, and the previous fleet's sealer refuses the new ids.
func TestSealed_rotation(t *testing.T) {
	old := testSealer(t, sealKeyA)
	rotated := testSealer(t, sealKeyB, sealKeyA)
	_, err := rotated.open(old.seal(initJSON, ""), "")
	require.NoError(t, err)
	_, err = old.open(rotated.seal(initJSON, ""), "")
	require.ErrorIs(t, err, errBadSession)
}

// TestSealed_largeInit: capabilities too large to seal whole are dropped;
// the revision and client stay.
func TestSealed_largeInit(t *testing.T) {
	s := testSealer(t, sealKeyA)
	big := json.RawMessage(`{"protocolVersion":"2025-06-18","clientInfo":{"name":"c","version":"1"},"capabilities":{"experimental":{"x":"` +
		strings.Repeat("y", 3*maxSealedInit) + `"}}}`)
	id := s.seal(big, "")
	require.Less(t, len(id), maxSealedText)
	got, err := s.open(id, "")
	require.NoError(t, err)
	require.JSONEq(t, `{"protocolVersion":"2025-06-18","clientInfo":{"name":"c","version":"1"},"capabilities":{}}`, string(got.Init))
}

func TestSealed_keySize(t *testing.T) {
	_, err := newSealer([][]byte{[]byte("short")}, time.Hour)
	require.ErrorContains(t, err, "32 bytes")
}

// FuzzSealedOpen: nothing a client sends as a session id panics the host
// or opens without the key.
func FuzzSealedOpen(f *testing.F) {
	s, _ := newSealer([][]byte{sealKeyA}, time.Hour)
	f.Add(s.seal(initJSON, ""))
	f.Add(sealedPrefix + "AAAA")
	f.Fuzz(func(t *testing.T, id string) {
		if _, err := s.open(id, ""); err == nil {
			require.True(t, sealed(id))
		}
	})
}
