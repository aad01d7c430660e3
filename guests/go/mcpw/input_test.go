package mcpw

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

var inputSeeds = []string{
	``, ` `, "\n", `{}`, `{"uri":"fake:///a"}`, `{"uri":""}`, `{"uri":"a\"b"}`, `{"uri":"\u003cx\u003e"}`, `{"uri":"é"}`,
	`{"uri":"a\u0000"}`, `{"uri":"x","extra":1}`, `{"cursor":"p2"}`, `{"cursor":""}`, `{"cursor":"p\\2"}`,
	`{ "cursor":"p2"}`, `{"cursor":"p2"} `, `{"paths":["/a"]}`, `{"cursor":"c","paths":["/data/a"]}`,
	`{"uri":7}`, `{"uri":"x"`, `{"uri":"x"}}`, `{"URI":"x"}`, `{"uri":"` + "\x7f" + `"}`, `{"uri":"` + "\x01" + `"}`,
	`{"template":"fake:///{id}","argument":{"name":"id","value":"a"}}`, `null`, `[]`,
}

var inputTypes = []reflect.Type{
	reflect.TypeFor[abi.ReadRequest](), reflect.TypeFor[abi.PageRequest](),
	reflect.TypeFor[abi.ChangesRequest](), reflect.TypeFor[abi.CompleteRequest](),
}

// requireSameAsJSON requires decodeInput to agree with the SDK's old
// decoding: empty input is the zero value, else encoding/json.
func requireSameAsJSON(t *testing.T, typ reflect.Type, input string) {
	t.Helper()
	want := reflect.New(typ)
	var wantErr error
	if strings.TrimSpace(input) != "" {
		wantErr = json.Unmarshal([]byte(input), want.Interface())
	}
	got := reflect.New(typ)
	err := decodeInput([]byte(input), got.Interface())
	if wantErr != nil {
		require.Error(t, err, "input %q", input)
		return
	}
	require.NoError(t, err, "input %q", input)
	require.Equal(t, want.Interface(), got.Interface(), "input %q", input)
}

func TestDecodeInputMatchesEncodingJSON(t *testing.T) {
	for _, typ := range inputTypes {
		for _, in := range inputSeeds {
			requireSameAsJSON(t, typ, in)
		}
	}
}

func TestDecodeInputDoesNotAlias(t *testing.T) {
	in := []byte(`{"uri":"fake:///a"}`)
	var r abi.ReadRequest
	require.NoError(t, decodeInput(in, &r))
	copy(in, "XXXXXXXXXXXXXXXXXXXX")
	require.Equal(t, "fake:///a", r.URI, "the input buffer is reused by the next call")
}

func FuzzDecodeInput(f *testing.F) {
	for _, s := range inputSeeds {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, kind uint8, input string) {
		requireSameAsJSON(t, inputTypes[int(kind)%len(inputTypes)], input)
	})
}
