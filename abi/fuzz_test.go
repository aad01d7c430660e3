package abi

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

var errNewline = errors.New("newline")

// The fuzz targets decode and validate untrusted guest output. Their seed
// corpora (here and in testdata/fuzz) run in every go test; a crash or a
// decoded payload that violates the decoder's promises fails.

func seedOutputs(f *testing.F) {
	for _, s := range []string{
		`{"contents":[{"uri":"n:a","text":"hi","mimeType":"text/plain"}]}`,
		`{"contents":[{"uri":"n:a","blob":"AAEC"}],"cache":{"ttlMs":5,"scope":"public"}}`,
		`{"resources":[{"uri":"n:a","name":"a","size":3,"annotations":{"audience":["user"],"priority":0.5}}],"nextCursor":"x"}`,
		`{"resourceTemplates":[{"uriTemplate":"n:{x}","name":"x"}]}`,
		`{"name":"n","version":"1","uriSpace":[{"scheme":"n"}],"operations":["read","list"]}`,
		`{"values":["a","b"],"total":2}`,
		`{"code":"not_found","message":"no"}`,
		`{"contents":[],"contents":[]}`,
		`{"URI":1}`,
		"{\"contents\":[{\"uri\":\"n:a\",\"text\":\"\\ud800\"}]}",
		"\xff",
		`[[[[[[[[[[[[[[[[[[[[`,
	} {
		f.Add([]byte(s))
	}
}

func FuzzDecodeRead(f *testing.F) {
	seedOutputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var r ReadResult
		if Decode(data, &r) != nil {
			return
		}
		if !json.Valid(data) || !utf8.Valid(data) {
			t.Fatalf("Decode accepted invalid JSON or UTF-8: %q", data)
		}
		_ = r.Validate(URISpace{{Scheme: "n"}})
	})
}

// FuzzDecodeReadFast holds the reflection-free read decoder to the general
// one: whatever it accepts, the general decoder accepts too, with a result
// deeply equal to its.
func FuzzDecodeReadFast(f *testing.F) {
	seedOutputs(f)
	for _, s := range fastReadSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastRead(t, data)
	})
}

func FuzzDecodeList(f *testing.F) {
	seedOutputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var r ListResult
		if Decode(data, &r) != nil {
			return
		}
		if r.Validate(URISpace{{Scheme: "n"}}) == nil {
			for _, res := range r.Resources {
				if !(URISpace{{Scheme: "n"}}).OwnsString(res.URI) {
					t.Fatalf("validated list holds a foreign uri %q", res.URI)
				}
			}
		}
	})
}

func FuzzDecodeDescribe(f *testing.F) {
	seedOutputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Describe
		if Decode(data, &d) == nil {
			_ = d.Validate()
		}
	})
}

func FuzzDecodeOthers(f *testing.F) {
	seedOutputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var c CompleteResult
		if Decode(data, &c) == nil {
			_ = c.Validate()
		}
		var tr TemplatesResult
		if Decode(data, &tr) == nil {
			_ = tr.Validate(URISpace{{Scheme: "n"}, {Scheme: "https", Authority: "api.example.com", PathPrefix: "/v1/"}})
		}
		var ch ChangesResult
		if Decode(data, &ch) == nil {
			_ = ch.Validate(URISpace{{Scheme: "n"}})
		}
		var e Error
		if Decode(data, &e) == nil {
			_ = e.Validate()
		}
	})
}

func FuzzValidBase64(f *testing.F) {
	for _, s := range []string{"", "AA==", "AAE=", "AAEC", "QR==", "A", "===="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := stdStrict.DecodeString(s)
		if strings.ContainsAny(s, "\r\n") {
			err = errNewline // stricter than the stdlib, which skips newlines
		}
		if got := ValidBase64(s); got != (err == nil) {
			t.Fatalf("ValidBase64(%q) = %v, stdlib strict decode err = %v", s, got, err)
		}
	})
}

var stdStrict = base64StdStrict()

// FuzzOwnsFast: the fast ownership check must agree with the full parse.
func FuzzOwnsFast(f *testing.F) {
	for _, s := range []string{"n:a", "n:///a/b", "N:x", "m:a", "n://host/a", "n:%zz", "n:a%2", "n:a b", "n:a?q", "1n:a", "n:"} {
		f.Add(s)
	}
	space := URISpace{{Scheme: "n"}, {Scheme: "x-y.z"}}
	f.Fuzz(func(t *testing.T, raw string) {
		owned, ok := space.ownsFast(raw)
		if !ok {
			return
		}
		u, err := ParseURI(raw)
		if full := err == nil && space.Owns(u); full != owned {
			t.Fatalf("ownsFast(%q) = %v, full parse says %v", raw, owned, full)
		}
	})
}
