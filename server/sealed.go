package server

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A sealed session id carries, encrypted and authenticated under a key every
// replica of a fleet shares, what a legacy (2025-era) session needs to be
// served by any replica: the initialize the client sent (revision, client
// info, capabilities), the principal that opened it and when it expires.
// A replica that gets a request of a session it does not hold opens the id
// and replays the initialize into a session of its own (fleet.go); no
// replica needs a store, nor the client any affinity.
//
// # Security
//
// The id is AES-256-GCM under a key derived from the fleet secret (the
// session subkey, apart from the cursor one): a client can neither read
// it nor make one; a forged or altered id fails to open, an expired one is
// refused, and one opened under another principal than the request's is
// refused. A session closed with DELETE is remembered (fleet.go) until it
// expires, so that its id cannot be replayed to reopen it.

// errBadSession is wrapped by every refusal of a sealed session id.
var errBadSession = errors.New("invalid session id")

const (
	sealedPrefix = "s1." // the format; a later one changes the prefix
	// sealedAAD binds the ciphertext to its use: a sealed id is never
	// mistaken for anything else sealed under the same key.
	sealedAAD = "mcp-wasm sealed session v1"
	// maxSealedText bounds an id before decoding; the header is the client's.
	maxSealedText = 4096
	// maxSealedInit bounds the initialize params kept in an id: larger
	// capabilities are dropped (the client's name and revision are kept).
	maxSealedInit = 2048
	// DefaultSessionLifetime is how long a sealed session id stays valid.
	DefaultSessionLifetime = 24 * time.Hour
)

// sessionSeal is what a sealed session id holds.
type sessionSeal struct {
	Init      json.RawMessage `json:"i"`           // the initialize params the client sent
	Principal []byte          `json:"p,omitempty"` // sha256 of the principal key, none when anonymous
	Expires   int64           `json:"e"`           // unix seconds
}

// sealer seals and opens session ids. The first key seals; the others,
// from before a rotation, still open.
type sealer struct {
	aeads    []cipher.AEAD
	lifetime time.Duration
	now      func() time.Time
}

func newSealer(keys [][]byte, lifetime time.Duration) (*sealer, error) {
	if len(keys) == 0 {
		return nil, errors.New("sealing session ids needs a key")
	}
	s := &sealer{lifetime: lifetime, now: time.Now}
	for _, k := range keys {
		if len(k) != 32 {
			return nil, fmt.Errorf("a session key has %d bytes: derive 32 bytes from the fleet secret", len(k))
		}
		b, _ := aes.NewCipher(k) // a 32-byte key never fails
		g, _ := cipher.NewGCM(b)
		s.aeads = append(s.aeads, g)
	}
	return s, nil
}

// principalDigest binds a principal key into an id without writing it.
func principalDigest(key string) []byte {
	if key == "" {
		return nil
	}
	d := sha256.Sum256([]byte("mcp-wasm session principal\x00" + key))
	return d[:16]
}

// seal makes the id of a session opened by principal (its key, "" when
// anonymous) with the initialize params init.
func (s *sealer) seal(init json.RawMessage, principal string) string {
	if len(init) > maxSealedInit {
		init = trimInit(init)
	}
	payload, err := json.Marshal(sessionSeal{Init: init, Principal: principalDigest(principal),
		Expires: s.now().Add(s.lifetime).Unix()})
	if err != nil {
		panic("BUG: a session seal does not marshal: " + err.Error())
	}
	g := s.aeads[0]
	nonce := make([]byte, g.NonceSize(), g.NonceSize()+len(payload)+g.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails on supported platforms
	return sealedPrefix + base64.RawURLEncoding.EncodeToString(g.Seal(nonce, nonce, payload, []byte(sealedAAD)))
}

// trimInit keeps the revision and client info of initialize params too
// large to seal whole.
func trimInit(init json.RawMessage) json.RawMessage {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
		ClientInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"clientInfo"`
	}
	_ = json.Unmarshal(init, &p)
	p.ClientInfo.Name, p.ClientInfo.Version = clip(p.ClientInfo.Name), clip(p.ClientInfo.Version)
	b, _ := json.Marshal(map[string]any{"protocolVersion": clip(p.ProtocolVersion), "clientInfo": p.ClientInfo,
		"capabilities": map[string]any{}})
	return b
}

// sealed reports whether id has the form of a sealed id (it may still not open).
func sealed(id string) bool { return strings.HasPrefix(id, sealedPrefix) }

// open checks a sealed id presented by principal and returns what it holds.
func (s *sealer) open(id, principal string) (sessionSeal, error) {
	if len(id) > maxSealedText || !sealed(id) {
		return sessionSeal{}, fmt.Errorf("%w: unknown format", errBadSession)
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(id[len(sealedPrefix):])
	if err != nil {
		return sessionSeal{}, fmt.Errorf("%w: not base64url", errBadSession)
	}
	var payload []byte
	for _, g := range s.aeads {
		if len(raw) < g.NonceSize()+g.Overhead() {
			return sessionSeal{}, fmt.Errorf("%w: too short", errBadSession)
		}
		if payload, err = g.Open(nil, raw[:g.NonceSize()], raw[g.NonceSize():], []byte(sealedAAD)); err == nil {
			break
		}
	}
	if err != nil {
		return sessionSeal{}, fmt.Errorf("%w: not sealed by this fleet", errBadSession)
	}
	var seal sessionSeal
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&seal); err != nil || len(seal.Init) == 0 {
		return sessionSeal{}, fmt.Errorf("%w: malformed payload", errBadSession)
	}
	switch {
	case s.now().Unix() >= seal.Expires:
		return sessionSeal{}, fmt.Errorf("%w: expired", errBadSession)
	case !bytes.Equal(seal.Principal, principalDigest(principal)):
		return sessionSeal{}, fmt.Errorf("%w: %w", errBadSession, errOtherPrincipal)
	}
	return seal, nil
}

// errOtherPrincipal refuses a sealed id presented by another principal
// than the one that opened the session.
var errOtherPrincipal = errors.New("the session belongs to another principal")
