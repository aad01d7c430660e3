package abi

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecode_RejectsWhatEncodingJSONAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // substring of the error; "" = must decode
	}{
		{"valid", `{"contents":[{"uri":"x:a","text":"hi"}]}`, ""},
		{"valid escapes and pair", `{"contents":[{"uri":"x:a","text":"\ud83d\ude00 \u00e9 \n"}]}`, ""},
		{"duplicate key", `{"contents":[],"contents":[]}`, "duplicate member"},
		{"duplicate key nested", `{"contents":[{"uri":"x:a","uri":"x:b","text":""}]}`, "duplicate member"},
		{"case variant key", `{"contents":[{"URI":"x:a","text":""}]}`, "unknown member"},
		{"case variant duplicate", `{"contents":[{"uri":"x:a","text":"","mimeType":"a/b","mimetype":"a/b"}]}`, "unknown member"},
		{"unknown key", `{"contents":[],"extra":1}`, "unknown member"},
		{"known key in wrong object", `{"contents":[{"uri":"x:a","text":"","resources":[]}]}`, "unknown member \"resources\" in Content"},
		{"escaped key", `{"cont\u0065nts":[]}`, "escaped member name"},
		{"invalid utf8", "{\"contents\":[{\"uri\":\"x:a\",\"text\":\"\xff\"}]}", "invalid UTF-8"},
		{"lone high surrogate", `{"contents":[{"uri":"x:a","text":"\ud800"}]}`, "lone UTF-16 surrogate"},
		{"lone low surrogate", `{"contents":[{"uri":"x:a","text":"\udc00x"}]}`, "lone UTF-16 surrogate"},
		{"trailing data", `{"contents":[]} {}`, "trailing data"},
		{"truncated", `{"contents":[`, "unexpected end"},
		{"control char in string", "{\"contents\":[{\"uri\":\"x:a\",\"text\":\"a\x01\"}]}", "control character"},
		{"wrong type", `{"contents":"nope"}`, "want '['"},
		{"string for int", `{"contents":[],"cache":{"ttlMs":"5","scope":"public"}}`, "want a number"},
		{"float for int", `{"contents":[],"cache":{"ttlMs":1.5,"scope":"public"}}`, "want an integer"},
		{"null for string", `{"contents":[{"uri":null,"text":""}]}`, "want a string"},
		{"null slice ok", `{"contents":null}`, ""},
		{"bad number", `{"contents":[],"cache":{"ttlMs":01,"scope":"public"}}`, "want ',' or '}'"},
		{"deeper than the schema", `{"contents":[` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `]}`, "want '{'"},
		{"not json", `hello`, "want '{'"},
		{"empty", ``, "unexpected end"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r ReadResult
			err := Decode([]byte(tc.in), &r)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrMalformed), "error must wrap ErrMalformed: %v", err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestDecode_ErrorsNeverEchoInput(t *testing.T) {
	secret := "SECRET-\x1b[31m-PAYLOAD"
	for _, in := range []string{
		`{"` + secret + `":1}`,
		`{"contents":"` + secret + `"}`,
		`{"contents":[{"uri":"x:a","text":"ok","bogus` + secret + `":1}]}`,
	} {
		var r ReadResult
		err := Decode([]byte(in), &r)
		require.Error(t, err)
		require.NotContains(t, err.Error(), "SECRET")
		require.NotContains(t, err.Error(), "\x1b")
	}
}

func TestDecode_AllOutputTypes(t *testing.T) {
	cases := map[string]any{
		`{"name":"n","version":"1","uriSpace":[{"scheme":"n"}],"operations":["read"],"requests":{"config":[{"key":"k","secret":true}]}}`: &Describe{},
		`{"resources":[{"uri":"n:a","name":"a","size":0,"annotations":{"priority":0}}],"nextCursor":"c"}`:                                &ListResult{},
		`{"resourceTemplates":[{"uriTemplate":"n:{x}","name":"x"}]}`:                                                                     &TemplatesResult{},
		`{"values":["a"],"total":1,"hasMore":false}`:                                                                                     &CompleteResult{},
		`{"cursor":"c","updated":["n:a"],"listChanged":true}`:                                                                            &ChangesResult{},
		`{"code":"not_found","message":"m"}`:                                                                                             &Error{},
	}
	for in, v := range cases {
		require.NoError(t, Decode([]byte(in), v), in)
	}
	var l ListResult
	require.NoError(t, Decode([]byte(`{"resources":[{"uri":"n:a","name":"a","size":0,"annotations":{"priority":0}}]}`), &l))
	require.NotNil(t, l.Resources[0].Size, "size 0 must survive decoding")
	require.NotNil(t, l.Resources[0].Annotations.Priority, "priority 0 must survive decoding")
}

// TestDecode_SmallAndLargeAgree: a payload up to sharedTextMax decodes its
// strings as substrings of one copy, a larger one copies them one by one;
// both give what encoding/json gives, escapes included.
func TestDecode_SmallAndLargeAgree(t *testing.T) {
	for _, n := range []int{1, 10, sharedTextMax / 80, sharedTextMax / 40} {
		var sb strings.Builder
		sb.WriteString(`{"resources":[`)
		for i := range n {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"uri":"x:///%d","name":"n\u00e9 %d","mimeType":"text/plain","size":%d}`, i, i, i)
		}
		sb.WriteString(`]}`)
		in := []byte(sb.String())
		var got, want ListResult
		require.NoError(t, Decode(in, &got))
		require.NoError(t, json.Unmarshal(in, &want))
		require.Equal(t, want, got, "%d resources, %d bytes", n, len(in))
	}
}

// fastReadSeeds are read results in and just outside decodeReadFast's
// shape.
var fastReadSeeds = []string{
	`{"contents":[{"uri":"file:///tmp/d/f","rawText":0,"annotations":{"lastModified":"2026-11-24T15:17:00.123456789Z"}}]}`,
	`{"contents":[{"uri":"file:///tmp/d/a.md","mimeType":"text/markdown","rawText":0,"annotations":{"lastModified":"2026-11-24T15:17:00Z"}}]}`,
	`{"contents":[{"uri":"n:a","rawBlob":0},{"rawText":1,"uri":"n:b","mimeType":"text/plain"}]}`,
	`{"contents":[{"uri":"n:a","rawText":123456789}]}`,
	`{"contents":[{"uri":"n:a","rawText":1234567890}]}`,
	`{"contents":[{"uri":"n:a","rawText":01}]}`,
	`{"contents":[{"uri":"n:a","rawText":1.5}]}`,
	`{"contents":[{"uri":"n:a","rawText":-1}]}`,
	`{"contents":[{"uri":"n:a","rawText":0,"rawText":0}]}`,
	`{"contents":[{"uri":"n:a","rawText":0,"uri":"n:b"}]}`,
	`{"contents":[{"uri":"n:a","rawText":0}],"cache":{"ttlMs":5,"scope":"public"}}`,
	`{"contents":[{"uri":"n:a","text":"x"}]}`,
	`{"contents":[{"uri":"n:\u00e9","rawText":0}]}`,
	`{"contents":[{"uri":"n:é","rawText":0}]}`,
	`{"contents":[{"uri":"n:a","rawText":0} ]}`,
	`{"contents":[{"uri":"n:a","rawText":0}]} `,
	`{"contents":[{"uri":"n:a","rawText":null}]}`,
	`{"contents":[{"rawText":0}]}`,
	`{"contents":[]}`,
	`{"contents":[{"uri":"n:a","rawText":0,"annotations":{"lastModified":"x","priority":1}}]}`,
	`{"contents":[{"uri":"n:a","rawText":0,"annotations":{}}]}`,
	`{"contents":[{"uri":"n:a","rawText":0}],}`,
	`{"contents":[{"uri":"n:a","rawText":0},]}`,
	`{"contents":[{"uri":"n:a","rawText":0}]}]}`,
}

// checkFastRead fails if decodeReadFast accepts data and the general
// decoder does not, or decodes it differently; and checks that Decode
// gives the general decoder's verdict either way.
func checkFastRead(t *testing.T, data []byte) {
	t.Helper()
	var fast, general, viaDecode ReadResult
	accepted := decodeReadFast(data, &fast)
	err := decode(data, &general)
	if accepted {
		if err != nil {
			t.Fatalf("fast path accepted %q, which the general decoder refuses: %v", data, err)
		}
		if !reflect.DeepEqual(fast, general) {
			t.Fatalf("fast path decoded %q as %+v, the general decoder as %+v", data, fast, general)
		}
	} else if !reflect.DeepEqual(fast, ReadResult{}) {
		t.Fatalf("fast path refused %q but wrote %+v", data, fast)
	}
	if derr := Decode(data, &viaDecode); (derr == nil) != (err == nil) || !reflect.DeepEqual(viaDecode, general) {
		t.Fatalf("Decode(%q) = %+v, %v; the general decoder: %+v, %v", data, viaDecode, derr, general, err)
	}
}

func TestDecodeReadFast(t *testing.T) {
	accepted := 0
	for _, s := range fastReadSeeds {
		var r ReadResult
		if decodeReadFast([]byte(s), &r) {
			accepted++
		}
		checkFastRead(t, []byte(s))
	}
	// The first four seeds are in the fast path's shape; the rest are not.
	require.Equal(t, 4, accepted)
	var r ReadResult
	require.True(t, decodeReadFast([]byte(fastReadSeeds[2]), &r))
	require.Len(t, r.Contents, 2)
	require.Equal(t, "n:b", r.Contents[1].URI)
	require.Equal(t, "text/plain", r.Contents[1].MIMEType)
	require.Equal(t, 1, *r.Contents[1].RawText)
	require.Nil(t, r.Contents[1].RawBlob)
}
