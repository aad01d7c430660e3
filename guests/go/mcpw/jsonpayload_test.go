package mcpw

import (
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// payloadTypes are the output payloads the encoder writes.
var payloadTypes = []reflect.Type{
	reflect.TypeFor[abi.Describe](), reflect.TypeFor[abi.ListResult](), reflect.TypeFor[abi.TemplatesResult](),
	reflect.TypeFor[abi.ReadResult](), reflect.TypeFor[abi.CompleteResult](), reflect.TypeFor[abi.ChangesResult](),
	reflect.TypeFor[abi.Error](),
}

// checkEncoder requires the encoder's output to equal encoding/json's and
// to decode (strictly, as the host does) to the same value.
func checkEncoder(t *testing.T, v any) {
	t.Helper()
	want := stdJSON(t, v)
	b, err := appendPayload([]byte("junk"), v)
	require.NoError(t, err)
	got := b[len("junk"):]
	require.Equal(t, string(want), string(got))
	typ := reflect.TypeOf(v).Elem()
	fromStd, fromOurs := reflect.New(typ), reflect.New(typ)
	require.NoError(t, abi.Decode(want, fromStd.Interface()))
	require.NoError(t, abi.Decode(got, fromOurs.Interface()))
	require.Equal(t, fromStd.Interface(), fromOurs.Interface())
}

func TestEncoderMatchesEncodingJSON(t *testing.T) {
	for _, typ := range payloadTypes {
		t.Run(typ.Name(), func(t *testing.T) {
			for seed := range uint64(300) {
				v := reflect.New(typ)
				randomFiller(seed).fill(v.Elem(), 0)
				checkEncoder(t, v.Interface())
			}
		})
	}
}

// TestEncoderCoversEveryField sets every field of every payload: a field
// added to abi but not to the encoder makes the outputs differ.
func TestEncoderCoversEveryField(t *testing.T) {
	for _, typ := range payloadTypes {
		t.Run(typ.Name(), func(t *testing.T) {
			v := reflect.New(typ)
			(&filler{next: func() uint64 { return 1 }, all: true}).fill(v.Elem(), 0)
			checkEncoder(t, v.Interface())
		})
	}
}

func TestEncoderZeroValues(t *testing.T) {
	text, zero, prio := "", int64(0), 0.0
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"empty text kept", &abi.ReadResult{Contents: []abi.Content{{URI: "x:a", Text: &text}}}, `{"contents":[{"uri":"x:a","text":""}]}`},
		{"size 0 kept", &abi.ListResult{Resources: []abi.Resource{{URI: "x:a", Name: "a", Size: &zero}}}, `{"resources":[{"uri":"x:a","name":"a","size":0}]}`},
		{"priority 0 kept", &abi.ReadResult{Contents: []abi.Content{{URI: "x:a", Text: &text, Annotations: &abi.Annotations{Priority: &prio}}}}, `{"contents":[{"uri":"x:a","text":"","annotations":{"priority":0}}]}`},
		{"nil slice is null", &abi.ListResult{}, `{"resources":null}`},
		{"empty changes", &abi.ChangesResult{}, `{}`},
		{"empty annotations", &abi.ReadResult{Contents: []abi.Content{{URI: "x:a", Text: &text, Annotations: &abi.Annotations{}}}}, `{"contents":[{"uri":"x:a","text":"","annotations":{}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := appendPayload(nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(b))
			checkEncoder(t, tt.v)
		})
	}
}

func TestEncoderRejectsNaN(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		ann := &abi.Annotations{Priority: &f}
		for _, v := range []any{
			&abi.ReadResult{Contents: []abi.Content{{URI: "x:a", Annotations: ann}}},
			&abi.ListResult{Resources: []abi.Resource{{URI: "x:a", Annotations: ann}}},
			&abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{{URITemplate: "x:a", Annotations: ann}}},
		} {
			_, err := appendPayload(nil, v)
			require.ErrorIs(t, err, errFloat)
		}
	}
	_, err := appendPayload(nil, &abi.ReadRequest{})
	require.Error(t, err, "an input type is not an output payload")
}

func FuzzEncoder(f *testing.F) {
	f.Add(uint8(0), []byte("describe"))
	f.Add(uint8(1), []byte("\x01\x02\x03list page with resources"))
	f.Add(uint8(3), []byte("\xff\xff\xff\xff\xff\xff\xff\xffread \"quoted\"\n\u2028"))
	f.Add(uint8(4), []byte{})
	f.Add(uint8(5), []byte("\x03\x03\x03\x03\x03\x03\x03\x03changes"))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		v := reflect.New(payloadTypes[int(kind)%len(payloadTypes)])
		bytesFiller(data).fill(v.Elem(), 0)
		checkEncoder(t, v.Interface())
	})
}
