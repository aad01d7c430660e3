package mcpw

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// checkFields steer the fields whose valid values are rare at random.
var checkFields = map[string][]string{
	"URI":          {"fake:///a", "fake:a", "fake:///a%20b", "fake:///a%2", "fake://host/x", "FAKE:///a", "fake:///a b", "other:x"},
	"Updated":      {"fake:///a", "fake:x%41", "fake:///a?q", "other:x"},
	"MIMEType":     {"", "text/plain", "text/plain; charset=utf-8", "te xt/plain", "text/"},
	"LastModified": {"", "2025-03-14T15:09:26Z", "2025-02-28T23:59:59.5+01:00", "2025-02-30T00:00:00Z", "2025-03-14 15:09:26Z"},
	"Audience":     {"user", "assistant", "bot"},
	"Scope":        {"public", "private", "shared"},
	"Blob":         {"", "AAEC", "AA==", "AB==", "A==="},
	"Src":          {"https://x/i.png", "data:,", "http://x", "https://x/\x1b]52;c;eA==\x07", "https://x/\u202egnp", "data:\u0085,"},
	"Sizes":        {"48x48", "any", "4\u20288", "\x1b[2J", "\u200b"},
	"Theme":        {"", "light", "dark", "dim"},
	"URITemplate":  {"fake:///{id}", "fake:///{id}\x7f", "", "other:///{id}", "fake:{+id}", "fake:///{id"},
}

// checkTypes are the payloads checker proves; CompleteResult goes
// straight to abi (its rules cost nothing).
var checkTypes = []reflect.Type{
	reflect.TypeFor[abi.ReadResult](), reflect.TypeFor[abi.ListResult](),
	reflect.TypeFor[abi.TemplatesResult](), reflect.TypeFor[abi.ChangesResult](),
}

func fastCheck(c *checker, v any) bool {
	switch v := v.(type) {
	case *abi.ReadResult:
		return c.readResult(v)
	case *abi.ListResult:
		return c.listResult(v)
	case *abi.TemplatesResult:
		return c.templatesResult(v)
	case *abi.ChangesResult:
		return c.changesResult(v)
	}
	panic("fastCheck: unsupported type")
}

func abiCheck(v any) error {
	switch v := v.(type) {
	case *abi.ReadResult:
		return v.Validate(space)
	case *abi.ListResult:
		return v.Validate(space)
	case *abi.TemplatesResult:
		return v.Validate(space)
	case *abi.ChangesResult:
		return v.Validate(space)
	}
	panic("abiCheck: unsupported type")
}

// requireSound requires that a result the checker passes, abi accepts.
func requireSound(t *testing.T, c *checker, v any) bool {
	t.Helper()
	ok := fastCheck(c, v)
	if ok {
		require.NoError(t, abiCheck(v), "checker passed a result abi rejects")
	}
	return ok
}

func TestCheckerIsSound(t *testing.T) {
	for _, typ := range checkTypes {
		t.Run(typ.Name(), func(t *testing.T) {
			c, passed, valid := newChecker(space), 0, 0
			for seed := range uint64(20000) {
				v := reflect.New(typ)
				f := randomFiller(seed)
				f.pool, f.byField = checkPool, checkFields
				f.fill(v.Elem(), 0)
				if requireSound(t, c, v.Interface()) {
					passed++
				}
				if abiCheck(v.Interface()) == nil {
					valid++
				}
			}
			t.Logf("%d of 20000 passed the fast check, %d valid", passed, valid)
			require.Greater(t, passed, 100, "too few samples pass: the test proves little")
			require.Greater(t, passed, valid/3, "the fast check rejects too many valid results")
		})
	}
}

func TestCheckerPassesTypicalResults(t *testing.T) {
	now := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC).Format(time.RFC3339Nano)
	ann := &abi.Annotations{Audience: []string{"user", "assistant"}, Priority: new(0.5), LastModified: now}
	c := newChecker(space)
	results := []any{
		&abi.ReadResult{Contents: []abi.Content{Text("fake:///a%20b", "text/plain", "hi"), Blob("fake:///b", "image/png", []byte{1, 2})}},
		&abi.ReadResult{Contents: []abi.Content{{URI: "fake:x", Text: new(""), Annotations: ann}}, Cache: &abi.CacheHint{TTLMs: 1000, Scope: abi.ScopePublic}},
		&abi.ListResult{Resources: []abi.Resource{{URI: "fake:///a", Name: "a", MIMEType: "text/markdown", Size: new(int64(3)), Annotations: ann,
			Icons: []abi.Icon{{Src: "https://x/i.png", MIMEType: "image/png", Theme: "dark"}}}}, NextCursor: "p2"},
		&abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{{URITemplate: "fake:///{id}", Name: "item"}}},
		&abi.ChangesResult{Cursor: "c", Updated: []string{"fake:///a"}, ListChanged: true},
	}
	for _, v := range results {
		require.NoError(t, abiCheck(onTheWire(t, v)))
		require.True(t, fastCheck(c, v), "%#v", v)
	}
}

// onTheWire is v as the host decodes it from what the SDK sends (outside
// wasm, contents travel inline: text escaped, blobs in base64).
func onTheWire(t *testing.T, v any) any {
	t.Helper()
	b, err := appendPayload(nil, v)
	require.NoError(t, err)
	out := reflect.New(reflect.TypeOf(v).Elem()).Interface()
	require.NoError(t, abi.Decode(b, out))
	return out
}

func TestCheckerLeavesOtherSpacesToAbi(t *testing.T) {
	c := newChecker(abi.URISpace{{Scheme: "https", Authority: "api.example.com"}})
	r := &abi.ReadResult{Contents: []abi.Content{Text("https://api.example.com/x", "", "t")}}
	require.NoError(t, r.Validate(abi.URISpace{{Scheme: "https", Authority: "api.example.com"}}))
	require.False(t, c.readResult(r), "ownership with an authority is proven by abi, not here")
}

func FuzzChecker(f *testing.F) {
	f.Add(uint8(0), []byte("\x01\x02\x03\x04\x05\x06\x07\x08"))
	f.Add(uint8(1), []byte("\x00\x00\x00\x00\x00\x00\x00\x00\x02"))
	f.Add(uint8(2), []byte("\x07\x07\x07\x07\x07\x07\x07\x07"))
	f.Add(uint8(3), []byte("\x03"))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		v := reflect.New(checkTypes[int(kind)%len(checkTypes)])
		fl := bytesFiller(data)
		fl.pool, fl.byField = checkPool, checkFields
		fl.fill(v.Elem(), 0)
		requireSound(t, newChecker(space), v.Interface())
	})
}
