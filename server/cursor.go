package server

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// errBadCursor is wrapped by every cursor decoding error. Clients get -32602.
var errBadCursor = errors.New("invalid cursor")

// List kinds, bound into each cursor so that a resources/list cursor cannot
// be replayed against resources/templates/list.
const (
	kindResources = "r"
	kindTemplates = "t"
)

const (
	// cursorVersion 2: the provider cursor in base64, cycle digests.
	cursorVersion = 2
	macSize       = sha256.Size
	// maxCursorText bounds a client cursor before any decoding: one provider
	// cursor (abi.MaxCursorLength, 4/3 of it in base64) plus the host's
	// fields and digests, the MAC, and base64 again.
	maxCursorText = 2 * (abi.MaxCursorLength + 256)
)

// position is where the next list page starts: provider Index (named Name,
// in name order), the provider's own Cursor, and Offset items into that
// provider page. Pages and Empty count, for loop protection, the provider
// pages consumed and the consecutive empty pages seen for this provider;
// Seen and Mark detect a provider whose cursors cycle (cycle.go).
type position struct {
	Kind   string `json:"k"`
	Query  []byte `json:"q,omitempty"` // digest of a narrowed listing's query (listQuery), else none
	Who    []byte `json:"w,omitempty"` // digest of the client's view when access rules are on (aclview.go)
	Index  int    `json:"i"`
	Name   string `json:"n"`
	Cursor opaque `json:"c,omitempty"`
	Offset int    `json:"o,omitempty"`
	Pages  int    `json:"p,omitempty"`
	Empty  int    `json:"e,omitempty"`
	Seen   []byte `json:"s,omitempty"` // digests of the last provider cursors, oldest first
	Mark   []byte `json:"m,omitempty"` // digest of the cursor of the last power-of-two page
}

// opaque is a provider cursor inside a host cursor, written in base64: JSON
// would escape some bytes into six (a control character, '<'), and the
// host cursor's size must follow from the provider cursor's length alone.
type opaque string

func (o opaque) MarshalJSON() ([]byte, error) { return json.Marshal([]byte(o)) }

func (o *opaque) UnmarshalJSON(b []byte) error {
	var v []byte
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = opaque(v)
	return nil
}

// cursorCodec signs and verifies host cursors:
// base64url(version byte || JSON position || HMAC-SHA256(version || JSON)).
// It signs with key; a cursor signed with a previous key (before a key
// rotation) is accepted too.
type cursorCodec struct {
	key      []byte
	previous [][]byte
}

func (c cursorCodec) encode(p position) string {
	payload, err := json.Marshal(p)
	if err != nil {
		panic("BUG: position does not marshal: " + err.Error())
	}
	msg := append([]byte{cursorVersion}, payload...)
	return base64.RawURLEncoding.EncodeToString(append(msg, c.mac(msg)...))
}

func (c cursorCodec) mac(msg []byte) []byte { return macWith(c.key, msg) }

func macWith(key, msg []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	return h.Sum(nil)
}

// signed reports whether sum is the MAC of msg under the key or a
// previous one.
func (c cursorCodec) signed(msg, sum []byte) bool {
	if hmac.Equal(sum, c.mac(msg)) {
		return true
	}
	for _, k := range c.previous {
		if hmac.Equal(sum, macWith(k, msg)) {
			return true
		}
	}
	return false
}

// decode verifies a client cursor. The result is authentic (the host made
// it) but may still be stale; check it against the providers with valid.
func (c cursorCodec) decode(s string) (position, error) {
	if len(s) > maxCursorText {
		return position{}, fmt.Errorf("%w: too long", errBadCursor)
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return position{}, fmt.Errorf("%w: not base64url", errBadCursor)
	}
	if len(raw) < 1+macSize || raw[0] != cursorVersion {
		return position{}, fmt.Errorf("%w: unknown format", errBadCursor)
	}
	msg, sum := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	if !c.signed(msg, sum) {
		return position{}, fmt.Errorf("%w: signature mismatch", errBadCursor)
	}
	return parsePosition(msg[1:])
}

// parsePosition decodes the signed payload strictly and bounds its fields.
func parsePosition(payload []byte) (position, error) {
	var p position
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil || dec.More() {
		return position{}, fmt.Errorf("%w: malformed payload", errBadCursor)
	}
	switch {
	case p.Kind != kindResources && p.Kind != kindTemplates:
		return position{}, fmt.Errorf("%w: unknown kind", errBadCursor)
	case p.Index < 0, p.Offset < 0 || p.Offset > abi.MaxListItems, p.Pages < 0, p.Empty < 0:
		return position{}, fmt.Errorf("%w: field out of range", errBadCursor)
	case len(p.Cursor) > abi.MaxCursorLength:
		return position{}, fmt.Errorf("%w: provider cursor too long", errBadCursor)
	case len(p.Seen)%digestSize != 0, len(p.Seen) > seenWindow*digestSize, len(p.Mark) != 0 && len(p.Mark) != digestSize,
		len(p.Query) != 0 && len(p.Query) != queryDigestSize, len(p.Who) != 0 && len(p.Who) != whoDigestSize:
		return position{}, fmt.Errorf("%w: malformed digests", errBadCursor)
	}
	if len(p.Query) == 0 {
		p.Query = nil
	}
	if len(p.Who) == 0 {
		p.Who = nil
	}
	if len(p.Seen) == 0 {
		p.Seen = nil // "s":"" is no digest, as encode writes it
	}
	if len(p.Mark) == 0 {
		p.Mark = nil
	}
	return p, nil
}

// valid checks an authentic position against the request's listing and
// the providers: a cursor of another list (another kind, or another
// provider or prefix of the resource tools view), or naming a provider
// that is no longer at that index, is stale.
func (p position) valid(q listQuery, backends []*backend) error {
	if p.Kind != q.kind || !bytes.Equal(p.Query, q.digest()) {
		return fmt.Errorf("%w: cursor belongs to another list", errBadCursor)
	}
	if !bytes.Equal(p.Who, q.who) {
		return fmt.Errorf("%w: cursor belongs to another client", errBadCursor)
	}
	if p.Index >= len(backends) || backends[p.Index].name != p.Name {
		return fmt.Errorf("%w: stale", errBadCursor)
	}
	return nil
}
